// RUN: nki-opt %s | FileCheck %s --check-prefix=IR
// RUN: nki-translate --nisa-to-binary %s -o %t.nkb
// RUN: nki-translate --binary-to-nisa %t.nkb | nki-translate --nisa-to-binary -o %t.again.nkb
// RUN: cmp %t.nkb %t.again.nkb

// Run it in the simulator on inputs whose product is exact in fp32, and
// compare with a reference computed in Python integers (no tolerance).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %system_python %S/Inputs/matmul_256_ref.py %t.dir
// RUN: nki-run %t.nkb --input a=%t.dir/a.npy --input b=%t.dir/b.npy \
// RUN:   --expected c=%t.dir/c.npy --rtol 0 --atol 0 --report | FileCheck %s --check-prefix=SIM
// The same program is valid on trn1, with trn1's timing.
// RUN: sed 's/target("trn2")/target("trn1")/' %s > %t.trn1.mlir
// RUN: nki-translate --nisa-to-binary %t.trn1.mlir -o %t.trn1.nkb
// RUN: nki-run %t.trn1.nkb --input a=%t.dir/a.npy --input b=%t.dir/b.npy \
// RUN:   --expected c=%t.dir/c.npy --rtol 0 --atol 0 --report | FileCheck %s --check-prefix=TRN1

// Dropping one semaphore wait is a race that the simulator reports with the
// source lines of both instructions (Instruction::loc).
// RUN: sed 's/start wait(s5 >= 3)/start wait(s5 >= 2)/' %s > %t.race.mlir
// RUN: nki-translate --nisa-to-binary %t.race.mlir -o %t.race.nkb
// RUN: not nki-run %t.race.nkb --random-inputs=1 2>&1 | FileCheck %s --check-prefix=RACE

// IR: nisa.program target("trn2") semaphores(8)
// SIM: target trn2, total {{.*}} us, 20 instructions
// SIM: output 'c' matches (max |diff| 0)
// TRN1: target trn1, total {{.*}} us, 20 instructions
// TRN1: output 'c' matches (max |diff| 0)

