// nki-tile runs attention as one kernel (Attention.cpp): the scores of a
// query block and a PSUM bank of keys are computed, exponentiated and
// multiplied by V on chip; no score reaches HBM.
// RUN: nki-opt %s -split-input-file --nki-pipeline="auto-cast=matmul compile-to=tiled" | FileCheck %s
// Kernel by kernel with fuse-attention=false.
// RUN: nki-opt %s -split-input-file --nki-pipeline="auto-cast=matmul compile-to=graph" | nki-opt -split-input-file --pass-pipeline='builtin.module(func.func(nki-unshare-partial-tensors,nki-eliminate-empty-tensors),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,func.func(nki-tile{fuse-attention=false}))' | FileCheck %s --check-prefix=OFF

#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
#id = affine_map<(d0, d1) -> (d0, d1)>

// One head, scaled. Q and K are read from the f32 arguments by casting
// DMAs (the casts the auto-cast inserted are absorbed), K transposed on
// the PE; the scale goes into the exp and the running max.
// CHECK-LABEL: func.func @scaled
// CHECK-NOT: linalg.
// CHECK: nki.dma {{.*}} : memref<128x64xf32, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK: nki.matmul {{.*}} : memref<64x128xbf16, #nki.memory<sbuf>>, memref<64x256xbf16, #nki.memory<sbuf>> into memref<128x256xf32, #nki.memory<psum>>
// CHECK: nki.reduce "max" %[[S:.*]] into %[[M:.*]] : memref<128x256xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[M]] into %[[R:.*]] {imm0 = -1.250000e-01 : f32, imm1 = 3.40282347E+38 : f32, nki.engine = "pool", op0 = "mul", op1 = "min"}
// CHECK: nki.activation "exp" %[[S]] into %[[P:.*]] bias %[[R]] : {{.*}} accum %[[L:.*]] : memref<128x1xf32, #nki.memory<sbuf>> {scale = 1.250000e-01 : f32} : memref<128x256xf32, #nki.memory<psum>> into memref<128x256xbf16, #nki.memory<sbuf>>
// CHECK: nki.transpose
// CHECK: nki.matmul {{.*}} into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %{{.*}} into %[[O:.*]] s0 %[[L]] : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "div"} : memref<128x64xf32, #nki.memory<psum>> into memref<128x64xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %[[O]] to {{.*}} : memref<128x64xf32, #nki.memory<sbuf>> to memref<128x64xf32, strided<[64, 1], offset: ?>>
// CHECK-NOT: to memref<128x256xf32, strided
// OFF-LABEL: func.func @scaled
// OFF: nki.dma {{.*}} : memref<128x256xf32, #nki.memory<sbuf>> to memref<128x256xf32, strided<[256, 1], offset: ?>>
func.func @scaled(%q: tensor<256x64xf32>, %k: tensor<256x64xf32>, %v: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<256x64xf32>, tensor<256x64xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  %sc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<256x256xf32>
  %p = linalg.softmax dimension(1) ins(%sc : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %oe = tensor.empty() : tensor<256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<256x64xf32>) -> tensor<256x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<256x256xf32>, tensor<256x64xf32>) outs(%oz : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %o : tensor<256x64xf32>
}

// -----

