// The channel-major kernel (lib/Conversion/Tiling/ChannelGeneric.cpp) on
// tensors kept in SBUF: an elementwise op between a max pool and a
// convolution reads and writes resident tiles, and a global sum pooling of
// a convolution's result reduces the resident tile into per-channel
// columns (its zero init is not read: the kernel stores the sums; each
// chunk's sum is a reduce with a scratch tile, run by the DVE or the ACT).
// No activation goes through HBM but the results.
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: nki.tensor_tensor "max" {{.*}} into %{{.*}} : memref<16x4x4xf32, strided<[32, 8, 1]>, #nki.memory<sbuf>>, {{.*}} into memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[S:.*]] : memref<16x1xf32, strided<[1, 1], offset: ?>> to memref<16x1xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "relu" %{{.*}} into %{{.*}} scale %[[S]] : memref<16x1xf32, #nki.memory<sbuf>> : memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>> into memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
// CHECK: memref.alloc() {{.*}} : memref<1x16x4x4xf32>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<16x16xf32, #nki.memory<sbuf>>, memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>, %arg1: memref<16x1x1xf32>) -> memref<1x16x4x4xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<1x16x8x8xf32>, memref<16x1x1x16xf32>) outs(%alloc : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x2xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<1x16x4x4xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%alloc, %alloc_1 : memref<1x16x8x8xf32>, memref<2x2xf32>) outs(%alloc_2 : memref<1x16x4x4xf32>)
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_2, %arg1 : memref<1x16x4x4xf32>, memref<16x1x1xf32>) outs(%alloc_3 : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.maximumf %1, %cst_0 : f32
      linalg.yield %2 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_4 : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_3, %0 : memref<1x16x4x4xf32>, memref<16x1x1x16xf32>) outs(%alloc_4 : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    return %alloc_4 : memref<1x16x4x4xf32>
  }
}

// -----

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: nki.alloc : memref<16x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %{{.*}} into %[[V:.*]] s1 %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> {op0 = "max", op1 = "mul"} : memref<16x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>> into memref<16x64xf32, #nki.memory<sbuf>>
// CHECK: nki.reduce "add" %[[V]] into %[[R:[^ ]*]] scratch %{{.*}} :
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.reinterpret_cast
// CHECK-NEXT: nki.dma %[[R]] to %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> to memref<16x1xf32, strided<[1, 1], offset: ?>>
// CHECK-NOT: linalg.fill
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>, %arg1: memref<16x1x1xf32>) -> memref<1x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<1x16x8x8xf32>, memref<16x1x1x16xf32>) outs(%alloc : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.mulf %in, %in_1 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x16xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x16xf32>)
    linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%alloc, %arg1 : memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%alloc_0 : memref<1x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.maximumf %in, %cst : f32
      %2 = arith.mulf %1, %in_1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %alloc_0 : memref<1x16xf32>
  }
}
