// Each verifier rule of the nki dialect, with the message it gives.
// RUN: nki-opt %s -split-input-file -verify-diagnostics

func.func @alloc_in_hbm() {
  // expected-error @+1 {{tile must be an SBUF or PSUM tile, got 'memref<128x4xf32>'}}
  %t = nki.alloc : memref<128x4xf32>
  return
}

// -----

func.func @too_many_partitions() {
  // expected-error @+1 {{tile has 129 partitions; the limit is 128}}
  %t = nki.alloc : memref<129x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @psum_bank() {
  // expected-error @+1 {{PSUM tile of 4096 bytes per partition exceeds a 2048-byte bank}}
  %t = nki.alloc : memref<128x1024xf32, #nki.memory<psum>>
  return
}

// -----

func.func @dma_psum(%h: memref<128x4xf32>, %p: memref<128x4xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{dest may not be in PSUM (DMA never touches PSUM)}}
  nki.dma %h to %p : memref<128x4xf32> to memref<128x4xf32, #nki.memory<psum>>
  return
}

// -----

func.func @dma_count(%h: memref<128x4xf32>, %t: memref<128x8xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{source has 512 elements but destination has 1024}}
  nki.dma %h to %t : memref<128x4xf32> to memref<128x8xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @matmul_k(%s: memref<128x128xbf16, #nki.memory<sbuf>>, %m: memref<64x512xbf16, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{stationary K=128 differs from moving K=64}}
  nki.matmul %s, %m into %acc : memref<128x128xbf16, #nki.memory<sbuf>>, memref<64x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_n(%s: memref<128x128xbf16, #nki.memory<sbuf>>, %m: memref<128x1024xbf16, #nki.memory<sbuf>>, %acc: memref<128x1024xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{N=1024 exceeds 512}}
  nki.matmul %s, %m into %acc : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x1024xbf16, #nki.memory<sbuf>> into memref<128x1024xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_rows_bf16(%s: memref<128x128x2xbf16, #nki.memory<sbuf>>, %m: memref<128x512x2xbf16, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{rows 2 (fp8 double row) needs fp8 sources; stationary is 'bf16'}}
  nki.matmul %s, %m into %acc rows 2 : memref<128x128x2xbf16, #nki.memory<sbuf>>, memref<128x512x2xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_rows_layout(%s: memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x1024xf8E4M3FN, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{rows 2 (fp8 double row) needs moving as [K/2, columns, 2], got 'memref<128x1024xf8E4M3FN, #nki.memory<sbuf>>'}}
  nki.matmul %s, %m into %acc rows 2 : memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, memref<128x1024xf8E4M3FN, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_rows_three(%s: memref<128x128x3xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x512x3xf8E4M3FN, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{rows = 3; 1, or 2 for the fp8 double row}}
  nki.matmul %s, %m into %acc rows 3 : memref<128x128x3xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x3xf8E4M3FN, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_acc_in_sbuf(%s: memref<128x128xbf16, #nki.memory<sbuf>>, %m: memref<128x512xbf16, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{accumulator may not be in sbuf}}
  nki.matmul %s, %m into %acc : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @matmul_acc_shape(%s: memref<128x64xbf16, #nki.memory<sbuf>>, %m: memref<128x512xbf16, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{accumulator [128, 512] must be [M=64, N=512]}}
  nki.matmul %s, %m into %acc : memref<128x64xbf16, #nki.memory<sbuf>>, memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @transpose_shape(%x: memref<128x64xf32, #nki.memory<sbuf>>, %t: memref<128x64xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{destination [128, 64] must be [64, 128]}}
  nki.transpose %x into %t : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<psum>>
  return
}

// -----

func.func @unknown_function(%x: memref<128x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{unknown activation function 'swish'}}
  nki.activation "swish" %x into %x : memref<128x4xf32, #nki.memory<sbuf>> into memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @bias_shape(%x: memref<128x4xf32, #nki.memory<sbuf>>, %b: memref<128x2xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{bias must be a [128, 1] tile, got [128, 2]}}
  nki.activation "exp" %x into %x bias %b : memref<128x2xf32, #nki.memory<sbuf>> : memref<128x4xf32, #nki.memory<sbuf>> into memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @unknown_alu(%x: memref<128x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{unknown ALU op 'plus'}}
  nki.tensor_tensor "plus" %x, %x into %x : memref<128x4xf32, #nki.memory<sbuf>>, memref<128x4xf32, #nki.memory<sbuf>> into memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @two_psum_inputs(%p: memref<128x4xf32, #nki.memory<psum>>, %x: memref<128x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{at most one input may be in PSUM}}
  nki.tensor_tensor "add" %p, %p into %x : memref<128x4xf32, #nki.memory<psum>>, memref<128x4xf32, #nki.memory<psum>> into memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @shape_mismatch(%x: memref<128x4xf32, #nki.memory<sbuf>>, %y: memref<64x8xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{source [128, 4] and destination [64, 8] must have the same [partitions, elements]}}
  nki.copy %x into %y : memref<128x4xf32, #nki.memory<sbuf>> into memref<64x8xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @reduce_op(%x: memref<128x4xf32, #nki.memory<sbuf>>, %y: memref<128x1xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{reduction must be add, max or min, got 'mul'}}
  nki.reduce "mul" %x into %y : memref<128x4xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @reduce_shape(%x: memref<128x4x8xf32, #nki.memory<sbuf>>, %y: memref<128x1xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{destination [128, 1] must be [128, 4]}}
  nki.reduce "add" %x into %y : memref<128x4x8xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @reduce_scratch_max(%x: memref<128x4xf32, #nki.memory<sbuf>>, %y: memref<128x1xf32, #nki.memory<sbuf>>, %s: memref<128x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{a scratch tile is for a sum over every free dim, not 'max' over 1 of 1}}
  nki.reduce "max" %x into %y scratch %s : memref<128x4xf32, #nki.memory<sbuf>> : memref<128x4xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @reduce_scratch_axes(%x: memref<128x4x8xf32, #nki.memory<sbuf>>, %y: memref<128x4xf32, #nki.memory<sbuf>>, %s: memref<128x4x8xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{a scratch tile is for a sum over every free dim, not 'add' over 1 of 2}}
  nki.reduce "add" %x into %y scratch %s : memref<128x4x8xf32, #nki.memory<sbuf>> : memref<128x4x8xf32, #nki.memory<sbuf>> into memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @reduce_scratch_shape(%x: memref<128x4xf32, #nki.memory<sbuf>>, %y: memref<128x1xf32, #nki.memory<sbuf>>, %s: memref<64x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{scratch [64, 4] must be [128, 4]}}
  nki.reduce "add" %x into %y scratch %s : memref<64x4xf32, #nki.memory<sbuf>> : memref<128x4xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @iota_psum(%p: memref<128x4xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{destination may not be in psum}}
  nki.iota %p {offset = 0, pcoef = 1, coefs = array<i64: 1>} : memref<128x4xf32, #nki.memory<psum>>
  return
}

// -----

func.func @iota_coefs(%x: memref<128x4xf32, #nki.memory<sbuf>>) {
  // expected-error @+1 {{needs one coefficient per free dim (1), got 2}}
  nki.iota %x {offset = 0, pcoef = 1, coefs = array<i64: 1, 2>} : memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @matmul_mx_bf16(%s: memref<128x128x4xbf16, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{stationary must be MXFP8 (f8E4M3FN or f8E5M2) or MXFP4 (vector<2xf4E2M1FN>, two values a byte), got 'bf16'}}
  nki.matmul_mx %s, %m scales %ss, %ms into %acc : memref<128x128x4xbf16, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_mx_scale_shape(%s: memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<8x512xf8E8M0FNU, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{moving scale [8, 512] must be [K/32=16, 512]}}
  nki.matmul_mx %s, %m scales %ss, %ms into %acc : memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<8x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @matmul_mx_layout(%s: memref<128x512xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{stationary must be [K/4, columns, 4], got 'memref<128x512xf8E4M3FN, #nki.memory<sbuf>>'}}
  nki.matmul_mx %s, %m scales %ss, %ms into %acc : memref<128x512xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @bitcast_bytes(%t: memref<128x510xf8E4M3FN, #nki.memory<sbuf>>) {
  // expected-error @+1 {{innermost dim holds 4080 bits in the source but 4096 in the result}}
  %w = nki.bitcast %t : memref<128x510xf8E4M3FN, #nki.memory<sbuf>> to memref<128x128xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @bitcast_dims(%t: memref<128x512xf8E4M3FN, #nki.memory<sbuf>>) {
  // expected-error @+1 {{changes dim 0 (128 to 64); only the innermost dim rescales}}
  %w = nki.bitcast %t : memref<128x512xf8E4M3FN, #nki.memory<sbuf>> to memref<64x256xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @bitcast_space(%t: memref<128x512xf8E4M3FN, #nki.memory<sbuf>>) {
  // expected-error @+1 {{may not change the memory space}}
  %w = nki.bitcast %t : memref<128x512xf8E4M3FN, #nki.memory<sbuf>> to memref<128x128xf32>
  return
}

// -----

func.func @matmul_mx_fp4_inner(%s: memref<128x128x4xvector<2xf4E2M1FN>, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>, %acc: memref<128x512xf32, #nki.memory<psum>>) {
  // expected-error @+1 {{stationary must be [K/4, columns, 2], got 'memref<128x128x4xvector<2xf4E2M1FN>, #nki.memory<sbuf>>'}}
  nki.matmul_mx %s, %m scales %ss, %ms into %acc : memref<128x128x4xvector<2xf4E2M1FN>, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

func.func @bitcast_fp4_on_chip(%t: memref<64x1024xf4E2M1FN, #nki.memory<sbuf>>) {
  // On chip an f4E2M1FN value takes a byte.
  // expected-error @+1 {{innermost dim holds 8192 bits in the source but 4096 in the result}}
  %w = nki.bitcast %t : memref<64x1024xf4E2M1FN, #nki.memory<sbuf>> to memref<64x256xbf16, #nki.memory<sbuf>>
  return
}
