// The install test's program (consumer-test.sh): x plus a constant, which
// the installed nki-compile compiles and the installed nki-run checks.
func.func @main(%x: tensor<2x4xf32> {nki.name = "x"}) -> tensor<2x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.add ins(%x, %w : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
