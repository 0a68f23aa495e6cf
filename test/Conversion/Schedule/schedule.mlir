// RUN: nki-opt %s -split-input-file --nki-schedule | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-schedule=target=trn1 | FileCheck %s --check-prefix=TRN1

// nki-schedule writes its answer on the tile ops: the stream of each of the
// op's instructions and their estimated start times (picoseconds), and the
// estimated end on the function. The load goes to a DMA queue, the scaling
// to ACT (an identity activation with scale 2 is cheaper than the DVE for
// f32 on trn2), and each op starts after its producer's result is visible.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    attributes {nki.makespan_ps = {{[0-9]+}} : i64}
// CHECK:         nki.dma %arg0 to %{{.*}} {nki.start_ps = array<i64: 0>, nki.streams = ["dma0"]}
// CHECK:         nki.tensor_scalar {{.*}} {imm0 = 2.000000e+00 : f32, nki.start_ps = array<i64: {{[0-9]+}}>, nki.streams = ["act"], op0 = "mul"}
// CHECK:         nki.dma {{.*}} {nki.start_ps = array<i64: {{[0-9]+}}>, nki.streams = ["dma{{[0-9]+}}"]}
// TRN1-LABEL: func.func @main
// TRN1-SAME:    attributes {nki.makespan_ps = {{[0-9]+}} : i64}
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64, nki.name = "x"}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 256 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %u {op0 = "mul", imm0 = 2.0 : f32} : memref<16x32xf32, #nki.memory<sbuf>> into memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %u to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

// A load of 64 KiB per 32-partition block is one instruction per block:
// four entries, on four different queues so that they run side by side.
// CHECK-LABEL: func.func @main
// CHECK: nki.dma %arg0 to %{{.*}} {nki.start_ps = array<i64: 0, 0, 0, 0>, nki.streams = ["dma{{[0-9]+}}", "dma{{[0-9]+}}", "dma{{[0-9]+}}", "dma{{[0-9]+}}"]}
func.func @main(%arg0: memref<128x512xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x512xf32> {
  %out = memref.alloc() {nki.hbm_offset = 262144 : i64} : memref<128x512xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<128x512xf32> to memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32>
  return %out : memref<128x512xf32>
}

// -----

// A [128, 1] column of 4-byte values is 128 descriptors, each paid as 512
// bytes: 64 KiB of queue time for 512 bytes of data, so it is split over
// four queues like a large transfer.
// CHECK-LABEL: func.func @main
// CHECK: nki.dma %arg0 to %{{.*}} {nki.start_ps = array<i64: 0, 0, 0, 0>, nki.streams = ["dma{{[0-9]+}}", "dma{{[0-9]+}}", "dma{{[0-9]+}}", "dma{{[0-9]+}}"]}
func.func @main(%arg0: memref<128x1xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x1xf32> {
  %out = memref.alloc() {nki.hbm_offset = 512 : i64} : memref<128x1xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<128x1xf32, #nki.memory<sbuf>> to memref<128x1xf32>
  return %out : memref<128x1xf32>
}
