// A concat that only convolutions read stays in SBUF: its part from HBM
// (the argument) is one DMA into partitions [0, 32) of the resident
// [64, 1 block, 1 image, 8, 8] tile, the convolution computing the other
// part evacuates into partitions [32, 64), and the next convolution reads
// all 64 (Tiling/Copy.cpp tileResidentCopy, Residents.h).
// RUN: nki-opt %s --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = nki.alloc : memref<64x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK: %[[LO:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [32, 1, 1, 8, 8]
// CHECK: nki.dma %{{.*}} to %[[LO]] : memref<32x8x8xf32, strided<[64, 8, 1], offset: ?>> to memref<32x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>>
// CHECK: %[[HI:.*]] = memref.subview %[[T]][32, 0, 0, 0, 0] [32, 1, 1, 8, 8]
// CHECK: nki.copy %{{.*}} into %[[HI]] : memref<32x64xf32, #nki.memory<psum>>
// CHECK: %[[ALL:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [64, 1, 1, 8, 8]
// CHECK: %[[WIN:.*]] = memref.subview %[[ALL]]
// CHECK: nki.matmul %{{.*}}, %[[WIN]] into %{{.*}} : memref<64x8xf32, #nki.memory<sbuf>>, memref<64x8x8xf32
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @__constant_32x1x1x32xf32 : memref<32x1x1x32xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_64x1x1x8xf32 : memref<64x1x1x8xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x32x8x8xf32>) -> memref<1x8x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_64x1x1x8xf32 : memref<64x1x1x8xf32>
    %1 = memref.get_global @__constant_32x1x1x32xf32 : memref<32x1x1x32xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x64x8x8xf32>
    %subview = memref.subview %alloc[0, 0, 0, 0] [1, 32, 8, 8] [1, 1, 1, 1] : memref<1x64x8x8xf32> to memref<1x32x8x8xf32, strided<[4096, 64, 8, 1]>>
    memref.copy %arg0, %subview : memref<1x32x8x8xf32> to memref<1x32x8x8xf32, strided<[4096, 64, 8, 1]>>
    %subview_0 = memref.subview %alloc[0, 32, 0, 0] [1, 32, 8, 8] [1, 1, 1, 1] : memref<1x64x8x8xf32> to memref<1x32x8x8xf32, strided<[4096, 64, 8, 1], offset: 2048>>
    linalg.fill ins(%cst : f32) outs(%subview_0 : memref<1x32x8x8xf32, strided<[4096, 64, 8, 1], offset: 2048>>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %1 : memref<1x32x8x8xf32>, memref<32x1x1x32xf32>) outs(%subview_0 : memref<1x32x8x8xf32, strided<[4096, 64, 8, 1], offset: 2048>>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %2 = arith.mulf %in, %in_2 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_1 : memref<1x8x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc, %0 : memref<1x64x8x8xf32>, memref<64x1x1x8xf32>) outs(%alloc_1 : memref<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %2 = arith.mulf %in, %in_2 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %alloc_1 : memref<1x8x8x8xf32>
  }
}
