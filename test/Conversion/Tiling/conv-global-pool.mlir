// A global average (or sum) pooling of convolutions' results is computed
// by the convolutions' kernels as they evacuate (Match.h's
// findFusedGlobalPools, ConvEpilogue.cpp's sumForPool): each chunk's sum per
// partition comes from the accumulator of the ACT pass that computes the
// chunk, into a column of its image's sums; after the image's last chunk
// the columns are summed into the image's column of the block's [C, N]
// sums, and after the last image the mean's 1 / (H * W) is applied once
// to them all and the result stored. The pooling's own pass over the
// tensor is gone.
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s --check-prefix=PACKED
// RUN: nki-opt %s -split-input-file --nki-tile=fuse-pools=false | FileCheck %s --check-prefix=OFF

// One band: 1,024 pixels an image in two chunks of 512, whose tanh passes
// sum into the two columns of the image's [16, 2] sums, reduced into the
// image's column of the [16, 2] sums of both images; one division and one
// store for the two.
// CHECK-LABEL: func.func @mean(
// CHECK: %[[S:.*]] = nki.alloc : memref<16x2xf32, #nki.memory<sbuf>>
// CHECK: %[[S0:.*]] = memref.subview %[[S]][0, 0] [16, 1]
// CHECK: nki.activation "tanh" %{{.*}} into %{{.*}} accum %[[S0]]
// CHECK: %[[S1:.*]] = memref.subview %[[S]][0, 1] [16, 1]
// CHECK: nki.activation "tanh" %{{.*}} into %{{.*}} accum %[[S1]]
// CHECK: %[[ALL:.*]] = nki.alloc : memref<16x2xf32, #nki.memory<sbuf>>
// CHECK: %[[I0:.*]] = memref.subview %[[ALL]][0, 0] [16, 1]
// CHECK: nki.reduce "add" %[[S]] into %[[I0]] : memref<16x2xf32
// CHECK-NOT: op0 = "div"
// CHECK: %[[I1:.*]] = memref.subview %[[ALL]][0, 1] [16, 1]
// CHECK: nki.reduce "add" %{{.*}} into %[[I1]] : memref<16x2xf32
// CHECK: nki.tensor_scalar %[[ALL]] into %[[MEAN:[^ ]*]] {imm0 = 1.024000e+03 : f32, op0 = "div"} : memref<16x2xf32
// CHECK: nki.dma %[[MEAN]] to %{{.*}} : memref<16x2xf32, #nki.memory<sbuf>> to memref<16x2xf32, strided<[1, 16], offset: ?>>
// CHECK-NOT: op0 = "div"
// CHECK-NOT: "identity"
// CHECK: return

// Eight packed bands of four rows: one chunk an image, whose tanh sums
// every band's rows; a DMA within SBUF puts each band's 16 partitions
// beside the first's, and one reduce adds them.
// PACKED-LABEL: func.func @mean(
// PACKED: nki.activation "tanh" %{{.*}} into %{{.*}} accum %[[P:[^ ]*]] : memref<128x1xf32
// PACKED: %[[SIDE:.*]] = nki.alloc : memref<16x8xf32, #nki.memory<sbuf>>
// PACKED-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x1xf32, strided<[1, 1]{{.*}}, #nki.memory<sbuf>> to memref<16x1xf32, strided<[8, 1]{{.*}}, #nki.memory<sbuf>>
// PACKED: %[[ALL:.*]] = nki.alloc : memref<16x2xf32, #nki.memory<sbuf>>
// PACKED: %[[I0:.*]] = memref.subview %[[ALL]][0, 0] [16, 1]
// PACKED: nki.reduce "add" %[[SIDE]] into %[[I0]] : memref<16x8xf32
// PACKED: nki.reduce "add" %{{.*}} into %{{.*}} : memref<16x8xf32, #nki.memory<sbuf>> into memref<16x1xf32, strided<[2, 1], offset: 1>
// PACKED: nki.tensor_scalar %[[ALL]] into %{{.*}} {imm0 = 1.024000e+03 : f32, op0 = "div"} : memref<16x2xf32
// PACKED-NOT: "identity"
// PACKED: return

// Without fusion the pooling reads the result again (an ACT identity pass
// summing each chunk).
// OFF-LABEL: func.func @mean(
// OFF-NOT: accum
// OFF: nki.activation "identity" %{{.*}} accum
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @mean(%x: memref<2x8x32x32xf32>) -> (memref<2x16x32x32xf32>, memref<2x16x1x1xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %n = arith.constant 1.024000e+03 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x32x32xf32>, memref<8x1x1x16xf32>) outs(%p : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<2x16x32x32xf32>) outs(%y : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.tanh %in : f32
      linalg.yield %0 : f32
    }
    %c = memref.collapse_shape %y [[0, 1], [2, 3]] : memref<2x16x32x32xf32> into memref<32x1024xf32>
    %m = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
    linalg.fill ins(%cst : f32) outs(%m : memref<32xf32>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<32x1024xf32>) outs(%m : memref<32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.divf %in, %n : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %e = memref.expand_shape %m [[0, 1, 2, 3]] output_shape [2, 16, 1, 1] : memref<32xf32> into memref<2x16x1x1xf32>
    return %y, %e : memref<2x16x32x32xf32>, memref<2x16x1x1xf32>
  }
}

// -----