#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// 2,048 keys are four PSUM banks, visited two per step: each bank has its
// scores, row max and exponential, but the running max's rescale (an exp
// of a [128, 1] column) and the context's happen once per two banks, here
// once for the second step. The [128, 1] updates are pinned to the POOL.
// K^T is loaded a bank of keys at a time, the second bank's transposes
// after the first bank's scores.
// CHECK-LABEL: func.func @two_banks_a_step
// CHECK: nki.matmul {{.*}} into memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.reduce "max" %[[S0:.*]] into %[[M0:.*]] : memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[M0]] into %[[R0:.*]] {imm0 = -1.000000e+00 : f32, imm1 = 3.40282347E+38 : f32, nki.engine = "pool", op0 = "mul", op1 = "min"}
// CHECK: nki.transpose
// CHECK: nki.matmul {{.*}} into memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.reduce "max" %{{.*}} into %[[M1:.*]] : memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[M1]] into %[[R1:.*]] s1 %[[R0]] : {{.*}} {imm0 = -1.000000e+00 : f32, nki.engine = "pool", op0 = "mul", op1 = "min"}
// CHECK: nki.activation "exp" %[[S0]] into %{{.*}} bias %[[R1]]
// CHECK-COUNT-1: nki.activation "exp" {{.*}} into memref<128x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.activation "exp" {{.*}} into memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: return
func.func @two_banks_a_step(%q: tensor<128x64xf32>, %k: tensor<2048x64xf32>, %v: tensor<2048x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x2048xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<128x64xf32>, tensor<2048x64xf32>) outs(%z : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<128x2048xf32>) outs(%e : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  %oe = tensor.empty() : tensor<128x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<128x2048xf32>, tensor<2048x64xf32>) outs(%oz : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// -----

#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
#id = affine_map<(d0, d1) -> (d0, d1)>
// A constant key-padding mask (keys 512..639 are -inf, broadcast over the
// queries): each query block's second 512-key block is skipped, the first
// needs no mask at all. Two score matmuls, no mask load.
// CHECK-LABEL: func.func @padding
// CHECK-COUNT-2: nki.matmul {{.*}} into memref<128x512xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x128xf32, #nki.memory<psum>>
// CHECK-NOT: nki.tensor_tensor
// CHECK: return
#col = affine_map<(d0, d1) -> (d1)>
func.func @padding(%q: tensor<256x64xf32>, %k: tensor<640x64xf32>, %v: tensor<640x64xf32>) -> tensor<256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %mask = arith.constant dense<"0x0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF"> : tensor<640xf32>
  %e = tensor.empty() : tensor<256x640xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x640xf32>) -> tensor<256x640xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<256x64xf32>, tensor<640x64xf32>) outs(%z : tensor<256x640xf32>) -> tensor<256x640xf32>
  %sc = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<256x640xf32>, tensor<640xf32>) outs(%e : tensor<256x640xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<256x640xf32>
  %p = linalg.softmax dimension(1) ins(%sc : tensor<256x640xf32>) outs(%e : tensor<256x640xf32>) -> tensor<256x640xf32>
  %oe = tensor.empty() : tensor<256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<256x64xf32>) -> tensor<256x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<256x640xf32>, tensor<640x64xf32>) outs(%oz : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %o : tensor<256x64xf32>
}

// -----

