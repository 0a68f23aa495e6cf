// RUN: nki-opt %s -split-input-file -nki-forward-stores -verify-diagnostics

// Forwarding needs straight-line tile code.
func.func @leftover_loop(%a: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' is control flow; memory planning needs straight-line tile code (run nki-unroll first)}}
  scf.for %i = %c0 to %c2 step %c1 {
  }
  return
}
