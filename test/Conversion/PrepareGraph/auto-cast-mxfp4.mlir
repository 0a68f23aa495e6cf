// --auto-cast=mxfp4 (trn3): as mxfp8 (auto-cast-mxfp8.mlir), in MXFP4
// blocks: the scales are e8m0(max x 1.5 / 6), the values e2m1.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=mxfp4 -verify-diagnostics | FileCheck %s

// W = 1 everywhere: each block's maximum 1 gives 1.5 / 6 = 0.25, a power of
// two; W / 0.25 = 4 is exact in e2m1 (the recorded error is 0).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {nki.mx_weight_errors = {{\[\[}}#loc{{[0-9]*}}, 0.000000e+00]]}
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [3, 2, 32] : tensor<3x64xf32> into tensor<3x2x32xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<3x2x32xf32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[MAX]] : tensor<3x2xf32>) outs(%{{.*}} : tensor<3x2xf8E8M0FNU>)
// CHECK:   arith.constant 2.500000e-01 : f32
// CHECK:   arith.truncf %{{.*}} : f32 to f8E8M0FNU
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[S]] : tensor<3x2x32xf32>, tensor<3x2xf8E8M0FNU>) outs(%{{.*}} : tensor<3x2x32xf4E2M1FN>)
// CHECK:   arith.divf
// CHECK:   arith.truncf %{{.*}} : f32 to f4E2M1FN
// CHECK: %[[A4:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0], [1, 2]] : tensor<3x2x32xf4E2M1FN> into tensor<3x64xf4E2M1FN>
// CHECK: %[[W4:.*]] = arith.constant dense<4.000000e+00> : tensor<64x2xf4E2M1FN>
// CHECK: %[[WS:.*]] = arith.constant dense<2.500000e-01> : tensor<2x2xf8E8M0FNU>
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[A4]], %[[S]], %[[W4]], %[[WS]] : tensor<3x64xf4E2M1FN>, tensor<3x2xf8E8M0FNU>, tensor<64x2xf4E2M1FN>, tensor<2x2xf8E8M0FNU>) outs(%{{.*}} : tensor<3x2xf32>)
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

// expected-error @+1 {{--auto-cast=mxfp4 needs a target with matmul_mx (trn3), not trn2}}
module attributes {nki.target = "trn2"} {
func.func @trn2(%x: tensor<3x64xf32>) -> tensor<3x64xf32> {
  return %x : tensor<3x64xf32>
}
}
