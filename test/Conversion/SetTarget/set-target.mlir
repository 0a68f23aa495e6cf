// RUN: nki-opt %s -split-input-file --nki-set-target=target=trn1 | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-set-target | FileCheck %s --check-prefix=DEFAULT
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn9 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The target is named once, on the module; every later pass reads it.
// CHECK: module attributes {nki.target = "trn1"}
// DEFAULT: module attributes {nki.target = "trn2"}
// UNKNOWN: error: unknown target "trn9" in 'nki.target' (expected trn1, trn2 or trn3)
func.func @main() {
  return
}
