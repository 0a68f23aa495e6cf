// Small images (lib/Conversion/Tiling/Conv.cpp, imageGroup and
// chunkImages): when a band holds a whole image and the image has fewer
// chunks than a group (four), the chunks of several images form one group
// and share each tap's stationary operand; when a chunk is a whole image,
// one chunk holds as many images as a PSUM bank's 512 columns take, its
// input bands one [C, images, H, W] tile, and each image is evacuated from
// its columns of the accumulator (several at once when only the ACT can
// compute the epilogue, or when the images have at most 48 pixels,
// kFewPixels).
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s

// Six 4x4 images of a 1x1 convolution: one matmul of 96 columns over the
// six images' bands, one evacuation of them all (16 pixels an image: an
// engine instruction's 64-element minimum would be mostly empty) and one
// DMA out.
// CHECK-LABEL: func.func @whole_images(
// CHECK: %[[W:.*]] = nki.alloc : memref<16x8xf32, #nki.memory<sbuf>>
// CHECK: %[[X:.*]] = nki.alloc : memref<16x6x4x4xf32, #nki.memory<sbuf>>
// CHECK-COUNT-6: nki.dma %{{.*}} to %{{.*}} : memref<16x4x4xf32, strided<[16, 4, 1], offset: ?>> to memref<16x4x4xf32, strided<[96, 4, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: %[[ACC:.*]] = nki.alloc : memref<8x96xf32, #nki.memory<psum>>
// CHECK: %[[V:.*]] = memref.subview %[[X]][0, 0, 0, 0] [16, 6, 4, 4] [1, 1, 1, 1]
// CHECK: nki.matmul %[[W]], %[[V]] into %[[ACC]] : memref<16x8xf32, #nki.memory<sbuf>>, memref<16x6x4x4xf32, strided<[96, 16, 4, 1]>, #nki.memory<sbuf>> into memref<8x96xf32, #nki.memory<psum>>
// CHECK-NOT: nki.matmul
// CHECK: nki.copy %[[ACC]] into %[[T:.*]] : memref<8x96xf32, #nki.memory<psum>> into memref<8x96xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.copy
// CHECK: nki.dma %[[T]] to %{{.*}} : memref<8x96xf32, #nki.memory<sbuf>> to memref<8x6x16xf32, strided<[16, 128, 1], offset: ?>>
// CHECK-NOT: nki.dma
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @whole_images(%x: memref<6x16x4x4xf32>) -> memref<6x8x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<16x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<6x8x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<6x8x4x4xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<6x16x4x4xf32>, memref<16x1x1x8xf32>) outs(%y : memref<6x8x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %o: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<6x8x4x4xf32>
  }
}

// -----

// Three 24x24 images: two chunks each (21 and 3 rows of a bank's 512
// columns), so two images' four chunks share the filter, then the third
// image's two.
// CHECK-LABEL: func.func @two_chunks(
// CHECK: nki.matmul {{.*}} into %{{.*}} : memref<16x8xf32, #nki.memory<sbuf>>, memref<16x21x24xf32
// CHECK-NOT: nki.copy
// CHECK: nki.matmul {{.*}} memref<16x3x24xf32
// CHECK-NOT: nki.copy
// CHECK: nki.matmul {{.*}} memref<16x21x24xf32
// CHECK-NOT: nki.copy
// CHECK: nki.matmul {{.*}} memref<16x3x24xf32
// CHECK-COUNT-4: nki.copy %{{.*}} : memref<8x{{504|72}}xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} memref<16x21x24xf32
// CHECK-NOT: nki.copy
// CHECK: nki.matmul {{.*}} memref<16x3x24xf32
// CHECK-COUNT-2: nki.copy %{{.*}} : memref<8x{{504|72}}xf32, #nki.memory<psum>>
// CHECK-NOT: nki.matmul
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @two_chunks(%x: memref<3x16x24x24xf32>) -> memref<3x8x24x24xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<16x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<3x8x24x24xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<3x8x24x24xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<3x16x24x24xf32>, memref<16x1x1x8xf32>) outs(%y : memref<3x8x24x24xf32>) {
    ^bb0(%in: f32, %in_3: f32, %o: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<3x8x24x24xf32>
  }
}

// -----

// The same with a SiLU after the convolution, a function only the ACT
// computes: the six images are evacuated at once (at least 256 columns an
// instruction, kEvacuationColumns), each step of the SiLU over [8, 96]
// (one ACT silu once scheduled) and one DMA of [8, 6, 16] out, instead of
// six of each.
// CHECK-LABEL: func.func @whole_images_silu(
// CHECK: nki.matmul {{.*}} into %[[ACC:.*]] : memref<16x8xf32, #nki.memory<sbuf>>, memref<16x6x4x4xf32, strided<[96, 16, 4, 1]>, #nki.memory<sbuf>> into memref<8x96xf32, #nki.memory<psum>>
// CHECK: nki.activation "exp" %[[ACC]] into %{{.*}} : memref<8x96xf32, #nki.memory<psum>> into memref<8x96xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "div" %[[ACC]], %{{.*}} : memref<8x96xf32, #nki.memory<psum>>, memref<8x96xf32, #nki.memory<sbuf>> into memref<8x96xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.activation
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<8x96xf32, #nki.memory<sbuf>> to memref<8x6x16xf32, strided<[16, 128, 1], offset: ?>>
// CHECK-NOT: nki.dma
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @whole_images_silu(%x: memref<6x16x4x4xf32>) -> memref<6x8x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %w = memref.get_global @w : memref<16x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<6x8x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<6x8x4x4xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<6x16x4x4xf32>, memref<16x1x1x8xf32>) outs(%y : memref<6x8x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %o: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<6x8x4x4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<6x8x4x4xf32>) outs(%z : memref<6x8x4x4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %n = arith.negf %v : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %one : f32
      %s = arith.divf %v, %d : f32
      linalg.yield %s : f32
    }
    return %z : memref<6x8x4x4xf32>
  }
}
