// Softmax over the last dim of a [B, S, H] tensor runs as one row-group
// kernel (nki-fuse-elementwise collapses it to [B*S, H]; the row group
// takes the reshape views), against numpy in float64.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; x = np.random.default_rng(7).uniform(-4, 4, (3, 50, 300)).astype(np.float32); e = np.exp(x - x.max(-1, keepdims=True)); np.save('%t.x.npy', x); np.save('%t.y.npy', e / e.sum(-1, keepdims=True))"
// RUN: nki-run %t.nkb --input x=%t.x.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-6 | FileCheck %s
// RUN: nki-compile %s --compile-to=tiled | FileCheck %s --check-prefix=TILED
// CHECK: output 'out0' matches
// One kernel over the 150 rows (a block of 128 and one of 22); the output
// is the only HBM allocation (no intermediate, no copy of the result).
// TILED: memref.alloc() : memref<3x50x300xf32>
// TILED-NOT: memref.alloc
// TILED: nki.reduce "max" {{.*}} : memref<128x300xf32
// TILED-NOT: memref.alloc
// TILED: nki.reduce "max" {{.*}} : memref<22x300xf32
// TILED-NOT: nki.reduce "max"
func.func @main(%x: tensor<3x50x300xf32> {nki.name = "x"}) -> tensor<3x50x300xf32> {
  %e = tensor.empty() : tensor<3x50x300xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<3x50x300xf32>) outs(%e : tensor<3x50x300xf32>) -> tensor<3x50x300xf32>
  return %r : tensor<3x50x300xf32>
}
