// A convolution whose result has one row ([N, C, 1, W], the (3, 1)
// convolution that ends a text recogniser's CNN): an epilogue operand that
// the importer indexes by the row dim too ([C, H, 1] read as (c, h, 0))
// is still one value a channel, a [P, 1] column (ConvKernel.h's
// perChannel), not a [P, W] tile loaded by a DMA that repeats each element
// (a one-element descriptor each).
// RUN: nki-opt %s --nki-tile | FileCheck %s
// CHECK-LABEL: func.func @unit_row
// CHECK: nki.dma %{{.*}} to %[[COL:[^ ]*]] : memref<16x1xf32, strided<[1, 1], offset: ?>> to memref<16x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: strided<[1, 0]
// CHECK: nki.activation "relu" %{{[^ ]*}} into %{{[^ ]*}} bias %[[COL]] : memref<16x1xf32, #nki.memory<sbuf>> : memref<16x80xf32, #nki.memory<psum>>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chrow = affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>
module {
  memref.global "private" constant @w : memref<8x3x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @unit_row(%x: memref<2x8x3x80xf32>) -> memref<2x16x1x80xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x1x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x1x80xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x1x80xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x3x80xf32>, memref<8x3x1x16xf32>) outs(%p : memref<2x16x1x80xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x1x80xf32>
    linalg.generic {indexing_maps = [#id, #chrow, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<2x16x1x80xf32>, memref<16x1x1xf32>) outs(%y : memref<2x16x1x80xf32>) {
    ^bb0(%in: f32, %bi: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    return %y : memref<2x16x1x80xf32>
  }
}