#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
#id = affine_map<(d0, d1) -> (d0, d1)>
// The probabilities are a result too: they must be formed, so the chain
// runs kernel by kernel (the scores go through HBM).
// CHECK-LABEL: func.func @probabilities_returned
// CHECK: nki.dma {{.*}} : memref<128x256xf32, #nki.memory<sbuf>> to memref<128x256xf32, strided<[256, 1], offset: ?>>
func.func @probabilities_returned(%q: tensor<256x64xf32>, %k: tensor<256x64xf32>, %v: tensor<256x64xf32>) -> (tensor<256x64xf32>, tensor<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<256x64xf32>, tensor<256x64xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %oe = tensor.empty() : tensor<256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<256x64xf32>) -> tensor<256x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<256x256xf32>, tensor<256x64xf32>) outs(%oz : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %o, %p : tensor<256x64xf32>, tensor<256x256xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// Torch's multi-head form: Q is split into heads by a transpose and
// scaled by 1/sqrt(d) before Q K^T, the context merged back by a
// transpose. The kernel reads Q through both (the scale joins the exp's),
// and stores each context block straight into the merged [S, heads, d]
// result: no transpose or scaling kernel is left. The two heads' rows of
// a query block sit side by side in Q: they come in one [128, 2 x 64] load,
// one PE transpose and one copy, and head h's scores read Q^T at
// partitions 64 h. The heads share one software pipeline: the scores of
// head 1's two query blocks come before head 0's first P V matmul.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: linalg.
// CHECK: nki.dma {{.*}} : memref<128x128xf32, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.transpose {{.*}} : memref<128x128xbf16, #nki.memory<sbuf>> into memref<128x128xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} : memref<64x128xbf16, strided<[128, 1]>, #nki.memory<sbuf>>, memref<64x256xbf16, #nki.memory<sbuf>> into memref<128x256xf32, #nki.memory<psum>>
// CHECK: nki.activation "exp" {{.*}} {scale = 1.250000e-01 : f32}
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x256xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} : memref<64x128xbf16, strided<[128, 1], offset: 8192>, #nki.memory<sbuf>>, memref<64x256xbf16, #nki.memory<sbuf>> into memref<128x256xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x256xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.dma {{.*}} : memref<128x64xf32, #nki.memory<sbuf>> to memref<128x64xf32, strided<[128, 1], offset: ?>>
// CHECK-NOT: linalg.
// CHECK: return
func.func @heads(%qs: tensor<256x2x64xf32>, %kT: tensor<2x64x256xf32>, %v: tensor<2x256x64xf32>) -> tensor<256x2x64xf32> {
  %zero = arith.constant 0.0 : f32
  %qe = tensor.empty() : tensor<2x256x64xf32>
  %qt = linalg.transpose ins(%qs : tensor<256x2x64xf32>) outs(%qe : tensor<2x256x64xf32>) permutation = [1, 0, 2]
  %q = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qt : tensor<2x256x64xf32>) outs(%qe : tensor<2x256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 8.0 : f32
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<2x256x64xf32>
  %e = tensor.empty() : tensor<2x256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<2x256x64xf32>, tensor<2x64x256xf32>) outs(%z : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x256x256xf32>) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%qe : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x256x256xf32>, tensor<2x256x64xf32>) outs(%oz : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %re = tensor.empty() : tensor<256x2x64xf32>
  %r = linalg.transpose ins(%o : tensor<2x256x64xf32>) outs(%re : tensor<256x2x64xf32>) permutation = [1, 0, 2]
  return %r : tensor<256x2x64xf32>
}

// -----

// A decode step (one query per head, heads side by side in K and V) runs
// with the heads stacked on the partitions: Q block-diagonal ([128 head
// dims, 4 heads], zero where a column's head does not own the rows)
// against all heads' K^T, so that one [4, keys] score tile and one online
// softmax serve every head; the context [4, 4 x 64] holds in row h head
// h's probabilities times every head's V, of which block h is stored.
// CHECK-LABEL: func.func @decode
// CHECK-NOT: linalg.
// CHECK: nki.memset %[[Q:.*]], 0.000000e+00 : memref<128x4xbf16, #nki.memory<sbuf>>
// CHECK: nki.dma {{.*}} : memref<64x1xf32, strided<[1, 1], offset: ?>> to memref<64x1xbf16, strided<[4, 1]>, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[Q]], %{{.*}} into %[[S:.*]] : memref<128x4xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<4x300xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into %[[S]] accumulate
// CHECK: nki.activation "exp" %[[S]]
// CHECK: nki.matmul {{.*}} : memref<128x4xbf16, #nki.memory<sbuf>>, memref<128x256xbf16, #nki.memory<sbuf>> into memref<4x256xf32, #nki.memory<psum>>
// CHECK-COUNT-4: nki.dma {{.*}} : memref<1x64xf32, strided<[256, 1]{{.*}}>, #nki.memory<sbuf>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
func.func @decode(%q: tensor<4x1x64xf32>, %k: tensor<300x256xf32>, %v: tensor<300x256xf32>) -> tensor<4x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ke = tensor.expand_shape %k [[0], [1, 2]] output_shape [300, 4, 64] : tensor<300x256xf32> into tensor<300x4x64xf32>
  %kte = tensor.empty() : tensor<4x64x300xf32>
  %kT = linalg.transpose ins(%ke : tensor<300x4x64xf32>) outs(%kte : tensor<4x64x300xf32>) permutation = [1, 2, 0]
  %ve = tensor.expand_shape %v [[0], [1, 2]] output_shape [300, 4, 64] : tensor<300x256xf32> into tensor<300x4x64xf32>
  %vte = tensor.empty() : tensor<4x300x64xf32>
  %vh = linalg.transpose ins(%ve : tensor<300x4x64xf32>) outs(%vte : tensor<4x300x64xf32>) permutation = [1, 0, 2]
  %e = tensor.empty() : tensor<4x1x300xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1x300xf32>) -> tensor<4x1x300xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<4x1x64xf32>, tensor<4x64x300xf32>) outs(%z : tensor<4x1x300xf32>) -> tensor<4x1x300xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x1x300xf32>) outs(%e : tensor<4x1x300xf32>) -> tensor<4x1x300xf32>
  %oe = tensor.empty() : tensor<4x1x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  %o = linalg.batch_matmul ins(%p, %vh : tensor<4x1x300xf32>, tensor<4x300x64xf32>) outs(%oz : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  return %o : tensor<4x1x64xf32>
}

