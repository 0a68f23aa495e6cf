// --auto-cast=mxfp8 (trn3): a matmul of an f32 activation and a constant
// weight as an MX matmul (Common/MxMatmul.h). The weight's blocks of 32
// rows per column are quantised at compile time, the activation's blocks of
// 32 along K at run time by three generics over [M, K/32, 32]: the block
// maxima, the e8m0 scales e8m0(max x 1.5 / 448), the division rounded to
// e4m3. Other targets are refused.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=mxfp8 -verify-diagnostics | FileCheck %s

// W = 1 everywhere: each block's maximum 1 gives 1.5 / 448 = 1.71 x 2^-9,
// whose nearest power of two is 2^-8; W / 2^-8 = 256 is exact in e4m3 (the
// weight's rounding error, which the function records for --report, is 0).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {nki.mx_weight_errors = {{\[\[}}#loc{{[0-9]*}}, 0.000000e+00]]}
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [3, 2, 32] : tensor<3x64xf32> into tensor<3x2x32xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<3x2x32xf32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK:   math.absf
// CHECK:   arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[MAX]] : tensor<3x2xf32>) outs(%{{.*}} : tensor<3x2xf8E8M0FNU>)
// CHECK:   arith.constant 0.00334821432 : f32
// CHECK:   arith.truncf %{{.*}} : f32 to f8E8M0FNU
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[S]] : tensor<3x2x32xf32>, tensor<3x2xf8E8M0FNU>) outs(%{{.*}} : tensor<3x2x32xf8E4M3FN>)
// CHECK:   arith.divf
// CHECK:   arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK: %[[A8:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0], [1, 2]] : tensor<3x2x32xf8E4M3FN> into tensor<3x64xf8E4M3FN>
// CHECK: %[[W8:.*]] = arith.constant dense<2.560000e+02> : tensor<64x2xf8E4M3FN>
// CHECK: %[[WS:.*]] = arith.constant dense<3.906250e-03> : tensor<2x2xf8E8M0FNU>
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[A8]], %[[S]], %[[W8]], %[[WS]] : tensor<3x64xf8E4M3FN>, tensor<3x2xf8E8M0FNU>, tensor<64x2xf8E4M3FN>, tensor<2x2xf8E8M0FNU>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: return %[[C]]
module attributes {nki.target = "trn3"} {
func.func @linear(%x: tensor<3x64xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<64x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = linalg.matmul ins(%x, %w : tensor<3x64xf32>, tensor<64x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}
}

// -----

// K = 48 is not whole blocks of 32: the matmul is rounded to bf16 instead.
// CHECK-LABEL: func.func @partial_block
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x48xbf16>, tensor<48x2xbf16>)
module attributes {nki.target = "trn3"} {
func.func @partial_block(%x: tensor<3x48xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<48x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = linalg.matmul ins(%x, %w : tensor<3x48xf32>, tensor<48x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}
}

// -----

// expected-error @+1 {{--auto-cast=mxfp8 needs a target with matmul_mx (trn3), not trn2}}
module attributes {nki.target = "trn2"} {
func.func @trn2(%x: tensor<3x64xf32>) -> tensor<3x64xf32> {
  return %x : tensor<3x64xf32>
}
}
