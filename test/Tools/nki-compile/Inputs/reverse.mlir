// A TOSA op whose linalg form reads its input at computed indices.
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tosa.reverse %a {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
