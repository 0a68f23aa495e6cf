// A small valid program for the binary error tests.
nisa.program target("trn2") semaphores(1) {
  nisa.tensor @x input f32 [128, 64] at 0
  nisa.tensor @y output f32 [128, 64] at 32768
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:128, 0, f32][(1,64)], hbm[0, f32][(64,128),(1,64)] signal(s0)
    nisa.dma_copy hbm[32768, f32][(64,128),(1,64)], sbuf[0:128, 0, f32][(1,64)] wait(s0 >= 1)
  }
}
