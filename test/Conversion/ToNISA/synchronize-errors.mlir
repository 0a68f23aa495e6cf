// RUN: nki-opt %s -split-input-file --nki-synchronize -verify-diagnostics

// A stream that runs a dependent pair backwards: the store (seq 2) is
// placed before the load (seq 0) whose data it writes out.
// expected-error @+1 {{'nisa.program' op cannot be synchronised: }}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.tensor @out0 output f32 [16, 32] at 32768
  nisa.stream @dma0 {
    nisa.dma_copy hbm[32768, f32][(1,512)], sbuf[0:16, 0, f32][(1,32)] {nisa.seq = 2 : i64}
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 0 : i64}
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 0 : i64}
    // expected-error @+1 {{'nisa.dma_copy' op has no 'nisa.seq' (its place in the program order) while other instructions of the program have one}}
    nisa.dma_copy sbuf[0:16, 128, f32][(1,32)], hbm[0, f32][(1,512)]
  }
}

// -----

nisa.program target("trn2") semaphores(1) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.stream @dma0 {
    // expected-error @+1 {{'nisa.dma_copy' op already has semaphores; nki-synchronize places all of a program's semaphores}}
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] signal(s0) {nisa.seq = 0 : i64}
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.tensor @arg0 input f32 [16, 32] at 0
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 3 : i64}
  }
  nisa.stream @dma1 {
    // expected-error @+1 {{'nisa.dma_copy' op has 'nisa.seq' 3, as another instruction has}}
    nisa.dma_copy sbuf[0:16, 128, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 3 : i64}
  }
}