// Two convolutions write the two channel blocks of the pooled tensor: each
// stores its block's sums at its channels of the result.
// CHECK-LABEL: func.func @blocks(
// CHECK: nki.activation "tanh" %{{.*}} into %{{.*}} accum %[[A:[^ ]*]] :
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[R0:.*]] = memref.reinterpret_cast %[[M:[^ ]*]] to offset: [%[[C0]]], sizes: [8, 1]
// CHECK: nki.dma %[[A]] to %[[R0]]
// CHECK: nki.activation "exp" %{{.*}} into %{{.*}} accum %[[B:[^ ]*]] :
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[R1:.*]] = memref.reinterpret_cast %[[M]] to offset: [%[[C8]]], sizes: [8, 1]
// CHECK: nki.dma %[[B]] to %[[R1]]
// CHECK-NOT: "identity"
// CHECK: return %[[M]]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {
  memref.global "private" constant @w : memref<8x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @blocks(%x: memref<1x8x8x8xf32>) -> memref<16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    %p0 = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p0 : memref<1x8x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x8xf32>) outs(%p0 : memref<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y0 = memref.subview %y[0, 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x16x8x8xf32> to memref<1x8x8x8xf32, strided<[1024, 64, 8, 1]>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p0 : memref<1x8x8x8xf32>) outs(%y0 : memref<1x8x8x8xf32, strided<[1024, 64, 8, 1]>>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.tanh %in : f32
      linalg.yield %0 : f32
    }
    %p1 = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p1 : memref<1x8x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x8xf32>) outs(%p1 : memref<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y1 = memref.subview %y[0, 8, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x16x8x8xf32> to memref<1x8x8x8xf32, strided<[1024, 64, 8, 1], offset: 512>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p1 : memref<1x8x8x8xf32>) outs(%y1 : memref<1x8x8x8xf32, strided<[1024, 64, 8, 1], offset: 512>>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    }
    %c = memref.collapse_shape %y [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
    %m = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    linalg.fill ins(%cst : f32) outs(%m : memref<16xf32>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<16x64xf32>) outs(%m : memref<16xf32>) {
    ^bb0(%in: f32, %o: f32):
      %1 = arith.addf %o, %in : f32
      linalg.yield %1 : f32
    }
    return %m : memref<16xf32>
  }
}

// -----

// Half of the pooled tensor is a fill's: the pooling reads it whole (a
// reduce of each chunk, on the DVE or the ACT).
// CHECK-LABEL: func.func @half_written(
// CHECK-NOT: accum
// CHECK: nki.reduce "add" %{{.*}} into %{{.*}} scratch
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {
  memref.global "private" constant @w : memref<8x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @half_written(%x: memref<1x8x8x8xf32>) -> memref<16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x8x8xf32>)
    %p0 = memref.alloc() {alignment = 64 : i64} : memref<1x8x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p0 : memref<1x8x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x8xf32>) outs(%p0 : memref<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y0 = memref.subview %y[0, 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x16x8x8xf32> to memref<1x8x8x8xf32, strided<[1024, 64, 8, 1]>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p0 : memref<1x8x8x8xf32>) outs(%y0 : memref<1x8x8x8xf32, strided<[1024, 64, 8, 1]>>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.tanh %in : f32
      linalg.yield %0 : f32
    }
    %c = memref.collapse_shape %y [[0, 1], [2, 3]] : memref<1x16x8x8xf32> into memref<16x64xf32>
    %m = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    linalg.fill ins(%cst : f32) outs(%m : memref<16xf32>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<16x64xf32>) outs(%m : memref<16xf32>) {
    ^bb0(%in: f32, %o: f32):
      %1 = arith.addf %o, %in : f32
      linalg.yield %1 : f32
    }
    return %m : memref<16xf32>
  }
}

// -----

// The pooled means kept in SBUF (their reader is another kernel): the one
// division of both images' sums writes the pooling's [16, 1, 2, 1, 1] tile
// itself, no copy and no DMA.
// CHECK-LABEL: func.func @resident(
// CHECK: %[[T:.*]] = nki.alloc : memref<16x1x2x1x1xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %{{.*}} into %{{.*}} {imm0 = 1.024000e+03 : f32, op0 = "div"} : memref<16x2xf32, #nki.memory<sbuf>> into memref<16x2xf32, strided<[2, 1]>, #nki.memory<sbuf>>
// CHECK-NOT: op0 = "div"
// CHECK-NOT: nki.copy
// CHECK: nki.activation "exp"
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @resident(%x: memref<2x8x32x32xf32>) -> memref<2x16x1x1xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %n = arith.constant 1.024000e+03 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x32x32xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x32x32xf32>, memref<8x1x1x16xf32>) outs(%p : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x32x32xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<2x16x32x32xf32>) outs(%y : memref<2x16x32x32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.tanh %in : f32
      linalg.yield %0 : f32
    }
    %c = memref.collapse_shape %y [[0, 1], [2, 3]] : memref<2x16x32x32xf32> into memref<32x1024xf32>
    %m = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
    linalg.fill ins(%cst : f32) outs(%m : memref<32xf32>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<32x1024xf32>) outs(%m : memref<32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.divf %in, %n : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %e = memref.expand_shape %m [[0, 1, 2, 3]] output_shape [2, 16, 1, 1] : memref<32xf32> into memref<2x16x1x1xf32>
    %r = memref.alloc() {alignment = 64 : i64} : memref<2x16x1x1xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e : memref<2x16x1x1xf32>) outs(%r : memref<2x16x1x1xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    }
    return %r : memref<2x16x1x1xf32>
  }
}
