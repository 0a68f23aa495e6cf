// nki-prepare-graph rewrites math functions without an engine instruction
// into ones with one; roundeven (a round trip through an int32 tile) is the
// rounding primitive.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// floor(x) = r - (r > x ? 1 : 0) with r = roundeven(x).
// CHECK-LABEL: func.func @main
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[R:.*]] = math.roundeven %[[X]] : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[R]], %[[X]] : f32
// CHECK: %[[I:.*]] = arith.select %[[GT]]
// CHECK: %[[F:.*]] = arith.subf %[[R]], %[[I]] : f32
// CHECK: linalg.yield %[[F]]
// CHECK-NOT: math.floor
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %f = math.floor %a : f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// fptosi truncates in MLIR but the device rounds: the operand is truncated
// first (r = roundeven(x), minus 1 where x >= 0 and r > x, plus 1 where
// x < 0 and r < x), once.
// CHECK-LABEL: func.func @main
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
// CHECK: %[[R:.*]] = math.roundeven %[[X]] : f32
// CHECK: %[[POS:.*]] = arith.cmpf oge, %[[X]]
// CHECK: %[[ADJ:.*]] = arith.select %[[POS]]
// CHECK: %[[T:.*]] = arith.addf %[[R]], %[[ADJ]] : f32
// CHECK-NEXT: arith.fptosi %[[T]] : f32 to i32
// CHECK-NOT: math.trunc
func.func @main(%x: tensor<8xf32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: f32, %o: i32):
    %i = arith.fptosi %a : f32 to i32
    linalg.yield %i : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// An integral operand (here a floor) converts as it is.
// CHECK-LABEL: func.func @main
// CHECK: %[[F:.*]] = arith.subf
// CHECK: arith.fptosi %[[F]] : f32 to i32
func.func @main(%x: tensor<8xf32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: f32, %o: i32):
    %f = math.floor %a : f32
    %i = arith.fptosi %f : f32 to i32
    linalg.yield %i : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Trigonometric and hyperbolic functions become sin/cos, exp, log and sqrt
// (atan a polynomial); none of the originals is left.
// CHECK-LABEL: func.func @main
// CHECK-DAG: math.sin
// CHECK-DAG: math.cos
// CHECK-DAG: math.exp
// CHECK-DAG: math.log
// CHECK-DAG: math.sqrt
// CHECK-NOT: math.{{(tan|atan|asin|acos|sinh|cosh|asinh|acosh|atanh|exp2|log2|log10|log1p|expm1)}} 
// CHECK-NOT: arith.remf
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.tan %a : f32
    %1 = math.atan %0 : f32
    %2 = math.asin %1 : f32
    %3 = math.acos %2 : f32
    %4 = math.sinh %3 : f32
    %5 = math.cosh %4 : f32
    %6 = math.asinh %5 : f32
    %7 = math.acosh %6 : f32
    %8 = math.atanh %7 : f32
    %9 = math.exp2 %8 : f32
    %10 = math.log2 %9 : f32
    %11 = math.log10 %10 : f32
    %12 = math.log1p %11 : f32
    %13 = math.expm1 %12 : f32
    %14 = arith.remf %13, %a : f32
    %15 = math.ceil %14 : f32
    %16 = math.round %15 : f32
    linalg.yield %16 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Float comparisons the ALU lacks are written with the ones it has (is_eq,
// is_lt, ... false for NaN; is_ne true): ult = !oge, one = une & ord,
// ueq = !one, uno = !ord with ord = (a == a) & (b == b).
// CHECK-LABEL: func.func @unordered
// CHECK-DAG:   %[[T:.*]] = arith.constant true
// CHECK:       %[[GE:.*]] = arith.cmpf oge, %[[A:.*]], %[[B:.*]] : f32
// CHECK:       %[[ULT:.*]] = arith.xori %[[GE]], %[[T]] : i1
// CHECK:       %[[NE:.*]] = arith.cmpf une, %[[A]], %[[B]] : f32
// CHECK:       %[[AA:.*]] = arith.cmpf oeq, %[[A]], %[[A]] : f32
// CHECK:       %[[BB:.*]] = arith.cmpf oeq, %[[B]], %[[B]] : f32
// CHECK:       %[[ORD:.*]] = arith.andi %[[AA]], %[[BB]] : i1
// CHECK:       arith.andi %[[NE]], %[[ORD]] : i1
// CHECK-NOT:   arith.cmpf u{{(lt|le|gt|ge|eq|no)}}
// CHECK-NOT:   arith.cmpf one
#id2 = affine_map<(d0) -> (d0)>
func.func @unordered(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %e = tensor.empty() : tensor<4xi1>
  %r:4 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e, %e, %e, %e : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  ^bb0(%x: f32, %y: f32, %o0: i1, %o1: i1, %o2: i1, %o3: i1):
    %lt = arith.cmpf ult, %x, %y : f32
    %ne = arith.cmpf one, %x, %y : f32
    %eq = arith.cmpf ueq, %x, %y : f32
    %uno = arith.cmpf uno, %x, %y : f32
    linalg.yield %lt, %ne, %eq, %uno : i1, i1, i1, i1
  } -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
