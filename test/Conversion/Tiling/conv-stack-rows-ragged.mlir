// Stacked rows need not divide the output's height (lib/Conversion/Tiling/
// Conv.cpp, `lastRows`): a padded fp32 convolution read from HBM may stack
// q rows in groups with a last group of fewer rows, when that takes fewer
// matmul columns. Here 16 output rows of a 16-channel 3x3 convolution: 6
// stacked rows (8 input rows of 16 channels, all 128 partitions; 3 groups,
// 9 matmuls of [128, 96] a pixel column) against 4 (4 groups of 3 matmuls
// of [96, 64], a third more columns). The last group computes all six
// blocks, from an input tile whose rows past the source are the padding,
// and evacuates and stores its first four (rows 12 to 15).
// RUN: nki-opt %s --nki-tile | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK: nki.alloc : memref<128x2x16xf32, #nki.memory<sbuf>>
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x96xf32, strided<[288, 1]{{.*}}>, #nki.memory<sbuf>>, memref<128x2x{{1[56]}}xf32
// CHECK: nki.alloc : memref<96x32xf32, #nki.memory<sbuf>>
// CHECK-COUNT-6: nki.dma %{{.*}} to %{{.*}} : memref<16x32xf32, strided<[32, 1]{{.*}}>, #nki.memory<sbuf>> to memref<16x2x16xf32, strided<[256, 96, 1], offset: ?>>
// The last group: its one tile row is a padding row in groups 5 to 7 (set
// on every partition first), source rows 11 to 15 in groups 0 to 4.
// CHECK: %[[LAST:.*]] = nki.alloc : memref<128x1x16xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}}, 0.000000e+00 : memref<128x1x16xf32
// CHECK-COUNT-5: nki.dma %{{.*}} to %{{.*}} : memref<16x1x16xf32, strided<[256, 96, 1], offset: ?>> to memref<16x1x16xf32
// CHECK-NOT: nki.dma %{{.*}} to %{{.*}} : memref<16x1x16xf32, strided<[256, 96, 1], offset: ?>>
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x96xf32, strided<[288, 1]{{.*}}>, #nki.memory<sbuf>>, memref<128x1x{{1[56]}}xf32
// CHECK: nki.alloc : memref<64x16xf32, #nki.memory<sbuf>>
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x16xf32, strided<[16, 1]{{.*}}>, #nki.memory<sbuf>> to memref<16x1x16xf32, strided<[256, 96, 1], offset: ?>>
// CHECK-NOT: nki.dma
// CHECK: return
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x16x16xf32>) -> memref<1x16x16x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x18x18xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x18x18xf32>)
    %sv = memref.subview %p[0, 0, 1, 1] [1, 16, 16, 16] [1, 1, 1, 1] : memref<1x16x18x18xf32> to memref<1x16x16x16xf32, strided<[5184, 324, 18, 1], offset: 19>>
    memref.copy %arg0, %sv : memref<1x16x16x16xf32> to memref<1x16x16x16xf32, strided<[5184, 324, 18, 1], offset: 19>>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<1x16x18x18xf32>, memref<16x3x3x16xf32>) outs(%y : memref<1x16x16x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x16x16x16xf32>
  }
}
