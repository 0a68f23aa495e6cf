// Not valid MLIR.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %nope : tensor<4xf32>
  return %r : tensor<4xf32>
}
