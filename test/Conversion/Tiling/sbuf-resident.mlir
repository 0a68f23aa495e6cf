// nki-tile keeps a tensor that convolutions exchange in SBUF
// (lib/Conversion/Tiling/Residents.h): the padded 3x3 convolution's ReLU
// epilogue writes straight into a [16, 1 block, 1 image, 8, 8] SBUF tile
// and the 1x1 convolution's matmul reads it there; its HBM buffer is gone.
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile="sbuf-resident=false pack-bands=false" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = nki.alloc : memref<16x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: %[[OUT:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [16, 1, 1, 8, 8]
// CHECK: nki.tensor_scalar %{{.*}} into %[[OUT]] {op0 = "max"}
// CHECK: %[[IN:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [16, 1, 1, 8, 8]
// CHECK: %[[WIN:.*]] = memref.subview %[[IN]][0, 0, 0] [16, 8, 8]
// CHECK: nki.matmul %{{.*}}, %[[WIN]] into
// CHECK: return
// OFF-LABEL: func.func @main(
// OFF-NOT: nki.alloc : memref<16x1x1x8x8xf32
// OFF: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
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

// A tensor that is also a result stays in HBM: its producer stores it and
// the next convolution loads it.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: nki.alloc : memref<16x1x1x8x8xf32
// CHECK: %[[R:.*]] = memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<16x64xf32, #nki.memory<sbuf>> to memref<16x64xf32
// CHECK: return %{{.*}}, %[[R]]
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @__constant_16x3x3x16xf32 : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_16x1x1x32xf32 : memref<16x1x1x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>) -> (memref<1x32x8x8xf32>, memref<1x16x8x8xf32>) {
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
    return %alloc_2, %alloc_1 : memref<1x32x8x8xf32>, memref<1x16x8x8xf32>
  }
}

// -----

// A result returned through a reshape whose strides match a window of the
// [1, 8, 14, 1] convolution result but whose extents do not ([1, 8, 1, 14]:
// 14 columns of a 1-column tensor) is not a view of a resident tile: the
// tensor stays in HBM and the result is copied from it (found by the
// compile fuzzer, test/fuzz/crashes/compile/).
// CHECK-LABEL: func.func @reshaped_result(
// CHECK-NOT: nki.alloc : memref<8x1x1x14x1xf32
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<1x8x14x1xf32>
// CHECK: nki.dma %{{.*}} to %[[R:.*]] : memref<8x14xf32, #nki.memory<sbuf>>
// CHECK: %[[C:.*]] = memref.collapse_shape %[[Y]]
// CHECK: %[[E:.*]] = memref.expand_shape %[[C]]
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x8x1x14xf32>
// CHECK: memref.reinterpret_cast %[[E]] {{.*}} sizes: [112]
// CHECK: return %[[OUT]]
// OFF-LABEL: func.func @reshaped_result(
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @reshaped_result(%arg0: memref<1x3x16x3xf32>, %arg1: memref<3x3x3x8xf32>) -> memref<1x8x1x14xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x8x14x1xf32>
  linalg.fill ins(%cst : f32) outs(%alloc : memref<1x8x14x1xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x3x16x3xf32>, memref<3x3x3x8xf32>) outs(%alloc : memref<1x8x14x1xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_1 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1], [2, 3]] : memref<1x8x14x1xf32> into memref<8x14xf32>
  %expand_shape = memref.expand_shape %collapse_shape [[0, 1], [2, 3]] output_shape [1, 8, 1, 14] : memref<8x14xf32> into memref<1x8x1x14xf32>
  return %expand_shape : memref<1x8x1x14xf32>
}
