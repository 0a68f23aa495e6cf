// RUN: nki-opt %s -split-input-file --nki-fuse-elementwise | FileCheck %s

// A transposed constant (ONNX Gemm's B, a filter's layout) is folded on its
// raw bytes: every element type of whole bytes, any permutation, the
// generic and the named op.

// CHECK-LABEL: func.func @transpose_2d_f32
// CHECK:         %[[C:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 3.000000e+00], [1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT:     linalg
// CHECK:         return %[[C]]
func.func @transpose_2d_f32(%init: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %input = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %1 = linalg.generic {
    indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
    iterator_types = ["parallel", "parallel"]
  } ins(%input : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A 4-D permutation of 2-byte elements ([F, C, KH, KW] -> [C, KH, KW, F]):
// out[c, h, w, f] = in[f, c, h, w].
// CHECK-LABEL: func.func @permute_4d_bf16
// CHECK:         arith.constant dense<{{\[\[\[}}[1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00]], {{\[\[}}3.000000e+00, 7.000000e+00], [4.000000e+00, 8.000000e+00]]]]> : tensor<1x2x2x2xbf16>
// CHECK-NOT:     linalg.transpose
func.func @permute_4d_bf16(%init: tensor<1x2x2x2xbf16>) -> tensor<1x2x2x2xbf16> {
  %input = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xbf16>
  %1 = linalg.transpose ins(%input : tensor<2x1x2x2xbf16>) outs(%init : tensor<1x2x2x2xbf16>) permutation = [1, 2, 3, 0]
  return %1 : tensor<1x2x2x2xbf16>
}

// -----

// Bytes and 64-bit integers; a splat stays a splat.
// CHECK-LABEL: func.func @ints_and_splat
// CHECK-DAG:     arith.constant dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi8>
// CHECK-DAG:     arith.constant dense<{{\[\[}}10, 30], [20, 40]]> : tensor<2x2xi64>
// CHECK-DAG:     arith.constant dense<7.000000e+00> : tensor<3x2xf16>
// CHECK-NOT:     linalg.transpose
func.func @ints_and_splat(%i8: tensor<2x2xi8>, %i64: tensor<2x2xi64>, %h: tensor<3x2xf16>)
    -> (tensor<2x2xi8>, tensor<2x2xi64>, tensor<3x2xf16>) {
  %a = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %b = arith.constant dense<[[10, 20], [30, 40]]> : tensor<2x2xi64>
  %c = arith.constant dense<7.0> : tensor<2x3xf16>
  %ta = linalg.transpose ins(%a : tensor<2x2xi8>) outs(%i8 : tensor<2x2xi8>) permutation = [1, 0]
  %tb = linalg.transpose ins(%b : tensor<2x2xi64>) outs(%i64 : tensor<2x2xi64>) permutation = [1, 0]
  %tc = linalg.transpose ins(%c : tensor<2x3xf16>) outs(%h : tensor<3x2xf16>) permutation = [1, 0]
  return %ta, %tb, %tc : tensor<2x2xi8>, tensor<2x2xi64>, tensor<3x2xf16>
}

// -----

// A permutation of an activation stays.
// CHECK-LABEL: func.func @not_folded
// CHECK:         linalg.transpose
func.func @not_folded(%x: tensor<2x3xf32>, %init: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
