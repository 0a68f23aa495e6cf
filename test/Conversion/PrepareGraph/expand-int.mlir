// nki-prepare-graph rewrites integer division, remainder and absi, which
// have no engine instruction, through f32 (exact below 2^24); fptosi then
// truncates as MLIR defines (expand-math.mlir). Element types outside
// f32/bf16/f16/i32/i8/i1 are rejected.
// RUN: nki-opt %s -split-input-file -verify-diagnostics --nki-prepare-graph | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @main
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG: %[[FA:.*]] = arith.sitofp %[[A]] : i32 to f32
// CHECK-DAG: %[[FB:.*]] = arith.sitofp %[[B]] : i32 to f32
// CHECK: %[[Q:.*]] = arith.divf %[[FA]], %[[FB]] : f32
// CHECK: math.roundeven
// CHECK: %[[QI:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[P:.*]] = arith.muli %[[B]], %[[QI]] : i32
// CHECK: %[[R:.*]] = arith.subi %[[A]], %[[P]] : i32
// CHECK: linalg.yield %[[R]] : i32
// CHECK-NOT: arith.remsi
// CHECK-NOT: arith.divsi
func.func @main(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %m = arith.remsi %x, %y : i32
    linalg.yield %m : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @main
// CHECK: ^bb0(%[[X:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[N:.*]] = arith.subi %{{.*}}, %[[X]] : i8
// CHECK: arith.maxsi %[[X]], %[[N]] : i8
func.func @main(%a: tensor<8xi8>) -> tensor<8xi8> {
  %e = tensor.empty() : tensor<8xi8>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xi8>) outs(%e : tensor<8xi8>) {
  ^bb0(%x: i8, %o: i8):
    %m = math.absi %x : i8
    linalg.yield %m : i8
  } -> tensor<8xi8>
  return %r : tensor<8xi8>
}

// -----

// expected-error @+2 {{argument #0 has element type 'i64'; supported: f32, bf16, f16, f8E4M3FN, f8E5M2, f4E2M1FN and f8E8M0FNU (MX data and scales), i32, i8, i1}}
// expected-error @+1 {{result #0 has element type 'i64'}}
func.func @main(%a: tensor<8xi64>) -> tensor<8xi64> {
  return %a : tensor<8xi64>
}
