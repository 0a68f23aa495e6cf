// A convolution's in-place ReLU6 clamps (conv-clamp.mlir) are joined into
// one instruction per group of chunks when the kernel has several images
// (ConvEpilogue.cpp's joinClamps): over the consecutive rows of one image (four
// chunks of 8 rows of a 64x64 image) and over whole images (four 8x8
// images of one chunk, evacuated one by one), after the last evacuation
// each covers. With one image, the next kernel would wait for the joined
// clamp: each chunk keeps its own.
// (1x1 convolutions after them keep their own kernels, so that the results
// are stored: chained, they would read each chunk where it is.)
// RUN: nki-opt %s --split-input-file --nki-tile=chain-convs=false | FileCheck %s
// CHECK-LABEL: func.func @relu6_rows(
// CHECK-COUNT-4: nki.activation "identity" {{.*}} into memref<128x8x64xf32
// CHECK-NOT: nki.activation
// CHECK: nki.tensor_scalar %[[V:[^ ]*]] into %[[V]] {imm1 = 6.000000e+00 : f32, op0 = "max", op1 = "min"} : memref<128x32x64xf32, strided<[8192, 64, 1]>, #nki.memory<sbuf>>
// CHECK-COUNT-4: nki.activation "identity" {{.*}} into memref<128x8x64xf32
// CHECK-NOT: nki.activation
// CHECK: nki.tensor_scalar %[[V:[^ ]*]] into %[[V]] {{.*}} : memref<128x32x64xf32, strided<[8192, 64, 1], offset: 2048>, #nki.memory<sbuf>>
// CHECK-LABEL: func.func @relu6_images(
// CHECK-COUNT-4: nki.activation "identity" {{.*}} into memref<128x8x8xf32
// CHECK-NOT: nki.activation
// CHECK: nki.tensor_scalar %[[W:[^ ]*]] into %[[W]] {imm1 = 6.000000e+00 : f32, op0 = "max", op1 = "min"} : memref<128x4x8x8xf32, strided<[256, 64, 8, 1]>, #nki.memory<sbuf>>
// CHECK-NOT: nki.tensor_scalar
// CHECK-LABEL: func.func @relu6_one_image(
// CHECK: nki.activation "identity" {{.*}} into %[[A:[^ ]*]] {{.*}} into memref<128x16x32xf32, strided<[1024, 32, 1]>, #nki.memory<sbuf>>
// CHECK-NEXT: nki.tensor_scalar %[[A]] into %[[A]]
// CHECK: nki.activation "identity" {{.*}} into %[[B:[^ ]*]] {{.*}} offset: 512>, #nki.memory<sbuf>>
// CHECK-NEXT: nki.tensor_scalar %[[B]] into %[[B]]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<128x1x1x4xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @s : memref<128x1x1xf32> = dense<1.500000e+00> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<128x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @relu6_rows(%x: memref<2x8x64x64xf32>) -> memref<2x4x64x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %six = arith.constant 6.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x128xf32>
    %w2 = memref.get_global @w2 : memref<128x1x1x4xf32>
    %s = memref.get_global @s : memref<128x1x1xf32>
    %b = memref.get_global @b : memref<128x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x64x64xf32>, memref<8x1x1x128xf32>) outs(%p : memref<2x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x128x64x64xf32>
    linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %s, %b : memref<2x128x64x64xf32>, memref<128x1x1xf32>, memref<128x1x1xf32>) outs(%y : memref<2x128x64x64xf32>) {
    ^bb0(%in: f32, %sc: f32, %bi: f32, %o: f32):
      %0 = arith.mulf %in, %sc : f32
      %1 = arith.addf %0, %bi : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.minimumf %2, %six : f32
      linalg.yield %3 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<2x4x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<2x4x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<2x128x64x64xf32>, memref<128x1x1x4xf32>) outs(%z : memref<2x4x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<2x4x64x64xf32>
  }
}

// -----
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<128x1x1x4xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @s : memref<128x1x1xf32> = dense<1.500000e+00> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<128x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @relu6_images(%x: memref<4x8x8x8xf32>) -> memref<4x4x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %six = arith.constant 6.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x128xf32>
    %w2 = memref.get_global @w2 : memref<128x1x1x4xf32>
    %s = memref.get_global @s : memref<128x1x1xf32>
    %b = memref.get_global @b : memref<128x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<4x128x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<4x128x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<4x8x8x8xf32>, memref<8x1x1x128xf32>) outs(%p : memref<4x128x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<4x128x8x8xf32>
    linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %s, %b : memref<4x128x8x8xf32>, memref<128x1x1xf32>, memref<128x1x1xf32>) outs(%y : memref<4x128x8x8xf32>) {
    ^bb0(%in: f32, %sc: f32, %bi: f32, %o: f32):
      %0 = arith.mulf %in, %sc : f32
      %1 = arith.addf %0, %bi : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.minimumf %2, %six : f32
      linalg.yield %3 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<4x4x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<4x4x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<4x128x8x8xf32>, memref<128x1x1x4xf32>) outs(%z : memref<4x4x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<4x4x8x8xf32>
  }
}

// -----
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<128x1x1x4xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @s : memref<128x1x1xf32> = dense<1.500000e+00> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<128x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @relu6_one_image(%x: memref<1x8x32x32xf32>) -> memref<1x4x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %six = arith.constant 6.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x128xf32>
    %w2 = memref.get_global @w2 : memref<128x1x1x4xf32>
    %s = memref.get_global @s : memref<128x1x1xf32>
    %b = memref.get_global @b : memref<128x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x32x32xf32>, memref<8x1x1x128xf32>) outs(%p : memref<1x128x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x128x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %s, %b : memref<1x128x32x32xf32>, memref<128x1x1xf32>, memref<128x1x1xf32>) outs(%y : memref<1x128x32x32xf32>) {
    ^bb0(%in: f32, %sc: f32, %bi: f32, %o: f32):
      %0 = arith.mulf %in, %sc : f32
      %1 = arith.addf %0, %bi : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.minimumf %2, %six : f32
      linalg.yield %3 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<1x4x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<1x4x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x128x32x32xf32>, memref<128x1x1x4xf32>) outs(%z : memref<1x4x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<1x4x32x32xf32>
  }
}
