// A 1x1 convolution that alone reads a convolution's result, one image
// (a segmentation head: Match.h's findChainedConv): the convolution's
// kernel computes it from each chunk it evacuates.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile=chain-convs=false | FileCheck %s --check-prefix=OFF

// A 3x3 convolution's result (bias + ReLU) read only by a 1x1 convolution
// to 2 classes (bias), one image: the 3x3's kernel multiplies each chunk
// it evacuates by the 1x1's filter, one copy per block of its 8 stacked
// rows (block-diagonal [128, 16], zero elsewhere, loaded once), and
// evacuates that with the 1x1's bias (a column per block, loaded once),
// storing each block's 2 rows of classes. The 16-channel result is never
// stored and the 1x1 has no kernel of its own.
// CHECK-LABEL: func.func @head(
// CHECK: %[[F:[0-9]+]] = nki.alloc : memref<128x16xf32, #nki.memory<sbuf>>
// CHECK-NEXT: nki.memset %[[F]], 0.000000e+00
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x2xf32, strided<[2, 1], offset: ?>> to memref<16x2xf32, strided<[16, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: nki.activation "relu" %{{.*}} into %[[Y:[0-9]+]] bias
// CHECK-NEXT: %[[P:[0-9]+]] = nki.alloc : memref<16x128xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.matmul %[[F]], %[[Y]] into %[[P]] : memref<128x16xf32, #nki.memory<sbuf>>, memref<128x128xf32, #nki.memory<sbuf>> into memref<16x128xf32, #nki.memory<psum>>
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<2x1xf32, strided<[1, 1], offset: ?>> to memref<2x1xf32
// CHECK: nki.tensor_scalar %[[P]] into %[[R:[0-9]+]] s0 %{{.*}} {op0 = "add"}
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<2x128xf32, strided<[128, 1]{{.*}}>, #nki.memory<sbuf>> to memref<2x4x32xf32, strided<[1024, 256, 1], offset: ?>>
// CHECK-NOT: nki.matmul
// CHECK-NOT: memref<16x4x32xf32
// CHECK: return
// Without chaining, the result goes into the 1x1's band tiles by DMA and
// the 1x1 multiplies those.
// OFF-LABEL: func.func @head(
// OFF: nki.activation "relu" %{{.*}} into %[[Y:[0-9]+]] bias
// OFF-NOT: nki.matmul %{{[0-9]+}}, %[[Y]]
// OFF: nki.dma %{{.*}} to %{{.*}} : memref<16x128xf32, strided<[128, 1]>, #nki.memory<sbuf>> to memref<16x4x32xf32
// OFF: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x16xf32, #nki.memory<sbuf>>, memref<128x4x32xf32
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x3x3x16xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x2xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b2 : memref<2x1x1xf32> = dense<3.000000e+00> {alignment = 64 : i64}
  func.func @head(%x: memref<1x8x34x34xf32>) -> memref<1x2x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x3x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x2xf32>
    %b2 = memref.get_global @b2 : memref<2x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x34x34xf32>, memref<8x3x3x16xf32>) outs(%p : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x32x32xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%q : memref<1x2x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x32x32xf32>, memref<16x1x1x2xf32>) outs(%q : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %b2 : memref<1x2x32x32xf32>, memref<2x1x1xf32>) outs(%r : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<1x2x32x32xf32>
  }
}

// -----

// Two images: the 1x1 keeps its own kernel (it overlaps the next images'
// work there, and packs more bands than the chunks have blocks).
// CHECK-LABEL: func.func @two_images(
// CHECK-NOT: nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x16xf32, #nki.memory<sbuf>>, memref<128x4x32xf32
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x3x3x16xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x2xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b2 : memref<2x1x1xf32> = dense<3.000000e+00> {alignment = 64 : i64}
  func.func @two_images(%x: memref<2x8x34x34xf32>) -> memref<2x2x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x3x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x2xf32>
    %b2 = memref.get_global @b2 : memref<2x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x34x34xf32>, memref<8x3x3x16xf32>) outs(%p : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<2x16x32x32xf32>, memref<16x1x1xf32>) outs(%y : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    %q = memref.alloc() {alignment = 64 : i64} : memref<2x2x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%q : memref<2x2x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<2x16x32x32xf32>, memref<16x1x1x2xf32>) outs(%q : memref<2x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<2x2x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %b2 : memref<2x2x32x32xf32>, memref<2x1x1xf32>) outs(%r : memref<2x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<2x2x32x32xf32>
  }
}

// -----

// The 16-channel result is also a result of the function: not chained.
// CHECK-LABEL: func.func @read_twice(
// CHECK-NOT: nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x3x3x16xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x2xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b2 : memref<2x1x1xf32> = dense<3.000000e+00> {alignment = 64 : i64}
  func.func @read_twice(%x: memref<1x8x34x34xf32>) -> (memref<1x2x32x32xf32>, memref<1x16x32x32xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x3x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x2xf32>
    %b2 = memref.get_global @b2 : memref<2x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x34x34xf32>, memref<8x3x3x16xf32>) outs(%p : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x32x32xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%q : memref<1x2x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x32x32xf32>, memref<16x1x1x2xf32>) outs(%q : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %b2 : memref<1x2x32x32xf32>, memref<2x1x1xf32>) outs(%r : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r, %y : memref<1x2x32x32xf32>, memref<1x16x32x32xf32>
  }
}

// -----

// The 1x1's epilogue adds a tensor pixel by pixel: not chained (the
// kernel reads a chained epilogue's operands per channel).
// CHECK-LABEL: func.func @residual(
// CHECK-NOT: nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x3x3x16xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x2xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b2 : memref<2x1x1xf32> = dense<3.000000e+00> {alignment = 64 : i64}
  func.func @residual(%x: memref<1x8x34x34xf32>, %z: memref<1x2x32x32xf32>) -> memref<1x2x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x3x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x2xf32>
    %b2 = memref.get_global @b2 : memref<2x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x34x34xf32>, memref<8x3x3x16xf32>) outs(%p : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x32x32xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%q : memref<1x2x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x32x32xf32>, memref<16x1x1x2xf32>) outs(%q : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x2x32x32xf32>
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %z : memref<1x2x32x32xf32>, memref<1x2x32x32xf32>) outs(%r : memref<1x2x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<1x2x32x32xf32>
  }
}

// -----

// A 1x1 to more filters than the result has channels: not chained (its
// block-diagonal filter would not fit the partitions of the blocks).
// CHECK-LABEL: func.func @wider(
// CHECK-NOT: nki.matmul %{{[0-9]+}}, %{{[0-9]+}} into
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x3x3x16xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x32xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b2 : memref<32x1x1xf32> = dense<3.000000e+00> {alignment = 64 : i64}
  func.func @wider(%x: memref<1x8x34x34xf32>) -> memref<1x32x32x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x3x3x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x32xf32>
    %b2 = memref.get_global @b2 : memref<32x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x34x34xf32>, memref<8x3x3x16xf32>) outs(%p : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x32x32xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    %q = memref.alloc() {alignment = 64 : i64} : memref<1x32x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%q : memref<1x32x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x32x32xf32>, memref<16x1x1x32xf32>) outs(%q : memref<1x32x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x32x32x32xf32>
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %b2 : memref<1x32x32x32xf32>, memref<32x1x1xf32>) outs(%r : memref<1x32x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    }
    return %r : memref<1x32x32x32xf32>
  }
}
