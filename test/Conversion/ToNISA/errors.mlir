// RUN: nki-opt %s -split-input-file --nki-schedule --nki-synchronize -verify-diagnostics
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn9 --nki-schedule 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown target "trn9" in 'nki.target' (expected trn1, trn2 or trn3)

// A tile without a planned offset.
func.func @main(%x: memref<128x64xf32> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op operand 'dst' is a tile without a planned 'offset' (run nki-plan-memory first)}}
  nki.dma %x to %t : memref<128x64xf32> to memref<128x64xf32, #nki.memory<sbuf>>
  return
}

// -----

// An HBM argument that memory planning did not place.
// expected-error @+1 {{'func.func' op argument #0 has no 'nki.hbm_offset' (run nki-plan-memory first)}}
func.func @main(%x: memref<128x64xf32>) {
  return
}

// -----

// Loops must be unrolled first.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op is not a tile op; nki-schedule expects straight-line tile code (run nki-tile and nki-unroll first)}}
  scf.for %i = %c0 to %c2 step %c1 {
  }
  return
}

// -----

// 16 partitions starting at partition 8 break the start-partition rule on
// every engine that could run the copy.
func.func @main() {
  %t = nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 256 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  nki.memset %t, 0.0 : memref<128x64xf32, #nki.memory<sbuf>>
  %a = memref.subview %t[8, 0] [16, 64] [1, 1] : memref<128x64xf32, #nki.memory<sbuf>> to memref<16x64xf32, strided<[64, 1], offset: 512>, #nki.memory<sbuf>>
  %b = memref.subview %u[0, 0] [16, 64] [1, 1] : memref<128x64xf32, #nki.memory<sbuf>> to memref<16x64xf32, strided<[64, 1]>, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.copy' op cannot run on any engine (a compiler bug or an unsupported shape): dve: tensor_copy: src0 starts at partition 8 with 16 partitions}}
  nki.copy %a into %b : memref<16x64xf32, strided<[64, 1], offset: 512>, #nki.memory<sbuf>> into memref<16x64xf32, strided<[64, 1]>, #nki.memory<sbuf>>
  return
}

// -----

// A view that steps over partitions with a stride other than the tile's
// pitch has no access pattern.
func.func @main() {
  %t = nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  %a = memref.subview %t[0, 0] [32, 64] [2, 1] : memref<128x64xf32, #nki.memory<sbuf>> to memref<32x64xf32, strided<[128, 1]>, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.memset' op operand 'dst' steps over partitions with stride 128 but the tile's partition pitch is 64 elements}}
  nki.memset %a, 0.0 : memref<32x64xf32, strided<[128, 1]>, #nki.memory<sbuf>>
  return
}

// -----

// Outputs must be fresh allocations, not arguments.
func.func @main(%x: memref<4xf32> {nki.hbm_offset = 0 : i64}) -> memref<4xf32> {
  // expected-error @+1 {{'func.return' op returns operand #0, which is not a buffer allocated in the function; outputs must be whole, fresh HBM allocations}}
  return %x : memref<4xf32>
}

// -----

// No entry function.
// expected-error @+1 {{no entry function: expected 'main' or exactly one public function with a body}}
module {
  func.func @f() {
    return
  }
  func.func @g() {
    return
  }
}

// -----

// A packed f4E2M1FN tensor is read as bytes, through nki.bitcast.
module attributes {nki.target = "trn3"} {
func.func @main(%x: memref<128x64xf4E2M1FN> {nki.hbm_offset = 0 : i64}) {
  %t = nki.alloc {offset = 0 : i64} : memref<128x64xf4E2M1FN, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op operand 'src' is an HBM view of 'f4E2M1FN', stored two values a byte; read it through nki.bitcast as bytes}}
  nki.dma %x to %t : memref<128x64xf4E2M1FN> to memref<128x64xf4E2M1FN, #nki.memory<sbuf>>
  return
}
}
