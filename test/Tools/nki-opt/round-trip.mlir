// The input dialects the compiler accepts parse, verify and print back.
// RUN: nki-opt %s -split-input-file | nki-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x64xf32>, tensor<64x32xf32>)
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x32xf32>) -> tensor<128x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x32xf32>)
                     outs(%init : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_bias
// CHECK: linalg.generic
// CHECK: math.erf
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @gelu_bias(%x: tensor<4x8xbf16>, %b: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %e = tensor.empty() : tensor<4x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xbf16>, tensor<8xbf16>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %s = arith.addf %in, %bias : bf16
    %g = math.erf %s : bf16
    linalg.yield %g : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// -----

// CHECK-LABEL: func.func @tosa_add
// CHECK: tosa.add
func.func @tosa_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
