// MX matmuls (Common/MxMatmul.h) tile to matmul_mx on trn3: B's row groups
// are staged and interleaved to [K/4, N, 4]; a row-major fp8 A moves as f32
// words through one PE transpose a K block; A's scales are PE-transposed
// into slots of 32 partitions, B's load as they are. K = 1056 ends in a
// partial K block of 32 rows. A's scale rows load contiguously; one PE
// transpose reads every K block's 16 through a view of 32 columns, 16
// apart, so each block's scales land on a quarter's first partition.
// RUN: nki-opt %s -split-input-file --nki-tile -verify-diagnostics | FileCheck %s

#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#b = affine_map<(m, n, k) -> (k, n)>
#sb = affine_map<(m, n, k) -> (k floordiv 32, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @mx
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x4x300xf8E5M2, strided<[1200, 300, 1], offset: ?>> to memref<128x4x300xf8E5M2, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<128x1x300xf8E5M2, strided<[1200, 300, 1]>, #nki.memory<sbuf>> into memref<128x300x1xf8E5M2, strided<[1200, 4, 1]>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<16x300xf8E8M0FNU, strided<[300, 1], offset: ?>> to memref<16x300xf8E8M0FNU, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x33xf8E8M0FNU, strided<[33, 1], offset: ?>> to memref<128x33xf8E8M0FNU, strided<[64, 1]>, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}}, 0.000000e+00 : memref<128x31xf8E8M0FNU, strided<[64, 1], offset: 33>, #nki.memory<sbuf>>
// CHECK: %[[SLOTS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 3, 32], strides: [64, 16, 1]
// CHECK: nki.transpose %[[SLOTS]] into %{{.*}} : memref<128x3x32xf8E8M0FNU, strided<[64, 16, 1]>, #nki.memory<sbuf>> into memref<96x128xf32, #nki.memory<psum>>
// CHECK: %[[W:.*]] = nki.bitcast %{{.*}} : memref<128x128xf32, #nki.memory<sbuf>> to memref<128x512xf8E4M3FN, #nki.memory<sbuf>>
// CHECK: %[[Q:.*]] = memref.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [128, 128, 4]
// CHECK: nki.bitcast %arg0 : memref<128x1056xf8E4M3FN> to memref<128x264xf32>
// CHECK: nki.transpose %{{.*}} into %{{.*}} : memref<128x128xf32, #nki.memory<sbuf>> into memref<128x128xf32, #nki.memory<psum>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<128x128xf32, #nki.memory<psum>> into memref<128x128xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul_mx %[[Q]], %{{.*}} scales %{{.*}}, %{{.*}} into %[[ACC:.*]] : memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>, memref<128x300x4xf8E5M2, strided<[1200, 4, 1]>, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, strided<[128, 1]>, #nki.memory<sbuf>>, memref<16x300xf8E8M0FNU, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
// CHECK: nki.matmul_mx %{{.*}} into %[[ACC]] accumulate : {{.*}}memref<16x128xf8E8M0FNU, strided<[128, 1], offset: 4096>
// CHECK: nki.matmul_mx %{{.*}} into %[[ACC]] accumulate : memref<8x128x4xf8E4M3FN, #nki.memory<sbuf>>, memref<8x300x4xf8E5M2, strided<[1200, 4, 1]>, #nki.memory<sbuf>>, memref<1x128xf8E8M0FNU, strided<[128, 1], offset: 8192>, #nki.memory<sbuf>>, memref<1x300xf8E8M0FNU, #nki.memory<sbuf>>
// CHECK-NOT: nki.matmul
module attributes {nki.target = "trn3"} {
func.func @mx(%a: memref<128x1056xf8E4M3FN>, %sa: memref<128x33xf8E8M0FNU>, %b: memref<1056x300xf8E5M2>, %sb: memref<33x300xf8E8M0FNU>, %c: memref<128x300xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x300xf32>)
  linalg.generic {indexing_maps = [#a, #sa, #b, #sb, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b, %sb : memref<128x1056xf8E4M3FN>, memref<128x33xf8E8M0FNU>, memref<1056x300xf8E5M2>, memref<33x300xf8E8M0FNU>) outs(%c : memref<128x300xf32>) {
  ^bb0(%x: f8E4M3FN, %xs: f8E8M0FNU, %y: f8E5M2, %ys: f8E8M0FNU, %acc: f32):
    %xf = arith.extf %x : f8E4M3FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f8E5M2 to f32
    %ysf = arith.extf %ys : f8E8M0FNU to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// trn2 has no matmul_mx.
#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#b = affine_map<(m, n, k) -> (k, n)>
#sb = affine_map<(m, n, k) -> (k floordiv 32, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {nki.target = "trn2"} {
func.func @mx_trn2(%a: memref<128x64xf8E4M3FN>, %sa: memref<128x2xf8E8M0FNU>, %b: memref<64x32xf8E4M3FN>, %sb: memref<2x32xf8E8M0FNU>, %c: memref<128x32xf32>) {
  // expected-error @+1 {{is an MX matmul (e8m0-scaled fp8 or fp4 blocks), which needs a target with matmul_mx (trn3)}}
  linalg.generic {indexing_maps = [#a, #sa, #b, #sb, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b, %sb : memref<128x64xf8E4M3FN>, memref<128x2xf8E8M0FNU>, memref<64x32xf8E4M3FN>, memref<2x32xf8E8M0FNU>) outs(%c : memref<128x32xf32>) {
  ^bb0(%x: f8E4M3FN, %xs: f8E8M0FNU, %y: f8E4M3FN, %ys: f8E8M0FNU, %acc: f32):
    %xf = arith.extf %x : f8E4M3FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f8E4M3FN to f32
    %ysf = arith.extf %ys : f8E8M0FNU to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// K must be whole scale blocks.
#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#b = affine_map<(m, n, k) -> (k, n)>
#sb = affine_map<(m, n, k) -> (k floordiv 32, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {nki.target = "trn3"} {
func.func @mx_partial_block(%a: memref<128x48xf8E4M3FN>, %sa: memref<128x2xf8E8M0FNU>, %b: memref<48x32xf8E4M3FN>, %sb: memref<2x32xf8E8M0FNU>, %c: memref<128x32xf32>) {
  // expected-error @+1 {{is an MX matmul with K = 48, not a multiple of 32 (one scale a block)}}
  linalg.generic {indexing_maps = [#a, #sa, #b, #sb, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b, %sb : memref<128x48xf8E4M3FN>, memref<128x2xf8E8M0FNU>, memref<48x32xf8E4M3FN>, memref<2x32xf8E8M0FNU>) outs(%c : memref<128x32xf32>) {
  ^bb0(%x: f8E4M3FN, %xs: f8E8M0FNU, %y: f8E4M3FN, %ys: f8E8M0FNU, %acc: f32):
    %xf = arith.extf %x : f8E4M3FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f8E4M3FN to f32
    %ysf = arith.extf %ys : f8E8M0FNU to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// Every B scale the same: linalg folds the splat sB into the body as a
// constant (here 2^-8); the kernel fills the scale tiles with it.
// CHECK-LABEL: func.func @mx_splat_moving_scale
// CHECK: nki.memset %[[S:.*]], 3.906250e-03 : memref<2x64xf8E8M0FNU, #nki.memory<sbuf>>
// CHECK: nki.matmul_mx %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} into
#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {nki.target = "trn3"} {
func.func @mx_splat_moving_scale(%a: memref<128x64xf8E4M3FN>, %sa: memref<128x2xf8E8M0FNU>, %b: memref<64x64xf8E4M3FN>, %c: memref<128x64xf32>) {
  %scale = arith.constant 3.906250e-03 : f32
  linalg.generic {indexing_maps = [#a, #sa, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b : memref<128x64xf8E4M3FN>, memref<128x2xf8E8M0FNU>, memref<64x64xf8E4M3FN>) outs(%c : memref<128x64xf32>) {
  ^bb0(%x: f8E4M3FN, %xs: f8E8M0FNU, %y: f8E4M3FN, %acc: f32):
    %xf = arith.extf %x : f8E4M3FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f8E4M3FN to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %scale : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// MXFP4: f4E2M1FN packs its innermost dim two values a byte, so A [M, K]
// and B stored [N, K] (with its scales [N, K/32]) are contiguous along K.
// Each quad (four K rows, two bytes) moves as a bf16 that the PE widens
// into the upper half of an f32 word (exactly), four transposes a PSUM
// bank and one exact copy (never an ACT identity); matmul_mx reads bytes
// 2 and 3 of each word. B's scale rows are PE-transposed like A's, two K
// blocks a transpose and a copy.
// CHECK-LABEL: func.func @mx_fp4
// CHECK: %[[BW:.*]] = nki.bitcast %{{.*}} : memref<128x600xf32, #nki.memory<sbuf>> to memref<128x2400xvector<2xf4E2M1FN>, #nki.memory<sbuf>>
// CHECK: nki.bitcast %arg2 : memref<600x1024xf4E2M1FN> to memref<600x256xbf16>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x128xbf16, strided<[256, 1], offset: ?>> to memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK: nki.transpose %{{.*}} into %{{.*}} : memref<128x128xbf16, #nki.memory<sbuf>> into memref<128x128xf32, strided<[512, 1]>, #nki.memory<psum>>
// CHECK-COUNT-3: nki.transpose %{{.*}} into %{{.*}} : memref<128x128xbf16, #nki.memory<sbuf>> into memref<128x128xf32, strided<[512, 1], offset: {{.*}}>, #nki.memory<psum>>
// CHECK: nki.copy %{{.*}} into %{{.*}} {exact} : memref<128x512xf32, #nki.memory<psum>> into memref<128x512xf32, strided<[600, 1]>, #nki.memory<sbuf>>
// CHECK: nki.transpose %{{.*}} into %{{.*}} : memref<128x2x32xf8E8M0FNU, strided<[48, 16, 1]>, #nki.memory<sbuf>> into memref<64x128xf32, #nki.memory<psum>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<64x128xf32, #nki.memory<psum>> into memref<64x128xf8E8M0FNU, strided<[600, 1]>, #nki.memory<sbuf>>
// CHECK: nki.bitcast %arg0 : memref<128x1024xf4E2M1FN> to memref<128x256xbf16>
// CHECK: nki.matmul_mx %{{.*}}, %{{.*}} scales %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128x2xvector<2xf4E2M1FN>, strided<[512, 4, 1], offset: 2>, #nki.memory<sbuf>>, memref<128x512x2xvector<2xf4E2M1FN>, strided<[2400, 4, 1], offset: 2>, #nki.memory<sbuf>>, memref<16x128xf8E8M0FNU, strided<[128, 1]>, #nki.memory<sbuf>>, memref<16x512xf8E8M0FNU, strided<[600, 1]>, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#bt = affine_map<(m, n, k) -> (n, k)>
#sbt = affine_map<(m, n, k) -> (n, k floordiv 32)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {nki.target = "trn3"} {
func.func @mx_fp4(%a: memref<128x1024xf4E2M1FN>, %sa: memref<128x32xf8E8M0FNU>, %b: memref<600x1024xf4E2M1FN>, %sb: memref<600x32xf8E8M0FNU>, %c: memref<128x600xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x600xf32>)
  linalg.generic {indexing_maps = [#a, #sa, #bt, #sbt, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b, %sb : memref<128x1024xf4E2M1FN>, memref<128x32xf8E8M0FNU>, memref<600x1024xf4E2M1FN>, memref<600x32xf8E8M0FNU>) outs(%c : memref<128x600xf32>) {
  ^bb0(%x: f4E2M1FN, %xs: f8E8M0FNU, %y: f4E2M1FN, %ys: f8E8M0FNU, %acc: f32):
    %xf = arith.extf %x : f4E2M1FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f4E2M1FN to f32
    %ysf = arith.extf %ys : f8E8M0FNU to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// An MXFP4 B stored [K, N] packs along N, not K.
#a = affine_map<(m, n, k) -> (m, k)>
#sa = affine_map<(m, n, k) -> (m, k floordiv 32)>
#b = affine_map<(m, n, k) -> (k, n)>
#sb = affine_map<(m, n, k) -> (k floordiv 32, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {nki.target = "trn3"} {
func.func @mx_fp4_b_along_n(%a: memref<128x64xf4E2M1FN>, %sa: memref<128x2xf8E8M0FNU>, %b: memref<64x32xf4E2M1FN>, %sb: memref<2x32xf8E8M0FNU>, %c: memref<128x32xf32>) {
  // expected-error @+1 {{reads MXFP4 data 'memref<64x32xf4E2M1FN>' that is not contiguous along K; an f4E2M1FN tensor packs its innermost dim two values a byte and matmul_mx packs along K: store B as [N, K]}}
  linalg.generic {indexing_maps = [#a, #sa, #b, #sb, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %sa, %b, %sb : memref<128x64xf4E2M1FN>, memref<128x2xf8E8M0FNU>, memref<64x32xf4E2M1FN>, memref<2x32xf8E8M0FNU>) outs(%c : memref<128x32xf32>) {
  ^bb0(%x: f4E2M1FN, %xs: f8E8M0FNU, %y: f4E2M1FN, %ys: f8E8M0FNU, %acc: f32):
    %xf = arith.extf %x : f4E2M1FN to f32
    %xsf = arith.extf %xs : f8E8M0FNU to f32
    %yf = arith.extf %y : f4E2M1FN to f32
    %ysf = arith.extf %ys : f8E8M0FNU to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }
  return
}
}
