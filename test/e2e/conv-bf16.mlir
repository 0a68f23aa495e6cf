// A convolution on bf16 inputs with a bf16 result runs as implicit GEMM
// (bf16 tiles, fp32 accumulation in PSUM, the result rounded once when
// PSUM is evacuated). Reference: numpy in float64 on the same bf16 values;
// tolerance: one bf16 rounding of outputs up to ~4 (rtol 8e-3, atol 1e-2).
// RUN: nki-compile %s --compile-to=graph | FileCheck %s --check-prefix=GRAPH
// GRAPH: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xbf16>, tensor<4x3x3x8xbf16>)
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import sys; sys.path.insert(0, '%S'); import numpy as np; from gen import bf16_round, conv_ref; r = np.random.default_rng(1); x = bf16_round(r.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32)); w = bf16_round(r.uniform(-1, 1, (8, 4, 3, 3)).astype(np.float32)); np.save('%t.x.npy', x); np.save('%t.w.npy', w); np.save('%t.y.npy', conv_ref(x, w, 1).astype(np.float32))"
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w=%t.w.npy --expected out0=%t.y.npy --rtol 8e-3 --atol 1e-2 | FileCheck %s
// CHECK: output 'out0' matches
func.func @main(%x: tensor<1x4x6x6xbf16> {nki.name = "x"}, %w: tensor<8x4x3x3xbf16> {nki.name = "w"}) -> tensor<1x8x4x4xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x8x4x4xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x8x4x4xbf16>) -> tensor<1x8x4x4xbf16>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x6x6xbf16>, tensor<8x4x3x3xbf16>) outs(%z : tensor<1x8x4x4xbf16>) -> tensor<1x8x4x4xbf16>
  return %y : tensor<1x8x4x4xbf16>
}
