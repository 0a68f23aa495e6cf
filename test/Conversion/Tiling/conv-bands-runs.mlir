// chooseBands' terms for a packed convolution's result written band by
// band into a tensor kept in SBUF (Conv.cpp): with several images a 3x3
// layer's DMAs run beside the next image's matmuls and are not charged (a
// 1x1 layer's matmuls are too short to hide them); with one
// image each row is charged as a DMA descriptor of at least 512 bytes
// (which stands for the transfers' latency the layer then waits on). Both
// weigh the PSUM evacuation bands save (an instruction a bank for all of
// them). A 64-channel 3x3 bf16 layer between two 1x1 layers (a ResNet-50
// bottleneck's conv2 under auto-cast): at 56 x 56 two images and one image
// pack two bands (the block-diagonal [128, 128] filter; ResNet-50 under
// auto-cast at batch 1 229.6 us, 241.6 with one band); at 14 x 14 one
// image keeps one band, its 28-byte rows each charged 512.
// RUN: nki-opt %s -split-input-file --nki-tile=chain-convs=false | FileCheck %s

// CHECK-LABEL: func.func @two_images(
// CHECK-COUNT-72: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xbf16, strided<[1152, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<64x64xbf16, strided<[576, 1]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<64x1x1x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w : memref<64x3x3x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<64x1x1x16xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @two_images(%x: memref<2x64x56x56xbf16>, %z: memref<2x16x56x56xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<64x1x1x64xbf16>
    %w = memref.get_global @w : memref<64x3x3x64xbf16>
    %w2 = memref.get_global @w2 : memref<64x1x1x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x64x56x56xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x64x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<2x64x56x56xbf16>, memref<64x1x1x64xbf16>) outs(%y : memref<2x64x56x56xf32>) {
    ^bb0(%in: bf16, %in_1: bf16, %o: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_1 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x64x58x58xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x64x58x58xf32>)
    %sv = memref.subview %p[0, 0, 1, 1] [2, 64, 56, 56] [1, 1, 1, 1] : memref<2x64x58x58xf32> to memref<2x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
    memref.copy %y, %sv : memref<2x64x56x56xf32> to memref<2x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
    %u = memref.alloc() {alignment = 64 : i64} : memref<2x64x56x56xf32>
    linalg.fill ins(%cst : f32) outs(%u : memref<2x64x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<2x64x58x58xf32>, memref<64x3x3x64xbf16>) outs(%u : memref<2x64x56x56xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    linalg.fill ins(%cst : f32) outs(%z : memref<2x16x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%u, %w2 : memref<2x64x56x56xf32>, memref<64x1x1x16xbf16>) outs(%z : memref<2x16x56x56xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @one_image(
// CHECK-COUNT-36: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xbf16, strided<[1152, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<64x64xbf16, strided<[576, 1]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<64x1x1x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w : memref<64x3x3x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<64x1x1x16xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @one_image(%x: memref<1x64x56x56xbf16>, %z: memref<1x16x56x56xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<64x1x1x64xbf16>
    %w = memref.get_global @w : memref<64x3x3x64xbf16>
    %w2 = memref.get_global @w2 : memref<64x1x1x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x56x56xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<1x64x56x56xbf16>, memref<64x1x1x64xbf16>) outs(%y : memref<1x64x56x56xf32>) {
    ^bb0(%in: bf16, %in_1: bf16, %o: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_1 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x64x58x58xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x64x58x58xf32>)
    %sv = memref.subview %p[0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1] : memref<1x64x58x58xf32> to memref<1x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
    memref.copy %y, %sv : memref<1x64x56x56xf32> to memref<1x64x56x56xf32, strided<[215296, 3364, 58, 1], offset: 59>>
    %u = memref.alloc() {alignment = 64 : i64} : memref<1x64x56x56xf32>
    linalg.fill ins(%cst : f32) outs(%u : memref<1x64x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<1x64x58x58xf32>, memref<64x3x3x64xbf16>) outs(%u : memref<1x64x56x56xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    linalg.fill ins(%cst : f32) outs(%z : memref<1x16x56x56xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%u, %w2 : memref<1x64x56x56xf32>, memref<64x1x1x16xbf16>) outs(%z : memref<1x16x56x56xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @short_rows(
// CHECK-NOT: memref<128x128xbf16
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<64x64xbf16, strided<[576, 1]
// CHECK-NOT: memref<128x128xbf16
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w1 : memref<64x1x1x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w : memref<64x3x3x64xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<64x1x1x16xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @short_rows(%x: memref<1x64x14x14xbf16>, %z: memref<1x16x14x14xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w1 = memref.get_global @w1 : memref<64x1x1x64xbf16>
    %w = memref.get_global @w : memref<64x3x3x64xbf16>
    %w2 = memref.get_global @w2 : memref<64x1x1x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x14x14xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x14x14xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<1x64x14x14xbf16>, memref<64x1x1x64xbf16>) outs(%y : memref<1x64x14x14xf32>) {
    ^bb0(%in: bf16, %in_1: bf16, %o: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_1 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x64x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x64x16x16xf32>)
    %sv = memref.subview %p[0, 0, 1, 1] [1, 64, 14, 14] [1, 1, 1, 1] : memref<1x64x16x16xf32> to memref<1x64x14x14xf32, strided<[16384, 256, 16, 1], offset: 17>>
    memref.copy %y, %sv : memref<1x64x14x14xf32> to memref<1x64x14x14xf32, strided<[16384, 256, 16, 1], offset: 17>>
    %u = memref.alloc() {alignment = 64 : i64} : memref<1x64x14x14xf32>
    linalg.fill ins(%cst : f32) outs(%u : memref<1x64x14x14xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<1x64x16x16xf32>, memref<64x3x3x64xbf16>) outs(%u : memref<1x64x14x14xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    linalg.fill ins(%cst : f32) outs(%z : memref<1x16x14x14xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%u, %w2 : memref<1x64x14x14xf32>, memref<64x1x1x16xbf16>) outs(%z : memref<1x16x14x14xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %0 = arith.truncf %in : f32 to bf16
      %1 = arith.extf %0 : bf16 to f32
      %2 = arith.extf %in_1 : bf16 to f32
      %3 = arith.mulf %1, %2 : f32
      %4 = arith.addf %o, %3 : f32
      linalg.yield %4 : f32
    }
    return
  }
}
