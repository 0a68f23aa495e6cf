// RUN: nki-opt %s | FileCheck %s
// RUN: nki-opt %s | nki-opt | FileCheck %s
// RUN: nki-opt %s --mlir-print-op-generic | nki-opt | FileCheck %s
// The binary keeps it too.
// RUN: nki-translate --nisa-to-binary %s -o %t.nkb
// RUN: nki-translate --binary-to-nisa %t.nkb | FileCheck %s

// The MX quad row and its types (trn3): the text and the binary keep them.
// CHECK-LABEL: nisa.program target("trn3") semaphores(1) {
nisa.program target("trn3") semaphores(1) {
  // CHECK: nisa.tensor @w input f4e2m1x2 [128, 128, 2] at 0
  nisa.tensor @w input f4e2m1x2 [128, 128, 2] at 0
  // CHECK: nisa.tensor @ws input e8m0 [16, 128] at 32768
  nisa.tensor @ws input e8m0 [16, 128] at 32768
  // CHECK: nisa.tensor @q output f4e2m1 [128, 64] at 34816
  nisa.tensor @q output f4e2m1 [128, 64] at 34816
  nisa.stream @pe {
    // CHECK: nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f4e2m1x2][(2,128),(1,2)], sbuf[0:128, 512, f8e4m3][(4,512),(1,4)] scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)] start signal(s0)
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f4e2m1x2][(2,128),(1,2)],
                   sbuf[0:128, 512, f8e4m3][(4,512),(1,4)]
                   scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)] start signal(s0)
    // CHECK-NEXT: nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f4e2m1x2][(2,128),(1,2)], sbuf[0:128, 512, f8e4m3][(4,512),(1,4)] scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)]{{( loc\(.*\))?$}}
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f4e2m1x2][(2,128),(1,2)],
                   sbuf[0:128, 512, f8e4m3][(4,512),(1,4)]
                   scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)]
  }
}
