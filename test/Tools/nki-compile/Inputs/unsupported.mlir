// An op outside the compiler's input dialects.
func.func @main(%v: f32) -> tensor<4xf32> {
  %e = arith.constant 1.0 : f32
  %s = tensor.splat %v : tensor<4xf32>
  return %s : tensor<4xf32>
}
