// An epilogue that reads the matmul product twice (2 * A B + c, what ONNX
// exporters produce for addmm chains) reads both from the PSUM tile.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; r = np.random.default_rng(3); a, b, c = r.uniform(-1, 1, (130, 70)).astype(np.float32), r.uniform(-1, 1, (70, 40)).astype(np.float32), r.uniform(-1, 1, (40,)).astype(np.float32); [np.save('%t.' + n + '.npy', v) for n, v in (('a', a), ('b', b), ('c', c))]; np.save('%t.y.npy', (2 * (a.astype(np.float64) @ b) + c).astype(np.float32))"
// RUN: nki-run %t.nkb --input a=%t.a.npy --input b=%t.b.npy --input c=%t.c.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: output 'out0' matches
func.func @main(%a: tensor<130x70xf32> {nki.name = "a"}, %b: tensor<70x40xf32> {nki.name = "b"}, %c: tensor<40xf32> {nki.name = "c"}) -> tensor<130x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x40xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<130x40xf32>) -> tensor<130x40xf32>
  %m = linalg.matmul ins(%a, %b : tensor<130x70xf32>, tensor<70x40xf32>) outs(%z : tensor<130x40xf32>) -> tensor<130x40xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %m, %c : tensor<130x40xf32>, tensor<130x40xf32>, tensor<40xf32>) outs(%e : tensor<130x40xf32>) {
  ^bb0(%p: f32, %q: f32, %bias: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.addf %s, %bias : f32
    linalg.yield %t : f32
  } -> tensor<130x40xf32>
  return %y : tensor<130x40xf32>
}
