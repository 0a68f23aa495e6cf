// Small images: when a band holds a whole image and the image has fewer
// chunks than a group (four), the chunks of several images form one group
// and share each tap's stationary operand (lib/Conversion/Tiling/Conv.cpp,
// imageGroup). Six 4x4 images, one 16-pixel chunk each: the first four
// images' matmuls run back to back with the filter loaded once, then
// their evacuations; then the last two images.
// RUN: nki-opt %s --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK: %[[W:.*]] = nki.alloc : memref<16x8xf32, #nki.memory<sbuf>>
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x4x4xf32, strided<[16, 4, 1], offset: ?>> to memref<16x4x4xf32
// CHECK-COUNT-4: nki.alloc : memref<8x16xf32, #nki.memory<psum>>
// CHECK: nki.matmul %[[W]], %{{.*}} into %{{.*}} : memref<16x8xf32, #nki.memory<sbuf>>, memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>> into memref<8x16xf32, #nki.memory<psum>>
// CHECK-NOT: nki.copy
// CHECK: nki.matmul %[[W]]
// CHECK-NOT: nki.copy
// CHECK: nki.matmul %[[W]]
// CHECK-NOT: nki.copy
// CHECK: nki.matmul %[[W]]
// CHECK-COUNT-4: nki.copy %{{.*}} into %{{.*}} : memref<8x16xf32, #nki.memory<psum>> into
// CHECK-COUNT-2: nki.dma %{{.*}} to %{{.*}} : memref<16x4x4xf32, strided<[16, 4, 1], offset: ?>> to memref<16x4x4xf32
// CHECK-COUNT-2: nki.matmul %[[W]]
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%x: memref<6x16x4x4xf32>) -> memref<6x8x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<16x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<6x8x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<6x8x4x4xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<6x16x4x4xf32>, memref<16x1x1x8xf32>) outs(%y : memref<6x8x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %o: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<6x8x4x4xf32>
  }
}
