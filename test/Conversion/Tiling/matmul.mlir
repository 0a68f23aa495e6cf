// nki-tile: matmuls on the PE with K accumulated in PSUM.
// RUN: nki-opt %s -split-input-file --nki-tile -verify-diagnostics | FileCheck %s

// A zero fill becomes the start flag of the first K step. Row-major A is
// transposed on the PE into stationary [K, M] tiles, its rows loaded for
// both K blocks at once (a bf16 block's 128-element rows would be 256-byte
// descriptors, each paid as 512); B rows are the moving operand directly.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.fill
// CHECK-COUNT-2: nki.dma %{{.*}} to %{{.*}} : memref<{{128|72}}x256xbf16, strided<[256, 1]{{.*}}>> to memref<{{128|72}}x256xbf16, #nki.memory<sbuf>>
// CHECK: scf.for
// CHECK:   nki.dma %{{.*}} to %{{.*}} : memref<128x200xbf16, strided<[200, 1], offset: ?>> to memref<128x200xbf16, #nki.memory<sbuf>>
// CHECK:   nki.transpose %{{.*}} into %[[T:.*]] : memref<128x128xbf16, strided<[200, 1]>, #nki.memory<sbuf>> into memref<128x128xf32, #nki.memory<psum>>
// CHECK:   nki.copy %[[T]] into %{{.*}} : memref<128x128xf32, #nki.memory<psum>> into memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK:   nki.transpose %{{.*}} into %{{.*}} : memref<128x72xbf16, strided<[200, 1], offset: 128>, #nki.memory<sbuf>> into memref<72x128xf32, #nki.memory<psum>>
// CHECK:   %[[ACC:.*]] = nki.alloc : memref<128x256xf32, #nki.memory<psum>>
// CHECK:   nki.matmul %{{.*}}, %{{.*}} into %[[ACC]] : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x256xbf16, #nki.memory<sbuf>> into memref<128x256xf32, #nki.memory<psum>>
// CHECK:   nki.matmul %{{.*}}, %{{.*}} into %[[ACC]] accumulate : memref<72x128xbf16, #nki.memory<sbuf>>, memref<72x256xbf16, #nki.memory<sbuf>>
// CHECK:   nki.copy %[[ACC]] into %[[OUT:.*]] : memref<128x256xf32, #nki.memory<psum>> into memref<128x256xf32, #nki.memory<sbuf>>
// CHECK:   nki.dma %[[OUT]] to %{{.*}} : memref<128x256xf32, #nki.memory<sbuf>> to memref<128x256xf32, strided<[256, 1], offset: ?>>
func.func @matmul(%a: memref<256x200xbf16>, %b: memref<200x256xbf16>, %c: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x256xf32>)
  linalg.matmul ins(%a, %b : memref<256x200xbf16>, memref<200x256xbf16>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// A SiLU-gated MLP, silu(x Wg) * (x Wu): the epilogue of x Wu also reads
// x Wg, a matmul of the same A, which the same kernel computes into a
// second PSUM tile from the same stationary A^T; the epilogue reads both
// products in PSUM and neither goes to HBM.
// CHECK-LABEL: func.func @gated
// CHECK: nki.matmul %[[AT:[0-9]+]], %{{[0-9]+}} into %[[UP:[0-9]+]] : {{.*}} into memref<4x8xf32, #nki.memory<psum>>
// CHECK: nki.matmul %[[AT]], %{{[0-9]+}} into %[[GATE:[0-9]+]] : {{.*}} into memref<4x8xf32, #nki.memory<psum>>
// CHECK: nki.activation "exp" %[[GATE]]
// CHECK: nki.tensor_tensor "mul" %{{[0-9]+}}, %[[UP]] into
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<4x8xf32, #nki.memory<sbuf>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK-NOT: nki.dma
// CHECK-NOT: linalg
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gated(%x: memref<4x16xf32>, %wg: memref<16x8xf32>, %wu: memref<16x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %g = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<4x8xf32>)
  linalg.matmul ins(%x, %wg : memref<4x16xf32>, memref<16x8xf32>) outs(%g : memref<4x8xf32>)
  %u = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<4x8xf32>)
  linalg.matmul ins(%x, %wu : memref<4x16xf32>, memref<16x8xf32>) outs(%u : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#m2, #m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : memref<4x8xf32>, memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %a, %d : f32
    %t = arith.mulf %s, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Without a zero fill the product is added to the output's old value.
// CHECK-LABEL: func.func @matmul_accumulate
// CHECK: nki.matmul
// CHECK: nki.dma %{{.*}} to %[[OLD:.*]] : memref<4x8xf32, strided<[8, 1], offset: ?>> to memref<4x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %{{.*}}, %[[OLD]] into
func.func @matmul_accumulate(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// An elementwise consumer of the product runs on the PSUM tile (the
// epilogue): bias add reads PSUM, tanh runs on the ACT, and the product
// never goes to HBM. The bias, one row for every output row, is loaded
// once per panel of B, before the M blocks.
// CHECK-LABEL: func.func @epilogue
// CHECK: nki.dma %{{.*}} to %[[BIAS:.*]] : memref<4x8xf32, strided<[0, 1], offset: ?>> to memref<4x8xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK: nki.tensor_tensor "add" %{{.*}}, %[[BIAS]] into %[[S:.*]] : memref<4x8xf32, #nki.memory<psum>>, memref<4x8xf32, #nki.memory<sbuf>> into memref<4x8xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "tanh" %[[S]] into %[[Y:.*]] :
// CHECK: nki.dma %[[Y]] to %{{.*}} : memref<4x8xf32, #nki.memory<sbuf>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK-NOT: linalg
// CHECK-NOT: memref.alloc
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%p : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#m2, #col, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// The next matmul's zero fill, which the graph puts between a product and
// its epilogue (a classifier's `fc2(hardswish(fc1(x)))` under auto-cast),
// does not stop the fusion: tanh reads the product in PSUM.
// CHECK-LABEL: func.func @epilogue_past_fill
// CHECK:     nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into %[[P:[0-9]+]] :
// CHECK-NOT: nki.copy %[[P]]
// CHECK:     nki.activation "tanh" %[[P]] into
// CHECK:     nki.matmul
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_past_fill(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%p : memref<4x8xf32>)
  %q = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%q : memref<4x8xf32>)
  %h = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<4x8xf32>) outs(%h : memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  }
  linalg.matmul ins(%h, %c : memref<4x8xf32>, memref<8x8xf32>) outs(%q : memref<4x8xf32>)
  memref.copy %q, %y : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Unless the epilogue touches what the fill writes (here its output): the
