// nki-unroll needs loops with constant bounds.
// RUN: nki-opt %s --nki-unroll -verify-diagnostics

func.func @dynamic_bound(%a: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{cannot be unrolled: tile loops need constant bounds}}
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}
