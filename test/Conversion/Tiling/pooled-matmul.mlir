// A classifier's matmul reading a global pooling's [N, C] result
// (Match.h findPooledMatmulInput): the pooled tensor stays in SBUF with its
// channels on the partitions, which is A^T, the matmul's stationary
// operand, one view per block of 128 channels; no HBM round trip and no PE
// transposes. A cast to the matmul's input type in between (auto-cast) is
// absorbed: the tensor is kept in bf16 (the pooling's result rounded as
// the cast would) and the cast's buffer goes away.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// CHECK-LABEL: func.func @f32(
// CHECK: %[[T:.*]] = nki.alloc : memref<128x2x1x1x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x256xf32>
// CHECK-COUNT-2: nki.copy %{{.*}} into %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> into memref<128x1x1xf32, strided<[2, 1, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.transpose
// CHECK: %[[A0:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [128, 1, 1, 1, 1] [1, 1, 1, 1, 1] : memref<128x2x1x1x1xf32, #nki.memory<sbuf>> to memref<128x1xf32, strided<[2, 1]>, #nki.memory<sbuf>>
// CHECK: %[[A1:.*]] = memref.subview %[[T]][0, 1, 0, 0, 0] [128, 1, 1, 1, 1]
// CHECK: nki.matmul %[[A0]], %{{.*}} into %[[ACC:[^ ]*]] :
// CHECK: nki.matmul %[[A1]], %{{.*}} into %[[ACC]] accumulate
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
module {
  memref.global "private" constant @w : memref<256x10xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @f32(%arg0: memref<1x256x4x4xf32>) -> memref<1x10xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_16 = arith.constant 1.600000e+01 : f32
    %0 = memref.get_global @w : memref<256x10xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1x256xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : memref<1x256x4x4xf32>) outs(%alloc : memref<1x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.divf %in, %cst_16 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x10xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x10xf32>)
    linalg.matmul ins(%alloc, %0 : memref<1x256xf32>, memref<256x10xf32>) outs(%alloc_0 : memref<1x10xf32>)
    return %alloc_0 : memref<1x10xf32>
  }
}

// -----

// CHECK-LABEL: func.func @cast(
// CHECK: %[[T:.*]] = nki.alloc : memref<128x2x1x1x1xbf16, #nki.memory<sbuf>>
// CHECK-NOT: memref<1x256xbf16>
// CHECK-COUNT-2: nki.copy %{{.*}} into %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> into memref<128x1x1xbf16, strided<[2, 1, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.transpose
// CHECK: %[[A0:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [128, 1, 1, 1, 1] [1, 1, 1, 1, 1] : memref<128x2x1x1x1xbf16, #nki.memory<sbuf>> to memref<128x1xbf16, strided<[2, 1]>, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[A0]], %{{.*}} into %{{.*}} : memref<128x1xbf16, strided<[2, 1]>, #nki.memory<sbuf>>, memref<128x10xbf16, #nki.memory<sbuf>>
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
module {
  memref.global "private" constant @w : memref<256x10xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @cast(%arg0: memref<1x256x4x4xf32>) -> memref<1x10xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @w : memref<256x10xbf16>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1x256xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : memref<1x256x4x4xf32>) outs(%alloc : memref<1x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.addf %out, %in : f32
      linalg.yield %1 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x256xbf16>
    linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%alloc : memref<1x256xf32>) outs(%alloc_1 : memref<1x256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %1 = arith.truncf %in : f32 to bf16
      linalg.yield %1 : bf16
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x10xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x10xf32>)
    linalg.matmul ins(%alloc_1, %0 : memref<1x256xbf16>, memref<256x10xbf16>) outs(%alloc_0 : memref<1x10xf32>)
    return %alloc_0 : memref<1x10xf32>
  }
}

// -----

// The pooled tensor is also a result: it stays in HBM. The matmul still
// absorbs the cast: it loads the f32 rows, transposes them on the PE and
// rounds the transposed blocks to bf16.
// CHECK-LABEL: func.func @returned(
// CHECK-NOT: nki.alloc : memref<128x2x1x1x1x
// CHECK: nki.transpose %{{.*}} into %[[PT:[^ ]*]] : memref<1x128xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<psum>>
// CHECK: nki.copy %[[PT]] into %[[A:[^ ]*]] :
// CHECK: nki.copy %[[A]] into %[[R:[^ ]*]] : memref<128x1xf32, #nki.memory<sbuf>> into memref<128x1xbf16, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[R]], %{{.*}} into
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
module {
  memref.global "private" constant @w : memref<256x10xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @returned(%arg0: memref<1x256x4x4xf32>) -> (memref<1x10xf32>, memref<1x256xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @w : memref<256x10xbf16>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1x256xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : memref<1x256x4x4xf32>) outs(%alloc : memref<1x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.addf %out, %in : f32
      linalg.yield %1 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1x256xbf16>
    linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%alloc : memref<1x256xf32>) outs(%alloc_1 : memref<1x256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %1 = arith.truncf %in : f32 to bf16
      linalg.yield %1 : bf16
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x10xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x10xf32>)
    linalg.matmul ins(%alloc_1, %0 : memref<1x256xbf16>, memref<256x10xbf16>) outs(%alloc_0 : memref<1x10xf32>)
    return %alloc_0, %alloc : memref<1x10xf32>, memref<1x256xf32>
  }
}