// -----

// A decode step against a KV cache: K and V are the cache concatenated
// with the new token's keys and values. The kernel reads each key range
// where it is (the cache's 300 keys from %kc / %vc, the new one from %kn /
// %vn; V's last tile of 45 keys in two DMAs, the new key at partition 44)
// and the concatenations are not copied.
// CHECK-LABEL: func.func @cache
// CHECK-NOT: linalg.
// CHECK-NOT: memref.copy
// CHECK: memref.reinterpret_cast %arg1 {{.*}} sizes: [128, 128], strides: [256, 1]
// CHECK: memref.reinterpret_cast %arg2 {{.*}} sizes: [1, 128], strides: [256, 1]
// CHECK: memref.reinterpret_cast %arg3 {{.*}} sizes: [44, 256], strides: [256, 1]
// CHECK: memref.reinterpret_cast %arg4 {{.*}} sizes: [1, 256], strides: [256, 1]
// CHECK: nki.dma {{.*}} to memref<1x256xbf16, strided<[256, 1], offset: 11264>, #nki.memory<sbuf>>
// CHECK-NOT: memref.copy
func.func @cache(%q: tensor<4x1x64xf32>, %kc: tensor<300x256xf32>, %kn: tensor<1x256xf32>, %vc: tensor<300x256xf32>, %vn: tensor<1x256xf32>) -> tensor<4x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %k = tensor.concat dim(0) %kc, %kn : (tensor<300x256xf32>, tensor<1x256xf32>) -> tensor<301x256xf32>
  %v = tensor.concat dim(0) %vc, %vn : (tensor<300x256xf32>, tensor<1x256xf32>) -> tensor<301x256xf32>
  %ke = tensor.expand_shape %k [[0], [1, 2]] output_shape [301, 4, 64] : tensor<301x256xf32> into tensor<301x4x64xf32>
  %kte = tensor.empty() : tensor<4x64x301xf32>
  %kT = linalg.transpose ins(%ke : tensor<301x4x64xf32>) outs(%kte : tensor<4x64x301xf32>) permutation = [1, 2, 0]
  %ve = tensor.expand_shape %v [[0], [1, 2]] output_shape [301, 4, 64] : tensor<301x256xf32> into tensor<301x4x64xf32>
  %vte = tensor.empty() : tensor<4x301x64xf32>
  %vh = linalg.transpose ins(%ve : tensor<301x4x64xf32>) outs(%vte : tensor<4x301x64xf32>) permutation = [1, 0, 2]
  %e = tensor.empty() : tensor<4x1x301xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1x301xf32>) -> tensor<4x1x301xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<4x1x64xf32>, tensor<4x64x301xf32>) outs(%z : tensor<4x1x301xf32>) -> tensor<4x1x301xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x1x301xf32>) outs(%e : tensor<4x1x301xf32>) -> tensor<4x1x301xf32>
  %oe = tensor.empty() : tensor<4x1x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  %o = linalg.batch_matmul ins(%p, %vh : tensor<4x1x301xf32>, tensor<4x301x64xf32>) outs(%oz : tensor<4x1x64xf32>) -> tensor<4x1x64xf32>
  return %o : tensor<4x1x64xf32>
}

// -----

