// A fused global pooling's source kept in HBM whose other readers are
// channel scales (squeeze-and-excitation) absorbed by convolutions that
// round their input to bf16 is stored in bf16 (TilePass.cpp's
// narrowPooledSources): the first convolution's tanh writes bf16 (its
// accumulator still sums the f32 values for the pooling), the f32 buffer
// goes, and the scaled convolution loads the bf16 rows.
// RUN: nki-opt %s --nki-tile=sbuf-resident=false | FileCheck %s
// RUN: nki-opt %s "--nki-tile=sbuf-resident=false fuse-pools=false" | FileCheck %s --check-prefix=OFF
// CHECK-LABEL: func.func @squeeze_excite(
// CHECK-NOT: memref.alloc() {{.*}} : memref<2x16x8x8xf32>
// CHECK: %[[B:.*]] = memref.alloc() {{.*}} : memref<2x16x8x8xbf16>
// CHECK-NOT: memref.alloc() {{.*}} : memref<2x16x8x8xf32>
// CHECK: nki.activation "tanh" %{{.*}} into %[[T:[^ ]*]] accum %{{.*}} : memref<128x1xf32, #nki.memory<sbuf>> : memref<128x8xf32, #nki.memory<psum>> into memref<128x8xbf16, #nki.memory<sbuf>>
// CHECK: memref.reinterpret_cast %[[B]] {{.*}} : memref<2x16x8x8xbf16> to memref<16x8xbf16
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[B]] {{.*}} sizes: [16, 1, 8]
// CHECK: nki.dma %[[R]] to %{{.*}} : memref<16x1x8xbf16, {{.*}}> to memref<16x1x8xbf16
// Unfused, the pooling reads the f32 tensor.
// OFF: memref.alloc() {{.*}} : memref<2x16x8x8xf32>
// OFF-NOT: memref<2x16x8x8xbf16>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w2 : memref<16x1x1x4xbf16> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @squeeze_excite(%x: memref<2x8x8x8xf32>) -> memref<2x4x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %n = arith.constant 6.400000e+01 : f32
    %w = memref.get_global @w : memref<8x1x1x16xbf16>
    %w2 = memref.get_global @w2 : memref<16x1x1x4xbf16>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x8x8x8xf32>, memref<8x1x1x16xbf16>) outs(%p : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %t = arith.truncf %in : f32 to bf16
      %e = arith.extf %t : bf16 to f32
      %f = arith.extf %in_1 : bf16 to f32
      %0 = arith.mulf %e, %f : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<2x16x8x8xf32>) outs(%y : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = math.tanh %in : f32
      linalg.yield %0 : f32
    }
    %c = memref.collapse_shape %y [[0, 1], [2, 3]] : memref<2x16x8x8xf32> into memref<32x64xf32>
    %m = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
    linalg.fill ins(%cst : f32) outs(%m : memref<32xf32>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%c : memref<32x64xf32>) outs(%m : memref<32xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.divf %in, %n : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %s = memref.expand_shape %m [[0, 1, 2, 3]] output_shape [2, 16, 1, 1] : memref<32xf32> into memref<2x16x1x1xf32>
    %scaled = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %y : memref<2x16x1x1xf32>, memref<2x16x8x8xf32>) outs(%scaled : memref<2x16x8x8xf32>) {
    ^bb0(%in: f32, %v: f32, %o: f32):
      %ng = arith.negf %in : f32
      %ex = math.exp %ng : f32
      %d = arith.addf %ex, %one : f32
      %sig = arith.divf %one, %d : f32
      %r = arith.mulf %sig, %v : f32
      linalg.yield %r : f32
    }
    %z = memref.alloc() {alignment = 64 : i64} : memref<2x4x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%z : memref<2x4x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%scaled, %w2 : memref<2x16x8x8xf32>, memref<16x1x1x4xbf16>) outs(%z : memref<2x4x8x8xf32>) {
    ^bb0(%in: f32, %in_1: bf16, %o: f32):
      %t = arith.truncf %in : f32 to bf16
      %e = arith.extf %t : bf16 to f32
      %f = arith.extf %in_1 : bf16 to f32
      %0 = arith.mulf %e, %f : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %z : memref<2x4x8x8xf32>
  }
}
