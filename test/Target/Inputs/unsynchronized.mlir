// A scheduled program before nki-synchronize: no semaphores yet.
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @x input f32 [16, 32] at 0
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:16, 0, f32][(1,32)], hbm[0, f32][(1,512)] {nisa.seq = 0 : i64}
  }
}
