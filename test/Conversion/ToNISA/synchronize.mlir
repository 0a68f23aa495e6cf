// RUN: nki-opt %s -split-input-file --nki-synchronize | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-synchronize --nki-synchronize | FileCheck %s

// nki-synchronize reads the instructions only: the load (seq 0) before
// the exp (seq 1) on another stream is a read-after-write, the exp before
// the store (seq 2) another; each is a wait on the producer's stream
// semaphore. `nisa.seq` goes, the semaphore count is set. A second run
// leaves the synchronised program as it is.
// CHECK-LABEL: nisa.program target("trn2") semaphores(2)
// CHECK:       nisa.stream @act {
// CHECK-NEXT:    nisa.activation exp {{.*}} wait(s1 >= 1) signal(s0)
// CHECK-NEXT:  }
// CHECK:       nisa.stream @dma0 {
// CHECK-NEXT:    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] signal(s1)
// CHECK-NEXT:    nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 0, f32][(1,32)] wait(s0 >= 1)
// CHECK-NOT:   nisa.seq
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.tensor @out0 output f32 [16, 32] at 32768
  nisa.stream @act {
    nisa.activation exp sbuf[0:16, 0, f32][(1,32)], sbuf[0:16, 0, f32][(1,32)] scale 1.0 bias 0.0 {nisa.seq = 1 : i64}
  }
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 0 : i64}
    nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 0, f32][(1,32)] {nisa.seq = 2 : i64}
  }
}

// -----

// The order is the program's, not the streams': with the exp first (seq
// 0) and the load after it (seq 1), the load overwrites what the exp
// reads (write-after-read) and the store reads what the load wrote. The
// two transfers of one queue are ordered by the queue's own semaphore
// (the store must not start before the load's data has landed).
// CHECK-LABEL: nisa.program target("trn2") semaphores(2)
// CHECK:       nisa.activation exp {{.*}} signal(s0)
// CHECK:       nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] wait(s0 >= 1) signal(s1)
// CHECK-NEXT:  nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 0, f32][(1,32)] wait(s1 >= 1)
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.tensor @out0 output f32 [16, 32] at 32768
  nisa.stream @act {
    nisa.activation exp sbuf[0:16, 0, f32][(1,32)], sbuf[0:16, 0, f32][(1,32)] scale 1.0 bias 0.0 {nisa.seq = 0 : i64}
  }
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 1 : i64}
    nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 0, f32][(1,32)] {nisa.seq = 2 : i64}
  }
}

// -----

// Independent instructions (disjoint partition blocks) need no semaphore.
// CHECK-LABEL: nisa.program target("trn2") semaphores(0)
// CHECK:       nisa.activation exp sbuf[0:32, 0, f32][(1,32)], sbuf[0:32, 0, f32][(1,32)] scale 1.000000e+00 bias 0.000000e+00{{$}}
// CHECK:       nisa.dma_copy sbuf[32:64, 0, f32][(1,32)], hbm[0, f32][(1,1024)]{{$}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [32, 32] at 0
  nisa.stream @act {
    nisa.activation exp sbuf[0:32, 0, f32][(1,32)], sbuf[0:32, 0, f32][(1,32)] scale 1.0 bias 0.0 {nisa.seq = 0 : i64}
  }
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[32:64, 0, f32][(1,32)], hbm[0, f32][(1,1024)] {nisa.seq = 1 : i64}
  }
}

// -----

// A DMA's SBUF operand is its rows when they leave gaps: two copies of
// interleaved rows of one tile (every other row, as stacked rows' result
// blocks are copied) are independent though their hulls overlap; the
// exp that reads all four rows waits for both.
// CHECK-LABEL: nisa.program target("trn2") semaphores(2)
// CHECK:       nisa.activation exp {{.*}} wait(s0 >= 1, s1 >= 1){{$}}
// CHECK:       nisa.dma_copy sbuf[0:16, 0, f32][(64,2),(1,32)], hbm[0, f32][(1,1024)] signal(s0){{$}}
// CHECK:       nisa.dma_copy sbuf[0:16, 128, f32][(64,2),(1,32)], hbm[4096, f32][(1,1024)] signal(s1){{$}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 128] at 0
  nisa.stream @act {
    nisa.activation exp sbuf[0:16, 1024, f32][(1,128)], sbuf[0:16, 0, f32][(1,128)] scale 1.0 bias 0.0 {nisa.seq = 2 : i64}
  }
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(64,2),(1,32)], hbm[0, f32][(1,1024)] {nisa.seq = 0 : i64}
  }
  nisa.stream @dma1 {
    nisa.dma_copy sbuf[0:16, 128, f32][(64,2),(1,32)], hbm[4096, f32][(1,1024)] {nisa.seq = 1 : i64}
  }
}

// -----

// A compute instruction's operand stays its hull (most of a program: its
// pieces would cost compile time): an exp writing every other row orders a
// DMA writing the rows between them.
// CHECK-LABEL: nisa.program target("trn2") semaphores(1)
// CHECK:       nisa.activation exp sbuf[0:16, 0, f32][(64,2),(1,32)], {{.*}} signal(s0){{$}}
// CHECK:       nisa.dma_copy sbuf[0:16, 128, f32][(64,2),(1,32)], hbm[0, f32][(1,1024)] wait(s0 >= 1){{$}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 64] at 0
  nisa.stream @act {
    nisa.activation exp sbuf[0:16, 0, f32][(64,2),(1,32)], sbuf[0:16, 1024, f32][(1,64)] scale 1.0 bias 0.0 {nisa.seq = 0 : i64}
  }
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 128, f32][(64,2),(1,32)], hbm[0, f32][(1,1024)] {nisa.seq = 1 : i64}
  }
}
