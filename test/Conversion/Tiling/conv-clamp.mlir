// A convolution's ReLU6 epilogue stored into a tensor kept in SBUF: the
// value before the clamp is stored there and clamped in place (ConvEpilogue.cpp's
// clampInto), and the ReLU under the clamp joins it: the ACT's pass is an
// identity with the batch norm's scale and bias (which the scheduler may
// also run as a DVE tensor_scalar), the clamp one pass of max 0 and min 6.
// (The 1x1 convolution after it keeps its own kernel, so that the result
// is stored: chained, it would read each chunk where it is.)
// RUN: nki-opt %s --nki-tile=chain-convs=false | FileCheck %s
// CHECK-LABEL: func.func @relu6_resident(
// CHECK: nki.activation "identity" %{{.*}} into %[[V:[^ ]*]] scale %{{.*}} bias %{{.*}} into memref<16x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>>
// CHECK-NEXT: nki.tensor_scalar %[[V]] into %[[V]] {imm1 = 6.000000e+00 : f32, op0 = "max", op1 = "min"}
// CHECK-NOT: "relu"
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x4xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  memref.global "private" constant @s : memref<16x1x1xf32> = dense<1.500000e+00> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @relu6_resident(%x: memref<1x8x8x8xf32>) -> memref<1x4x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %six = arith.constant 6.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %w2 = memref.get_global @w2 : memref<16x1x1x4xf32>
    %s = memref.get_global @s : memref<16x1x1xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%p : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %s, %b : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %sc: f32, %bi: f32, %o: f32):
      %0 = arith.mulf %in, %sc : f32
      %1 = arith.addf %0, %bi : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.minimumf %2, %six : f32
      linalg.yield %3 : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<1x4x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<1x4x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w2 : memref<1x16x8x8xf32>, memref<16x1x1x4xf32>) outs(%z : memref<1x4x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<1x4x8x8xf32>
  }
}
