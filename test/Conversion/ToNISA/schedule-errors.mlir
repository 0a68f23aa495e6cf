// RUN: nki-opt %s -split-input-file --nki-to-nisa -verify-diagnostics

// nki-to-nisa takes the schedule nki-schedule wrote (`nki.streams`,
// `nki.start_ps`) and checks it: tile code without one, an annotation that
// does not fit the op's instructions, a stream the instruction cannot run
// on, or an order that breaks a dependence is an error.

// expected-error @+1 {{the tile code has no schedule ('nki.streams' and 'nki.start_ps' on its ops); run nki-schedule first}}
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t {nki.streams = ["dma0"], nki.start_ps = array<i64: 0>} : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op has no schedule ('nki.streams' and 'nki.start_ps'); run nki-schedule first}}
  nki.dma %t to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op 'nki.streams' and 'nki.start_ps' must have one entry per instruction of the op (1), found 2 and 1}}
  nki.dma %arg0 to %t {nki.streams = ["dma0", "dma1"], nki.start_ps = array<i64: 0>} : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.dma' op 'nki.streams' entry 0 ("dma16") is not a stream of the target}}
  nki.dma %t to %out {nki.streams = ["dma16"], nki.start_ps = array<i64: 5000000>} : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t {nki.streams = ["dma0"], nki.start_ps = array<i64: 0>} : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  // expected-error @+1 {{'nki.activation' op cannot run on stream 'dve' (it may run on act)}}
  nki.activation "exp" %t into %t {nki.streams = ["dve"], nki.start_ps = array<i64: 5000000>} : memref<16x32xf32, #nki.memory<sbuf>> into memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %t to %out {nki.streams = ["dma0"], nki.start_ps = array<i64: 6000000>} : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

// The store is scheduled before the load it depends on.
// expected-error @+1 {{the schedule in 'nki.streams' and 'nki.start_ps' does not fit this program}}
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t {nki.streams = ["dma0"], nki.start_ps = array<i64: 9000000>} : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %t to %out {nki.streams = ["dma1"], nki.start_ps = array<i64: 0>} : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}
