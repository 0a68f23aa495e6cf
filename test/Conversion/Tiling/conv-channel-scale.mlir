// A squeeze-and-excitation scale (x times a per-channel factor computed
// from [N, C, 1, 1] operands) whose only reader is a convolution is not a
// kernel of its own: the convolution reads x and multiplies its filter's
// rows by the factor, once per image (Tiling/ConvFilters.cpp scaleFilters): C x F
// multiplies instead of C x H x W. The factor (a sigmoid here) is computed
// for both images at once on an [8, 2] tile, as one ACT sigmoid, and each
// image's filter scaled by its column.
// RUN: nki-opt %s --nki-tile=pack-bands=false | FileCheck %s
// RUN: nki-opt %s --nki-tile | FileCheck %s --check-prefix=PACKED

// Packed bands (four bands of one output row: 8 channels and 4 filters a
// band) pack each image's filter after it is scaled: the block-diagonal
// [32, 16] filter is built from the scaled [8, 4] one, once per image.
// PACKED-LABEL: func.func @main(
// PACKED: nki.tensor_scalar %{{.*}} into %[[WS0:[^ ]*]] s0 %{{.*}} : memref<8x1xf32, strided<[2, 1]>, #nki.memory<sbuf>> {op0 = "mul"}
// PACKED-COUNT-4: nki.dma %[[WS0]] to %{{.*}} : memref<8x4xf32, #nki.memory<sbuf>> to memref<8x4xf32
// PACKED: nki.affine_select
// PACKED: nki.affine_select
// PACKED: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<32x16xf32, #nki.memory<sbuf>>, memref<32x1x4xf32
// PACKED: nki.tensor_scalar %{{.*}} into %[[WS1:[^ ]*]] s0 %{{.*}} : memref<8x1xf32, strided<[2, 1], offset: 1>, #nki.memory<sbuf>> {op0 = "mul"}
// PACKED-COUNT-4: nki.dma %[[WS1]] to %{{.*}} : memref<8x4xf32, #nki.memory<sbuf>> to memref<8x4xf32
// PACKED: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<32x16xf32, #nki.memory<sbuf>>, memref<32x1x4xf32

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x8x4x4xf32>
// CHECK: %[[W:.*]] = nki.alloc : memref<8x4xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[W]]
// CHECK: %[[S:.*]] = nki.alloc : memref<8x2xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[S]] : memref<8x2xf32, strided<[1, 8], offset: ?>>
// CHECK: %[[F:.*]] = nki.alloc : memref<8x2xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "sigmoid" %[[S]] into %[[F]]
// CHECK: %[[F0:.*]] = memref.subview %[[F]][0, 0] [8, 1] [1, 1]
// CHECK: %[[WS:.*]] = nki.alloc : memref<8x4xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[W]] into %[[WS]] s0 %[[F0]] : memref<8x1xf32, strided<[2, 1]>, #nki.memory<sbuf>> {op0 = "mul"}
// CHECK-NOT: "sigmoid"
// CHECK: memref.reinterpret_cast %[[X]] to offset: [%{{.*}}], sizes: [8, 4, 4]
// CHECK: nki.matmul %[[WS]], %{{.*}} into
// CHECK-NOT: memref<8x16xf32
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x4xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%x: memref<2x8x4x4xf32>, %s: memref<2x8x1x1xf32>) -> memref<2x4x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x4xf32>
    %scaled = memref.alloc() {alignment = 64 : i64} : memref<2x8x4x4xf32>
    linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %x : memref<2x8x1x1xf32>, memref<2x8x4x4xf32>) outs(%scaled : memref<2x8x4x4xf32>) {
    ^bb0(%in: f32, %v: f32, %o: f32):
      %n = arith.negf %in : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %one : f32
      %sig = arith.divf %one, %d : f32
      %r = arith.mulf %sig, %v : f32
      linalg.yield %r : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x4x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x4x4x4xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%scaled, %w : memref<2x8x4x4xf32>, memref<8x1x1x4xf32>) outs(%y : memref<2x4x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %o: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<2x4x4x4xf32>
  }
}
