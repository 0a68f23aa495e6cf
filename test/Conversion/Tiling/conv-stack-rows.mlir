// nki-tile stacks output rows of a stride-1 fp32 convolution with few
// channels and filters on the partitions (lib/Conversion/Tiling/Conv.cpp,
// `stack`): for 4 stacked rows of a 3x3 kernel, partition group i of the
// input tile holds input rows 4 q + i (i < 6) of the 16 channels, and the
// filter of each kernel column is banded, w[c, i - j, kw, f] at row
// i * 16 + c and column j * 16 + f; so 3 matmuls of [96, 64] compute four
// output rows of every pixel column, 0.75 matmul columns an output pixel
// against 1.125 for eight packed bands of nine taps (conv-bands.mlir).
// RUN: nki-opt %s --nki-tile | FileCheck %s
// RUN: nki-opt %s --nki-tile=stack-rows=false | FileCheck %s --check-prefix=OFF

// The banded filter: zeros, then one DMA per output row j and kernel row
// kh of every kernel column (12), each to partitions (j + kh) * 16 and
// column j * 16 of each kernel column's [64] block. The input: the padded
// rows 4 q + i of both groups q, one DMA per partition group (the rows a
// stack apart in HBM); the result's block j (partitions 16 j..) is output
// rows 4 q + j, stored with a row step of 4.
// CHECK-LABEL: func.func @main(
// CHECK: %[[W:.*]] = nki.alloc : memref<96x192xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %[[W]], 0.000000e+00
// CHECK-COUNT-12: nki.dma %{{.*}} to %{{.*}} : memref<16x3x16xf32, strided<[144, 16, 1], offset: ?>> to memref<16x3x16xf32, strided<[192, 64, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: nki.alloc : memref<96x2x10xf32, #nki.memory<sbuf>>
// CHECK-COUNT-6: nki.dma %{{.*}} to %{{.*}} : memref<16x2x10xf32, strided<[100, 40, 1], offset: ?>> to memref<16x2x10xf32, strided<[20, 10, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<96x64xf32, strided<[192, 1]{{.*}}>, #nki.memory<sbuf>>, memref<96x2x8xf32, strided<[20, 10, 1]{{.*}}>, #nki.memory<sbuf>> into memref<64x16xf32, #nki.memory<psum>>
// CHECK-NOT: nki.matmul
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x16xf32, strided<[16, 1]{{.*}}>, #nki.memory<sbuf>> to memref<16x2x8xf32, strided<[64, 32, 1], offset: ?>>
// OFF-LABEL: func.func @main(
// OFF-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xf32
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
