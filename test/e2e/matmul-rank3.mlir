// A rank-3 matmul written as ONNX imports it (collapse, 2-D matmul, expand)
// with a bias and relu: nki-fuse-elementwise keeps the reshapes out of the
// matmul, so it runs on the PE (before, reshape folding made it a 4-D
// generic on the vector engines: 27 s to compile a [4,128,256]x[256,512]
// one and 3400x slower to run), and the bias + relu run on its PSUM tiles.
// Against numpy; fp32 accumulation over K = 256 of products of values in
// [-1, 1].
// RUN: nki-compile %s -o %t.nkb --report | FileCheck %s --check-prefix=REPORT
// RUN: %system_python -c "import numpy as np; r = np.random.default_rng(3); x = r.uniform(-1, 1, (4, 96, 256)).astype(np.float32); w = r.uniform(-1, 1, (256, 200)).astype(np.float32); b = r.uniform(-1, 1, 200).astype(np.float32); [np.save('%t.' + n + '.npy', v) for n, v in (('x', x), ('w', w), ('b', b))]; np.save('%t.y.npy', np.maximum(x.astype(np.float64) @ w + b, 0))"
// RUN: nki-run %t.nkb --input x=%t.x.npy --input w=%t.w.npy --input b=%t.b.npy --expected out0=%t.y.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: nki-compile %s --compile-to=tiled | FileCheck %s --check-prefix=TILED
// REPORT: instructions pe {{ *[1-9][0-9]*}}
// The bias add reads the matmul's PSUM tile.
// TILED: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x200xf32, #nki.memory<psum>>, memref<128x200xf32, #nki.memory<sbuf>>
// CHECK: output 'out0' matches
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @main(%x: tensor<4x96x256xf32> {nki.name = "x"}, %w: tensor<256x200xf32> {nki.name = "w"},
                %b: tensor<200xf32> {nki.name = "b"}) -> tensor<4x96x200xf32> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<4x96x256xf32> into tensor<384x256xf32>
  %e0 = tensor.empty() : tensor<384x200xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<384x200xf32>) -> tensor<384x200xf32>
  %m = linalg.matmul ins(%c, %w : tensor<384x256xf32>, tensor<256x200xf32>) outs(%z : tensor<384x200xf32>) -> tensor<384x200xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [4, 96, 200] : tensor<384x200xf32> into tensor<4x96x200xf32>
  %e1 = tensor.empty() : tensor<4x96x200xf32>
  %y = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %b : tensor<4x96x200xf32>, tensor<200xf32>) outs(%e1 : tensor<4x96x200xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x96x200xf32>
  return %y : tensor<4x96x200xf32>
}
