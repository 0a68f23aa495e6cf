// HBM initialisation: the input starts written, the output and the scratch
// buffer do not; a DMA that reads a byte nothing wrote is an error naming the
// tensor and the byte offset in it.
//
// Reading the scratch buffer after the store to it is fine.
// RUN: nki-translate --nisa-to-binary %s -o %t.ok.nkb
// RUN: nki-run %t.ok.nkb --random-inputs=1 --report | FileCheck %s --check-prefix=OK
// OK: target trn2, total {{.*}}, 4 instructions
//
// Reading the output before anything wrote it.
// RUN: sed 's/hbm\[8192, f32\]\[(64,4),(1,64)\] wait/hbm[1024, f32][(64,4),(1,64)] wait/' %s > %t.out.mlir
// RUN: nki-translate --nisa-to-binary %t.out.mlir -o %t.out.nkb
// RUN: not nki-run %t.out.nkb --random-inputs=1 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: nki-run: error: dma1 instruction 0 (dma_copy) at {{.*}}out.mlir:{{[0-9]+}}:{{[0-9]+}}: src0 reads uninitialised hbm at tensor 'y' (output) byte 0
//
// Reading four rows of the scratch buffer when only three were stored.
// RUN: sed 's/hbm\[8192, f32\]\[(64,4),(1,64)\], sbuf\[0:4, 0,/hbm[8192, f32][(64,3),(1,64)], sbuf[0:3, 0,/' %s > %t.part.mlir
// RUN: nki-translate --nisa-to-binary %t.part.mlir -o %t.part.nkb
// RUN: not nki-run %t.part.nkb --random-inputs=1 2>&1 | FileCheck %s --check-prefix=PART
// PART: src0 reads uninitialised hbm at tensor 'tmp' (scratch) byte 768
//
// The check can be switched off; the read then sees zeros.
// RUN: nki-run %t.out.nkb --random-inputs=1 --no-uninit-check --report | FileCheck %s --check-prefix=OK

nisa.program target("trn2") semaphores(2) {
  nisa.tensor @x input f32 [4, 64] at 0
  nisa.tensor @y output f32 [4, 64] at 1024
  nisa.tensor @tmp scratch f32 [4, 64] at 8192

  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:4, 0, f32][(1,64)], hbm[0, f32][(64,4),(1,64)]
    nisa.dma_copy hbm[8192, f32][(64,4),(1,64)], sbuf[0:4, 0, f32][(1,64)] signal(s0)
  }
  nisa.stream @dma1 {
    nisa.dma_copy sbuf[0:4, 256, f32][(1,64)], hbm[8192, f32][(64,4),(1,64)] wait(s0 >= 1) signal(s1)
  }
  nisa.stream @dma2 {
    nisa.dma_copy hbm[1024, f32][(64,4),(1,64)], sbuf[0:4, 256, f32][(1,64)] wait(s1 >= 1)
  }
}
