// A squeeze-and-excitation block (what EfficientNet's MBConv blocks end
// with): a global average pooling in the importer's form (a reduction of
// [C, H * W] into [C], read as [N, C, 1, 1]), two 1x1 convolutions with a
// SiLU between them, a sigmoid of the result scaling x's channels, and the
// next convolution. The pooled vector, the SiLU's output and the second
// convolution's output stay in SBUF ([C, 1, 1, 1, 1] tiles): the pooling
// writes its sums there (its zero init is not read), the convolutions read
// and write them there (the SiLU and the second convolution's copy for
// both images at once: one pixel each), and the scaled convolution reads
// the sigmoid's operand there (it scales its filter's rows by the factor,
// the sigmoid computed for both images at once). The pooling sums x per
// channel and divides each sum once. No vector goes through HBM. Batch 2,
// against numpy in float64.
// RUN: nki-compile %s --compile-to=tiled -o - | FileCheck %s --check-prefix=TILED
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python %S/Inputs/se_resident_ref.py %t
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %s -o %t.hbm.nkb --sbuf-resident=false
// RUN: nki-run %t.hbm.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: output 'out0' matches

// TILED-DAG: %[[P:.*]] = nki.alloc : memref<16x1x2x1x1xf32, #nki.memory<sbuf>>
// TILED-DAG: %[[S:.*]] = nki.alloc : memref<4x1x2x1x1xf32, #nki.memory<sbuf>>
// TILED-DAG: %[[F:.*]] = nki.alloc : memref<16x1x2x1x1xf32, #nki.memory<sbuf>>
// TILED-NOT: memref.alloc() {{.*}} : memref<2x4x1x1xf32>
// TILED-NOT: memref.alloc() {{.*}} : memref<2x16x1x1xf32>
// TILED:     nki.activation "identity" %{{.*}} accum %[[SUM:[^ ]*]] :
// TILED:     nki.tensor_scalar %[[SUM]] into %{{.*}} {imm0 = 6.400000e+01 : f32, op0 = "div"}
// TILED:     nki.copy %{{.*}} into %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> into memref<16x1x1xf32, strided<{{.*}}>, #nki.memory<sbuf>>
// TILED:     nki.activation "silu" %{{.*}} into %{{.*}} : memref<4x2xf32, #nki.memory<psum>> into memref<4x2x1x1xf32, strided<{{.*}}>, #nki.memory<sbuf>>
// TILED:     nki.copy %{{.*}} into %{{.*}} : memref<16x2xf32, #nki.memory<psum>> into memref<16x2x1x1xf32, strided<{{.*}}>, #nki.memory<sbuf>>
// TILED:     nki.activation "sigmoid" %{{.*}} into %{{.*}} : memref<16x2xf32, strided<[2, 1]>, #nki.memory<sbuf>> into memref<16x2xf32, #nki.memory<sbuf>>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @main(%x: tensor<2x16x8x8xf32> {nki.name = "x"}, %w1: tensor<4x16x1x1xf32> {nki.name = "w1"}, %w2: tensor<16x4x1x1xf32> {nki.name = "w2"}, %w3: tensor<8x16x1x1xf32> {nki.name = "w3"}) -> tensor<2x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %one = arith.constant 1.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2, 3]] : tensor<2x16x8x8xf32> into tensor<32x64xf32>
  %e = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<32x64xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %n : f32
    %s = arith.addf %o, %d : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %pe = tensor.expand_shape %p [[0, 1, 2, 3]] output_shape [2, 16, 1, 1] : tensor<32xf32> into tensor<2x16x1x1xf32>
  %e1 = tensor.empty() : tensor<2x4x1x1xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x1x1xf32>) -> tensor<2x4x1x1xf32>
  %f1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%pe, %w1 : tensor<2x16x1x1xf32>, tensor<4x16x1x1xf32>) outs(%z1 : tensor<2x4x1x1xf32>) -> tensor<2x4x1x1xf32>
  %s1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f1 : tensor<2x4x1x1xf32>) outs(%e1 : tensor<2x4x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ng = arith.negf %a : f32
    %ex = math.exp %ng : f32
    %dn = arith.addf %ex, %one : f32
    %sg = arith.divf %one, %dn : f32
    %r = arith.mulf %a, %sg : f32
    linalg.yield %r : f32
  } -> tensor<2x4x1x1xf32>
  %e2 = tensor.empty() : tensor<2x16x1x1xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32>
  %f2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s1, %w2 : tensor<2x4x1x1xf32>, tensor<16x4x1x1xf32>) outs(%z2 : tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32>
  %ex = tensor.empty() : tensor<2x16x8x8xf32>
  %sc = linalg.generic {indexing_maps = [#col, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f2, %x : tensor<2x16x1x1xf32>, tensor<2x16x8x8xf32>) outs(%ex : tensor<2x16x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %ng = arith.negf %a : f32
    %ex2 = math.exp %ng : f32
    %dn = arith.addf %ex2, %one : f32
    %sg = arith.divf %one, %dn : f32
    %r = arith.mulf %sg, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8x8xf32>
  %e3 = tensor.empty() : tensor<2x8x8x8xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%sc, %w3 : tensor<2x16x8x8xf32>, tensor<8x16x1x1xf32>) outs(%z3 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %y : tensor<2x8x8x8xf32>
}
