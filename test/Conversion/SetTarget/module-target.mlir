// RUN: nki-opt %s -split-input-file --nki-schedule --nki-synchronize -verify-diagnostics | FileCheck %s

// The passes take the target from the module's nki.target: this program is
// scheduled for trn1 without a pass option saying so.
// CHECK: nisa.program target("trn1")
module attributes {nki.target = "trn1"} {
  func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
    %out = memref.alloc() {nki.hbm_offset = 2048 : i64} : memref<16x32xf32>
    %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
    nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
    nki.dma %t to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
    return %out : memref<16x32xf32>
  }
}

// -----

// Without the attribute: the default target.
// CHECK: nisa.program target("trn2")
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 2048 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

// An attribute that names no target is the one diagnostic, at the module.
// expected-error @+1 {{unknown target 3 : i64 in 'nki.target' (expected trn1, trn2 or trn3)}}
module attributes {nki.target = 3} {
  func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) {
    return
  }
}
