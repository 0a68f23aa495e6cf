// A Linear layer whose weight's MX blocks (one here: 32 rows) round with a
// known error, its scale a splat (report-fp8.test).
func.func @main(%x: tensor<2x32xf32>) -> tensor<2x1xf32> {
  %w = arith.constant dense<[[448.0], [1.0625], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]> : tensor<32x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1xf32>) -> tensor<2x1xf32>
  %c = linalg.matmul ins(%x, %w : tensor<2x32xf32>, tensor<32x1xf32>) outs(%z : tensor<2x1xf32>) -> tensor<2x1xf32>
  return %c : tensor<2x1xf32>
}
