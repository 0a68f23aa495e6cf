// --auto-cast=fp8: a matmul of an f32 activation and a constant weight in
// fp8 e4m3, the weight quantised at compile time with one scale
// (max |W| / 448), each activation row at run time with its own, the
// product rescaled by an elementwise op; other matmuls as auto-cast=matmul.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=fp8 | FileCheck %s

// W = [[1, -2], [0.5, 448]]: max |W| = 448, so sW = 1 and the weight is
// exact in e4m3 (the matmul's nki.fp8_weight_error, its relative rounding
// error, is 0); the dequantising factor is a[m] x sW / 448.
// CHECK-LABEL: func.func @linear
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<3x2xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:   math.absf
// CHECK:   arith.maximumf
// CHECK: %[[A8:.*]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<3x2xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<3x2xf8E4M3FN>)
// CHECK:   arith.constant 9.99999996E-13 : f32
// CHECK:   arith.maximumf
// CHECK:   arith.constant 4.480000e+02 : f32
// CHECK:   arith.divf
// CHECK:   arith.mulf
// CHECK:   arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[MAX]] : tensor<3xf32>)
// CHECK:   arith.constant 0.00223214296 : f32
// CHECK:   arith.mulf
// CHECK: %[[W8:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, -2.000000e+00], [5.000000e-01, 4.480000e+02]]> : tensor<2x2xf8E4M3FN>
// CHECK: %[[P:.*]] = linalg.matmul {nki.fp8_weight_error = 0.000000e+00 : f64} ins(%[[A8]], %[[W8]] : tensor<3x2xf8E4M3FN>, tensor<2x2xf8E4M3FN>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[D]] : tensor<3x2xf32>, tensor<3xf32>)
// CHECK: return %[[C]]
func.func @linear(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, -2.0], [0.5, 448.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Two activations, an accumulating matmul (C + x W) and a transposed
// activation are not quantised: bf16 as under auto-cast=matmul.
// CHECK-LABEL: func.func @not_fp8
// CHECK-NOT: f8E4M3FN
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x2xbf16>, tensor<2x2xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x2xbf16>, tensor<2x2xbf16>)
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3xbf16>, tensor<2x2xbf16>)
// CHECK-NOT: f8E4M3FN
func.func @not_fp8(%x: tensor<3x2xf32>, %y: tensor<2x2xf32>, %c: tensor<3x2xf32>, %xt: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<[[1.0, -2.0], [0.5, 448.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r0 = linalg.matmul ins(%x, %y : tensor<3x2xf32>, tensor<2x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r1 = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%xt, %w : tensor<2x3xf32>, tensor<2x2xf32>) outs(%z : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r0, %r1, %r2 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}
