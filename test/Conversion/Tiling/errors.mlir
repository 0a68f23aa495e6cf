// nki-tile rejects what it cannot tile with a diagnostic at the op.
// RUN: nki-opt %s -split-input-file --nki-tile -verify-diagnostics

#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @unsupported_body_op(%a: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#m2, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    // expected-error @+1 {{'math.floor' op is not supported inside a linalg body by the nki compiler}}
    %f = math.floor %x : f32
    linalg.yield %f : f32
  }
  return
}

// -----

func.func @tensors(%a: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'linalg.copy' op works on tensors: run bufferization before nki-tile}}
  %r = linalg.copy ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @unknown_op(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'memref.store' op is not supported by the nki compiler}}
  memref.store %v, %a[%c0] : memref<4xf32>
  return
}

// -----

#m2b = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_outputs(%a: memref<4x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  // expected-error @+1 {{generics with 2 outputs are not supported}}
  linalg.generic {indexing_maps = [#m2b, #m2b, #m2b], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c, %d : memref<4x8xf32>, memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32, %p: f32):
    linalg.yield %x, %x : f32, f32
  }
  return
}

// -----

// expected-error @+1 {{the program's tensors need 13194139533312 bytes of HBM; trn2 has 12884901888}}
func.func @too_big(%a: memref<1048576x1048576xf32>, %b: memref<1048576x1048576xf32>, %c: memref<1048576x1048576xf32>) {
  linalg.add ins(%a, %b : memref<1048576x1048576xf32>, memref<1048576x1048576xf32>) outs(%c : memref<1048576x1048576xf32>)
  return
}

// -----

func.func @empty_contraction(%a: memref<4x0xf32>, %b: memref<0x8xf32>, %c: memref<4x8xf32>) {
  // expected-error @+1 {{matmul with an empty contraction (K = 0) is not supported}}
  linalg.matmul ins(%a, %b : memref<4x0xf32>, memref<0x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// An implicit-GEMM convolution (Conv/ConvGeneric.h) whose three input rows
// of 60000 columns, twice over, do not fit half of SBUF.
#cx = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#cw = affine_map<(n, f, oh, ow, c, kh, kw) -> (c, kh, kw, f)>
#cy = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @conv_rows_too_wide(%x: memref<1x1x3x60000xf32>, %w: memref<1x3x3x1xf32>, %y: memref<1x1x1x59998xf32>) {
  // expected-error @+1 {{convolution input rows do not fit in SBUF}}
  linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x1x3x60000xf32>, memref<1x3x3x1xf32>) outs(%y : memref<1x1x1x59998xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A pooling whose three input rows and their window maxima, twice over, do
// not fit half of SBUF.
func.func @pool_rows_too_wide(%x: memref<1x1x3x30000xf32>, %y: memref<1x1x1x29998xf32>) {
  %win = memref.alloc() : memref<3x3xf32>
  // expected-error @+1 {{pooling input rows do not fit in SBUF}}
  linalg.pooling_nchw_max {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %win : memref<1x1x3x30000xf32>, memref<3x3xf32>) outs(%y : memref<1x1x1x29998xf32>)
  return
}

// -----

// e2m1 values computed by the program cannot be stored in HBM (packed two
// a byte) yet.
module attributes {nki.target = "trn3"} {
func.func @fp4_to_hbm(%a: memref<4x64xf32>, %q: memref<4x64xf4E2M1FN>) {
  // expected-error @+1 {{writes f4E2M1FN values to HBM, where they are packed two a byte; so far only program inputs and constants hold MXFP4 data there (an MX matmul quantises its own A)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x64xf32>) outs(%q : memref<4x64xf4E2M1FN>) {
  ^bb0(%x: f32, %o: f4E2M1FN):
    %z = arith.truncf %x : f32 to f4E2M1FN
    linalg.yield %z : f4E2M1FN
  }
  return
}
}
