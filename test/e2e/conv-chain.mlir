// Two padded 3x3 convolutions in a row, each with a bias + ReLU epilogue, on inputs
// whose padded rows do not fit SBUF at once (bands of output rows).
// Bufferization gives the second epilogue's result the buffer of the first
// convolution's result, which is also the second convolution's padding
// source: the kernel must not read the source in bands while its epilogue
// overwrites it (it keeps the padded copy then). Regression test for the
// U-Net of bench/models.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python %S/Inputs/conv_chain_ref.py %t
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w1=%t.w1.npy --input w2=%t.w2.npy --input b1=%t.b1.npy --input b2=%t.b2.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: output 'out0' matches
func.func @main(%x: tensor<1x16x128x128xf32> {nki.name = "x"}, %w1: tensor<16x16x3x3xf32> {nki.name = "w1"}, %w2: tensor<16x16x3x3xf32> {nki.name = "w2"}, %b1: tensor<16xf32> {nki.name = "b1"}, %b2: tensor<16xf32> {nki.name = "b2"}) -> tensor<1x16x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x128x128xf32>) -> tensor<1x16x128x128xf32>
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x128x128xf32> to tensor<1x16x130x130xf32>
  %c1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%xp, %w1 : tensor<1x16x130x130xf32>, tensor<16x16x3x3xf32>) outs(%z : tensor<1x16x128x128xf32>) -> tensor<1x16x128x128xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b1 : tensor<1x16x128x128xf32>, tensor<16xf32>) outs(%e : tensor<1x16x128x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x128x128xf32>
  %rp = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x128x128xf32> to tensor<1x16x130x130xf32>
  %c2 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%rp, %w2 : tensor<1x16x130x130xf32>, tensor<16x16x3x3xf32>) outs(%z : tensor<1x16x128x128xf32>) -> tensor<1x16x128x128xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (b)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %b2 : tensor<1x16x128x128xf32>, tensor<16xf32>) outs(%e : tensor<1x16x128x128xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x128x128xf32>
  return %r2 : tensor<1x16x128x128xf32>
}
