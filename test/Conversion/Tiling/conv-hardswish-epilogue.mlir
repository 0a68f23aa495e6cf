// A convolution's epilogue that reads its biased value more than once
// (BodyLowering.cpp's appliesPendingOnce): hardswish, x * clamp(x / 6 +
// 0.5, 0, 1) with x the accumulator plus a per-channel bias, makes x once
// from PSUM (one pass with the bias) and takes the clamp's scale and bias
// on the ACT from that tile: a ReLU of x / 6 + 0.5 over SBUF, its min with
// 1 and the product with x. (Each reader used to apply the bias again: x /
// 6 was a second pass over PSUM, which only the DVE can make.)
// RUN: nki-opt %s --split-input-file --nki-tile | FileCheck %s
// (Eight bands of 16 channels fill the PE's 128 columns.)
// CHECK-LABEL: func.func @hardswish(
// CHECK: nki.matmul {{.*}} into %[[ACC:[^ ]*]] :
// CHECK: nki.tensor_scalar %[[ACC]] into %[[X:[^ ]*]] s0 %{{[^ ]*}} : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "add"} : memref<128x8xf32, #nki.memory<psum>>
// CHECK-NOT: #nki.memory<psum>> into
// CHECK: nki.activation "relu" %[[X]] into %[[T:[^ ]*]] {bias = 5.000000e-01 : f32, scale = 0.166666672 : f32} : memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.tensor_scalar %[[T]] into %[[M:[^ ]*]] {imm0 = 1.000000e+00 : f32, op0 = "min"}
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.tensor_tensor "mul" %[[X]], %[[M]]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @hardswish(%x: memref<1x8x8x8xf32>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %sixth = arith.constant 0.166666672 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
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
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.mulf %0, %sixth : f32
      %2 = arith.addf %1, %half : f32
      %3 = arith.maximumf %2, %cst : f32
      %4 = arith.minimumf %3, %one : f32
      %5 = arith.mulf %0, %4 : f32
      linalg.yield %5 : f32
    }
    return %y : memref<1x16x8x8xf32>
  }
}

// -----

// Where a reader takes the bias into an activation (exp(x) here, as a
// sigmoid or SiLU would), each reader still applies it: the ACT reads PSUM
// once for exp(acc + b), and x itself is made for the sum.
// CHECK-LABEL: func.func @exp_plus(
// CHECK: nki.matmul {{.*}} into %[[ACC:[^ ]*]] :
// CHECK: nki.activation "exp" %[[ACC]] into %[[E:[^ ]*]] bias %{{[^ ]*}} : memref<128x1xf32, #nki.memory<sbuf>> : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[ACC]] into %[[X:[^ ]*]] s0 %{{[^ ]*}} : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "add"} : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_tensor "add" %[[X]], %[[E]]
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @exp_plus(%x: memref<1x8x8x8xf32>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
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
    linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b : memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = math.exp %0 : f32
      %2 = arith.addf %0, %1 : f32
      linalg.yield %2 : f32
    }
    return %y : memref<1x16x8x8xf32>
  }
}
