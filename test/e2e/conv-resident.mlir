// Tensors that convolutions and poolings exchange stay in SBUF
// (lib/Conversion/Tiling/Residents.h): a padded 3x3 convolution with a
// bias + ReLU epilogue writes 160 channels (two partition blocks) that a
// 3x3 stride-2 max pool reads with -inf padding (computed by the
// convolution's kernel from each chunk, so that result, which nothing else
// reads, is never stored); the pooled tensor is read by a zero-padded 3x3
// convolution and an unpadded 1x1 one (one SBUF tile with a zero border
// serves both), and the 3x3's raw result is the 1x1's residual operand.
// Batch 2. Every intermediate is resident: no DMA touches them, only the
// input, the filters and the output go through HBM.
// RUN: nki-compile %s --compile-to=tiled -o - | FileCheck %s --check-prefix=TILED
// RUN: nki-compile %s --compile-to=tiled -o - | grep -c "memref.alloc() .*memref<2x160" | FileCheck %s --check-prefix=ALLOCS
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python %S/Inputs/conv_resident_ref.py %t
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input b1=%t.b1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %s -o %t.hbm.nkb --mlir-disable-threading --sbuf-resident=false
// RUN: nki-run %t.hbm.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input b1=%t.b1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// Tensors kept in SBUF leave --resident-margin bytes a partition free
// (nki-compile raises it by itself when a plan fragments): with nearly all
// of a partition reserved, the two intermediates go through HBM too.
// RUN: nki-compile %s --compile-to=tiled --resident-margin=190000 -o - | grep -c "memref.alloc() .*memref<2x160" | FileCheck %s --check-prefix=MARGIN
// RUN: nki-compile %s -o %t.margin.nkb --resident-margin=190000
// RUN: nki-run %t.margin.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input b1=%t.b1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// MARGIN: {{^3$}}
// Under auto-cast the pooled tensor is read only by convolutions that round
// it to bf16 (a max of rounded values is the rounded max): it is kept in
// bf16, and the pool combines bf16 windows of the convolution's chunks,
// which its evacuation writes in bf16. The reference rounds the
// convolutions' operands likewise (the rounding of the fp32 conv result may
// differ by an ulp of bf16).
// RUN: nki-compile %s --auto-cast=matmul --compile-to=tiled -o - | FileCheck %s --check-prefix=NARROW
// RUN: nki-compile %s --auto-cast=matmul -o %t.bf16.nkb
// RUN: %system_python %S/Inputs/conv_resident_ref.py %t.bf16 --bf16
// RUN: nki-run %t.bf16.nkb --input x=%t.bf16.x.npy --input w1=%t.bf16.w1.npy --input b1=%t.bf16.b1.npy --input w2=%t.bf16.w2.npy --input w3=%t.bf16.w3.npy --expected out0=%t.bf16.y.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: output 'out0' matches
// NARROW-NOT: 18x18
// NARROW: nki.alloc : memref<128x2x2x10x10xbf16, #nki.memory<sbuf>>
// NARROW: nki.tensor_tensor "max" {{.*}} : memref<{{.*}}xbf16, {{.*}}>, memref<{{.*}}xbf16, {{.*}}> into memref<{{.*}}xbf16, {{.*}}#nki.memory<sbuf>>
// NARROW-NOT: 18x18

// The pooled tensor: [128, 2 blocks, 2 images, 1 + 8 + 1, 1 + 8 + 1] with
// a zero border; the pool's input is nowhere.
// TILED-NOT: 18x18
// TILED: nki.alloc : memref<128x2x2x10x10xf32, #nki.memory<sbuf>>
// TILED: nki.tensor_tensor "max"
// TILED-NOT: 18x18
// The only activation left in HBM is the result.
// ALLOCS: {{^1$}}
func.func @main(%x: tensor<2x8x16x16xf32> {nki.name = "x"}, %w1: tensor<160x8x3x3xf32> {nki.name = "w1"}, %b1: tensor<160xf32> {nki.name = "b1"}, %w2: tensor<160x160x1x1xf32> {nki.name = "w2"}, %w3: tensor<160x160x3x3xf32> {nki.name = "w3"}) -> tensor<2x160x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x8x16x16xf32> to tensor<2x8x18x18xf32>
  %e1 = tensor.empty() : tensor<2x160x16x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x160x16x16xf32>) -> tensor<2x160x16x16xf32>
  %c1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%xp, %w1 : tensor<2x8x18x18xf32>, tensor<160x8x3x3xf32>) outs(%z1 : tensor<2x160x16x16xf32>) -> tensor<2x160x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b1 : tensor<2x160x16x16xf32>, tensor<160xf32>) outs(%e1 : tensor<2x160x16x16xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x160x16x16xf32>
  %rp = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x160x16x16xf32> to tensor<2x160x18x18xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e2 = tensor.empty() : tensor<2x160x8x8xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x160x8x8xf32>) -> tensor<2x160x8x8xf32>
  %p = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%rp, %win : tensor<2x160x18x18xf32>, tensor<3x3xf32>) outs(%f2 : tensor<2x160x8x8xf32>) -> tensor<2x160x8x8xf32>
  %pp = tensor.pad %p low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x160x8x8xf32> to tensor<2x160x10x10xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x160x8x8xf32>) -> tensor<2x160x8x8xf32>
  %c3 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%pp, %w3 : tensor<2x160x10x10xf32>, tensor<160x160x3x3xf32>) outs(%z3 : tensor<2x160x8x8xf32>) -> tensor<2x160x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<2x160x8x8xf32>, tensor<160x160x1x1xf32>) outs(%z3 : tensor<2x160x8x8xf32>) -> tensor<2x160x8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %c3 : tensor<2x160x8x8xf32>, tensor<2x160x8x8xf32>) outs(%e2 : tensor<2x160x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x160x8x8xf32>
  return %y : tensor<2x160x8x8xf32>
}
