// nki-tile runs an integer-factor upsample (the ONNX importer's nearest
// Resize: a generic reading (n, c, h floordiv fh, w floordiv fw)) as copies
// on chip (lib/Conversion/Tiling/Upsample.cpp): each band of input rows
// goes fh x fw times into the strided view of one output phase, or, when
// the band has fewer elements a partition than a copy's fixed cost (64
// cycles on trn2), into all phases at once, read with a stride of 0
// across them. Between two convolutions both tensors stay in SBUF; with
// residency off the band is loaded and the output tile stored by DMA.
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile="sbuf-resident=false pack-bands=false" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @main(
// CHECK-DAG: %[[OUT:.*]] = nki.alloc : memref<16x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK-DAG: %[[IN:.*]] = nki.alloc : memref<16x1x1x4x4xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<16x16xf32, #nki.memory<psum>> into
// A band of 16 elements a partition: one copy into all four phases, the
// band's [16, 4, 4] read as [16, 4, 2, 4, 2] with the phases' strides 0.
// CHECK: %[[BAND:.*]] = memref.subview %[[IN]][0, 0, 0, 0, 0] [16, 1, 1, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[ROWS:.*]] = memref.subview %[[OUT]][0, 0, 0, 0, 0] [16, 1, 1, 8, 8] [1, 1, 1, 1, 1]
// CHECK: %[[SRC:.*]] = memref.reinterpret_cast %[[BAND]] to offset: [0], sizes: [16, 4, 2, 4, 2], strides: [16, 4, 0, 1, 0]
// CHECK: %[[DST:.*]] = memref.reinterpret_cast %[[ROWS]] to offset: [0], sizes: [16, 4, 2, 4, 2], strides: [64, 16, 8, 2, 1]
// CHECK-NEXT: nki.copy %[[SRC]] into %[[DST]]
// CHECK-NOT: nki.copy %[[BAND]]
// CHECK-NOT: linalg.generic
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<16x32xf32, #nki.memory<sbuf>>, memref<16x8x8xf32
// CHECK: return
// OFF-LABEL: func.func @main(
// OFF: %[[UP:.*]] = memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// OFF: nki.dma %{{.*}} to %[[BAND:.*]] : memref<16x4x4xf32, strided<[16, 4, 1], offset: ?>> to memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
// OFF: %[[T:.*]] = nki.alloc : memref<16x8x8xf32, #nki.memory<sbuf>>
// OFF: nki.copy %{{.*}} into %{{.*}} : memref<16x4x2x4x2xf32, strided<[16, 4, 0, 1, 0]>, #nki.memory<sbuf>> into memref<16x4x2x4x2xf32, strided<[64, 16, 8, 2, 1]>, #nki.memory<sbuf>>
// OFF-NOT: nki.copy
// OFF: memref.reinterpret_cast %[[UP]] to offset: [%{{.*}}], sizes: [16, 8, 8], strides: [64, 8, 1]
// OFF: %[[V:.*]] = memref.subview %[[T]][0, 0, 0] [16, 8, 8] [1, 1, 1]
// OFF: nki.dma %[[V]] to
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x4x4xf32>) -> memref<1x32x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32>
    %1 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %1 : memref<1x16x4x4xf32>, memref<16x1x1x16xf32>) outs(%alloc_0 : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.generic {indexing_maps = [#up, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_0 : memref<1x16x4x4xf32>) outs(%alloc_1 : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
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

// An upsample into the interior of a padded buffer in HBM: the output
// tile's rows are stored at the buffer's row stride.
// OFF-LABEL: func.func @padded(
// OFF: %[[PAD:.*]] = memref.alloc() : memref<1x16x10x10xf32>
// OFF: %[[INNER:.*]] = memref.subview %[[PAD]][0, 0, 1, 1]
// OFF: nki.copy
// OFF: memref.reinterpret_cast %[[INNER]] to offset: [%c11], sizes: [16, 8, 8], strides: [100, 10, 1]
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded(%arg0: memref<1x16x4x4xf32>) -> memref<1x16x10x10xf32> {
  %pad = memref.alloc() : memref<1x16x10x10xf32>
  %inner = memref.subview %pad[0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 1, 1] : memref<1x16x10x10xf32> to memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x16x4x4xf32>) outs(%inner : memref<1x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return %pad : memref<1x16x10x10xf32>
}

// -----

// Bands of at most 256 input elements a partition (8 rows of 32 here):
// each band's four phase copies write interleaved views of the same output
// rows, which the scheduler orders one after another, so small bands keep
// the copies of the last rows a producer writes short. With both sides in
// HBM and 16 channels, the four bands go side by side on 64 partitions
// (band k on [16 k, 16 k + 16)), so that each phase is one copy of them all.
// OFF-LABEL: func.func @bands(
// OFF: nki.alloc : memref<64x8x32xf32, #nki.memory<sbuf>>
// OFF-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x8x32xf32, strided<[1024, 32, 1], offset: ?>> to memref<16x8x32xf32, strided<[256, 32, 1]{{.*}}>, #nki.memory<sbuf>>
// OFF-NOT: nki.dma %{{.*}} : memref<16x{{[0-9]+}}x32xf32, strided<[1024, 32, 1], offset: ?>>
// OFF-COUNT-4: nki.copy %{{.*}} into %{{.*}} : memref<64x8x32xf32, #nki.memory<sbuf>> into memref<64x8x32xf32, strided<[1024, 128, 2]{{.*}}>, #nki.memory<sbuf>>
// OFF-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x8x64xf32, strided<[1024, 64, 1]{{.*}}>, #nki.memory<sbuf>> to memref<16x8x64xf32, strided<[4096, 64, 1], offset: ?>>
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @bands(%arg0: memref<1x16x32x32xf32>) -> memref<1x16x64x64xf32> {
  %out = memref.alloc() : memref<1x16x64x64xf32>
  linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x16x32x32xf32>) outs(%out : memref<1x16x64x64xf32>) {
  ^bb0(%in: f32, %out_0: f32):
    linalg.yield %in : f32
  }
  return %out : memref<1x16x64x64xf32>
}

// -----

// Interleaved phases (nki-interleave-phases): phase (i, j) of the output
// comes from its own slice of the stacked input, [4, N, C, H, W], loaded
// in whole rows (offsets 0, 256, 512 and 768 elements: one [1, 16, 4, 4]
// phase each) and copied into its strided view of the output band, which
// leaves in one DMA of whole rows.
// CHECK-LABEL: func.func @interleave(
// CHECK: %[[T:.*]] = nki.alloc : memref<16x8x8xf32, #nki.memory<sbuf>>
// CHECK: %[[V00:.*]] = memref.subview %[[T]][0, 0, 0] [16, 4, 4] [1, 2, 2]
// CHECK: %[[B00:.*]] = nki.alloc : memref<16x4x4xf32, #nki.memory<sbuf>>
// CHECK: %[[O00:.*]] = arith.constant 0 : index
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%[[O00]]], sizes: [16, 4, 4], strides: [16, 4, 1]
// CHECK: nki.dma
// CHECK: nki.copy %[[B00]] into %[[V00]]
// CHECK: %[[V01:.*]] = memref.subview %[[T]][0, 0, 1] [16, 4, 4] [1, 2, 2]
// CHECK: %[[B01:.*]] = nki.alloc
// CHECK: arith.constant 256 : index
// CHECK: nki.dma
// CHECK: nki.copy %[[B01]] into %[[V01]]
// CHECK: %[[V10:.*]] = memref.subview %[[T]][0, 1, 0] [16, 4, 4] [1, 2, 2]
// CHECK: %[[B10:.*]] = nki.alloc
// CHECK: arith.constant 512 : index
// CHECK: nki.dma
// CHECK: nki.copy %[[B10]] into %[[V10]]
// CHECK: %[[V11:.*]] = memref.subview %[[T]][0, 1, 1] [16, 4, 4] [1, 2, 2]
// CHECK: %[[B11:.*]] = nki.alloc
// CHECK: arith.constant 768 : index
// CHECK: nki.dma
// CHECK: nki.copy %[[B11]] into %[[V11]]
// CHECK: memref.reinterpret_cast %{{.*}} sizes: [16, 8, 8], strides: [64, 8, 1]
// CHECK: %[[ROWS:.*]] = memref.subview %[[T]][0, 0, 0] [16, 8, 8] [1, 1, 1]
// CHECK: nki.dma %[[ROWS]] to
// CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @interleave(
// OFF-COUNT-4: nki.copy
#phase = affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @interleave(%s: memref<4x1x16x4x4xf32>) -> memref<1x16x8x8xf32> {
  %out = memref.alloc() : memref<1x16x8x8xf32>
  linalg.generic {indexing_maps = [#phase, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : memref<4x1x16x4x4xf32>) outs(%out : memref<1x16x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return %out : memref<1x16x8x8xf32>
}

// -----

// A pooled 1 x 1 map resized to 28 x 28 (DeepLabV3's image pooling
// branch, 256 channels): per block of 128 channels one copy of the
// band's one element a partition into all 784 phases (before: 784
// copies), then the rows stored.
// OFF-LABEL: func.func @broadcast(
// OFF-COUNT-2: nki.copy %{{.*}} into %{{.*}} : memref<128x1x28x1x28xf32, strided<[1, 1, 0, 1, 0]>, #nki.memory<sbuf>> into memref<128x1x28x1x28xf32, strided<[784, 784, 28, 28, 1]>, #nki.memory<sbuf>>
// OFF-NOT: nki.copy
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 28, d3 floordiv 28)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @broadcast(%arg0: memref<1x256x1x1xf32>) -> memref<1x256x28x28xf32> {
  %out = memref.alloc() : memref<1x256x28x28xf32>
  linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x256x1x1xf32>) outs(%out : memref<1x256x28x28xf32>) {
  ^bb0(%in: f32, %out_0: f32):
    linalg.yield %in : f32
  }
  return %out : memref<1x256x28x28xf32>
}
