// Constants of the program travel in the binary's tensor table; a small one
// that a kernel loads a few elements per partition at a time (here each
// partition of an [8, 1] tile one element) travels in the columns of a
// gathered table (nki-gather-constants).
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; x = np.arange(8, dtype=np.float32).reshape(2, 4); np.save('%t.x.npy', x); np.save('%t.expected.npy', x + np.arange(1, 9, dtype=np.float32).reshape(2, 4))"
// RUN: nki-run %t.nkb --input x=%t.x.npy --expected out0=%t.expected.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: nki-translate --binary-to-nisa %t.nkb | FileCheck %s --check-prefix=NISA
// CHECK: output 'out0' matches
// NISA: nisa.tensor @__nki_constant_table const f32 [8, 1] at {{[0-9]+}} = dense<{{\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00], [6.000000e+00], [7.000000e+00], [8.000000e+00]]>
func.func @main(%x: tensor<2x4xf32> {nki.name = "x"}) -> tensor<2x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.add ins(%x, %w : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
