// RUN: nki-opt %s -split-input-file --nki-schedule | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-set-target=target=trn1 --nki-schedule | FileCheck %s --check-prefix=TRN1

// nki-schedule lowers the tile code to a nisa.program: each stream's
// instructions in the order they run, each with its place in the program
// order (nisa.seq), no semaphores yet, and the schedule's estimated end on
// the program. The load goes to a DMA queue, the scaling to ACT (an
// identity activation with scale 2 is cheaper than the DVE for f32 on
// trn2).
// CHECK-LABEL: nisa.program target("trn2") semaphores(0) attributes {nisa.makespan_ps = {{[0-9]+}} : i64}
// CHECK:         nisa.tensor @x input f32 [16, 32] at 0
// CHECK:         nisa.tensor @out0 output f32 [16, 32] at 32768
// CHECK:         nisa.stream @act {
// CHECK-NEXT:      nisa.activation identity sbuf[0:16, 256, f32][(1,32)], sbuf[0:16, 0, f32][(1,32)] scale 2.000000e+00 bias 0.000000e+00 {nisa.seq = 1 : i64}
// CHECK:         nisa.stream @dma0 {
// CHECK-NEXT:      nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 0 : i64}
// CHECK-NEXT:      nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 256, f32][(1,32)] {nisa.seq = 2 : i64}
// TRN1-LABEL: nisa.program target("trn1") semaphores(0) attributes {nisa.makespan_ps = {{[0-9]+}} : i64}
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

// A load of 256 KiB from HBM is one instruction per block of 8 partitions
// (128 partitions over the 16 queues; seq 0 to 15), each on its own queue
// so that they run side by side.
// CHECK-LABEL: nisa.program
// CHECK-COUNT-16: nisa.stream @dma{{[0-9]+}} {
// CHECK-NEXT:      nisa.dma_copy sbuf[{{[0-9]+}}:{{[0-9]+}}, 0, f32][(1,512)], hbm[{{[0-9]+}}, f32][(1,4096)] {nisa.seq = {{[0-9]|1[0-5]}} : i64}
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
// the queues like a large transfer.
// CHECK-LABEL: nisa.program
// CHECK-COUNT-16: nisa.stream @dma{{[0-9]+}} {
// CHECK-NEXT:      nisa.dma_copy sbuf[{{[0-9]+}}:{{[0-9]+}}, 0, f32][(1,1)], hbm[{{[0-9]+}}, f32][(1,8)] {nisa.seq = {{[0-9]|1[0-5]}} : i64}
func.func @main(%arg0: memref<128x1xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x1xf32> {
  %out = memref.alloc() {nki.hbm_offset = 512 : i64} : memref<128x1xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<128x1xf32, #nki.memory<sbuf>> to memref<128x1xf32>
  return %out : memref<128x1xf32>
}

// -----

// `nki.engine` pins an op to one of the engines that can run it: this
// scaling would go to the ACT (first case), and runs on the POOL.
// CHECK-LABEL: nisa.program
// CHECK:         nisa.stream @pool {
// CHECK-NEXT:      nisa.tensor_scalar
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64, nki.name = "x"}) -> memref<16x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 32768 : i64} : memref<16x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 256 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %u {op0 = "mul", imm0 = 2.0 : f32, nki.engine = "pool"} : memref<16x32xf32, #nki.memory<sbuf>> into memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %u to %out : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32>
  return %out : memref<16x32xf32>
}

// -----

// A relu of x + bias (and an identity x * scale + bias) is also a DVE
// tensor_scalar: of two independent relus the second goes to the DVE
// (add the bias, max with 0), where the ACT would have run both one
// after the other.
// CHECK-LABEL: nisa.program
// CHECK:         nisa.stream @act {
// CHECK-NEXT:      nisa.activation relu sbuf[0:128, 1088, bf16][(1,512)], sbuf[0:128, 0, bf16][(1,512)] scale 1.000000e+00 bias sbuf[0:128, 1024, f32][(1,1)] {nisa.seq = {{[0-9]+}} : i64}
// CHECK-NEXT:    }
// CHECK:         nisa.stream @dve {
// CHECK-NEXT:      nisa.tensor_scalar sbuf[0:128, 2112, bf16][(1,512)], sbuf[0:128, 0, bf16][(1,512)], add sbuf[0:128, 1024, f32][(1,1)], max 0.000000e+00 {nisa.seq = {{[0-9]+}} : i64}
// CHECK-NEXT:    }
func.func @relu_on_dve(%arg0: memref<128x512xbf16> {nki.hbm_offset = 0 : i64}, %arg1: memref<128x1xf32> {nki.hbm_offset = 131072 : i64}, %arg2: memref<128x512xbf16> {nki.hbm_offset = 131584 : i64}, %arg3: memref<128x512xbf16> {nki.hbm_offset = 262656 : i64}) {
  %0 = nki.alloc {offset = 0 : i64} : memref<128x512xbf16, #nki.memory<sbuf>>
  %1 = nki.alloc {offset = 1024 : i64} : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %0 : memref<128x512xbf16> to memref<128x512xbf16, #nki.memory<sbuf>>
  nki.dma %arg1 to %1 : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  %2 = nki.alloc {offset = 1088 : i64} : memref<128x512xbf16, #nki.memory<sbuf>>
  %3 = nki.alloc {offset = 2112 : i64} : memref<128x512xbf16, #nki.memory<sbuf>>
  nki.activation "relu" %0 into %2 bias %1 : memref<128x1xf32, #nki.memory<sbuf>> : memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xbf16, #nki.memory<sbuf>>
  nki.activation "relu" %0 into %3 bias %1 : memref<128x1xf32, #nki.memory<sbuf>> : memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xbf16, #nki.memory<sbuf>>
  nki.dma %2 to %arg2 : memref<128x512xbf16, #nki.memory<sbuf>> to memref<128x512xbf16>
  nki.dma %3 to %arg3 : memref<128x512xbf16, #nki.memory<sbuf>> to memref<128x512xbf16>
  return
}
