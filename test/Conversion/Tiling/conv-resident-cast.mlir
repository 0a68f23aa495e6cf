// A tensor kept in SBUF in f32 (a residual reads it so) that a convolution
// multiplies in bf16 (`--auto-cast=matmul`'s truncf of its input): the
// convolution's band is a bf16 copy of the resident rows, made in pieces of
// about a chunk (512 elements a partition: rows of one image, or whole
// small images), so that each chunk's matmuls wait for the rows they read
// rather than for the whole band (ResNet-50's 1x1 layers after a block).
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s

// 32 x 32 pixels: two pieces of 16 rows, each the input of one chunk.
// CHECK-LABEL: func.func @cast_pieces(
// CHECK: nki.alloc : memref<16x32x32xbf16, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<16x16x32xf32, strided<[1024, 32, 1]>, #nki.memory<sbuf>> into memref<16x16x32xbf16, strided<[1024, 32, 1]>, #nki.memory<sbuf>>
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<16x16x32xf32, strided<[1024, 32, 1], offset: 512>, #nki.memory<sbuf>> into memref<16x16x32xbf16, strided<[1024, 32, 1], offset: 512>, #nki.memory<sbuf>>
// CHECK-NOT: nki.copy
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<16x16xbf16, #nki.memory<sbuf>>, memref<16x16x32xbf16, strided<[1024, 32, 1]>, #nki.memory<sbuf>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<16x16xbf16, #nki.memory<sbuf>>, memref<16x16x32xbf16, strided<[1024, 32, 1], offset: 512>, #nki.memory<sbuf>>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x16xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @cast_pieces(%x: memref<1x8x32x32xf32>, %z: memref<1x16x32x32xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x32x32xf32>, memref<8x1x1x16xf32>) outs(%y : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x32x32xf32>, memref<16x1x1x16xbf16>) outs(%p : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %y : memref<1x16x32x32xf32>, memref<1x16x32x32xf32>) outs(%z : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %re : f32
      linalg.yield %0 : f32
    }
    return
  }
}

// -----

// Two 8 x 8 images, one chunk: their rows are one piece (a copy of 64
// elements an image would pay the engines' fixed cost per image).
// CHECK-LABEL: func.func @small_images(
// CHECK: nki.copy %{{.*}} into %{{.*}} : memref<16x2x8x8xf32, strided<[128, 64, 8, 1]>, #nki.memory<sbuf>> into memref<16x2x8x8xbf16, strided<[128, 64, 8, 1]>, #nki.memory<sbuf>>
// CHECK-NOT: nki.copy
// CHECK: nki.matmul
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x16xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @small_images(%x: memref<2x8x8x8xf32>, %z: memref<2x16x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%y : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<2x16x8x8xf32>, memref<16x1x1x16xbf16>) outs(%p : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %y : memref<2x16x8x8xf32>, memref<2x16x8x8xf32>) outs(%z : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %re : f32
      linalg.yield %0 : f32
    }
    return
  }
}
