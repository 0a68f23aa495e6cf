// A folded convolution (kernel rows, and columns, stacked on the
// partitions) whose f32 input in HBM it multiplies in bf16 (auto-cast):
// a band tile's blocks copy one another's rows within SBUF rather than each
// loading its rows from HBM (lib/Conversion/Tiling/Conv.cpp, emitBand). A
// kernel row's block holds the rows of the block `stride` padded rows above
// it, one row on: it copies them (one run a partition) and loads only its
// last rows; a kernel column's block copies its kernel row's block shifted
// by a column, from the blocks loaded from HBM.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// A ResNet-like stem (3 channels, 7x7, stride 2) at batch 2: a band tile is
// two bands of 7 kernel rows x 2 kernel columns x 3 channels, 24 rows of
// 101. In each band kernel rows 0 and 1 load from HBM (two pieces each);
// kernel row 2 copies kernel row 0's rows from its second on and loads its
// last row, kernel row 3 copies kernel row 1's; kernel column 1 of kernel
// row 0 copies kernel row 0's block one element on (each row's last column
// then takes the next row's first, read only by a zero filter row; the
// block's last is set first). No block of the first band loads all its
// rows from HBM but those two; the second band's start at partition 42.
// CHECK-LABEL: func.func @stem(
// CHECK: nki.alloc : memref<84x24x101xbf16, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}} : memref<84x24x1xbf16, strided<[2424, 101, 1], offset: 100>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x12x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x12x101xbf16, strided<[2424, 101, 1]>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x12x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x12x101xbf16, strided<[2424, 101, 1], offset: 1212>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x12x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x12x101xbf16, strided<[2424, 101, 1], offset: 7272>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x12x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x12x101xbf16, strided<[2424, 101, 1], offset: 8484>, #nki.memory<sbuf>>
// CHECK-NOT: nki.dma %{{.*}} : memref<3x12x101xf32
// CHECK: nki.dma %{{.*}} : memref<3x1212xbf16, strided<[2424, 1], offset: 101>, #nki.memory<sbuf>> to memref<3x1212xbf16, strided<[2424, 1], offset: 14544>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x1111xbf16, strided<[2424, 1], offset: 1313>, #nki.memory<sbuf>> to memref<3x1111xbf16, strided<[2424, 1], offset: 15756>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x1x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x1x101xbf16, strided<[2424, 101, 1], offset: 16867>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x1212xbf16, strided<[2424, 1], offset: 7373>, #nki.memory<sbuf>> to memref<3x1212xbf16, strided<[2424, 1], offset: 21816>, #nki.memory<sbuf>>
// CHECK-NOT: nki.dma %{{.*}} : memref<3x12x101xf32
// CHECK: nki.dma %{{.*}} : memref<3x1212xbf16, strided<[2424, 1], offset: 1>, #nki.memory<sbuf>> to memref<3x1212xbf16, strided<[2424, 1], offset: 50904>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} : memref<3x1211xbf16, strided<[2424, 1], offset: 1213>, #nki.memory<sbuf>> to memref<3x1211xbf16, strided<[2424, 1], offset: 52116>, #nki.memory<sbuf>>
// CHECK-NOT: nki.dma %{{.*}} : memref<3x12x101xf32
// CHECK: nki.dma %{{.*}} : memref<3x12x101xf32, strided<[10201, 202, 1], offset: ?>> to memref<3x12x101xbf16, strided<[2424, 101, 1], offset: 101808>, #nki.memory<sbuf>>
// CHECK: nki.matmul
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<3x7x7x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @stem(%arg0: memref<2x3x101x101xf32>) -> memref<2x64x48x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<3x7x7x64xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x64x48x48xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x64x48x48xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<2x3x101x101xf32>, memref<3x7x7x64xbf16>) outs(%y : memref<2x64x48x48xf32>) {
    ^bb0(%in: f32, %in_3: bf16, %out: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_3 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %y : memref<2x64x48x48xf32>
  }
}

// -----

// The same stem at batch 1: one band tile, whose copies no other band
// would hide (each waits for the load it copies), loads every block from
// HBM.
// CHECK-LABEL: func.func @one_band(
// CHECK-COUNT-56: nki.dma %{{.*}} : memref<3x12x{{[0-9]+}}xf32
// CHECK-NOT: strided<[2424, 1]
// CHECK: nki.matmul
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<3x7x7x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @one_band(%arg0: memref<1x3x101x101xf32>) -> memref<1x64x48x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<3x7x7x64xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x48x48xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x48x48xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x3x101x101xf32>, memref<3x7x7x64xbf16>) outs(%y : memref<1x64x48x48xf32>) {
    ^bb0(%in: f32, %in_3: bf16, %out: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_3 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %y : memref<1x64x48x48xf32>
  }
}

// -----

// A MobileNetV2-like stem (3x3, stride 2): of a band's three kernel rows
// only the third could copy (the first's rows, one on), so each loads from
// HBM: a copy waits for the load it copies, which replacing one load in
// three does not repay.
// CHECK-LABEL: func.func @stride2_3x3(
// CHECK: nki.alloc : memref<36x12x97xbf16, #nki.memory<sbuf>>
// CHECK-COUNT-12: nki.dma %{{.*}} : memref<3x12x97xf32
// CHECK-NOT: strided<[1164, 1]
// CHECK: nki.matmul
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<3x3x3x32xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @stride2_3x3(%arg0: memref<2x3x97x97xf32>) -> memref<2x32x48x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<3x3x3x32xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x32x48x48xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x32x48x48xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<2x3x97x97xf32>, memref<3x3x3x32xbf16>) outs(%y : memref<2x32x48x48xf32>) {
    ^bb0(%in: f32, %in_3: bf16, %out: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_3 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %y : memref<2x32x48x48xf32>
  }
}
