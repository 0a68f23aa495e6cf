// RUN: nki-opt %s -split-input-file --nki-schedule --nki-synchronize | FileCheck %s

// Hand-planned tile code (offsets as nki-plan-memory would set them) lowered
// to a scheduled nisa.program: engines, access patterns and semaphores.

// A DMA-in / compute / DMA-out chain: the load and the store land on a DMA
// queue, the scaling on ACT (an identity activation with scale 2: cheaper
// than the DVE for f32 on trn2), and each of the two cross-stream edges is
// one wait on the producer stream's semaphore.
// CHECK-LABEL: nisa.program target("trn2") semaphores(2)
// CHECK-NEXT:    nisa.tensor @x input f32 [16, 32] at 0
// CHECK-NEXT:    nisa.tensor @out0 output f32 [16, 32] at 32768
// CHECK-NEXT:    nisa.stream @act {
// CHECK-NEXT:      nisa.activation identity sbuf[0:16, 256, f32][(1,32)], sbuf[0:16, 0, f32][(1,32)] scale 2.000000e+00 bias 0.000000e+00 wait([[LOAD:s[0-9]+]] >= 1) signal([[DVE:s[0-9]+]])
// CHECK-NEXT:    }
// CHECK-NEXT:    nisa.stream @dma0 {
// CHECK-NEXT:      nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] signal([[LOAD]])
// CHECK-NEXT:      nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 256, f32][(1,32)] wait([[DVE]] >= 1){{$}}
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   func.func
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

