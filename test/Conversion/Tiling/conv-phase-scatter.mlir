// A convolution whose result only copies read, each a block of its
// channels into a strided slice of another buffer (UpsampledConv.cpp's
// grouped phases: Match.h's findPhaseScatter): its kernel evacuates each
// block from its PSUM partitions into that slice, and the copies and the
// result go.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Four phases of 6 filters at channels 0, 32, 64 and 96 of one 3x3
// convolution of the 6x6 input: one matmul of [72, 128] (kernel rows and
// columns folded) a chunk, each phase's 6 partitions of the accumulator
// copied into its slice of the result, which stays in SBUF (the skip's
// convolution adds it in its epilogue).
// CHECK-LABEL: func.func @scatter(
// CHECK-NOT: memref<1x128x6x6xf32>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[A:[0-9]+]] : memref<{{[0-9]+}}x128xf32, {{.*}}#nki.memory<sbuf>>, {{.*}} into memref<128x36xf32, #nki.memory<psum>>
// CHECK: %[[B0:.*]] = memref.subview %[[A]][0, 0] [6, 36] [1, 1]
// CHECK: nki.copy %[[B0]] into %{{.*}} : memref<6x36xf32, strided<[36, 1]>, #nki.memory<psum>> into memref<6x6x6xf32, strided<[{{[0-9]+}}, 24, 2]>, #nki.memory<sbuf>>
// CHECK: %[[B1:.*]] = memref.subview %[[A]][32, 0] [6, 36] [1, 1]
// CHECK: nki.copy %[[B1]] into %{{.*}} : memref<6x36xf32, strided<[36, 1], offset: 1152>, #nki.memory<psum>> into memref<6x6x6xf32, strided<[{{[0-9]+}}, 24, 2], offset: 1>, #nki.memory<sbuf>>
// CHECK: %[[B2:.*]] = memref.subview %[[A]][64, 0] [6, 36] [1, 1]
// CHECK: nki.copy %[[B2]] into %{{.*}} : memref<6x36xf32, strided<[36, 1], offset: 2304>, #nki.memory<psum>> into memref<6x6x6xf32, strided<[{{[0-9]+}}, 24, 2], offset: 12>, #nki.memory<sbuf>>
// CHECK: %[[B3:.*]] = memref.subview %[[A]][96, 0] [6, 36] [1, 1]
// CHECK: nki.copy %[[B3]] into %{{.*}} : memref<6x36xf32, strided<[36, 1], offset: 3456>, #nki.memory<psum>> into memref<6x6x6xf32, strided<[{{[0-9]+}}, 24, 2], offset: 13>, #nki.memory<sbuf>>
// CHECK-NOT: memref.copy
// CHECK-NOT: memref<1x128x6x6xf32>
// CHECK: return
module {
  memref.global "private" constant @ws : memref<4x3x3x6xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w128 : memref<8x3x3x128xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @scatter(%x: memref<1x8x6x6xf32>, %s: memref<1x4x12x12xf32>) -> memref<1x6x12x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    %ws = memref.get_global @ws : memref<4x3x3x6xf32>
    %w = memref.get_global @w128 : memref<8x3x3x128xf32>
    %d = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    linalg.fill ins(%cst : f32) outs(%d : memref<1x6x12x12xf32>)
    %t = memref.alloc() {alignment = 64 : i64} : memref<1x128x6x6xf32>
    linalg.fill ins(%cst : f32) outs(%t : memref<1x128x6x6xf32>)
    %xp = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%xp : memref<1x8x8x8xf32>)
    %xi = memref.subview %xp[0, 0, 1, 1] [1, 8, 6, 6] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
    memref.copy %x, %xi : memref<1x8x6x6xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xp, %w : memref<1x8x8x8xf32>, memref<8x3x3x128xf32>) outs(%t : memref<1x128x6x6xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %b0 = memref.subview %t[0, 0, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x128x6x6xf32> to memref<1x6x6x6xf32, strided<[4608, 36, 6, 1]>>
    %p0 = memref.subview %y[0, 0, 0, 0] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2]>>
    memref.copy %b0, %p0 : memref<1x6x6x6xf32, strided<[4608, 36, 6, 1]>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2]>>
    %b1 = memref.subview %t[0, 32, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x128x6x6xf32> to memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 1152>>
    %p1 = memref.subview %y[0, 0, 0, 1] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 1>>
    memref.copy %b1, %p1 : memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 1152>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 1>>
    %b2 = memref.subview %t[0, 64, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x128x6x6xf32> to memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 2304>>
    %p2 = memref.subview %y[0, 0, 1, 0] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 12>>
    memref.copy %b2, %p2 : memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 2304>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 12>>
    %b3 = memref.subview %t[0, 96, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x128x6x6xf32> to memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 3456>>
    %p3 = memref.subview %y[0, 0, 1, 1] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 13>>
    memref.copy %b3, %p3 : memref<1x6x6x6xf32, strided<[4608, 36, 6, 1], offset: 3456>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 13>>
    %sp = memref.alloc() {alignment = 64 : i64} : memref<1x4x14x14xf32>
    linalg.fill ins(%cst : f32) outs(%sp : memref<1x4x14x14xf32>)
    %si = memref.subview %sp[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : memref<1x4x14x14xf32> to memref<1x4x12x12xf32, strided<[784, 196, 14, 1], offset: 15>>
    memref.copy %s, %si : memref<1x4x12x12xf32> to memref<1x4x12x12xf32, strided<[784, 196, 14, 1], offset: 15>>
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%sp, %ws : memref<1x4x14x14xf32>, memref<4x3x3x6xf32>) outs(%d : memref<1x6x12x12xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %d : memref<1x6x12x12xf32>, memref<1x6x12x12xf32>) outs(%r : memref<1x6x12x12xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<1x6x12x12xf32>
  }
}

// -----

#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// Negative: phases at channels 0, 8, 16 and 24, where an engine may not
// start reading 6 partitions: the result is computed and copied as it is.
// CHECK-LABEL: func.func @unaligned(
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<32x36xf32, #nki.memory<psum>> into memref<32x6x6xf32
// CHECK-NOT: #nki.memory<psum>> into memref<6x6x6xf32
// CHECK: return
module {
  memref.global "private" constant @ws : memref<4x3x3x6xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w32 : memref<8x3x3x32xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @unaligned(%x: memref<1x8x6x6xf32>, %s: memref<1x4x12x12xf32>) -> memref<1x6x12x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    %ws = memref.get_global @ws : memref<4x3x3x6xf32>
    %w = memref.get_global @w32 : memref<8x3x3x32xf32>
    %d = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    linalg.fill ins(%cst : f32) outs(%d : memref<1x6x12x12xf32>)
    %t = memref.alloc() {alignment = 64 : i64} : memref<1x32x6x6xf32>
    linalg.fill ins(%cst : f32) outs(%t : memref<1x32x6x6xf32>)
    %xp = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%xp : memref<1x8x8x8xf32>)
    %xi = memref.subview %xp[0, 0, 1, 1] [1, 8, 6, 6] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
    memref.copy %x, %xi : memref<1x8x6x6xf32> to memref<1x8x6x6xf32, strided<[512, 64, 8, 1], offset: 9>>
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%xp, %w : memref<1x8x8x8xf32>, memref<8x3x3x32xf32>) outs(%t : memref<1x32x6x6xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %b0 = memref.subview %t[0, 0, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x32x6x6xf32> to memref<1x6x6x6xf32, strided<[1152, 36, 6, 1]>>
    %p0 = memref.subview %y[0, 0, 0, 0] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2]>>
    memref.copy %b0, %p0 : memref<1x6x6x6xf32, strided<[1152, 36, 6, 1]>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2]>>
    %b1 = memref.subview %t[0, 8, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x32x6x6xf32> to memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 288>>
    %p1 = memref.subview %y[0, 0, 0, 1] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 1>>
    memref.copy %b1, %p1 : memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 288>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 1>>
    %b2 = memref.subview %t[0, 16, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x32x6x6xf32> to memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 576>>
    %p2 = memref.subview %y[0, 0, 1, 0] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 12>>
    memref.copy %b2, %p2 : memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 576>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 12>>
    %b3 = memref.subview %t[0, 24, 0, 0] [1, 6, 6, 6] [1, 1, 1, 1] : memref<1x32x6x6xf32> to memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 864>>
    %p3 = memref.subview %y[0, 0, 1, 1] [1, 6, 6, 6] [1, 1, 2, 2] : memref<1x6x12x12xf32> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 13>>
    memref.copy %b3, %p3 : memref<1x6x6x6xf32, strided<[1152, 36, 6, 1], offset: 864>> to memref<1x6x6x6xf32, strided<[864, 144, 24, 2], offset: 13>>
    %sp = memref.alloc() {alignment = 64 : i64} : memref<1x4x14x14xf32>
    linalg.fill ins(%cst : f32) outs(%sp : memref<1x4x14x14xf32>)
    %si = memref.subview %sp[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : memref<1x4x14x14xf32> to memref<1x4x12x12xf32, strided<[784, 196, 14, 1], offset: 15>>
    memref.copy %s, %si : memref<1x4x12x12xf32> to memref<1x4x12x12xf32, strided<[784, 196, 14, 1], offset: 15>>
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%sp, %ws : memref<1x4x14x14xf32>, memref<4x3x3x6xf32>) outs(%d : memref<1x6x12x12xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x6x12x12xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %d : memref<1x6x12x12xf32>, memref<1x6x12x12xf32>) outs(%r : memref<1x6x12x12xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<1x6x12x12xf32>
  }
}
