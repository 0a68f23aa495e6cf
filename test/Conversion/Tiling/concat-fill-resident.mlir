// A concat of a convolution's result and a constant channel (the channel
// of ones that carries a composed transposed convolution's bias) that only
// convolutions read stays in SBUF: the fill of its slice is a memset of
// partition 32 (64 elements a partition on) of the resident [33, 1 block,
// 1 image, 8, 8] tile, the
// convolution evacuates into partitions [0, 32), and the next convolution
// reads all 33; the 33-channel buffer is gone from HBM.
// RUN: nki-opt %s --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x33x8x8xf32>
// CHECK: %[[T:.*]] = nki.alloc : memref<33x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}}, 1.000000e+00 : memref<1x8x8xf32, strided<[64, 8, 1], offset: 2048>, #nki.memory<sbuf>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<33x8xf32, #nki.memory<sbuf>>, memref<33x8x8xf32
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x33x8x8xf32>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<16x1x1x32xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<33x1x1x8xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>) -> memref<1x8x8x8xf32> {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<16x1x1x32xf32>
    %w2 = memref.get_global @w2 : memref<33x1x1x8xf32>
    %x = memref.alloc() {alignment = 64 : i64} : memref<1x33x8x8xf32>
    %lo = memref.subview %x[0, 0, 0, 0] [1, 32, 8, 8] [1, 1, 1, 1] : memref<1x33x8x8xf32> to memref<1x32x8x8xf32, strided<[2112, 64, 8, 1]>>
    linalg.fill ins(%zero : f32) outs(%lo : memref<1x32x8x8xf32, strided<[2112, 64, 8, 1]>>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w1 : memref<1x16x8x8xf32>, memref<16x1x1x32xf32>) outs(%lo : memref<1x32x8x8xf32, strided<[2112, 64, 8, 1]>>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %2 = arith.mulf %in, %in_2 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %hi = memref.subview %x[0, 32, 0, 0] [1, 1, 8, 8] [1, 1, 1, 1] : memref<1x33x8x8xf32> to memref<1x1x8x8xf32, strided<[2112, 64, 8, 1], offset: 2048>>
    linalg.fill ins(%one : f32) outs(%hi : memref<1x1x8x8xf32, strided<[2112, 64, 8, 1], offset: 2048>>)
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%zero : f32) outs(%y : memref<1x8x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w2 : memref<1x33x8x8xf32>, memref<33x1x1x8xf32>) outs(%y : memref<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %2 = arith.mulf %in, %in_2 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x8x8x8xf32>
  }
}
