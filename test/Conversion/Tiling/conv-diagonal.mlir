// A depthwise convolution's diagonal filter (Conv/ConvGeneric.h's
// buildDiagonalFilter, what nki-prepare-graph writes) is built on chip:
// the compact [4, 3x3] weights are loaded (9 elements per partition, not
// 4 x 9 x 4) and one POOL affine_select over a view that repeats each
// weight along the filter axis keeps element (c, tap, f) where f - c == 0.
// With 4 channels the kernel rows are folded into the contraction: one DMA
// within SBUF per kernel row moves its columns to partitions [4 kh, 4 kh +
// 4) of the [12, 3 x 4] folded filter. The builder generic and its HBM
// buffer go away.
// RUN: nki-opt %s --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref<4x3x3x4xf32>
// CHECK: %[[W:.*]] = nki.alloc : memref<4x9xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[W]] : memref<4x9xf32, strided<[9, 1], offset: ?>>
// CHECK: %[[D:.*]] = nki.alloc : memref<4x36xf32, #nki.memory<sbuf>>
// CHECK: %[[SRC:.*]] = memref.reinterpret_cast %[[W]] to offset: [0], sizes: [4, 9, 4], strides: [9, 1, 0]
// CHECK: %[[DST:.*]] = memref.reinterpret_cast %[[D]] to offset: [0], sizes: [4, 9, 4], strides: [36, 4, 1]
// CHECK: nki.affine_select %[[SRC]] into %[[DST]] {cmp = "eq", coefs = array<i64: 0, 1>, fill = 0.000000e+00 : f32, offset = 0 : i64, pcoef = -1 : i64}
// CHECK: %[[F:.*]] = nki.alloc : memref<12x12xf32, #nki.memory<sbuf>>
// CHECK: %[[R0:.*]] = memref.subview %[[D]][0, 0] [4, 12] [1, 1]
// CHECK: %[[P0:.*]] = memref.subview %[[F]][0, 0] [4, 12] [1, 1]
// CHECK: nki.dma %[[R0]] to %[[P0]]
// CHECK: %[[R2:.*]] = memref.subview %[[D]][0, 24] [4, 12] [1, 1]
// CHECK: %[[P2:.*]] = memref.subview %[[F]][8, 0] [4, 12] [1, 1]
// CHECK: nki.dma %[[R2]] to %[[P2]]
// CHECK: %[[TAP:.*]] = memref.subview %[[F]][0, 0] [12, 4] [1, 1]
// CHECK: nki.matmul %[[TAP]], %{{.*}} into
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @__constant_4x3x3xf32 : memref<4x3x3xf32> = dense<[[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00]], [[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00]], [[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00]], [[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.500000e+00]]]> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x4x6x6xf32>) -> memref<1x4x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_4x3x3xf32 : memref<4x3x3xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4x3x3x4xf32>
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : memref<4x3x3xf32>) outs(%alloc : memref<4x3x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = linalg.index 0 : index
      %2 = linalg.index 3 : index
      %3 = arith.cmpi eq, %1, %2 : index
      %4 = arith.select %3, %in, %cst : f32
      linalg.yield %4 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x4x4x4xf32>)
    linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %alloc : memref<1x4x6x6xf32>, memref<4x3x3x4xf32>) outs(%alloc_0 : memref<1x4x4x4xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.mulf %in, %in_1 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    return %alloc_0 : memref<1x4x4x4xf32>
  }
}
