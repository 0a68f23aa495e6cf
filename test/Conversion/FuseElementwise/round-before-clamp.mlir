// RUN: nki-opt %s -split-input-file --nki-fuse-elementwise | FileCheck %s

// A clamp rounded to bf16 (auto-cast's ReLU6 epilogue) rounds the value
// it clamps instead and clamps in bf16: round(min(max(x, 0), 6)) ==
// min(max(round(x), 0), 6) since rounding is monotone and bf16 holds 0
// and 6.
// CHECK-LABEL: func.func @relu6_bf16
// CHECK-DAG:     %[[C:.*]] = arith.constant 6.000000e+00 : bf16
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK:         ^bb0(%[[V:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT:    %[[M:.*]] = arith.maximumf %[[T]], %[[Z]] : bf16
// CHECK-NEXT:    %[[R:.*]] = arith.minimumf %[[M]], %[[C]] : bf16
// CHECK-NEXT:    linalg.yield %[[R]] : bf16
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu6_bf16(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %m = arith.maximumf %v, %zero : f32
    %c = arith.minimumf %m, %six : f32
    %t = arith.truncf %c : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// -----

// Max outermost, with the minnum form.
// CHECK-LABEL: func.func @clamp_max_outer
// CHECK:         %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:    %[[M:.*]] = arith.minnumf %[[T]], %{{.*}} : bf16
// CHECK-NEXT:    arith.maxnumf %[[M]], %{{.*}} : bf16
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @clamp_max_outer(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %m = arith.minnumf %v, %hi : f32
    %c = arith.maxnumf %m, %lo : f32
    %t = arith.truncf %c : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// -----

// Not moved: a bound bf16 does not hold exactly (0.1), a min that is not
// the outer side of a clamp (a ReLU's max alone stays fused in the ACT's
// relu), and a clamp whose lower side has another reader.
// CHECK-LABEL: func.func @not_moved
// CHECK:         %[[C1:.*]] = arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.truncf %[[C1]] : f32 to bf16
// CHECK:         %[[R:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.truncf %[[R]] : f32 to bf16
// CHECK:         %[[M:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[C3:.*]] = arith.minimumf %[[M]], %{{.*}} : f32
// CHECK:         arith.truncf %[[C3]] : f32 to bf16
// CHECK:         arith.addf %[[M]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_moved(%x: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %tenth = arith.constant 0.1 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x8xbf16>
  %ef = tensor.empty() : tensor<4x8xf32>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e, %e, %e, %ef : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>) {
  ^bb0(%v: f32, %o0: bf16, %o1: bf16, %o2: bf16, %o3: f32):
    %m1 = arith.maximumf %v, %zero : f32
    %c1 = arith.minimumf %m1, %tenth : f32
    %t1 = arith.truncf %c1 : f32 to bf16
    %r2 = arith.maximumf %v, %zero : f32
    %t2 = arith.truncf %r2 : f32 to bf16
    %m3 = arith.maximumf %v, %zero : f32
    %c3 = arith.minimumf %m3, %six : f32
    %t3 = arith.truncf %c3 : f32 to bf16
    %a = arith.addf %m3, %v : f32
    linalg.yield %t1, %t2, %t3, %a : bf16, bf16, bf16, f32
  } -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>
}

// -----

// An inner bound bf16 does not hold (0.1): only the outer side moves.
// CHECK-LABEL: func.func @inner_inexact
// CHECK:         %[[M:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT:    arith.minimumf %[[T]], %{{.*}} : bf16
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @inner_inexact(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %lo = arith.constant 0.1 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %m = arith.maximumf %v, %lo : f32
    %c = arith.minimumf %m, %six : f32
    %t = arith.truncf %c : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}
