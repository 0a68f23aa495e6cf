// tensor.concat (decomposed into insert_slices, bufferized into HBM-to-HBM
// DMA copies) produces the concatenation; --output-dir is created.
// RUN: rm -rf %t.out
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; a = np.arange(8, dtype=np.float32).reshape(2, 4); b = -np.arange(12, dtype=np.float32).reshape(3, 4); np.save('%t.a.npy', a); np.save('%t.b.npy', b); np.save('%t.expected.npy', np.concatenate([a, b]))"
// RUN: nki-run %t.nkb --input a=%t.a.npy --input b=%t.b.npy --expected out0=%t.expected.npy --rtol 0 --atol 0 --output-dir %t.out | FileCheck %s
// RUN: test -f %t.out/out0.npy
// CHECK: output 'out0' matches
func.func @main(%a: tensor<2x4xf32> {nki.name = "a"}, %b: tensor<3x4xf32> {nki.name = "b"}) -> tensor<5x4xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %c : tensor<5x4xf32>
}
