// nki-prepare-graph: entry selection, checks and rewrites.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph -verify-diagnostics | FileCheck %s

// Softmax is decomposed into reductions and elementwise generics.
// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Only the entry is kept.
// CHECK-LABEL: func.func @main
// CHECK-NOT: func.func @unused
// CHECK: return %arg0
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// The only public function is the entry when there is no main.
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{cannot choose the entry function: no 'main' and 2 public functions; pass --entry=NAME}}
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
}

// -----

// expected-error @+1 {{argument #0 has dynamic shape 'tensor<?x4xf32>'; static shapes are required}}
func.func @main(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0 has element type 'f64'; supported: f32, bf16}}
func.func @main(%x: tensor<4xf64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0 has type 'tensor<4x3xf4E2M1FN>'; f4E2M1FN tensors are stored two values a byte, so their innermost dim must be even}}
func.func @main(%x: tensor<4x3xf4E2M1FN>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @main(%v: f32) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.splat' op is not supported by the nki compiler}}
  %s = tensor.splat %v : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// tensor.concat is decomposed into insert_slices of a fresh tensor.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.concat
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 4] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[2, 0] [3, 4] [1, 1]
func.func @main(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %c : tensor<5x4xf32>
}

// -----

// A concat of more than 32 parts is split into concats of at most 32
// (bufferizing one long insert_slice chain is cubic in its length), then
// decomposed: 32 rows into one tensor, 8 into another, both into the result.
// CHECK-LABEL: func.func @long_concat
// CHECK-COUNT-32: tensor.insert_slice {{.*}} into tensor<32x4xf32>
// CHECK-COUNT-8: tensor.insert_slice {{.*}} into tensor<8x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [32, 4] [1, 1] : tensor<32x4xf32> into tensor<40x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[32, 0] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<40x4xf32>
// CHECK-NOT: tensor.concat
func.func @long_concat(%a: tensor<40x4xf32>) -> tensor<40x4xf32> {
  %r0 = tensor.extract_slice %a[39, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r1 = tensor.extract_slice %a[38, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r2 = tensor.extract_slice %a[37, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r3 = tensor.extract_slice %a[36, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r4 = tensor.extract_slice %a[35, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r5 = tensor.extract_slice %a[34, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r6 = tensor.extract_slice %a[33, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r7 = tensor.extract_slice %a[32, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r8 = tensor.extract_slice %a[31, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r9 = tensor.extract_slice %a[30, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r10 = tensor.extract_slice %a[29, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r11 = tensor.extract_slice %a[28, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r12 = tensor.extract_slice %a[27, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r13 = tensor.extract_slice %a[26, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r14 = tensor.extract_slice %a[25, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r15 = tensor.extract_slice %a[24, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r16 = tensor.extract_slice %a[23, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r17 = tensor.extract_slice %a[22, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r18 = tensor.extract_slice %a[21, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r19 = tensor.extract_slice %a[20, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r20 = tensor.extract_slice %a[19, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r21 = tensor.extract_slice %a[18, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r22 = tensor.extract_slice %a[17, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r23 = tensor.extract_slice %a[16, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r24 = tensor.extract_slice %a[15, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r25 = tensor.extract_slice %a[14, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r26 = tensor.extract_slice %a[13, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r27 = tensor.extract_slice %a[12, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r28 = tensor.extract_slice %a[11, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r29 = tensor.extract_slice %a[10, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r30 = tensor.extract_slice %a[9, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r31 = tensor.extract_slice %a[8, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r32 = tensor.extract_slice %a[7, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r33 = tensor.extract_slice %a[6, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r34 = tensor.extract_slice %a[5, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r35 = tensor.extract_slice %a[4, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r36 = tensor.extract_slice %a[3, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r37 = tensor.extract_slice %a[2, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r38 = tensor.extract_slice %a[1, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r39 = tensor.extract_slice %a[0, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %c = tensor.concat dim(0) %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38, %r39 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<40x4xf32>
  return %c : tensor<40x4xf32>
}

// -----

// A transpose that moves only size-1 dims (batch-first to sequence-first
// at batch 1) keeps the element order: a reshape, not a copy.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-NOT: linalg.transpose
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
func.func @transpose_of_unit_dims(%x: tensor<1x4x8xf32>) -> tensor<4x1x8xf32> {
  %e = tensor.empty() : tensor<4x1x8xf32>
  %t = linalg.transpose ins(%x : tensor<1x4x8xf32>) outs(%e : tensor<4x1x8xf32>) permutation = [1, 0, 2]
  return %t : tensor<4x1x8xf32>
}

// -----

// A transpose of two dims of size > 1 stays.
// CHECK-LABEL: func.func @real_transpose
// CHECK: linalg.transpose
func.func @real_transpose(%x: tensor<1x4x8xf32>) -> tensor<8x1x4xf32> {
  %e = tensor.empty() : tensor<8x1x4xf32>
  %t = linalg.transpose ins(%x : tensor<1x4x8xf32>) outs(%e : tensor<8x1x4xf32>) permutation = [2, 0, 1]
  return %t : tensor<8x1x4xf32>
}

// -----

// A reshape of [S, 1, H] to [S, heads, d] imported through the flat
// [S * H] goes through [S, H] instead, which a strided slice (one of q, k,
// v of a fused projection) can take as a view.
// CHECK-LABEL: func.func @reshape_through_common_shape
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x1x8xf32> into tensor<4x8xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
// CHECK-NOT: tensor<32xf32>
func.func @reshape_through_common_shape(%x: tensor<4x1x24xf32>) -> tensor<4x2x4xf32> {
  %s = tensor.extract_slice %x[0, 0, 8] [4, 1, 8] [1, 1, 1] : tensor<4x1x24xf32> to tensor<4x1x8xf32>
  %f = tensor.collapse_shape %s [[0, 1, 2]] : tensor<4x1x8xf32> into tensor<32xf32>
  %r = tensor.expand_shape %f [[0, 1, 2]] output_shape [4, 2, 4] : tensor<32xf32> into tensor<4x2x4xf32>
  return %r : tensor<4x2x4xf32>
}

// -----

// A body reading a computed tensor at computed indices (what tosa.reverse
// lowers to) has no kernel: rejected here, at that op, before bufferization.
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c7, %j : index
    // expected-error @+1 {{'tensor.extract' op reads a tensor at computed indices inside a linalg body (a gather, a reversal or another data-dependent access), which the nki compiler does not support}}
    %x = tensor.extract %a[%i, %k] : tensor<4x8xf32>
    linalg.yield %x : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
