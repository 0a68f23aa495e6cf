// Every nki op parses, verifies and prints back.
// RUN: nki-opt %s -split-input-file | nki-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @data_movement
// CHECK: nki.alloc : memref<128x512xbf16, #nki.memory<sbuf>>
// CHECK: nki.alloc {offset = 2048 : i64} : memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x512xbf16, strided<[4096, 1], offset: 8192>> to memref<128x512xbf16, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xbf16, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}}, 1.500000e+00 : memref<128x512xbf16, #nki.memory<sbuf>>
func.func @data_movement(%hbm: memref<128x512xbf16, strided<[4096, 1], offset: 8192>>) {
  %t = nki.alloc : memref<128x512xbf16, #nki.memory<sbuf>>
  %p = nki.alloc {offset = 2048} : memref<128x512xf32, #nki.memory<psum>>
  nki.dma %hbm to %t : memref<128x512xbf16, strided<[4096, 1], offset: 8192>> to memref<128x512xbf16, #nki.memory<sbuf>>
  nki.copy %p into %t : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xbf16, #nki.memory<sbuf>>
  nki.memset %t, 1.5 : memref<128x512xbf16, #nki.memory<sbuf>>
  return
}

// -----

// CHECK-LABEL: func.func @pe
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} :
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} accumulate :
// CHECK: nki.transpose %{{.*}} into %{{.*}} : memref<128x64xbf16, #nki.memory<sbuf>> into memref<64x128xf32, #nki.memory<psum>>
func.func @pe(%s: memref<128x128xbf16, #nki.memory<sbuf>>, %m: memref<128x512xbf16, #nki.memory<sbuf>>,
              %acc: memref<128x512xf32, #nki.memory<psum>>, %x: memref<128x64xbf16, #nki.memory<sbuf>>,
              %xt: memref<64x128xf32, #nki.memory<psum>>) {
  nki.matmul %s, %m into %acc : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %acc accumulate : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x512xbf16, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  nki.transpose %x into %xt : memref<128x64xbf16, #nki.memory<sbuf>> into memref<64x128xf32, #nki.memory<psum>>
  return
}

// -----

