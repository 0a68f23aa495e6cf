// Float comparisons with NaN operands follow MLIR's predicates: ordered
// ones are false and unordered ones true when an operand is NaN (the ALU
// has ordered is_eq/lt/le/gt/ge and an unordered is_ne; nki-prepare-graph
// writes the rest with those). Each element of the result packs five
// predicates as bits: ult 1, one 2, ueq 4, olt 8, une 16. Against numpy.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; n = np.nan; a = np.array([1, n, 3, n, 2, -1], np.float32); b = np.array([2, 2, n, n, 2, -3], np.float32); np.save('%t.a.npy', a); np.save('%t.b.npy', b); u = np.isnan(a) | np.isnan(b); bits = 1 * ((a < b) | u) + 2 * ((a != b) & ~u) + 4 * ((a == b) | u) + 8 * (a < b) + 16 * (a != b); np.save('%t.bits.npy', bits.astype(np.float32))"
// RUN: nki-run %t.nkb --input a=%t.a.npy --input b=%t.b.npy --expected bits=%t.bits.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: output 'bits' matches
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<6xf32> {nki.name = "a"}, %b: tensor<6xf32> {nki.name = "b"}) -> (tensor<6xf32> {nki.name = "bits"}) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant 1.0 : f32
  %w2 = arith.constant 2.0 : f32
  %w4 = arith.constant 4.0 : f32
  %w8 = arith.constant 8.0 : f32
  %w16 = arith.constant 16.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %c0 = arith.cmpf ult, %x, %y : f32
    %c1 = arith.cmpf one, %x, %y : f32
    %c2 = arith.cmpf ueq, %x, %y : f32
    %c3 = arith.cmpf olt, %x, %y : f32
    %c4 = arith.cmpf une, %x, %y : f32
    %v0 = arith.select %c0, %w1, %zero : f32
    %v1 = arith.select %c1, %w2, %zero : f32
    %v2 = arith.select %c2, %w4, %zero : f32
    %v3 = arith.select %c3, %w8, %zero : f32
    %v4 = arith.select %c4, %w16, %zero : f32
    %s0 = arith.addf %v0, %v1 : f32
    %s1 = arith.addf %s0, %v2 : f32
    %s2 = arith.addf %s1, %v3 : f32
    %s3 = arith.addf %s2, %v4 : f32
    linalg.yield %s3 : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
