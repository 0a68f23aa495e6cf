// RUN: nki-opt %s -split-input-file --nki-schedule -verify-diagnostics
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn9 --nki-schedule 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown target "trn9" in 'nki.target' (expected trn1, trn2 or trn3)

// nki-schedule takes straight-line tile code.
func.func @main(%arg0: memref<128x32xf32> {nki.hbm_offset = 0 : i64}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op is not a tile op; nki-schedule expects straight-line tile code (run nki-tile and nki-unroll first)}}
  scf.for %i = %c0 to %c2 step %c1 {
  }
  return
}

// -----

// A tile without a planned offset cannot be addressed.
func.func @main(%arg0: memref<128x32xf32> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc : memref<128x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op operand 'dst' is a tile without a planned 'offset' (run nki-plan-memory first)}}
  nki.dma %arg0 to %t : memref<128x32xf32> to memref<128x32xf32, #nki.memory<sbuf>>
  return
}

// -----

// expected-error @+1 {{no entry function: expected 'main' or exactly one public function with a body}}
module {
  func.func @a() {
    return
  }
  func.func @b() {
    return
  }
}

// -----

// expected-error @+1 {{'func.func' op has control flow; run nki-unroll before nki-schedule}}
func.func @main(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// `nki.engine` names an engine that can run the op.
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 256 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.memset %t, 1.0 : memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.tensor_scalar' op has 'nki.engine' = "pe"; expected "act", "dve" or "pool"}}
  nki.tensor_scalar %t into %u {op0 = "mul", imm0 = 2.0 : f32, nki.engine = "pe"} : memref<16x32xf32, #nki.memory<sbuf>> into memref<16x32xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 256 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.memset %t, 1.0 : memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.tensor_tensor' op cannot run on the act ('nki.engine')}}
  nki.tensor_tensor "add" %t, %t into %u {nki.engine = "act"} : memref<16x32xf32, #nki.memory<sbuf>>, memref<16x32xf32, #nki.memory<sbuf>> into memref<16x32xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op cannot run on the pool ('nki.engine')}}
  nki.dma %arg0 to %t {nki.engine = "pool"} : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  return
}
