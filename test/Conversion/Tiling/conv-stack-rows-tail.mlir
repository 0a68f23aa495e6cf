// The last group of chunks of a convolution with stacked rows (or packed
// bands) writes each block of its result into the tensor kept in SBUF by
// an engine copy when the block's partitions and the tensor's start where
// an engine may (the start-partition rule), with one image in flight: the
// next kernel then waits for an instruction, not a DMA's completion
// (lib/Conversion/Tiling/Conv.cpp, `store`).
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// Two stacked rows of 32 channels (blocks at partitions 0 and 32), one
// chunk of 32 row pairs, its result read in place by a 1x1 convolution:
// both blocks go by engine copies, none by DMA.
// CHECK-LABEL: func.func @tail(
// CHECK: nki.matmul {{.*}} into memref<64x512xf32, #nki.memory<psum>>
// CHECK: nki.copy %{{.*}} into %[[T:[0-9]+]] : memref<64x512xf32, #nki.memory<psum>> into memref<64x512xf32, #nki.memory<sbuf>>
// CHECK: %[[B0:.*]] = memref.subview %[[T]][0, 0] [32, 512]
// CHECK-NEXT: nki.copy %[[B0]] into %{{.*}} : memref<32x512xf32, strided<[512, 1]>, #nki.memory<sbuf>> into memref<32x16x32xf32, strided<[1024, 64, 1]>, #nki.memory<sbuf>>
// CHECK: %[[B1:.*]] = memref.subview %[[T]][32, 0] [32, 512]
// CHECK-NEXT: nki.copy %[[B1]] into %{{.*}} : memref<32x512xf32, strided<[512, 1], offset: 16384>, #nki.memory<sbuf>> into memref<32x16x32xf32, strided<[1024, 64, 1], offset: 32>, #nki.memory<sbuf>>
// CHECK-NOT: nki.dma {{.*}}#nki.memory<sbuf>> to {{.*}}#nki.memory<sbuf>>
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<32x3x3x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<32x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @tail(%x: memref<1x32x34x34xf32>) -> memref<1x128x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<32x3x3x32xf32>
    %w2 = memref.get_global @w2 : memref<32x1x1x128xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x32x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x32x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<1x32x34x34xf32>, memref<32x3x3x32xf32>) outs(%y : memref<1x32x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<1x128x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<1x128x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x32x32x32xf32>, memref<32x1x1x128xf32>) outs(%z : memref<1x128x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<1x128x32x32xf32>
  }
}

// -----

// Negative: with two images the blocks go by DMA (the next kernel has the
// other image to start on).
// CHECK-LABEL: func.func @images(
// CHECK: nki.matmul {{.*}} into memref<64x512xf32, #nki.memory<psum>>
// CHECK-NOT: nki.copy {{.*}}memref<32x512xf32, strided<[512, 1], offset: 16384>, #nki.memory<sbuf>> into
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<32x512xf32, strided<[512, 1], offset: 16384>, #nki.memory<sbuf>> to memref<32x16x32xf32, strided<[{{[0-9]+}}, 64, 1], offset: {{[0-9]+}}>, #nki.memory<sbuf>>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<32x3x3x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<32x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @images(%x: memref<2x32x34x34xf32>) -> memref<2x128x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<32x3x3x32xf32>
    %w2 = memref.get_global @w2 : memref<32x1x1x128xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x32x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x32x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<2x32x34x34xf32>, memref<32x3x3x32xf32>) outs(%y : memref<2x32x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<2x128x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<2x128x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<2x32x32x32xf32>, memref<32x1x1x128xf32>) outs(%z : memref<2x128x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<2x128x32x32xf32>
  }
}
