// A two-layer perceptron in TOSA, the kind of graph a framework hands over.
// scripts/demo.sh lowers it to linalg on tensors with nki-opt.
func.func @main(%x: tensor<1x16x64xf32>, %w1: tensor<1x64x128xf32>,
                %w2: tensor<1x128x32xf32>) -> tensor<1x16x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x16x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x128xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x16x128xf32>}> : () -> tensor<1x16x128xf32>
  %r = tosa.maximum %h, %zero : (tensor<1x16x128xf32>, tensor<1x16x128xf32>) -> tensor<1x16x128xf32>
  %y = tosa.matmul %r, %w2, %zp, %zp : (tensor<1x16x128xf32>, tensor<1x128x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x32xf32>
  return %y : tensor<1x16x32xf32>
}
