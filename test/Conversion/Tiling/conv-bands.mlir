// nki-tile packs bands of output rows side by side on the partitions when
// a convolution has few channels and filters (lib/Conversion/Tiling/
// ConvBands.cpp, chooseBands): band j's input channels on partitions
// [j * C, (j + 1) * C), a block-diagonal filter with band j's copy at
// filters [j * F, (j + 1) * F), so that each matmul computes every band.
// Kernel columns are not folded here (conv-fold-columns.mlir): the bands
// alone.
// RUN: nki-opt %s -split-input-file --nki-tile="fold-columns=false stack-rows=false" | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s -split-input-file --nki-tile="fold-columns=false stack-rows=false pack-residents=false" | FileCheck %s --check-prefix=UNPACKED

// 16 channels, 16 filters, 8 output rows: eight bands of one row. The
// filter goes onto the eight partition groups by a DMA from HBM each (9 KB
// a band: less queue time than a copy's completion after one load) and
// two POOL affine_selects keep band j's block (j * 16 <= p < (j + 1) *
// 16); each
// band's 3 input rows are one DMA; 9 matmuls of the [128, 128] filter
// compute all 64 pixels; each band's 16 partitions are stored by DMA.
// CHECK-LABEL: func.func @main(
// CHECK: %[[STAGED:.*]] = nki.alloc : memref<128x144xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.alloc
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x144xf32, strided<[144, 1], offset: ?>> to memref<16x144xf32, strided<[144, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: %[[PACKED:.*]] = nki.alloc : memref<128x1152xf32, #nki.memory<sbuf>>
// CHECK: %[[SRC:.*]] = memref.reinterpret_cast %[[STAGED]] to offset: [0], sizes: [128, 9, 8, 16], strides: [144, 16, 0, 1]
// CHECK: %[[DST:.*]] = memref.reinterpret_cast %[[PACKED]] to offset: [0], sizes: [128, 9, 8, 16], strides: [1152, 128, 16, 1]
// CHECK: nki.affine_select %[[SRC]] into %[[DST]] {cmp = "ge", coefs = array<i64: 0, -16, 0>, fill = 0.000000e+00 : f32, offset = 0 : i64, pcoef = 1 : i64}
// CHECK: nki.affine_select %[[DST]] into %[[DST]] {cmp = "lt", coefs = array<i64: 0, -16, 0>, fill = 0.000000e+00 : f32, offset = -16 : i64, pcoef = 1 : i64}
// CHECK: %[[IN:.*]] = nki.alloc : memref<128x3x10xf32, #nki.memory<sbuf>>
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x3x10xf32, strided<[100, 10, 1], offset: ?>> to memref<16x3x10xf32, strided<[30, 10, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xf32, strided<[1152, 1]{{.*}}>, #nki.memory<sbuf>>, memref<128x1x8xf32, strided<[30, 10, 1]{{.*}}>, #nki.memory<sbuf>> into memref<128x8xf32, #nki.memory<psum>>
// CHECK-NOT: nki.matmul
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x8xf32, strided<[8, 1]{{.*}}>, #nki.memory<sbuf>> to memref<16x8xf32, strided<[64, 1], offset: ?>>
// OFF-LABEL: func.func @main(
// OFF-NOT: affine_select
// OFF-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<48x16xf32
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x10x10xf32>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x16x10x10xf32>, memref<16x3x3x16xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x16x8x8xf32>
  }
}

// -----

// 64 channels and filters: two bands, each a 64-partition copy of a 147 KB
// filter (2,304 bytes a partition), more queue time than a copy's
// completion: loaded once from HBM and staged onto the second band's
// partitions within SBUF.
// CHECK-LABEL: func.func @large_filter(
// CHECK: %[[F:.*]] = nki.alloc : memref<64x576xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[F]] : memref<64x576xf32, strided<[576, 1], offset: ?>> to memref<64x576xf32, #nki.memory<sbuf>>
// CHECK: nki.alloc : memref<128x576xf32, #nki.memory<sbuf>>
// CHECK-COUNT-2: nki.dma %[[F]] to %{{.*}} : memref<64x576xf32, #nki.memory<sbuf>> to memref<64x576xf32, strided<[576, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: nki.affine_select
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<64x3x3x64xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @large_filter(%arg0: memref<1x64x10x10xf32>) -> memref<1x64x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<64x3x3x64xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x64x10x10xf32>, memref<64x3x3x64xf32>) outs(%y : memref<1x64x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x64x8x8xf32>
  }
}

