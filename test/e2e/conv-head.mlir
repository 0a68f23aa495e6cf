// A segmentation head: a padded 3x3 convolution (16 channels, bias + ReLU)
// read only by a 1x1 convolution to 3 classes (bias). At batch 1 the 3x3's
// kernel computes the 1x1 from each chunk it evacuates (Match.h's
// findChainedConv): a block-diagonal [blocks x 16, blocks x 3] filter times
// the ReLU's tile, the 16-channel result never stored. At batch 2 the 1x1
// keeps its own kernel. Both against numpy in float64. The 1x1's filter is
// a constant, as a model's weights are (a filter the program computes
// would be transposed between the two).
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python %S/Inputs/conv_head_ref.py %t 1
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input b1=%t.b1.npy --input b2=%t.b2.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %s --compile-to=tiled | FileCheck %s --check-prefix=TILED
// Under auto-cast the chained 1x1 reads the 3x3's result rounded to bf16
// (the ReLU's evacuation writes bf16, no copy of its own), as a stored
// bf16 result would be; against the
// reference that rounds the same operands (within 1e-4: the 3x3's rounded
// outputs may differ in a last bf16 bit where f32 sums' order differs).
// RUN: nki-compile %s --auto-cast=matmul -o %t.ac.nkb
// RUN: %system_python %S/Inputs/conv_head_ref.py %t.ac 1 --bf16
// RUN: nki-run %t.ac.nkb --input x=%t.ac.x.npy --input w1=%t.ac.w1.npy --input b1=%t.ac.b1.npy --input b2=%t.ac.b2.npy --expected out0=%t.ac.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %s --auto-cast=matmul --compile-to=tiled | FileCheck %s --check-prefix=AUTOCAST
// AUTOCAST: nki.activation "relu" %{{.*}} into %[[B:[0-9]+]] bias %{{.*}} : memref<{{[0-9]+}}x1xf32, #nki.memory<sbuf>> : memref<{{[0-9]+}}x{{[0-9]+}}xf32, #nki.memory<psum>> into memref<{{[0-9]+}}x{{[0-9]+}}xbf16, #nki.memory<sbuf>>
// AUTOCAST-NOT: nki.copy %{{.*}} : memref<{{[0-9]+}}x{{[0-9]+}}xf32, #nki.memory<sbuf>> into memref<{{[0-9]+}}x{{[0-9]+}}xbf16, #nki.memory<sbuf>>
// AUTOCAST: %[[P:[0-9]+]] = nki.alloc : memref<{{[0-9]+}}x{{[0-9]+}}xf32, #nki.memory<psum>>
// AUTOCAST-NEXT: nki.matmul %{{[0-9]+}}, %[[B]] into %[[P]]
// RUN: sed -e 's/tensor<1x/tensor<2x/g' %s > %t.b2.mlir
// RUN: nki-compile %t.b2.mlir -o %t.b2.nkb
// RUN: %system_python %S/Inputs/conv_head_ref.py %t.b2 2
// RUN: nki-run %t.b2.nkb --input x=%t.b2.x.npy --input w1=%t.b2.w1.npy --input b1=%t.b2.b1.npy --input b2=%t.b2.b2.npy --expected out0=%t.b2.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %t.b2.mlir --compile-to=tiled | FileCheck %s --check-prefix=BATCH2
// CHECK: output 'out0' matches
// TILED: nki.activation "relu" %{{.*}} into %[[Y:[0-9]+]] bias
// TILED-NEXT: %[[P:[0-9]+]] = nki.alloc : memref<{{[0-9]+}}x{{[0-9]+}}xf32, #nki.memory<psum>>
// TILED-NEXT: nki.matmul %{{[0-9]+}}, %[[Y]] into %[[P]]
// TILED: nki.tensor_scalar %[[P]] into %{{.*}} {op0 = "add"}
// BATCH2-NOT: nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into
func.func @main(%x: tensor<1x16x64x64xf32> {nki.name = "x"}, %w1: tensor<16x16x3x3xf32> {nki.name = "w1"}, %b1: tensor<16xf32> {nki.name = "b1"}, %b2: tensor<3xf32> {nki.name = "b2"}) -> tensor<1x3x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %w2 = arith.constant dense<[[[[-0.375]], [[-0.25]], [[-0.125]], [[0.0]], [[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]], [[-0.125]], [[0.0]], [[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]]], [[[-0.125]], [[0.0]], [[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]], [[-0.125]], [[0.0]], [[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]], [[-0.125]], [[0.0]]], [[[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]], [[-0.125]], [[0.0]], [[0.125]], [[0.25]], [[0.375]], [[-0.375]], [[-0.25]], [[-0.125]], [[0.0]], [[0.125]], [[0.25]]]]> : tensor<3x16x1x1xf32>
  %e = tensor.empty() : tensor<1x16x64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x64x64xf32> to tensor<1x16x66x66xf32>
  %c1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%xp, %w1 : tensor<1x16x66x66xf32>, tensor<16x16x3x3xf32>) outs(%z : tensor<1x16x64x64xf32>) -> tensor<1x16x64x64xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b1 : tensor<1x16x64x64xf32>, tensor<16xf32>) outs(%e : tensor<1x16x64x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x64x64xf32>
  %e3 = tensor.empty() : tensor<1x3x64x64xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x3x64x64xf32>) -> tensor<1x3x64x64xf32>
  %c2 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%r1, %w2 : tensor<1x16x64x64xf32>, tensor<3x16x1x1xf32>) outs(%z3 : tensor<1x3x64x64xf32>) -> tensor<1x3x64x64xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %b2 : tensor<1x3x64x64xf32>, tensor<3xf32>) outs(%e3 : tensor<1x3x64x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x3x64x64xf32>
  return %r2 : tensor<1x3x64x64xf32>
}
