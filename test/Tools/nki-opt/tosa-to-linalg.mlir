// The upstream TOSA lowering the compiler runs first is available by name.
// RUN: nki-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg))" | FileCheck %s

// CHECK-LABEL: func.func @tosa_add
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NOT: tosa.add
func.func @tosa_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
