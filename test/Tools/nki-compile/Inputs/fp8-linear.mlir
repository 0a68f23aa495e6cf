// x W with W = [[448, 1.0625]]: sW = 448 / 448 = 1, and 1.0625 lies halfway
// between the e4m3 values 1 and 1.125, so it rounds to even, 1.
func.func @main(%x: tensor<4x1xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<[[448.0, 1.0625]]> : tensor<1x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x1xf32>, tensor<1x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