// product is copied out of PSUM and the elementwise kernel runs after the
// fill.
// CHECK-LABEL: func.func @epilogue_into_filled
// CHECK:     nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into %[[P:[0-9]+]] :
// CHECK:     nki.copy %[[P]] into
// CHECK:     nki.memset
// CHECK:     nki.activation "tanh" %{{[0-9]+}} into %{{[0-9]+}} : memref<32x1xf32, #nki.memory<sbuf>>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_into_filled(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%p : memref<4x8xf32>)
  %q = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%q : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#m2, #m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %q : memref<4x8xf32>, memref<4x8xf32>) outs(%q : memref<4x8xf32>) {
  ^bb0(%x: f32, %z: f32, %o: f32):
    %s = arith.addf %x, %z : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  }
  memref.copy %q, %y : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// GELU's erf form as exporters write it (Div by sqrt 2, Erf, Add 1, Mul by
// x, Mul by 0.5) is the ACT's gelu: one instruction where there were five
// passes. Divided by 2 instead, it is no GELU: the erf stays.
// CHECK-LABEL: func.func @gelu
// CHECK:     nki.matmul
// CHECK:     nki.activation "gelu"
// CHECK-NOT: nki.activation "erf"
// CHECK:     nki.matmul
// CHECK:     nki.activation "erf"
// CHECK-NOT: nki.activation "gelu"
// CHECK:     return
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @gelu(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%p : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#m2, #col, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %r2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %h = arith.constant 0.5 : f32
    %s = arith.addf %x, %c : f32
    %d = arith.divf %s, %r2 : f32
    %e = math.erf %d : f32
    %q = arith.addf %e, %one : f32
    %m = arith.mulf %s, %q : f32
    %g = arith.mulf %m, %h : f32
    linalg.yield %g : f32
  }
  %p2 = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%p2 : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%p2 : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#m2, #col, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%p2, %bias : memref<4x8xf32>, memref<8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %h = arith.constant 0.5 : f32
    %s = arith.addf %x, %c : f32
    %d = arith.divf %s, %two : f32
    %e = math.erf %d : f32
    %q = arith.addf %e, %one : f32
    %m = arith.mulf %s, %q : f32
    %g = arith.mulf %m, %h : f32
    linalg.yield %g : f32
  }
  return
}

// -----

