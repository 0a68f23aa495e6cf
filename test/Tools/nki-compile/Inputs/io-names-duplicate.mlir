func.func @main(%x: tensor<4x8xf32> {nki.name = "x"}, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32> {nki.name = "x"}) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
