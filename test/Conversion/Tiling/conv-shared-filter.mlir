// A constant filter that several convolutions read alike (one layer in
// each group of images, nki-split-batch) stays in SBUF from its first
// reader to its last when its reloads would move more bytes than all of
// the program's constants (lib/Conversion/Tiling/Residents.cpp,
// shareFilters): the first kernel loads it, the others read its tile.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// Three groups of one image, a 128 -> 16 3x3 layer each (f32): the filter
// [128, 9 x 16] comes from HBM once (its two reloads, 147 KB, exceed the
// program's 74 KB of constants); every kernel's first tap reads that tile.
// CHECK-LABEL: func.func @groups(
// CHECK: %[[W:.*]] = nki.alloc : memref<128x144xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[W]] : memref<128x144xf32, strided<[144, 1], offset: ?>> to memref<128x144xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.alloc : memref<128x144xf32
// CHECK: memref.subview %[[W]][0, 0] [128, 16]
// CHECK: nki.dma %{{.*}} : memref<16x16xf32, #nki.memory<sbuf>> to memref<16x16xf32
// CHECK-NOT: nki.alloc : memref<128x144xf32
// CHECK: memref.subview %[[W]][0, 0] [128, 16]
// CHECK: nki.dma %{{.*}} : memref<16x16xf32, #nki.memory<sbuf>> to memref<16x16xf32
// CHECK-NOT: nki.alloc : memref<128x144xf32
// CHECK: memref.subview %[[W]][0, 0] [128, 16]
// CHECK: nki.dma %{{.*}} : memref<16x16xf32, #nki.memory<sbuf>> to memref<16x16xf32
// CHECK: return
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @groups(%a: memref<1x128x6x6xf32>, %b: memref<1x128x6x6xf32>, %c: memref<1x128x6x6xf32>) -> (memref<1x16x4x4xf32>, memref<1x16x4x4xf32>, memref<1x16x4x4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x3x3x16xf32>
    %ya = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%ya : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%a, %w : memref<1x128x6x6xf32>, memref<128x3x3x16xf32>) outs(%ya : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.mulf %in, %in_3 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    %yb = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%yb : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%b, %w : memref<1x128x6x6xf32>, memref<128x3x3x16xf32>) outs(%yb : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.mulf %in, %in_3 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    %yc = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%yc : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%c, %w : memref<1x128x6x6xf32>, memref<128x3x3x16xf32>) outs(%yc : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.mulf %in, %in_3 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %ya, %yb, %yc : memref<1x16x4x4xf32>, memref<1x16x4x4xf32>, memref<1x16x4x4xf32>
  }
}

// -----

// Two groups: one reload (74 KB) does not exceed the constants, and the
// SBUF a shared filter holds would cost more than its loads: each kernel
// loads its own.
// CHECK-LABEL: func.func @two_groups(
// CHECK: nki.alloc : memref<128x144xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<128x144xf32, strided<[144, 1], offset: ?>> to memref<128x144xf32, #nki.memory<sbuf>>
// CHECK: nki.alloc : memref<128x144xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<128x144xf32, strided<[144, 1], offset: ?>> to memref<128x144xf32, #nki.memory<sbuf>>
// CHECK: return
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @two_groups(%a: memref<1x128x6x6xf32>, %b: memref<1x128x6x6xf32>, %c: memref<1x128x6x6xf32>) -> (memref<1x16x4x4xf32>, memref<1x16x4x4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x3x3x16xf32>
    %ya = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%ya : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%a, %w : memref<1x128x6x6xf32>, memref<128x3x3x16xf32>) outs(%ya : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.mulf %in, %in_3 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    %yb = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%yb : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%b, %w : memref<1x128x6x6xf32>, memref<128x3x3x16xf32>) outs(%yb : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.mulf %in, %in_3 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %ya, %yb : memref<1x16x4x4xf32>, memref<1x16x4x4xf32>
  }
}
