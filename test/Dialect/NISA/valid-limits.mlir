// RUN: nki-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Instructions exactly at the machine model's limits verify: the checks do
// not reject too much.

// CHECK-LABEL: nisa.program target("trn2")
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // K = 128, M = 128, N = 512, dst filling PSUM bank 7 exactly.
    nisa.matmul psum[0:128, 14336, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
    // Narrow input types may mix.
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(1,128)], sbuf[0:128, 256, f16][(1,512)] start
    // fp32 with fp32.
    nisa.matmul psum[0:64, 0, f32][(1,64)], sbuf[0:32, 0, f32][(1,64)], sbuf[0:32, 512, f32][(1,64)] start
    // Transpose P = F = 128.
    nisa.transpose psum[0:128, 2048, f32][(1,128)], sbuf[0:128, 0, bf16][(1,128)]
  }
  nisa.stream @dve {
    // 1-32 partitions at 96, 33-64 at 64, the last bytes of SBUF.
    nisa.memset sbuf[96:128, 229372, f32][(1,1)], 0.0
    nisa.memset sbuf[64:128, 229374, bf16][(1,1)], 0.0
    // One PSUM input is allowed; 4 free dims on chip.
    nisa.tensor_tensor add sbuf[0:128, 0, f32][(8,2),(4,2),(2,2),(1,2)], psum[0:128, 0, f32][(8,2),(4,2),(2,2),(1,2)], sbuf[0:128, 64, f32][(8,2),(4,2),(2,2),(1,2)]
    nisa.tensor_tensor xor sbuf[0:128, 0, i32][(1,4)], sbuf[0:128, 16, i32][(1,4)], sbuf[0:128, 32, u8][(1,4)]
  }
  nisa.stream @dma15 {
    // 5 dims in HBM; the last byte of HBM.
    nisa.dma_copy sbuf[0:1, 0, u8][(1,1)], hbm[12884901887, u8][(1,1),(1,1),(1,1),(1,1),(1,1)]
  }
}

// -----

// CHECK-LABEL: nisa.program target("trn1")
nisa.program target("trn1") semaphores(1) {
  nisa.stream @dve {
    // The last bytes of trn1's 192 KiB SBUF partitions.
    nisa.memset sbuf[0:128, 196604, f32][(1,1)], 0.0 signal(s0 += 4294967295)
  }
}