// C[256,256] (f32) = A[256,256] (bf16) x B[256,256] (bf16), written by hand.
//
// A is given row-major, not pre-transposed: the tensor engine contracts over
// partitions, so it needs A^T tiles (stationary[k, m] = A[m, k]). The PE
// transposes each 128x128 block of A into PSUM, and DVE copies it back to
// SBUF as bf16 (exact: bf16 -> f32 -> bf16).
//
// Tiling: C is two row blocks mi (M = 128) of N = 256 columns; each is
// accumulated in its own PSUM bank over two K = 128 steps ki (the first with
// `start`). ACT copies each finished block to SBUF, and a DMA queue stores it.
//
// HBM (bytes): A [0, 131072), B [131072, 262144), C [262144, 524288).
// SBUF (bytes per partition):
//   A rows, block mi        [mi*512, +512)          bf16 [128 x 256]
//   B rows, block ki        [1024 + ki*512, +512)   bf16 [128 x 256]
//   A^T block (ki, mi)      [2048 + j*256, +256)    bf16 [128 x 128], j = 2*ki + mi
//   C rows, block mi        [3072 + mi*1024, +1024) f32  [128 x 256]
// PSUM (bytes per partition):
//   transpose j             bank 0, [j*512, +512)   f32  [128 x 128]
//   C accumulator mi        bank 2 + mi             f32  [128 x 256]
//
// Semaphores, one per cross-stream dependence:
//   s0, s1  A block 0 / 1 loaded          (dma0, dma1 -> pe)
//   s2, s3  B block 0 / 1 loaded          (dma2, dma3 -> pe)
//   s4      transposes done, counts to 4  (pe -> dve)
//   s5      A^T blocks in SBUF, to 4      (dve -> pe)
//   s6      C blocks accumulated, to 2    (pe -> act)
//   s7      C blocks in SBUF, to 2        (act -> dma4, dma5)
nisa.program target("trn2") semaphores(8) {
  nisa.tensor @a input bf16 [256, 256] at 0
  nisa.tensor @b input bf16 [256, 256] at 131072
  nisa.tensor @c output f32 [256, 256] at 262144

  // Loads: one queue per block so that they run in parallel.
  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:128, 0, bf16][(1,256)], hbm[0, bf16][(256,128),(1,256)] signal(s0)
  }
  nisa.stream @dma1 {
    nisa.dma_copy sbuf[0:128, 512, bf16][(1,256)], hbm[65536, bf16][(256,128),(1,256)] signal(s1)
  }
  nisa.stream @dma2 {
    nisa.dma_copy sbuf[0:128, 1024, bf16][(1,256)], hbm[131072, bf16][(256,128),(1,256)] signal(s2)
  }
  nisa.stream @dma3 {
    nisa.dma_copy sbuf[0:128, 1536, bf16][(1,256)], hbm[196608, bf16][(256,128),(1,256)] signal(s3)
  }

  nisa.stream @pe {
    // Transpose j = 2*ki + mi: A[mi*128 + m, ki*128 + k] -> T_j[k, m].
    nisa.transpose psum[0:128, 0, f32][(1,128)], sbuf[0:128, 0, bf16][(1,128)] wait(s0 >= 1) signal(s4)
    nisa.transpose psum[0:128, 1024, f32][(1,128)], sbuf[0:128, 256, bf16][(1,128)] signal(s4)
    nisa.transpose psum[0:128, 512, f32][(1,128)], sbuf[0:128, 512, bf16][(1,128)] wait(s1 >= 1) signal(s4)
    nisa.transpose psum[0:128, 1536, f32][(1,128)], sbuf[0:128, 768, bf16][(1,128)] signal(s4)

    // C block 0 = A^T(0,0)^T x B0 + A^T(1,0)^T x B1, in PSUM bank 2.
    nisa.matmul psum[0:128, 4096, f32][(1,256)], sbuf[0:128, 2048, bf16][(1,128)],
                sbuf[0:128, 1024, bf16][(1,256)] start wait(s5 >= 1, s2 >= 1)
    nisa.matmul psum[0:128, 4096, f32][(1,256)], sbuf[0:128, 2560, bf16][(1,128)],
                sbuf[0:128, 1536, bf16][(1,256)] wait(s5 >= 2, s3 >= 1) signal(s6)
    // C block 1, in PSUM bank 3.
    // RACE: data race on sbuf partition 0 byte 2304: pe instruction 6 (matmul) at {{.*}}race.mlir:[[# @LINE + 1]]:5 reads src0, but dve instruction 2 (tensor_copy) at {{.*}}race.mlir:{{[0-9]+}}:5 writes the same bytes
    nisa.matmul psum[0:128, 6144, f32][(1,256)], sbuf[0:128, 2304, bf16][(1,128)],
                sbuf[0:128, 1024, bf16][(1,256)] start wait(s5 >= 3)
    nisa.matmul psum[0:128, 6144, f32][(1,256)], sbuf[0:128, 2816, bf16][(1,128)],
                sbuf[0:128, 1536, bf16][(1,256)] wait(s5 >= 4) signal(s6)
  }

  nisa.stream @dve {
    // T_j (PSUM, f32) -> A^T block j (SBUF, bf16), in the order PE made them:
    // j = 0 (ki 0, mi 0), 2 (ki 1, mi 0), 1 (ki 0, mi 1), 3 (ki 1, mi 1).
    nisa.tensor_copy sbuf[0:128, 2048, bf16][(1,128)], psum[0:128, 0, f32][(1,128)] wait(s4 >= 1) signal(s5)
    nisa.tensor_copy sbuf[0:128, 2560, bf16][(1,128)], psum[0:128, 1024, f32][(1,128)] wait(s4 >= 2) signal(s5)
    nisa.tensor_copy sbuf[0:128, 2304, bf16][(1,128)], psum[0:128, 512, f32][(1,128)] wait(s4 >= 3) signal(s5)
    nisa.tensor_copy sbuf[0:128, 2816, bf16][(1,128)], psum[0:128, 1536, f32][(1,128)] wait(s4 >= 4) signal(s5)
  }

  nisa.stream @act {
    nisa.activation identity sbuf[0:128, 3072, f32][(1,256)], psum[0:128, 4096, f32][(1,256)]
        scale 1.0 bias 0.0 wait(s6 >= 1) signal(s7)
    nisa.activation identity sbuf[0:128, 4096, f32][(1,256)], psum[0:128, 6144, f32][(1,256)]
        scale 1.0 bias 0.0 wait(s6 >= 2) signal(s7)
  }

  // Stores.
  nisa.stream @dma4 {
    nisa.dma_copy hbm[262144, f32][(256,128),(1,256)], sbuf[0:128, 3072, f32][(1,256)] wait(s7 >= 1)
  }
  nisa.stream @dma5 {
    nisa.dma_copy hbm[393216, f32][(256,128),(1,256)], sbuf[0:128, 4096, f32][(1,256)] wait(s7 >= 2)
  }
}