// A matmul runs on PE and the exp of its PSUM result on ACT; the loads go to
// different queues so that they overlap.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK:       nisa.stream @pe {
// CHECK-NEXT:    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start wait({{.*}}) signal([[PE:s[0-9]+]])
// CHECK:       nisa.stream @act {
// CHECK-NEXT:    nisa.activation exp sbuf[0:128, 1280, f32][(1,512)], psum[0:128, 0, f32][(1,512)] scale 1.000000e+00 bias 0.000000e+00 wait([[PE]] >= 1)
// CHECK:       nisa.stream @dma0 {
// CHECK:       nisa.stream @dma1 {
func.func @main(%a: memref<128x128xbf16> {nki.hbm_offset = 0 : i64},
                %b: memref<128x512xbf16> {nki.hbm_offset = 32768 : i64}) -> memref<128x512xf32> {
  %c = memref.alloc() {nki.hbm_offset = 163840 : i64} : memref<128x512xf32>
  %at = nki.alloc {offset = 0 : i64} : memref<128x128xbf16, #nki.memory<sbuf>>
  nki.dma %a to %at : memref<128x128xbf16> to memref<128x128xbf16, #nki.memory<sbuf>>
  %bt = nki.alloc {offset = 256 : i64} : memref<128x512xbf16, #nki.memory<sbuf>>
  nki.dma %b to %bt : memref<128x512xbf16> to memref<128x512xbf16, #nki.memory<sbuf>>
  %acc = nki.alloc {offset = 0 : i64} : memref<128x512xf32, #nki.memory<psum>>
  nki.matmul %at, %bt into %acc : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  %e = nki.alloc {offset = 1280 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.activation "exp" %acc into %e : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %e to %c : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32>
  return %c : memref<128x512xf32>
}

// -----

// Access patterns of views: a subview starting at partition 64 and column 8
// of a tile at byte 1024 starts at byte 1024 + 8 * 4; an HBM window of rows
// 64..95 with a row stride of 64 elements merges into one contiguous dim; a
// broadcast row (stride 0) keeps its two dims.
// CHECK-LABEL: nisa.program
// CHECK-DAG:   nisa.dma_copy sbuf[64:96, 1056, f32][(1,16)], hbm[16416, f32][(64,32),(1,16)]
// CHECK-DAG:   nisa.dma_copy sbuf[0:32, 0, f32][(1,64)], hbm[40960, f32][(0,32),(1,64)]
// CHECK-DAG:   nisa.tensor_tensor add sbuf[0:32, 2048, f32][(1,64)], sbuf[64:96, 1024, f32][(1,64)], sbuf[0:32, 0, f32][(1,64)]
func.func @main(%x: memref<128x64xf32> {nki.hbm_offset = 0 : i64},
                %r: memref<64xf32> {nki.hbm_offset = 40960 : i64}) -> memref<32x64xf32> {
  %o = memref.alloc() {nki.hbm_offset = 49152 : i64} : memref<32x64xf32>
  %t = nki.alloc {offset = 1024 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  %tv = memref.subview %t[64, 8] [32, 16] [1, 1] : memref<128x64xf32, #nki.memory<sbuf>> to memref<32x16xf32, strided<[64, 1], offset: 4104>, #nki.memory<sbuf>>
  %xv = memref.reinterpret_cast %x to offset: [4104], sizes: [32, 16], strides: [64, 1] : memref<128x64xf32> to memref<32x16xf32, strided<[64, 1], offset: 4104>>
  nki.dma %xv to %tv : memref<32x16xf32, strided<[64, 1], offset: 4104>> to memref<32x16xf32, strided<[64, 1], offset: 4104>, #nki.memory<sbuf>>
  %b = nki.alloc {offset = 0 : i64} : memref<32x64xf32, #nki.memory<sbuf>>
  %rv = memref.reinterpret_cast %r to offset: [0], sizes: [32, 64], strides: [0, 1] : memref<64xf32> to memref<32x64xf32, strided<[0, 1]>>
  nki.dma %rv to %b : memref<32x64xf32, strided<[0, 1]>> to memref<32x64xf32, #nki.memory<sbuf>>
  %lo = memref.subview %t[64, 0] [32, 64] [1, 1] : memref<128x64xf32, #nki.memory<sbuf>> to memref<32x64xf32, strided<[64, 1], offset: 4096>, #nki.memory<sbuf>>
  %s = nki.alloc {offset = 2048 : i64} : memref<32x64xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %lo, %b into %s : memref<32x64xf32, strided<[64, 1], offset: 4096>, #nki.memory<sbuf>>, memref<32x64xf32, #nki.memory<sbuf>> into memref<32x64xf32, #nki.memory<sbuf>>
  nki.dma %s to %o : memref<32x64xf32, #nki.memory<sbuf>> to memref<32x64xf32>
  return %o : memref<32x64xf32>
}

// -----

// Ops with a PSUM operand cannot run on POOL (memset and tensor_tensor stay
// on DVE); iota runs on POOL and keeps its free dims as written, since its
// coefficients index them.
// CHECK-LABEL: nisa.program
// CHECK:       nisa.stream @dve {
// CHECK-DAG:     nisa.memset psum[0:128, 0, f32][(1,64)], 1.000000e+00
// CHECK-DAG:     nisa.tensor_tensor mul sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)], sbuf[0:128, 1024, f32][(1,64)]
// CHECK:       nisa.stream @pool {
// CHECK:         nisa.iota sbuf[0:128, 256, f32][(32,1),(1,32)], (5 + 64 * p + 32 * i0 + 1 * i1)
func.func @main() -> memref<128x64xf32> {
  %o = memref.alloc() {nki.hbm_offset = 0 : i64} : memref<128x64xf32>
  %p = nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<psum>>
  nki.memset %p, 1.0 : memref<128x64xf32, #nki.memory<psum>>
  %q = nki.alloc {offset = 1024 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  nki.memset %q, 3.0 : memref<128x64xf32, #nki.memory<sbuf>>
  %s = nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "mul" %p, %q into %s : memref<128x64xf32, #nki.memory<psum>>, memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
  %i = nki.alloc {offset = 256 : i64} : memref<128x1x32xf32, #nki.memory<sbuf>>
  nki.iota %i {offset = 5 : i64, pcoef = 64 : i64, coefs = array<i64: 32, 1>} : memref<128x1x32xf32, #nki.memory<sbuf>>
  nki.dma %s to %o : memref<128x64xf32, #nki.memory<sbuf>> to memref<128x64xf32>
  return %o : memref<128x64xf32>
}

// -----

// A large transfer from or to HBM is split into one transfer per block of
// 8 partitions (a 128-partition tile over the 16 queues), each on its own
// queue, each moving its rows of the HBM window; the consumer waits for
// all of them.
// CHECK-LABEL: nisa.program target("trn2") semaphores(17)
// CHECK:         nisa.activation identity sbuf[0:128, 4096, f32][(1,512)], sbuf[0:128, 0, f32][(1,512)] scale 1.000000e+00 bias 1.000000e+00 wait(s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1, s{{[0-9]+}} >= 1) signal(s0)
// CHECK-DAG:     nisa.dma_copy sbuf[0:8, 0, f32][(1,512)], hbm[4096, f32][(1024,8),(1,512)]
// CHECK-DAG:     nisa.dma_copy sbuf[8:16, 0, f32][(1,512)], hbm[36864, f32][(1024,8),(1,512)]
// CHECK-DAG:     nisa.dma_copy sbuf[64:72, 0, f32][(1,512)], hbm[266240, f32][(1024,8),(1,512)]
// CHECK-DAG:     nisa.dma_copy sbuf[120:128, 0, f32][(1,512)], hbm[495616, f32][(1024,8),(1,512)]
// CHECK-DAG:     nisa.dma_copy hbm[524288, f32][(1,4096)], sbuf[0:8, 4096, f32][(1,512)]
// CHECK-DAG:     nisa.dma_copy hbm[540672, f32][(1,4096)], sbuf[8:16, 4096, f32][(1,512)]
// CHECK-DAG:     nisa.dma_copy hbm[655360, f32][(1,4096)], sbuf[64:72, 4096, f32][(1,512)]
// CHECK-DAG:     nisa.dma_copy hbm[770048, f32][(1,4096)], sbuf[120:128, 4096, f32][(1,512)]
func.func @main(%x: memref<128x1024xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x512xf32> {
  %o = memref.alloc() {nki.hbm_offset = 524288 : i64} : memref<128x512xf32>
  %xv = memref.reinterpret_cast %x to offset: [1024], sizes: [128, 512], strides: [1024, 1] : memref<128x1024xf32> to memref<128x512xf32, strided<[1024, 1], offset: 1024>>
  %t = nki.alloc {offset = 0 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %xv to %t : memref<128x512xf32, strided<[1024, 1], offset: 1024>> to memref<128x512xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 4096 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %u {op0 = "add", imm0 = 1.0 : f32} : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %u to %o : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32>
  return %o : memref<128x512xf32>
}

// -----

// 80 partitions: ten blocks of 8; the single HBM dim is cut at the same
// rows.
// CHECK-LABEL: nisa.program
// CHECK-DAG:     nisa.dma_copy sbuf[0:8, 0, f32][(1,128)], hbm[0, f32][(1,1024)]
// CHECK-DAG:     nisa.dma_copy sbuf[8:16, 0, f32][(1,128)], hbm[4096, f32][(1,1024)]
// CHECK-DAG:     nisa.dma_copy sbuf[72:80, 0, f32][(1,128)], hbm[36864, f32][(1,1024)]
// CHECK-NOT:     nisa.dma_copy sbuf[80:
func.func @main(%x: memref<80x128xf32> {nki.hbm_offset = 0 : i64}) -> memref<80x128xf32> {
  %o = memref.alloc() {nki.hbm_offset = 65536 : i64} : memref<80x128xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %t to %o : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  return %o : memref<80x128xf32>
}

// -----

// Two transfers on one DMA queue are not ordered for data by program order
// (the queue starts the second before the first has landed), so an HBM
// round trip through scratch waits on its own queue's semaphore.
// CHECK-LABEL: nisa.program target("trn2") semaphores(1)
// CHECK:         nisa.tensor @scratch0 scratch f32 [64] at 256
// CHECK:         nisa.stream @dma0 {
// CHECK-NEXT:      nisa.dma_copy hbm[256, f32][(1,64)], hbm[0, f32][(1,64)] signal(s0)
// CHECK-NEXT:      nisa.dma_copy hbm[512, f32][(1,64)], hbm[256, f32][(1,64)] wait(s0 >= 1)
func.func @main(%x: memref<64xf32> {nki.hbm_offset = 0 : i64}) -> memref<64xf32> {
  %s = memref.alloc() {nki.hbm_offset = 256 : i64} : memref<64xf32>
  %o = memref.alloc() {nki.hbm_offset = 512 : i64} : memref<64xf32>
  nki.dma %x to %s : memref<64xf32> to memref<64xf32>
  nki.dma %s to %o : memref<64xf32> to memref<64xf32>
  return %o : memref<64xf32>
}

// -----

// A reduction keeps its reduced axes apart from the kept ones when merging
// contiguous dims: [128, 4, 8, 16] reducing 2 axes is (128,4) x (1,128).
// Constants become `const` tensors with their data, the global is erased.
// CHECK-LABEL: nisa.program
// CHECK-NOT:     memref.global
// CHECK:         nisa.tensor @cst const f32 [128, 512] at 4096 = dense<1.000000e+00> : tensor<128x512xf32>
// CHECK:         nisa.tensor_reduce max sbuf[0:128, 2048, f32][(1,4)], sbuf[0:128, 0, f32][(128,4),(1,128)] axes(1)
memref.global "private" constant @cst : memref<128x512xf32> = dense<1.0>
func.func @main() -> memref<128x4xf32> {
  %o = memref.alloc() {nki.hbm_offset = 0 : i64} : memref<128x4xf32>
  %g = memref.get_global @cst : memref<128x512xf32> {nki.hbm_offset = 4096 : i64}
  %t = nki.alloc {offset = 0 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %g to %t : memref<128x512xf32> to memref<128x512xf32, #nki.memory<sbuf>>
  %v = memref.expand_shape %t [[0], [1, 2, 3]] output_shape [128, 4, 8, 16] : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x4x8x16xf32, #nki.memory<sbuf>>
  %r = nki.alloc {offset = 2048 : i64} : memref<128x4xf32, #nki.memory<sbuf>>
  nki.reduce "max" %v into %r {axes = 2 : i64} : memref<128x4x8x16xf32, #nki.memory<sbuf>> into memref<128x4xf32, #nki.memory<sbuf>>
  nki.dma %r to %o : memref<128x4xf32, #nki.memory<sbuf>> to memref<128x4xf32>
  return %o : memref<128x4xf32>
}

// -----

// Stores of two column halves of one HBM tensor: their bytes interleave
// row by row but never overlap, so neither waits for the other (an HBM
// access is an interval per row here, not one bounding interval); both
// wait for the load only.
// CHECK-LABEL: nisa.program target("trn2") semaphores(1)
// CHECK:       nisa.stream @dma0 {
// CHECK-NEXT:    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] signal([[LOAD:s[0-9]+]])
// CHECK-NEXT:    nisa.dma_copy hbm[4096, f32][(64,16),(1,32)], sbuf[0:16, 0, f32][(1,32)] wait([[LOAD]] >= 1){{$}}
// CHECK:       nisa.stream @dma1 {
// CHECK-NEXT:    nisa.dma_copy hbm[4224, f32][(64,16),(1,32)], sbuf[0:16, 0, f32][(1,32)] wait([[LOAD]] >= 1){{$}}
func.func @main(%arg0: memref<16x32xf32> {nki.hbm_offset = 0 : i64, nki.name = "x"}) -> memref<16x64xf32> {
  %out = memref.alloc() {nki.hbm_offset = 4096 : i64} : memref<16x64xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<16x32xf32, #nki.memory<sbuf>>
  nki.dma %arg0 to %t : memref<16x32xf32> to memref<16x32xf32, #nki.memory<sbuf>>
  %left = memref.subview %out[0, 0] [16, 32] [1, 1] : memref<16x64xf32> to memref<16x32xf32, strided<[64, 1]>>
  %right = memref.subview %out[0, 32] [16, 32] [1, 1] : memref<16x64xf32> to memref<16x32xf32, strided<[64, 1], offset: 32>>
  nki.dma %t to %left : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32, strided<[64, 1]>>
  nki.dma %t to %right : memref<16x32xf32, #nki.memory<sbuf>> to memref<16x32xf32, strided<[64, 1], offset: 32>>
  return %out : memref<16x64xf32>
}

// -----

// Loads into partitions [0, 16) and [16, 32) of one tile at the same bytes do
// not wait for each other (dependences are tracked per 16 partitions); the
// store of the whole tile waits for both.
// CHECK-LABEL: nisa.program target("trn2") semaphores(2)
// CHECK:       nisa.stream @dma0 {
// CHECK-NEXT:    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] signal([[A:s[0-9]+]]){{$}}
// CHECK-NEXT:    nisa.dma_copy hbm[4096, f32][(1,1024)], sbuf[0:32, 0, f32][(1,32)] wait({{.*}})
// CHECK:       nisa.stream @dma1 {
// CHECK-NEXT:    nisa.dma_copy sbuf[16:32, 0, f32][(1,32)], hbm[2048, f32][(1,512)] signal([[B:s[0-9]+]]){{$}}
func.func @main(%arg0: memref<32x32xf32> {nki.hbm_offset = 0 : i64, nki.name = "x"}) -> memref<32x32xf32> {
  %out = memref.alloc() {nki.hbm_offset = 4096 : i64} : memref<32x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<32x32xf32, #nki.memory<sbuf>>
  %top = memref.subview %arg0[0, 0] [16, 32] [1, 1] : memref<32x32xf32> to memref<16x32xf32, strided<[32, 1]>>
  %bottom = memref.subview %arg0[16, 0] [16, 32] [1, 1] : memref<32x32xf32> to memref<16x32xf32, strided<[32, 1], offset: 512>>
  %t0 = memref.subview %t[0, 0] [16, 32] [1, 1] : memref<32x32xf32, #nki.memory<sbuf>> to memref<16x32xf32, strided<[32, 1]>, #nki.memory<sbuf>>
  %t1 = memref.subview %t[16, 0] [16, 32] [1, 1] : memref<32x32xf32, #nki.memory<sbuf>> to memref<16x32xf32, strided<[32, 1], offset: 512>, #nki.memory<sbuf>>
  nki.dma %top to %t0 : memref<16x32xf32, strided<[32, 1]>> to memref<16x32xf32, strided<[32, 1]>, #nki.memory<sbuf>>
  nki.dma %bottom to %t1 : memref<16x32xf32, strided<[32, 1], offset: 512>> to memref<16x32xf32, strided<[32, 1], offset: 512>, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<32x32xf32, #nki.memory<sbuf>> to memref<32x32xf32>
  return %out : memref<32x32xf32>
}

// -----

// A batch norm (x * scale + shift with [P,1] columns) and a relu (max with
// 0) as tensor_scalars may run on the ACT as activations (identity with
// that scale and bias; relu): the ACT is faster than the DVE on fp32, so
// the scheduler takes it for both when it is free.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK:         nisa.stream @act {
// CHECK-NEXT:      nisa.activation identity sbuf[0:128, 1024, f32][(1,512)], psum[0:128, 0, f32][(1,512)] scale sbuf[0:128, 0, f32][(1,1)] bias sbuf[0:128, 64, f32][(1,1)]
// CHECK-NEXT:      nisa.activation relu sbuf[0:128, 3072, f32][(1,512)], sbuf[0:128, 1024, f32][(1,512)] scale 1.000000e+00 bias 0.000000e+00
// CHECK-NEXT:    }
// CHECK-NOT:     nisa.tensor_scalar
func.func @main(%s: memref<128x1xf32> {nki.hbm_offset = 0 : i64}, %b: memref<128x1xf32> {nki.hbm_offset = 512 : i64}) -> memref<128x512xf32> {
  %o = memref.alloc() {nki.hbm_offset = 1024 : i64} : memref<128x512xf32>
  %sc = nki.alloc {offset = 0 : i64} : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %s to %sc : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  %sh = nki.alloc {offset = 64 : i64} : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %b to %sh : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  %p = nki.alloc {offset = 0 : i64} : memref<128x512xf32, #nki.memory<psum>>
  nki.memset %p, 1.0 : memref<128x512xf32, #nki.memory<psum>>
  %y = nki.alloc {offset = 1024 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %p into %y s0 %sc : memref<128x1xf32, #nki.memory<sbuf>> s1 %sh : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "mul", op1 = "add"} : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xf32, #nki.memory<sbuf>>
  %r = nki.alloc {offset = 3072 : i64} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %y into %r {op0 = "max", imm0 = 0.0 : f32} : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.dma %r to %o : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32>
  return %o : memref<128x512xf32>
}

// -----

// Loads into disjoint partitions of one tile (3-channel bands packed side
// by side) do not wait for each other, though they write the same bytes of
// one 16-partition block: dependences know each access's partitions.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK-DAG:     nisa.dma_copy sbuf[0:3, 0, f32][(1,32)], hbm[0, f32][(1,96)] signal(s{{[0-9]+}}){{$}}
// CHECK-DAG:     nisa.dma_copy sbuf[3:6, 0, f32][(1,32)], hbm[384, f32][(1,96)] signal(s{{[0-9]+}}){{$}}
func.func @main(%x: memref<6x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<6x32xf32> {
  %o = memref.alloc() {nki.hbm_offset = 1024 : i64} : memref<6x32xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<6x32xf32, #nki.memory<sbuf>>
  %x0 = memref.subview %x[0, 0] [3, 32] [1, 1] : memref<6x32xf32> to memref<3x32xf32, strided<[32, 1]>>
  %t0 = memref.subview %t[0, 0] [3, 32] [1, 1] : memref<6x32xf32, #nki.memory<sbuf>> to memref<3x32xf32, strided<[32, 1]>, #nki.memory<sbuf>>
  nki.dma %x0 to %t0 : memref<3x32xf32, strided<[32, 1]>> to memref<3x32xf32, strided<[32, 1]>, #nki.memory<sbuf>>
  %x1 = memref.subview %x[3, 0] [3, 32] [1, 1] : memref<6x32xf32> to memref<3x32xf32, strided<[32, 1], offset: 96>>
  %t1 = memref.subview %t[3, 0] [3, 32] [1, 1] : memref<6x32xf32, #nki.memory<sbuf>> to memref<3x32xf32, strided<[32, 1], offset: 96>, #nki.memory<sbuf>>
  nki.dma %x1 to %t1 : memref<3x32xf32, strided<[32, 1], offset: 96>> to memref<3x32xf32, strided<[32, 1], offset: 96>, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 128 : i64} : memref<6x32xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %u {op0 = "mul", imm0 = 2.0 : f32} : memref<6x32xf32, #nki.memory<sbuf>> into memref<6x32xf32, #nki.memory<sbuf>>
  nki.dma %u to %o : memref<6x32xf32, #nki.memory<sbuf>> to memref<6x32xf32>
  return %o : memref<6x32xf32>
}

// -----

// A transfer within SBUF whose descriptors are rows (a [32, 16, 32] band
// moved into a tile with a border: 512 descriptors of 128 bytes, 11.4 us
// of one queue) is cut into eight pieces of two rows, on several queues.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK-DAG:     nisa.dma_copy sbuf[0:32, 4248, f32][(36,2),(1,32)], sbuf[0:32, 0, f32][(1,64)]
// CHECK-DAG:     nisa.dma_copy sbuf[0:32, 4536, f32][(36,2),(1,32)], sbuf[0:32, 256, f32][(1,64)]
// CHECK-DAG:     nisa.dma_copy sbuf[0:32, 6264, f32][(36,2),(1,32)], sbuf[0:32, 1792, f32][(1,64)]
func.func @main(%x: memref<32x512xf32> {nki.hbm_offset = 0 : i64}) -> memref<32x512xf32> {
  %o = memref.alloc() {nki.hbm_offset = 65536 : i64} : memref<32x512xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<32x512xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<32x512xf32> to memref<32x512xf32, #nki.memory<sbuf>>
  %b = nki.alloc {offset = 4096 : i64} : memref<32x18x36xf32, #nki.memory<sbuf>>
  nki.memset %b, 0.0 : memref<32x18x36xf32, #nki.memory<sbuf>>
  %in = memref.subview %b[0, 1, 2] [32, 16, 32] [1, 1, 1] : memref<32x18x36xf32, #nki.memory<sbuf>> to memref<32x16x32xf32, strided<[648, 36, 1], offset: 38>, #nki.memory<sbuf>>
  nki.dma %t to %in : memref<32x512xf32, #nki.memory<sbuf>> to memref<32x16x32xf32, strided<[648, 36, 1], offset: 38>, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 8192 : i64} : memref<32x512xf32, #nki.memory<sbuf>>
  %v = memref.subview %b[0, 1, 2] [32, 16, 32] [1, 1, 1] : memref<32x18x36xf32, #nki.memory<sbuf>> to memref<32x16x32xf32, strided<[648, 36, 1], offset: 38>, #nki.memory<sbuf>>
  nki.copy %v into %u : memref<32x16x32xf32, strided<[648, 36, 1], offset: 38>, #nki.memory<sbuf>> into memref<32x512xf32, #nki.memory<sbuf>>
  nki.dma %u to %o : memref<32x512xf32, #nki.memory<sbuf>> to memref<32x512xf32>
  return %o : memref<32x512xf32>
}

// -----

// A transfer of a [16, 512] f32 band onto other partitions (32 KiB, 1.4 us
// of one queue: what a band-packed convolution moves per chunk) is cut
// into three pieces of about half a microsecond, on three queues: the next
// step waits for the last piece, 0.5 us after its start instead of 1.4.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK-DAG:     nisa.dma_copy sbuf[0:16, 4096, f32][(1,170)], sbuf[16:32, 0, f32][(1,170)]
// CHECK-DAG:     nisa.dma_copy sbuf[0:16, 4776, f32][(1,171)], sbuf[16:32, 680, f32][(1,171)]
// CHECK-DAG:     nisa.dma_copy sbuf[0:16, 5460, f32][(1,171)], sbuf[16:32, 1364, f32][(1,171)]
func.func @main(%x: memref<32x512xf32> {nki.hbm_offset = 0 : i64}) -> memref<16x512xf32> {
  %o = memref.alloc() {nki.hbm_offset = 65536 : i64} : memref<16x512xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<32x512xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<32x512xf32> to memref<32x512xf32, #nki.memory<sbuf>>
  %src = memref.subview %t[16, 0] [16, 512] [1, 1] : memref<32x512xf32, #nki.memory<sbuf>> to memref<16x512xf32, strided<[512, 1], offset: 8192>, #nki.memory<sbuf>>
  %b = nki.alloc {offset = 4096 : i64} : memref<16x4x128xf32, #nki.memory<sbuf>>
  nki.dma %src to %b : memref<16x512xf32, strided<[512, 1], offset: 8192>, #nki.memory<sbuf>> to memref<16x4x128xf32, #nki.memory<sbuf>>
  %u = nki.alloc {offset = 8192 : i64} : memref<16x512xf32, #nki.memory<sbuf>>
  nki.copy %b into %u : memref<16x4x128xf32, #nki.memory<sbuf>> into memref<16x512xf32, #nki.memory<sbuf>>
  nki.dma %u to %o : memref<16x512xf32, #nki.memory<sbuf>> to memref<16x512xf32>
  return %o : memref<16x512xf32>
}

// -----

// Never cut below a descriptor's minimum: a [32, 260] f32 move onto other
// partitions (1,040 bytes a partition, 1.45 us of one queue) goes in two
// pieces of 520 bytes, not three of 348 that would each be paid as 512.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK-DAG:     nisa.dma_copy sbuf[0:32, 8192, f32][(1,130)], sbuf[32:64, 0, f32][(1,130)]
// CHECK-DAG:     nisa.dma_copy sbuf[0:32, 8712, f32][(1,130)], sbuf[32:64, 520, f32][(1,130)]
// CHECK-NOT:     nisa.dma_copy sbuf[0:32, {{[0-9]+}}, f32][(1,{{8[0-9]}})]
func.func @main(%x: memref<64x260xf32> {nki.hbm_offset = 0 : i64}) -> memref<32x260xf32> {
  %o = memref.alloc() {nki.hbm_offset = 131072 : i64} : memref<32x260xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<64x260xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<64x260xf32> to memref<64x260xf32, #nki.memory<sbuf>>
  %src = memref.subview %t[32, 0] [32, 260] [1, 1] : memref<64x260xf32, #nki.memory<sbuf>> to memref<32x260xf32, strided<[260, 1], offset: 8320>, #nki.memory<sbuf>>
  %b = nki.alloc {offset = 8192 : i64} : memref<32x260xf32, #nki.memory<sbuf>>
  nki.dma %src to %b : memref<32x260xf32, strided<[260, 1], offset: 8320>, #nki.memory<sbuf>> to memref<32x260xf32, #nki.memory<sbuf>>
  nki.dma %b to %o : memref<32x260xf32, #nki.memory<sbuf>> to memref<32x260xf32>
  return %o : memref<32x260xf32>
}

// -----

// A copy within HBM (the half of each row that a concatenation places, as
// bufferization leaves it): 512 runs of 128 bytes, each paid as 512, 11.4 us
// of one queue, is cut into eight pieces of 64 rows, on several queues.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK-DAG:     nisa.dma_copy hbm[131072, f32][(64,64),(1,32)], hbm[0, f32][(1,2048)]
// CHECK-DAG:     nisa.dma_copy hbm[147456, f32][(64,64),(1,32)], hbm[8192, f32][(1,2048)]
// CHECK-DAG:     nisa.dma_copy hbm[245760, f32][(64,64),(1,32)], hbm[57344, f32][(1,2048)]
// CHECK-DAG:     nisa.dma_copy hbm[131200, f32][(64,64),(1,32)], hbm[0, f32][(1,2048)]
// CHECK-NOT:     nisa.dma_copy hbm[{{[0-9]+}}, f32][(64,512)
func.func @main(%x: memref<512x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<512x64xf32> {
  %o = memref.alloc() {nki.hbm_offset = 131072 : i64} : memref<512x64xf32>
  %half = memref.subview %o[0, 0] [512, 32] [1, 1] : memref<512x64xf32> to memref<512x32xf32, strided<[64, 1]>>
  nki.dma %x to %half : memref<512x32xf32> to memref<512x32xf32, strided<[64, 1]>>
  %rest = memref.subview %o[0, 32] [512, 32] [1, 1] : memref<512x64xf32> to memref<512x32xf32, strided<[64, 1], offset: 32>>
  nki.dma %x to %rest : memref<512x32xf32> to memref<512x32xf32, strided<[64, 1], offset: 32>>
  return %o : memref<512x64xf32>
}

// -----

// A sum with a scratch tile runs on the DVE (tensor_reduce) or on the ACT
// (identity into the scratch tile, the sum from its accumulator),
// whichever finishes it first: two independent sums take one each.
// CHECK-LABEL: nisa.program target("trn2")
// CHECK:       nisa.stream @act
// CHECK-NEXT:    nisa.activation identity sbuf[0:128, 8192, f32][(1,1024)], sbuf[0:128, 0, f32][(1,1024)] scale 1.000000e+00 bias 0.000000e+00 accum sbuf[0:128, 16384, f32][(1,1)]
// CHECK:       nisa.stream @dve
// CHECK-NEXT:    nisa.tensor_reduce add sbuf[0:128, 16388, f32][(1,1)], sbuf[0:128, 4096, f32][(1,1024)] axes(1)
func.func @main(%x: memref<128x2048xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x2xf32> {
  %o = memref.alloc() {nki.hbm_offset = 1048576 : i64} : memref<128x2xf32>
  %t = nki.alloc {offset = 0 : i64} : memref<128x2048xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<128x2048xf32> to memref<128x2048xf32, #nki.memory<sbuf>>
  %a = memref.subview %t[0, 0] [128, 1024] [1, 1] : memref<128x2048xf32, #nki.memory<sbuf>> to memref<128x1024xf32, strided<[2048, 1]>, #nki.memory<sbuf>>
  %b = memref.subview %t[0, 1024] [128, 1024] [1, 1] : memref<128x2048xf32, #nki.memory<sbuf>> to memref<128x1024xf32, strided<[2048, 1], offset: 1024>, #nki.memory<sbuf>>
  %s0 = nki.alloc {offset = 8192 : i64} : memref<128x1024xf32, #nki.memory<sbuf>>
  %s1 = nki.alloc {offset = 12288 : i64} : memref<128x1024xf32, #nki.memory<sbuf>>
  %r = nki.alloc {offset = 16384 : i64} : memref<128x2xf32, #nki.memory<sbuf>>
  %r0 = memref.subview %r[0, 0] [128, 1] [1, 1] : memref<128x2xf32, #nki.memory<sbuf>> to memref<128x1xf32, strided<[2, 1]>, #nki.memory<sbuf>>
  %r1 = memref.subview %r[0, 1] [128, 1] [1, 1] : memref<128x2xf32, #nki.memory<sbuf>> to memref<128x1xf32, strided<[2, 1], offset: 1>, #nki.memory<sbuf>>
  nki.reduce "add" %a into %r0 scratch %s0 : memref<128x1024xf32, #nki.memory<sbuf>> : memref<128x1024xf32, strided<[2048, 1]>, #nki.memory<sbuf>> into memref<128x1xf32, strided<[2, 1]>, #nki.memory<sbuf>>
  nki.reduce "add" %b into %r1 scratch %s1 : memref<128x1024xf32, #nki.memory<sbuf>> : memref<128x1024xf32, strided<[2048, 1], offset: 1024>, #nki.memory<sbuf>> into memref<128x1xf32, strided<[2, 1], offset: 1>, #nki.memory<sbuf>>
  nki.dma %r to %o : memref<128x2xf32, #nki.memory<sbuf>> to memref<128x2xf32>
  return %o : memref<128x2xf32>
}