// The fp8 double row: [K/2, columns, 2] sources, K = 256.
// The MX quad row: [K/4, columns, 4] fp8 sources, e8m0 scales [K/32, ..].
// CHECK-LABEL: func.func @mx_quad_row
// CHECK: nki.matmul_mx %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} into %{{.*}} accumulate : memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x4xf8E5M2, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
func.func @mx_quad_row(%s: memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E5M2, #nki.memory<sbuf>>,
                       %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>,
                       %acc: memref<128x512xf32, #nki.memory<psum>>) {
  nki.matmul_mx %s, %m scales %ss, %ms into %acc accumulate : memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x4xf8E5M2, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// MXFP4 sources: [K/4, columns, 2] bytes of two e2m1 values (here bytes 2
// and 3 of f32 words), mixed with an MXFP8 one.
// CHECK-LABEL: func.func @mx_fp4
// CHECK: nki.matmul_mx %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128x2xvector<2xf4E2M1FN>, strided<[512, 4, 1], offset: 2>, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>
func.func @mx_fp4(%s: memref<128x128x2xvector<2xf4E2M1FN>, strided<[512, 4, 1], offset: 2>, #nki.memory<sbuf>>, %m: memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>,
                  %ss: memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, %ms: memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>,
                  %acc: memref<128x512xf32, #nki.memory<psum>>) {
  nki.matmul_mx %s, %m scales %ss, %ms into %acc : memref<128x128x2xvector<2xf4E2M1FN>, strided<[512, 4, 1], offset: 2>, #nki.memory<sbuf>>, memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// A copy of bits (never an ACT identity).
// CHECK-LABEL: func.func @exact_copy
// CHECK: nki.copy %{{.*}} into %{{.*}} {exact} : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xf32, #nki.memory<sbuf>>
func.func @exact_copy(%p: memref<128x512xf32, #nki.memory<psum>>, %t: memref<128x512xf32, #nki.memory<sbuf>>) {
  nki.copy %p into %t {exact} : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xf32, #nki.memory<sbuf>>
  return
}

// An HBM f4E2M1FN tensor is packed two values a byte: 1024 of them are
// 256 bf16s.
// CHECK-LABEL: func.func @bitcast_fp4
// CHECK: nki.bitcast %{{.*}} : memref<64x1024xf4E2M1FN> to memref<64x256xbf16>
func.func @bitcast_fp4(%t: memref<64x1024xf4E2M1FN>) -> memref<64x256xbf16> {
  %w = nki.bitcast %t : memref<64x1024xf4E2M1FN> to memref<64x256xbf16>
  return %w : memref<64x256xbf16>
}

// A tile's bytes as other elements.
// CHECK-LABEL: func.func @bitcast
// CHECK: nki.bitcast %{{.*}} : memref<128x512xf8E4M3FN, #nki.memory<sbuf>> to memref<128x128xf32, #nki.memory<sbuf>>
func.func @bitcast(%t: memref<128x512xf8E4M3FN, #nki.memory<sbuf>>) -> memref<128x128xf32, #nki.memory<sbuf>> {
  %w = nki.bitcast %t : memref<128x512xf8E4M3FN, #nki.memory<sbuf>> to memref<128x128xf32, #nki.memory<sbuf>>
  return %w : memref<128x128xf32, #nki.memory<sbuf>>
}

// CHECK-LABEL: func.func @double_row
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} accumulate rows 2 : memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x2xf8E5M2, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
func.func @double_row(%s: memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, %m: memref<128x512x2xf8E5M2, #nki.memory<sbuf>>,
                      %acc: memref<128x512xf32, #nki.memory<psum>>) {
  nki.matmul %s, %m into %acc accumulate rows 2 : memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, memref<128x512x2xf8E5M2, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
  return
}

// -----

// CHECK-LABEL: func.func @engines
// CHECK: nki.activation "exp" %{{.*}} into %{{.*}} bias %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> accum %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> {scale = 2.000000e+00 : f32}
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}}
// CHECK: nki.tensor_scalar %{{.*}} into %{{.*}} s0 %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> {imm1 = 3.000000e+00 : f32, op0 = "sub", op1 = "mul", reverse0}
// CHECK: nki.reduce "max" %{{.*}} into %{{.*}} : memref<128x8x64xf32, #nki.memory<sbuf>> into memref<128x8xf32, #nki.memory<sbuf>>
// CHECK: nki.reduce "add" %{{.*}} into %{{.*}} scratch %{{.*}} : memref<128x512xf32, #nki.memory<sbuf>> : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.select
// CHECK: nki.iota %{{.*}} {coefs = array<i64: 1>, offset = 0 : i64, pcoef = 512 : i64}
// CHECK: nki.affine_select %{{.*}} into %{{.*}} {cmp = "ge", coefs = array<i64: -1>, fill = -1.000000e+04 : f32, offset = 0 : i64, pcoef = 1 : i64}
func.func @engines(%x: memref<128x512xf32, #nki.memory<sbuf>>, %y: memref<128x512xf32, #nki.memory<sbuf>>,
                   %c: memref<128x1xf32, #nki.memory<sbuf>>, %s: memref<128x1xf32, #nki.memory<sbuf>>,
                   %r: memref<128x8x64xf32, #nki.memory<sbuf>>, %rd: memref<128x8xf32, #nki.memory<sbuf>>) {
  nki.activation "exp" %x into %y bias %c : memref<128x1xf32, #nki.memory<sbuf>> accum %s : memref<128x1xf32, #nki.memory<sbuf>> {scale = 2.0 : f32} : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %x, %y into %y : memref<128x512xf32, #nki.memory<sbuf>>, memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %x into %y s0 %c : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "sub", reverse0, op1 = "mul", imm1 = 3.0 : f32} : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.reduce "max" %r into %rd : memref<128x8x64xf32, #nki.memory<sbuf>> into memref<128x8xf32, #nki.memory<sbuf>>
  nki.reduce "add" %x into %s scratch %y : memref<128x512xf32, #nki.memory<sbuf>> : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  nki.select %x, %x, %y into %y : memref<128x512xf32, #nki.memory<sbuf>>, memref<128x512xf32, #nki.memory<sbuf>>, memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  nki.iota %x {offset = 0, pcoef = 512, coefs = array<i64: 1>} : memref<128x512xf32, #nki.memory<sbuf>>
  nki.affine_select %x into %y {cmp = "ge", fill = -1.0e4 : f32, offset = 0, pcoef = 1, coefs = array<i64: -1>} : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
  return
}
