// A convolution's epilogue relu((acc + b) + r), b a per-channel shift (a
// folded batch norm), r a residual (a ResNet block's end): the residual is
// added to the PSUM accumulator first (one DVE pass with one PSUM input)
// and the shift becomes the ReLU's bias (one ACT pass), instead of an ACT
// pass for the shift, an add of two SBUF tiles and the ReLU.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// (Sixteen channels: eight bands of rows side by side on the partitions.)
// CHECK-LABEL: func.func @residual_relu(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK: %[[RES:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x8xf32, strided<[64, 1], offset: ?>> to memref<16x8xf32, strided<[8, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.activation
// CHECK: nki.tensor_tensor "add" %[[ACC]], %[[RES]] into %[[SUM:[^ ]*]] : memref<128x8xf32, #nki.memory<psum>>, memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-NEXT: %[[OUT:.*]] = nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[SUM]] into %[[OUT]] bias %{{.*}} :
// CHECK-NOT: nki.tensor_
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<16x8xf32
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @residual_relu(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
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
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      %2 = arith.maximumf %1, %cst : f32
      linalg.yield %2 : f32
    }
    return
  }
}

// -----

// Without a ReLU nothing would absorb the shift after the add: the shift
// is applied on the way out of PSUM (the scheduler may run it on the ACT)
// and the residual added in SBUF, where the POOL may take that add (a
// PSUM input is the DVE's alone; MobileNetV2's projections at batch 8
// under auto-cast, DVE-bound, ran 794.2 -> 805.1 us reassociated).
// CHECK-LABEL: func.func @residual_only(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[ACC]] into %[[T:[^ ]*]] s0 %{{.*}} {op0 = "add"} : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_tensor "add" %[[T]], %{{.*}} : memref<128x8xf32, #nki.memory<sbuf>>, memref<128x8xf32, #nki.memory<sbuf>>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @residual_only(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
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
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      linalg.yield %1 : f32
    }
    return
  }
}

// -----

// A projection shortcut: both sums carry a batch norm's shift,
// relu((acc + b) + (r + d)): the tensors are added (the accumulator in
// PSUM) and the ReLU takes b + d as its bias (a [P, 1] add).
// CHECK-LABEL: func.func @projection_relu(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK-NOT: nki.activation
// CHECK-NOT: nki.tensor_scalar
// CHECK: nki.tensor_tensor "add" %[[ACC]], %{{.*}} into %[[SUM:[^ ]*]] : memref<128x8xf32, #nki.memory<psum>>, memref<128x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[BIAS:[^ ]*]] : memref<128x1xf32, #nki.memory<sbuf>>, memref<128x1xf32, #nki.memory<sbuf>>
// CHECK-NEXT: %[[OUT:.*]] = nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[SUM]] into %[[OUT]] bias %[[BIAS]] :
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @d : memref<16x1x1xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @projection_relu(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %d = memref.get_global @d : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%p : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r, %d : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %di: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %re, %di : f32
      %2 = arith.addf %1, %0 : f32
      %3 = arith.maximumf %2, %cst : f32
      linalg.yield %3 : f32
    }
    return
  }
}