// -----

// Between two convolutions in SBUF: the 3x3 convolution's ReLU runs on
// all 128 partitions of its packed result (eight bands of one row), and
// the 1x1 convolution (16 to 32 filters) packs four bands of two rows. The
// tensor between them is kept in the 1x1's band tile ([4 x 16, 1 image,
// 2 rows, 8 columns]; compiler.md, "Packed residents"): each of the 3x3's
// band rows goes there by a DMA within SBUF, but for band 0's row, which
// stays on its partitions: the kernel's last chunk, so an engine copies it
// (no DMA latency before the 1x1 starts); and the 1x1 reads it in place.
// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = nki.alloc : memref<64x1x2x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %{{.*}} into %[[R:.*]] {op0 = "max"} : memref<128x8xf32, #nki.memory<psum>> into memref<128x8xf32, #nki.memory<sbuf>>
// CHECK: %[[PART:.*]] = memref.subview %[[R]][0, 0] [16, 8]
// CHECK: %[[ROW:.*]] = memref.subview %[[T]][0, 0, 0, 0] [16, 1, 1, 8]
// CHECK: %[[SRC:.*]] = memref.subview %[[PART]][0, 0] [16, 8]
// CHECK: %[[SRC3:.*]] = memref.expand_shape %[[SRC]] {{\[}}[0], [1, 2]] output_shape [16, 1, 8]
// CHECK: nki.copy %[[SRC3]] into %[[ROW]]
// CHECK: %[[PART1:.*]] = memref.subview %[[R]][16, 0] [16, 8]
// CHECK: %[[ROW1:.*]] = memref.subview %[[T]][0, 0, 1, 0] [16, 1, 1, 8]
// CHECK: %[[SRC1:.*]] = memref.subview %[[PART1]][0, 0] [16, 8]
// CHECK: nki.dma %[[SRC1]] to %[[ROW1]]
// CHECK: %[[PART2:.*]] = memref.subview %[[R]][32, 0] [16, 8]
// CHECK: %[[ROW2:.*]] = memref.subview %[[T]][16, 0, 0, 0] [16, 1, 1, 8]
// CHECK-NOT: nki.alloc : memref<64x2x8xf32
// CHECK: %[[IN:.*]] = memref.subview %[[T]][0, 0, 0, 0] [64, 1, 2, 8]
// CHECK: %[[WIN:.*]] = memref.subview %[[IN]][0, 0, 0] [64, 2, 8]
// CHECK: nki.matmul %{{.*}}, %[[WIN]] into %{{.*}} : memref<64x128xf32, #nki.memory<sbuf>>, memref<64x2x8xf32, strided<[16, 8, 1]>, #nki.memory<sbuf>> into memref<128x16xf32, #nki.memory<psum>>
// Not packed: each band's rows go into the resident tensor within SBUF,
// by an engine copy for the bands whose partitions start where an engine
// may (0, 32, 64, 96: the kernel's only group is its last, and one image
// is in flight), else by a DMA; the 1x1 copies each band's rows out of it
// by DMA.
// UNPACKED-LABEL: func.func @main(
// UNPACKED: %[[T:.*]] = nki.alloc : memref<16x1x1x8x8xf32, #nki.memory<sbuf>>
// UNPACKED: nki.tensor_scalar %{{.*}} into %[[R:.*]] {op0 = "max"} : memref<128x8xf32, #nki.memory<psum>> into memref<128x8xf32, #nki.memory<sbuf>>
// UNPACKED: %[[ROW:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [16, 1, 1, 1, 8]
// UNPACKED: %[[PART:.*]] = memref.subview %[[R]][0, 0] [16, 8]
// UNPACKED: nki.copy %[[PART]] into %[[ROW]]
// UNPACKED: %[[ROW1:.*]] = memref.subview %[[T]][0, 0, 0, 1, 0] [16, 1, 1, 1, 8]
// UNPACKED: %[[PART1:.*]] = memref.subview %[[R]][16, 0] [16, 8]
// UNPACKED: nki.dma %[[PART1]] to %[[ROW1]]
// UNPACKED: %[[BAND:.*]] = nki.alloc : memref<64x2x8xf32, #nki.memory<sbuf>>
// UNPACKED: %[[ROWS:.*]] = memref.subview %[[T]][0, 0, 0, 2, 0] [16, 1, 1, 2, 8]
// UNPACKED: %[[TO:.*]] = memref.subview %[[BAND]][16, 0, 0] [16, 2, 8]
// UNPACKED: nki.dma %[[ROWS]] to %[[TO]]
// UNPACKED: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<64x128xf32, #nki.memory<sbuf>>, memref<64x2x8xf32, strided<[16, 8, 1]>, #nki.memory<sbuf>> into memref<128x16xf32, #nki.memory<psum>>

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @__constant_16x3x3x16xf32 : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>) -> memref<1x32x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32>
    %1 = memref.get_global @__constant_16x3x3x16xf32 : memref<16x3x3x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x10x10xf32>
    linalg.map outs(%alloc : memref<1x16x10x10xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    memref.copy %arg0, %subview : memref<1x16x8x8xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc, %1 : memref<1x16x10x10xf32>, memref<16x3x3x16xf32>) outs(%alloc_0 : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_0 : memref<1x16x8x8xf32>) outs(%alloc_1 : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.maximumf %in, %cst : f32
      linalg.yield %2 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x32x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<1x32x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_1, %0 : memref<1x16x8x8xf32>, memref<16x1x1x32xf32>) outs(%alloc_2 : memref<1x32x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %alloc_2 : memref<1x32x8x8xf32>
  }
}