// Mixed f32 and bf16 inputs are rejected: the PE takes fp32 with fp32.
func.func @mixed(%a: memref<4x16xf32>, %b: memref<16x8xbf16>, %c: memref<4x8xf32>) {
  // expected-error @+1 {{matmul inputs must both be f32 or both be 16-bit (use --auto-cast=matmul)}}
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xbf16>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// fp8 inputs on trn2 (the default target): double-row matmuls of 256
// contraction rows. B is loaded as row pairs side by side (each partition's
// two rows are one 600-byte run) and interleaved by two copies; row-major A
// is loaded once for both K blocks and transposed twice a block, its even
// and its odd rows, each into one row of the [128, 128, 2] stationary tile.
// CHECK-LABEL: func.func @fp8
// CHECK: nki.dma %{{.*}} to %[[ST:.*]] : memref<128x2x300xf8E5M2, strided<[600, 300, 1], offset: ?>> to memref<128x2x300xf8E5M2, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<128x1x300xf8E5M2, strided<[600, 300, 1]>, #nki.memory<sbuf>> into memref<128x300x1xf8E5M2, strided<[600, 2, 1]>, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<128x1x300xf8E5M2, strided<[600, 300, 1], offset: 300>, #nki.memory<sbuf>> into memref<128x300x1xf8E5M2, strided<[600, 2, 1], offset: 1>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x512xf8E4M3FN, strided<[512, 1], offset: ?>> to memref<128x512xf8E4M3FN, #nki.memory<sbuf>>
// CHECK: nki.transpose %{{.*}} into %[[T0:.*]] : memref<128x128xf8E4M3FN, strided<[512, 2]>, #nki.memory<sbuf>> into memref<128x128xf32, #nki.memory<psum>>
// CHECK: nki.copy %[[T0]] into %{{.*}} : memref<128x128xf32, #nki.memory<psum>> into memref<128x128x1xf8E4M3FN, strided<[256, 2, 1]>, #nki.memory<sbuf>>
// CHECK: nki.transpose %{{.*}} into %{{.*}} : memref<128x128xf8E4M3FN, strided<[512, 2], offset: 1>, #nki.memory<sbuf>>
// CHECK-COUNT-2: nki.transpose
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC:.*]] rows 2 : memref<128x128x2xf8E4M3FN, #nki.memory<sbuf>>, memref<128x300x2xf8E5M2, strided<[600, 2, 1]>, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]] accumulate rows 2
// CHECK-NOT: nki.matmul
func.func @fp8(%a: memref<128x512xf8E4M3FN>, %b: memref<512x300xf8E5M2>, %c: memref<128x300xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x300xf32>)
  linalg.matmul ins(%a, %b : memref<128x512xf8E4M3FN>, memref<512x300xf8E5M2>) outs(%c : memref<128x300xf32>)
  return
}

// -----

// An odd K has no row pairs for its last row: single-row matmuls, two
// K blocks of at most 128.
// CHECK-LABEL: func.func @fp8_odd_k
// CHECK-COUNT-2: nki.matmul %{{.*}}, %{{.*}} into %{{[^ ]*}}{{( accumulate)?}} : memref<{{128|3}}x128xf8E4M3FN
// CHECK-NOT: rows 2
func.func @fp8_odd_k(%a: memref<128x131xf8E4M3FN>, %b: memref<131x256xf8E4M3FN>, %c: memref<128x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<128x256xf32>)
  linalg.matmul ins(%a, %b : memref<128x131xf8E4M3FN>, memref<131x256xf8E4M3FN>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// A constant fp8 B is stored once more as row pairs, [K/2, N, 2] (element
// [p, n, r] is row 2p + r), so its double-row tiles are plain loads with no
// interleaving copies.
// CHECK: memref.global "private" constant @w_pairs : memref<2x3x2xf8E4M3FN> = dense<{{\[\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]], {{\[\[}}7.000000e+00, 1.000000e+01], [8.000000e+00, 1.100000e+01], [9.000000e+00, 1.200000e+01]]]>
// CHECK-LABEL: func.func @fp8_constant
// CHECK: %[[W:.*]] = memref.get_global @w_pairs : memref<2x3x2xf8E4M3FN>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[W]] to offset: [%{{.*}}], sizes: [2, 3, 2], strides: [6, 2, 1]
// CHECK: nki.dma %[[V]] to %[[T:.*]] : memref<2x3x2xf8E4M3FN, strided<[6, 2, 1], offset: ?>> to memref<2x3x2xf8E4M3FN, #nki.memory<sbuf>>
// CHECK-NOT: nki.copy %{{.*}} : memref<2x1x3xf8E4M3FN
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} rows 2 : memref<2x5x2xf8E4M3FN, #nki.memory<sbuf>>, memref<2x3x2xf8E4M3FN
memref.global "private" constant @w : memref<4x3xf8E4M3FN> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]>
func.func @fp8_constant(%a: memref<5x4xf8E4M3FN>, %c: memref<5x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<4x3xf8E4M3FN>
  linalg.fill ins(%zero : f32) outs(%c : memref<5x3xf32>)
  linalg.matmul ins(%a, %w : memref<5x4xf8E4M3FN>, memref<4x3xf8E4M3FN>) outs(%c : memref<5x3xf32>)
  return
}
