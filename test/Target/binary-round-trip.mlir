// RUN: nki-translate --nisa-to-binary %s -o %t.a.nkb
// RUN: nki-translate --nisa-to-binary %s -o %t.again.nkb
// RUN: cmp %t.a.nkb %t.again.nkb
// RUN: nki-translate --binary-to-nisa %t.a.nkb | FileCheck %s
// RUN: nki-translate --binary-to-nisa %t.a.nkb | FileCheck %s --check-prefix=LOC
// RUN: nki-translate --binary-to-nisa %t.a.nkb | nki-translate --nisa-to-binary -o %t.b.nkb
// RUN: cmp %t.a.nkb %t.b.nkb

// So does a program with every instruction op.
// RUN: nki-translate --nisa-to-binary %S/../Dialect/NISA/round-trip.mlir -o %t.ops.nkb
// RUN: nki-translate --binary-to-nisa %t.ops.nkb | nki-translate --nisa-to-binary -o %t.ops2.nkb
// RUN: cmp %t.ops.nkb %t.ops2.nkb

// Translation is deterministic, and binary -> nisa -> binary gives the same
// bytes: constants of every dtype, bit patterns of immediates (NaN payload,
// -0.0), every operand form and the instructions' source locations.

// CHECK-LABEL: nisa.program target("trn1") semaphores(3) {
nisa.program target("trn1") semaphores(3) {
  // CHECK: nisa.tensor @x input f32 [4, 8] at 0
  nisa.tensor @x input f32 [4, 8] at 0
  // CHECK: nisa.tensor @k_f32 const f32 [2] at 128 = dense<[1.500000e+00, -0.000000e+00]> : tensor<2xf32>
  nisa.tensor @k_f32 const f32 [2] at 128 = dense<[1.5, -0.0]> : tensor<2xf32>
  // CHECK: nisa.tensor @k_bf16 const bf16 [2, 2] at 136 = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, -4.000000e+00]]> : tensor<2x2xbf16>
  nisa.tensor @k_bf16 const bf16 [2, 2] at 136 = dense<[[1.0, 2.0], [3.0, -4.0]]> : tensor<2x2xbf16>
  // CHECK: nisa.tensor @k_f16 const f16 [2] at 144 = dense<[5.000000e-01, 6.550400e+04]> : tensor<2xf16>
  nisa.tensor @k_f16 const f16 [2] at 144 = dense<[0.5, 65504.0]> : tensor<2xf16>
  // CHECK: nisa.tensor @k_e4m3 const f8e4m3 [2] at 148 = dense<[4.480000e+02, -2.000000e+00]> : tensor<2xf8E4M3FN>
  nisa.tensor @k_e4m3 const f8e4m3 [2] at 148 = dense<[448.0, -2.0]> : tensor<2xf8E4M3FN>
  // CHECK: nisa.tensor @k_e5m2 const f8e5m2 [2] at 150 = dense<[5.734400e+04, 2.500000e-01]> : tensor<2xf8E5M2>
  nisa.tensor @k_e5m2 const f8e5m2 [2] at 150 = dense<[57344.0, 0.25]> : tensor<2xf8E5M2>
  // CHECK: nisa.tensor @k_i32 const i32 [3] at 152 = dense<[-1, 0, 2147483647]> : tensor<3xi32>
  nisa.tensor @k_i32 const i32 [3] at 152 = dense<[-1, 0, 2147483647]> : tensor<3xi32>
  // CHECK: nisa.tensor @k_i8 const i8 [2] at 164 = dense<[-128, 127]> : tensor<2xi8>
  nisa.tensor @k_i8 const i8 [2] at 164 = dense<[-128, 127]> : tensor<2xi8>
  // A splat is stored as its elements and comes back as a splat.
  // CHECK: nisa.tensor @k_u8 const u8 [4] at 166 = dense<255> : tensor<4xui8>
  nisa.tensor @k_u8 const u8 [4] at 166 = dense<255> : tensor<4xui8>
  // CHECK: nisa.tensor @empty const f32 [0] at 170 = dense<> : tensor<0xf32>
  nisa.tensor @empty const f32 [0] at 170 = dense<> : tensor<0xf32>
  // Host types of inputs and outputs (ONNX INT64 carried as i32, BOOL as u8).
  // CHECK: nisa.tensor @idx input i32 [2] at 172 host "i64"
  nisa.tensor @idx input i32 [2] at 172 host "i64"
  // CHECK: nisa.tensor @mask output u8 [2] at 180 host "bool"
  nisa.tensor @mask output u8 [2] at 180 host "bool"

  // An empty stream is kept.
  // CHECK: nisa.stream @act {
  // CHECK-NEXT: }
  nisa.stream @act {
  }
  // CHECK: nisa.stream @dve {
  nisa.stream @dve {
    // LOC: #loc{{[0-9]+}} = loc("{{.*}}binary-round-trip.mlir":[[# @LINE + 2]]:5)
    // CHECK-NEXT: nisa.memset sbuf[0:128, 0, f32][(1,8)], 0x7FC00001 signal(s0)
    nisa.memset sbuf[0:128, 0, f32][(1,8)], 0x7FC00001 signal(s0)
    // LOC: #loc{{[0-9]+}} = loc("{{.*}}binary-round-trip.mlir":[[# @LINE + 2]]:5)
    // CHECK-NEXT: nisa.tensor_scalar sbuf[0:128, 64, f32][(1,8)], sbuf[0:128, 0, f32][(1,8)], add -0.000000e+00, mul sbuf[0:128, 96, f32][(0,1)] reversed wait(s0 >= 1) signal(s1 += 3)
    nisa.tensor_scalar sbuf[0:128, 64, f32][(1,8)], sbuf[0:128, 0, f32][(1,8)], add -0.0, mul sbuf[0:128, 96, f32][(0,1)] reversed wait(s0 >= 1) signal(s1 += 3)
  }
  // CHECK: nisa.stream @pool {
  nisa.stream @pool {
    // CHECK-NEXT: nisa.iota sbuf[0:32, 128, i32][(4,2),(1,4)], (7 - 1 * p + 9223372036854775807 * i1 - 3 * i3)
    nisa.iota sbuf[0:32, 128, i32][(4,2),(1,4)], (7 - 1 * p + 9223372036854775807 * i1 - 3 * i3)
  }
  // CHECK: nisa.stream @dma15 {
  nisa.stream @dma15 {
    // CHECK-NEXT: nisa.dma_copy hbm[0, f32][(8,4),(1,8)], sbuf[0:4, 64, f32][(1,8)] wait(s1 >= 3, s2 >= 0)
    nisa.dma_copy hbm[0, f32][(8,4),(1,8)], sbuf[0:4, 64, f32][(1,8)] wait(s1 >= 3, s2 >= 0)
  }
}
