// se-resident.mlir's squeeze-and-excitation block on 4 x 4 maps (a 1x1
// convolution's result, kept in SBUF), read by a 1x1 convolution of 32
// filters: more filters than an image has pixels, so the convolution does
// not absorb the scale (scaling its filter would take C x F multiplies an
// image, the scale C x H x W; Match.h's findChannelScale). The scale runs
// as its own kernel over both images at once (ChannelGeneric.cpp): the
// sigmoid one instruction over [16, 2], the product one instruction over
// [16, 2, 4, 4] with the factor broadcast along the pixels (strides [2, 1,
// 0, 0]). Batch 2, against numpy in float64.
// RUN: nki-compile %s --compile-to=tiled -o - | FileCheck %s --check-prefix=TILED
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python %S/Inputs/se_resident_ref.py %t 4 32 conv
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w0=%t.w0.npy --input w1=%t.w1.npy --input w2=%t.w2.npy --input w3=%t.w3.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: output 'out0' matches

// TILED:     nki.activation "sigmoid" %{{.*}} into %{{.*}} : memref<16x2xf32, strided<[2, 1]>, #nki.memory<sbuf>> into memref<16x2xf32, #nki.memory<sbuf>>
// TILED: nki.tensor_tensor "mul" %{{.*}}, %{{.*}} into %{{.*}} : memref<16x2x4x4xf32, strided<[32, 16, 4, 1]>, #nki.memory<sbuf>>, memref<16x2x4x4xf32, strided<[2, 1, 0, 0]>, #nki.memory<sbuf>> into memref<16x2x4x4xf32, strided<[32, 16, 4, 1]>, #nki.memory<sbuf>>
// TILED-NOT: nki.tensor_scalar {{.*}}op0 = "mul"
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @main(%x: tensor<2x16x4x4xf32> {nki.name = "x"}, %w0: tensor<16x16x1x1xf32> {nki.name = "w0"}, %w1: tensor<4x16x1x1xf32> {nki.name = "w1"}, %w2: tensor<16x4x1x1xf32> {nki.name = "w2"}, %w3: tensor<32x16x1x1xf32> {nki.name = "w3"}) -> tensor<2x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %one = arith.constant 1.0 : f32
  %xe = tensor.empty() : tensor<2x16x4x4xf32>
  %xz = linalg.fill ins(%zero : f32) outs(%xe : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  %xr = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w0 : tensor<2x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%xz : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  %c = tensor.collapse_shape %xr [[0, 1], [2, 3]] : tensor<2x16x4x4xf32> into tensor<32x16xf32>
  %e = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<32x16xf32>) outs(%z : tensor<32xf32>) {
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
  %ex = tensor.empty() : tensor<2x16x4x4xf32>
  %sc = linalg.generic {indexing_maps = [#col, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f2, %xr : tensor<2x16x1x1xf32>, tensor<2x16x4x4xf32>) outs(%ex : tensor<2x16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %ng = arith.negf %a : f32
    %ex2 = math.exp %ng : f32
    %dn = arith.addf %ex2, %one : f32
    %sg = arith.divf %one, %dn : f32
    %r = arith.mulf %sg, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4x4xf32>
  %e3 = tensor.empty() : tensor<2x32x4x4xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%sc, %w3 : tensor<2x16x4x4xf32>, tensor<32x16x1x1xf32>) outs(%z3 : tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  return %y : tensor<2x32x4x4xf32>
}
