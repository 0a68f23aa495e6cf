// Hand-computed timing of a small nisa program, on each target.
//
// trn2: dma0 moves [128, 64] f32: 128 descriptors (a partition ends a run) of
// 256 bytes, each charged 512: busy ceil(65536 * 1000 / 23) = 2849392 ps,
// signals 1300 ns later at 4149392. ACT starts 50 ns after that (another
// stream's increment) at 4199392; exp loads its table: 64 + 64 + 700 = 828
// cycles at 1200 MHz = 690000 ps, done at 4889392. dma1 starts at 4939392,
// busy 2849392, signals at 9088784.
//
// RUN: nki-translate --nisa-to-binary %s -o %t.trn2.nkb
// RUN: nki-run %t.trn2.nkb --random-inputs=1 --report=json | FileCheck %s --check-prefix=TRN2
// TRN2: "total_ps": 9088784, "instructions": 3,
// TRN2-SAME: {"stream": "act", "instructions": 1, "busy_ps": 690000,
// TRN2-SAME: {"stream": "dma0", "instructions": 1, "busy_ps": 2849392, "utilisation": {{[0-9.e-]+}}, "dma_bytes": 32768}
//
// trn1: 17 B/ns (3855059 ps per transfer) and ACT at 1400 MHz (591429 ps):
// 3855059 + 1300000 + 50000 + 591429 + 50000 + 3855059 + 1300000.
// RUN: sed 's/target("trn2")/target("trn1")/' %s > %t.trn1.mlir
// RUN: nki-translate --nisa-to-binary %t.trn1.mlir -o %t.trn1.nkb
// RUN: nki-run %t.trn1.nkb --random-inputs=1 --report=json | FileCheck %s --check-prefix=TRN1
// TRN1: "total_ps": 11001547,
//
// trn3: 38 B/ns (1724632 ps per transfer), ACT at trn2's 1200 MHz:
// 1724632 + 1300000 + 50000 + 690000 + 50000 + 1724632 + 1300000.
// RUN: sed 's/target("trn2")/target("trn3")/' %s > %t.trn3.mlir
// RUN: nki-translate --nisa-to-binary %t.trn3.mlir -o %t.trn3.nkb
// RUN: nki-run %t.trn3.nkb --random-inputs=1 --report=json | FileCheck %s --check-prefix=TRN3
// TRN3: "total_ps": 6839264,
// TRN3-SAME: {"stream": "dma0", "instructions": 1, "busy_ps": 1724632,
//
// Outputs are exp of the inputs (libm's expf may differ from numpy's by an
// ulp).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %system_python -c "import numpy as np; np.save('%t.dir/x.npy', np.full((128, 64), 1.0, np.float32)); np.save('%t.dir/y.npy', np.full((128, 64), np.exp(np.float32(1)), np.float32))"
// RUN: nki-run %t.trn2.nkb --input %t.dir/x.npy --expected y=%t.dir/y.npy --rtol 1e-6 --atol 0 | FileCheck %s --check-prefix=VALUES
// VALUES: output 'y' matches
//
// Waiting for a value the semaphore never reaches is a deadlock, reported
// with the source location of each blocked instruction.
// RUN: sed 's/wait(s0 >= 1)/wait(s0 >= 2)/' %s > %t.dead.mlir
// RUN: nki-translate --nisa-to-binary %t.dead.mlir -o %t.dead.nkb
// RUN: not nki-run %t.dead.nkb --random-inputs=1 2>&1 | FileCheck %s --check-prefix=DEAD
// DEAD: nki-run: error: deadlock: no stream can proceed
// DEAD-NEXT: act instruction 0 (activation) at {{.*}}dead.mlir:[[@LINE+11]]:{{[0-9]+}} waits for semaphore 0 >= 2 (it reaches 1)
// DEAD-NEXT: dma1 instruction 0 (dma_copy) at {{.*}}dead.mlir:[[@LINE+14]]:{{[0-9]+}} waits for semaphore 1 >= 1 (it reaches 0)

nisa.program target("trn2") semaphores(2) {
  nisa.tensor @x input f32 [128, 64] at 0
  nisa.tensor @y output f32 [128, 64] at 32768

  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:128, 0, f32][(1,64)], hbm[0, f32][(64,128),(1,64)] signal(s0)
  }
  nisa.stream @act {
    nisa.activation exp sbuf[0:128, 256, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)]
        scale 1.0 bias 0.0 wait(s0 >= 1) signal(s1)
  }
  nisa.stream @dma1 {
    nisa.dma_copy hbm[32768, f32][(64,128),(1,64)], sbuf[0:128, 256, f32][(1,64)] wait(s1 >= 1)
  }
}
