// IR that parses but breaks an op's invariants is reported at the op.
// RUN: nki-opt %s -split-input-file -verify-diagnostics

func.func @rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  // expected-error @+1 {{inferred input/output operand #2 has shape's dimension #1 to be 2, but found 3}}
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>)
                     outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' op requires the same type for all operands and results}}
  %r = "arith.addf"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
