// RUN: nki-opt %s | FileCheck %s
// RUN: nki-opt %s | nki-opt | FileCheck %s
// RUN: nki-opt %s --mlir-print-op-generic | nki-opt | FileCheck %s

// Every instruction op, every operand form, and the semaphore clause survive
// print -> parse -> print.

// CHECK-LABEL: nisa.program target("trn2") semaphores(4) {
nisa.program target("trn2") semaphores(4) {
  // CHECK: nisa.tensor @a input bf16 [256, 256] at 0
  nisa.tensor @a input bf16 [256, 256] at 0
  // CHECK: nisa.tensor @c output f32 [128, 512] at 131072
  nisa.tensor @c output f32 [128, 512] at 131072
  // CHECK: nisa.tensor @w const f32 [2] at 524288 = dense<[1.000000e+00, -2.500000e-01]> : tensor<2xf32>
  nisa.tensor @w const f32 [2] at 524288 = dense<[1.0, -0.25]> : tensor<2xf32>
  // CHECK: nisa.tensor @tmp scratch u8 [64] at 524296
  nisa.tensor @tmp scratch u8 [64] at 524296
  // Tensors and streams do not share names.
  // CHECK: nisa.tensor @act scratch f32 [4] at 524360
  nisa.tensor @act scratch f32 [4] at 524360

  // CHECK: nisa.stream @pe {
  nisa.stream @pe {
    // CHECK-NEXT: nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start wait(s0 >= 1, s1 >= 2)
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)],
                sbuf[0:128, 256, bf16][(1,512)] start wait(s0 >= 1, s1 >= 2)
    // CHECK-NEXT: nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] signal(s2)
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)],
                sbuf[0:128, 256, bf16][(1,512)] signal(s2)
    // CHECK-NEXT: nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(2,128),(1,2)], sbuf[0:128, 256, f8e5m2][(2,512),(1,2)] start rows 2
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(2,128),(1,2)],
                sbuf[0:128, 256, f8e5m2][(2,512),(1,2)] start rows 2
    // CHECK-NEXT: nisa.transpose psum[0:64, 2048, f32][(1,128)], sbuf[0:128, 0, bf16][(1,64)]
    nisa.transpose psum[0:64, 2048, f32][(1,128)], sbuf[0:128, 0, bf16][(1,64)]
  }
  // CHECK: nisa.stream @act {
  nisa.stream @act {
    // CHECK-NEXT: nisa.activation exp sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)] scale 1.000000e+00 bias sbuf[0:128, 512, f32][(1,1)] accum sbuf[0:128, 516, f32][(1,1)] wait(s2 >= 1) signal(s3 += 2)
    nisa.activation exp sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)]
        scale 1.0 bias sbuf[0:128, 512, f32][(1,1)]
        accum sbuf[0:128, 516, f32][(1,1)] wait(s2 >= 1) signal(s3 += 2)
    // CHECK-NEXT: nisa.activation gelu_tanh sbuf[64:96, 0, bf16][(1,64)], sbuf[64:96, 0, bf16][(1,64)] scale sbuf[64:96, 512, f32][(1,1)] bias -5.000000e-01{{$}}
    nisa.activation gelu_tanh sbuf[64:96, 0, bf16][(1,64)], sbuf[64:96, 0, bf16][(1,64)]
        scale sbuf[64:96, 512, f32][(1,1)] bias -0.5
  }
  // CHECK: nisa.stream @dve {
  nisa.stream @dve {
    // CHECK-NEXT: nisa.tensor_tensor add sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)], psum[0:128, 0, f32][(1,64)]
    nisa.tensor_tensor add sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)],
        psum[0:128, 0, f32][(1,64)]
    // CHECK-NEXT: nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], mul 2.000000e+00, bypass 0.000000e+00
    nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], mul 2.0, bypass 0.0
    // CHECK-NEXT: nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], sub sbuf[0:128, 512, f32][(1,1)] reversed, max 0.000000e+00 reversed
    nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)],
        sub sbuf[0:128, 512, f32][(1,1)] reversed, max 0.0 reversed
    // CHECK-NEXT: nisa.tensor_reduce max sbuf[0:128, 512, f32][(1,4)], sbuf[0:128, 0, f32][(16,4),(1,16)] axes(1)
    nisa.tensor_reduce max sbuf[0:128, 512, f32][(1,4)], sbuf[0:128, 0, f32][(16,4),(1,16)] axes(1)
    // CHECK-NEXT: nisa.tensor_copy sbuf[0:128, 1024, bf16][(1,64)], psum[0:128, 0, f32][(1,64)]
    nisa.tensor_copy sbuf[0:128, 1024, bf16][(1,64)], psum[0:128, 0, f32][(1,64)]
    // CHECK-NEXT: nisa.memset sbuf[0:32, 0, i32][(1,8)], 7.000000e+00
    nisa.memset sbuf[0:32, 0, i32][(1,8)], 7.0
    // CHECK-NEXT: nisa.select sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, u8][(1,64)], sbuf[0:128, 512, f32][(1,64)], sbuf[0:128, 768, f32][(0,64)]
    nisa.select sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, u8][(1,64)],
        sbuf[0:128, 512, f32][(1,64)], sbuf[0:128, 768, f32][(0,64)]
    // CHECK-NEXT: nisa.transpose32 sbuf[0:32, 0, f32][(1,32)], sbuf[0:32, 128, f32][(1,32)]
    nisa.transpose32 sbuf[0:32, 0, f32][(1,32)], sbuf[0:32, 128, f32][(1,32)]
  }
  // CHECK: nisa.stream @pool {
  nisa.stream @pool {
    // CHECK-NEXT: nisa.iota sbuf[0:128, 0, f32][(1,64)], (0 + 64 * p + 1 * i0)
    nisa.iota sbuf[0:128, 0, f32][(1,64)], (0 + 64 * p + 1 * i0)
    // CHECK-NEXT: nisa.affine_select sbuf[0:128, 0, f32][(1,128)], sbuf[0:128, 0, f32][(1,128)], (-3 + 1 * p - 1 * i0) ge fill -1.000000e+30
    nisa.affine_select sbuf[0:128, 0, f32][(1,128)], sbuf[0:128, 0, f32][(1,128)],
        (-3 + 1 * p - 1 * i0) ge fill -1.0e+30
    // CHECK-NEXT: nisa.tensor_tensor mul sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)]
    nisa.tensor_tensor mul sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)],
        sbuf[0:128, 0, f32][(1,64)]
    // CHECK-NEXT: nisa.memset sbuf[0:128, 0, f32][(1,64)], 0x7FC00001
    nisa.memset sbuf[0:128, 0, f32][(1,64)], 0x7FC00001
  }
  // CHECK: nisa.stream @dma3 {
  nisa.stream @dma3 {
    // CHECK-NEXT: nisa.dma_copy sbuf[0:128, 0, bf16][(1,256)], hbm[0, bf16][(256,128),(1,256)] signal(s0)
    nisa.dma_copy sbuf[0:128, 0, bf16][(1,256)], hbm[0, bf16][(256,128),(1,256)] signal(s0)
    // CHECK-NEXT: nisa.dma_copy hbm[131072, f32][(512,128),(1,512)], sbuf[0:128, 0, f32][(1,512)] wait(s3 >= 2)
    nisa.dma_copy hbm[131072, f32][(512,128),(1,512)], sbuf[0:128, 0, f32][(1,512)] wait(s3 >= 2)
    // CHECK-NEXT: nisa.dma_copy sbuf[0:1, 0, f32][], hbm[524288, f32][]
    nisa.dma_copy sbuf[0:1, 0, f32][], hbm[524288, f32][]
  }
}