#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// A 0 / -inf mask that leaves every row some key (keys 100-109 masked):
// the mask joins the scores on the PE, as a matmul of the identity (built
// once on the POOL) with the mask in bf16 (-inf as -3e38, so that
// 0 x mask is 0); the DVE adds nothing.
// CHECK-LABEL: func.func @pe_mask
// CHECK: nki.matmul {{.*}} into %[[S:.*]] : memref<64x128xbf16, #nki.memory<sbuf>>, memref<64x200xbf16{{.*}}, #nki.memory<sbuf>> into memref<128x200xf32, #nki.memory<psum>>
// CHECK: nki.affine_select %{{.*}} into %[[I:.*]] {cmp = "eq", coefs = array<i64: 1>, fill = 0.000000e+00 : f32, offset = 0 : i64, pcoef = -1 : i64} : memref<128x128xbf16, #nki.memory<sbuf>> into memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[M:.*]] into %[[M]] {imm0 = -3.000000e+38 : f32, op0 = "max"} : memref<128x200xbf16, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[I]], %[[M]] into %[[S]] accumulate : memref<128x128xbf16, {{.*}}>, memref<128x200xbf16, #nki.memory<sbuf>> into memref<128x200xf32, #nki.memory<psum>>
// CHECK-NOT: nki.tensor_tensor
// CHECK: return
func.func @pe_mask(%q: tensor<128x64xf32>, %k: tensor<200x64xf32>, %v: tensor<200x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %mask = arith.constant dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<200xf32>
  %e = tensor.empty() : tensor<128x200xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x200xf32>) -> tensor<128x200xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<128x64xf32>, tensor<200x64xf32>) outs(%z : tensor<128x200xf32>) -> tensor<128x200xf32>
  %sc = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<128x200xf32>, tensor<200xf32>) outs(%e : tensor<128x200xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<128x200xf32>
  %p = linalg.softmax dimension(1) ins(%sc : tensor<128x200xf32>) outs(%e : tensor<128x200xf32>) -> tensor<128x200xf32>
  %oe = tensor.empty() : tensor<128x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<128x64xf32>) -> tensor<128x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<128x200xf32>, tensor<200x64xf32>) outs(%oz : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// -----

// The heads merged back ([2, 256, 64] -> [256, 2, 64]) and fed to an
// output projection, which under auto-cast reads them rounded to bf16:
// the kernel stores each context block already rounded, straight into the
// merged rows (row stride 128); neither the transpose nor the cast runs.
// CHECK-LABEL: func.func @out_proj
// CHECK-NOT: linalg.
// CHECK: nki.tensor_scalar {{.*}} {op0 = "div"} : memref<128x64xf32, #nki.memory<psum>> into memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK: nki.dma {{.*}} : memref<128x64xbf16, #nki.memory<sbuf>> to memref<128x64xbf16, strided<[128, 1], offset: ?>>
// CHECK-NOT: linalg.
// CHECK: return
func.func @out_proj(%q: tensor<2x256x64xf32>, %kT: tensor<2x64x256xf32>, %v: tensor<2x256x64xf32>, %w: tensor<128x32xf32>) -> tensor<256x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<2x256x64xf32>, tensor<2x64x256xf32>) outs(%z : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x256x256xf32>) outs(%e : tensor<2x256x256xf32>) -> tensor<2x256x256xf32>
  %oe = tensor.empty() : tensor<2x256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x256x256xf32>, tensor<2x256x64xf32>) outs(%oz : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  %re = tensor.empty() : tensor<256x2x64xf32>
  %r = linalg.transpose ins(%o : tensor<2x256x64xf32>) outs(%re : tensor<256x2x64xf32>) permutation = [1, 0, 2]
  %m = tensor.collapse_shape %r [[0], [1, 2]] : tensor<256x2x64xf32> into tensor<256x128xf32>
  %ye = tensor.empty() : tensor<256x32xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ye : tensor<256x32xf32>) -> tensor<256x32xf32>
  %y = linalg.matmul ins(%m, %w : tensor<256x128xf32>, tensor<128x32xf32>) outs(%yz : tensor<256x32xf32>) -> tensor<256x32xf32>
  return %y : tensor<256x32xf32>
}

// -----

