// An instruction on a stream its opcode cannot run on.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dma0 {
    nisa.memset sbuf[0:128, 0, f32][(1,64)], 0.0
  }
}
