// RUN: nki-opt %s -split-input-file --nki-unshare-partial-tensors | FileCheck %s

// Two tensors built alike from a tensor.empty share their first piece
// (as CSE leaves two gathers whose constant indices start alike): the
// second user gets its own empty tensor and its own copy of that piece.
// CHECK-LABEL: func.func @shared_prefix
// CHECK:       %[[E1:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:       %[[P1:.*]] = tensor.insert_slice %[[S:.*]] into %[[E1]][0, 0]
// CHECK:       %[[Y1:.*]] = tensor.insert_slice %{{.*}} into %[[P1]][0, 1]
// CHECK:       %[[E2:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:       %[[P2:.*]] = tensor.insert_slice %[[S]] into %[[E2]][0, 0]
// CHECK:       %[[Y2:.*]] = tensor.insert_slice %{{.*}} into %[[P2]][0, 1]
// CHECK:       return %[[Y1]], %[[Y2]]
func.func @shared_prefix(%a: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %s3 = tensor.extract_slice %a[0, 3] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %s0 = tensor.extract_slice %a[0, 0] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %s1 = tensor.extract_slice %a[0, 1] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %p = tensor.insert_slice %s3 into %e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y1 = tensor.insert_slice %s0 into %p[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y2 = tensor.insert_slice %s1 into %p[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  return %y1, %y2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A fully defined destination (an argument) is left alone: bufferization's
// copy of it reads defined data. So is a chain with one user.
// CHECK-LABEL: func.func @defined_dest
// CHECK-COUNT-3: tensor.insert_slice
// CHECK-NOT:     tensor.insert_slice
// CHECK-NOT:     tensor.empty
func.func @defined_dest(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %p = tensor.insert_slice %b into %a[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y1 = tensor.insert_slice %b into %p[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y2 = tensor.insert_slice %b into %p[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  return %y1, %y2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// One zero fill (CSE merged them) as the init of two matmuls and read as an
// input: each matmul gets its own fill of its own empty tensor, built right
// before it, so that bufferization copies no filled buffer and nki-tile
// sees each fill as its matmul's start flag; the input use keeps the
// original.
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x4xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F1]] : tensor<4x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
// CHECK: linalg.add ins(%{{.*}}, %[[F]] : tensor<4x4xf32>, tensor<4x4xf32>)
func.func @shared_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%m1, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.add ins(%m2, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// A fill used by one op is left alone.
// CHECK-LABEL: func.func @single_fill
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @single_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

// An empty tensor that is the init of two elementwise ops: the second gets
// its own, so that bufferization gives the two results two buffers.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[R:.*]] = linalg.exp ins(%{{.*}} : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: linalg.add ins(%[[R]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[E2]] : tensor<4x4xf32>)
func.func @shared_empty(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.exp ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.add ins(%r, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// An empty tensor that starts two insert chains (two upsampled parts of a
// convolution's concat) and is the init of their sum: each chain and the
// sum get their own, so that bufferization gives each its own buffer.
// CHECK-LABEL: func.func @shared_chain_start
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x4x4xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 2, 2]
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<1x2x4x4xf32>
// CHECK: %[[B:.*]] = tensor.insert_slice %{{.*}} into %[[E2]][0, 0, 0, 1] [1, 2, 2, 2] [1, 1, 2, 2]
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<1x2x4x4xf32>
// CHECK: linalg.add ins(%[[A]], %[[B]] : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%[[E3]] : tensor<1x2x4x4xf32>)
func.func @shared_chain_start(%a: tensor<1x2x2x2xf32>, %b: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %x = tensor.insert_slice %a into %e[0, 0, 0, 0] [1, 2, 2, 2] [1, 1, 2, 2] : tensor<1x2x2x2xf32> into tensor<1x2x4x4xf32>
  %y = tensor.insert_slice %b into %e[0, 0, 0, 1] [1, 2, 2, 2] [1, 1, 2, 2] : tensor<1x2x2x2xf32> into tensor<1x2x4x4xf32>
  %s = linalg.add ins(%x, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %s : tensor<1x2x4x4xf32>
}