// -----

// A resident tensor with a border (a 3x3 convolution reads it padded) that
// a 1x1 convolution reads in packed bands: each band's rows are copied
// whole, border included ([2, 10] rows, one contiguous run a partition;
// a DMA pays at least 512 bytes a run), and the matmul's window starts one
// column in.
// CHECK-LABEL: func.func @main(
// CHECK: nki.alloc : memref<16x1x1x10x10xf32, #nki.memory<sbuf>>
// CHECK: nki.alloc : memref<64x2x10xf32, #nki.memory<sbuf>>
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x2x10xf32, strided<[100, 10, 1], offset: {{10|30|50|70}}>, #nki.memory<sbuf>> to memref<16x2x10xf32, strided<[20, 10, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<64x128xf32, #nki.memory<sbuf>>, memref<64x2x8xf32, strided<[20, 10, 1], offset: 1>, #nki.memory<sbuf>> into memref<128x16xf32, #nki.memory<psum>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @__constant_16x3x3x16xf32 : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<1.250000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>) -> (memref<1x16x8x8xf32>, memref<1x32x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %w3 = memref.get_global @__constant_16x3x3x16xf32 : memref<16x3x3x16xf32>
    %w2 = memref.get_global @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32>
    %t = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%t : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w1 : memref<1x16x8x8xf32>, memref<16x1x1x16xf32>) outs(%t : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %pad = memref.alloc() {alignment = 64 : i64} : memref<1x16x10x10xf32>
    linalg.map outs(%pad : memref<1x16x10x10xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    memref.copy %t, %inner : memref<1x16x8x8xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    %y1 = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y1 : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad, %w3 : memref<1x16x10x10xf32>, memref<16x3x3x16xf32>) outs(%y1 : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %y2 = memref.alloc() {alignment = 64 : i64} : memref<1x32x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y2 : memref<1x32x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%t, %w2 : memref<1x16x8x8xf32>, memref<16x1x1x32xf32>) outs(%y2 : memref<1x32x8x8xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y1, %y2 : memref<1x16x8x8xf32>, memref<1x32x8x8xf32>
  }
}
