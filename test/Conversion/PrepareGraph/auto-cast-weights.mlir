// --auto-cast=matmul rounds a constant matmul weight at compile time
// (FoldConstantGenerics.h roundConstantToBF16), to nearest even like the
// kernels' rounding: ties to the even mantissa, NaN stays a quiet NaN,
// values beyond bf16's range become infinity, subnormals stay subnormal.
// RUN: nki-opt %s --nki-prepare-graph=auto-cast=matmul | FileCheck %s

// CHECK-LABEL: func.func @weights
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 1.015630e+00, 0x7FC0], [-3.004060e+38, 0x7F80, 9.183550e-41]]> : tensor<2x3xbf16>
// CHECK-NOT: arith.truncf
// CHECK: linalg.matmul
func.func @weights(%a: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = arith.constant dense<[[1.00390625, 1.01171875, 0x7FC00000], [-3.0e38, 3.4e38, 1.0e-40]]> : tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3xf32>) -> tensor<1x3xf32>
  %r = linalg.matmul ins(%a, %w : tensor<1x2xf32>, tensor<2x3xf32>) outs(%z : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}
