// RUN: nki-opt %s --nki-tile | FileCheck %s

// The row group keeps values on chip by the Value that names their buffer.
// Here %buf is written through one collapse_shape view and read through
// another: the group is not formed (it would read the second view stale
// from HBM), and each generic is its own kernel: x - max is stored through
// the first view and loaded again through the second for the sum.
// CHECK-LABEL: func.func @two_views
// CHECK:       nki.reduce "max"
// CHECK:       nki.tensor_scalar {{.*}} {op0 = "sub"}
// CHECK:       nki.dma %{{.*}} to %{{.*}} : memref<128x32xf32, #nki.memory<sbuf>> to memref<128x32xf32, strided<[32, 1], offset: ?>>
// CHECK:       memref.collapse_shape
// CHECK:       nki.dma %{{.*}} to %{{.*}} : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<128x32xf32, #nki.memory<sbuf>>
// CHECK:       nki.reduce "add"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @two_views(%x: memref<128x32xf32>, %m: memref<128xf32>, %s: memref<128xf32>) -> memref<2x64x32xf32> {
  %buf = memref.alloc() : memref<2x64x32xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x32xf32>) outs(%m : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  %v1 = memref.collapse_shape %buf [[0, 1], [2]] : memref<2x64x32xf32> into memref<128x32xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<128x32xf32>, memref<128xf32>) outs(%v1 : memref<128x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  }
  %v2 = memref.collapse_shape %buf [[0, 1], [2]] : memref<2x64x32xf32> into memref<128x32xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%v2 : memref<128x32xf32>) outs(%s : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  }
  return %buf : memref<2x64x32xf32>
}