#kv = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// Grouped-query attention: 4 query heads on 2 K/V heads, each K and V head
// broadcast to its 2 query heads by a copy (repeat_kv). The kernel reads K
// and V through the copy and loads each head once: K as 2 heads x 2 blocks
// of 128 keys (not 4 heads x 2), and nothing reads or writes the
// broadcast copies.
// CHECK-LABEL: func.func @gqa
// CHECK-NOT: linalg.
// CHECK-NOT: memref<2x2x{{[0-9x]+}}x{{bf16|f32}}> to memref<
// CHECK-COUNT-4: memref.reinterpret_cast %arg1
// CHECK-NOT: memref.reinterpret_cast %arg1
// CHECK-NOT: memref<2x2x{{[0-9x]+}}x{{bf16|f32}}> to memref<
// CHECK: return
func.func @gqa(%q: tensor<4x256x64xf32>, %k: tensor<2x256x64xf32>, %v: tensor<2x256x64xf32>) -> tensor<4x256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %be = tensor.empty() : tensor<2x2x256x64xf32>
  %kb = linalg.generic {indexing_maps = [#kv, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x256x64xf32>) outs(%be : tensor<2x2x256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x256x64xf32>
  %vb = linalg.generic {indexing_maps = [#kv, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x256x64xf32>) outs(%be : tensor<2x2x256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x2x256x64xf32>
  %k4 = tensor.collapse_shape %kb [[0, 1], [2], [3]] : tensor<2x2x256x64xf32> into tensor<4x256x64xf32>
  %v4 = tensor.collapse_shape %vb [[0, 1], [2], [3]] : tensor<2x2x256x64xf32> into tensor<4x256x64xf32>
  %te = tensor.empty() : tensor<4x64x256xf32>
  %kT = linalg.transpose ins(%k4 : tensor<4x256x64xf32>) outs(%te : tensor<4x64x256xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<4x256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<4x256x64xf32>, tensor<4x64x256xf32>) outs(%z : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x256x256xf32>) outs(%e : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %oe = tensor.empty() : tensor<4x256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %o = linalg.batch_matmul ins(%p, %v4 : tensor<4x256x256xf32>, tensor<4x256x64xf32>) outs(%oz : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  return %o : tensor<4x256x64xf32>
}

// -----

// A causal mask's diagonal block is made on the POOL (zeros, then an
// affine_select keeping key f <= query p, -inf elsewhere) instead of being
// loaded from the mask constant; the PE adds it as above.
// CHECK-LABEL: func.func @causal
// CHECK: nki.affine_select %{{.*}} into %[[M:.*]] {cmp = "ge", coefs = array<i64: -1>, fill = 0xFF800000 : f32, offset = 0 : i64, pcoef = 1 : i64} : memref<32x32xbf16, #nki.memory<sbuf>> into memref<32x32xbf16, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[M]] into %[[M]] {imm0 = -3.000000e+38 : f32, op0 = "max"}
// CHECK-NOT: memref<32x32xf32, strided
// CHECK: return
#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal(%q: tensor<32x64xf32>, %k: tensor<32x64xf32>, %v: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %mask = arith.constant dense<"0x00000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF000080FF000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF000080FF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<32x32xf32>
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<32x64xf32>, tensor<32x64xf32>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  %sc = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mask : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %p = linalg.softmax dimension(1) ins(%sc : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %oe = tensor.empty() : tensor<32x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<32x64xf32>) -> tensor<32x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<32x32xf32>, tensor<32x64xf32>) outs(%oz : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %o : tensor<32x64xf32>
}

// -----

// 640 keys are a bank of 512 and one of 128: uneven steps, so the scores
// run four slots (query blocks, here) ahead of the P V matmuls, not three:
// five query blocks' scores come before the first P V matmul.
// CHECK-LABEL: func.func @uneven
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x128xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x128xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x128xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x128xf32, #nki.memory<psum>>
// CHECK-NOT: into memref<128x64xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x128xf32, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} into memref<128x64xf32, #nki.memory<psum>>
// CHECK: return
#qk = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
func.func @uneven(%q: tensor<768x64xf32>, %k: tensor<640x64xf32>, %v: tensor<640x64xf32>) -> tensor<768x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<768x640xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<768x640xf32>) -> tensor<768x640xf32>
  %s = linalg.matmul indexing_maps = #qk ins(%q, %k : tensor<768x64xf32>, tensor<640x64xf32>) outs(%z : tensor<768x640xf32>) -> tensor<768x640xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<768x640xf32>) outs(%e : tensor<768x640xf32>) -> tensor<768x640xf32>
  %oe = tensor.empty() : tensor<768x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%oe : tensor<768x64xf32>) -> tensor<768x64xf32>
  %o = linalg.matmul ins(%p, %v : tensor<768x640xf32>, tensor<640x64xf32>) outs(%oz : tensor<768x64xf32>) -> tensor<768x64xf32>
  return %o : tensor<768x64xf32>
}

// -----

// Torch's nn.MultiheadAttention at batch 2 (sequence first): one [S, N,
// 3E] projection whose thirds, [S, N, E] each, are collapsed to [S, N * E]
// and split into N * heads heads. The slice is no view a reshape can take,
// so bufferization copies it; the kernel reads each head in place instead,
// its batch index split into the image (rows of 384 apart) and the head
// within it (64 apart). No copy is left, and an image's two heads of Q and
// of K come in one [128, 128] load of rows 768 apart, the copies' rows of
// 256 never written or read.
// CHECK-LABEL: func.func @sequence_first
// CHECK-NOT: strided<[256, 1]
// CHECK: nki.dma {{.*}} : memref<128x128xf32, strided<[768, 1], offset: ?>> to memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK: nki.dma {{.*}} : memref<128x64xf32, strided<[768, 1], offset: ?>> to memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK-NOT: strided<[256, 1]
// CHECK: return
// OFF-LABEL: func.func @sequence_first
// OFF: strided<[256, 1]
func.func @sequence_first(%x: tensor<128x2x384xf32>) -> tensor<4x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %qs = tensor.extract_slice %x[0, 0, 0] [128, 2, 128] [1, 1, 1] : tensor<128x2x384xf32> to tensor<128x2x128xf32>
  %ks = tensor.extract_slice %x[0, 0, 128] [128, 2, 128] [1, 1, 1] : tensor<128x2x384xf32> to tensor<128x2x128xf32>
  %vs = tensor.extract_slice %x[0, 0, 256] [128, 2, 128] [1, 1, 1] : tensor<128x2x384xf32> to tensor<128x2x128xf32>
  %qc = tensor.collapse_shape %qs [[0], [1, 2]] : tensor<128x2x128xf32> into tensor<128x256xf32>
  %kc = tensor.collapse_shape %ks [[0], [1, 2]] : tensor<128x2x128xf32> into tensor<128x256xf32>
  %vc = tensor.collapse_shape %vs [[0], [1, 2]] : tensor<128x2x128xf32> into tensor<128x256xf32>
  %qh = tensor.expand_shape %qc [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xf32> into tensor<128x4x64xf32>
  %kh = tensor.expand_shape %kc [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xf32> into tensor<128x4x64xf32>
  %vh = tensor.expand_shape %vc [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xf32> into tensor<128x4x64xf32>
  %qe = tensor.empty() : tensor<4x128x64xf32>
  %q = linalg.transpose ins(%qh : tensor<128x4x64xf32>) outs(%qe : tensor<4x128x64xf32>) permutation = [1, 0, 2]
  %ke = tensor.empty() : tensor<4x64x128xf32>
  %kT = linalg.transpose ins(%kh : tensor<128x4x64xf32>) outs(%ke : tensor<4x64x128xf32>) permutation = [1, 2, 0]
  %ve = tensor.empty() : tensor<4x128x64xf32>
  %v = linalg.transpose ins(%vh : tensor<128x4x64xf32>) outs(%ve : tensor<4x128x64xf32>) permutation = [1, 0, 2]
  %e = tensor.empty() : tensor<4x128x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kT : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%z : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x128x128xf32>) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%qe : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x128x128xf32>, tensor<4x128x64xf32>) outs(%oz : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  return %o : tensor<4x128x64xf32>
}
