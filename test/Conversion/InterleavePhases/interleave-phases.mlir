// nki-interleave-phases: phase slices written with row and column steps
// into a result too large for SBUF (or returned) go unit-stride into a tensor that
// stacks them, and one generic interleaves them
// (lib/Conversion/Graph/InterleavePhases.cpp).
// RUN: nki-opt %s -split-input-file --nki-interleave-phases=min-bytes=0 | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-interleave-phases | FileCheck %s --check-prefix=SMALL

// Phases inserted in any order land at their index i * fw + j; the
// generic reads phase (h mod 2) * 2 + w mod 2 at (h / 2, w / 2). With
// the default limit (half of trn2's SBUF partition) a 256-byte result
// stays as it is: its phases write it in place in SBUF.
// CHECK: #[[$PHASE:.*]] = affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>
// CHECK: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @four(
// CHECK-SAME: %[[P0:[^:]*]]: tensor<1x2x4x4xf32>, %[[P1:[^:]*]]: tensor<1x2x4x4xf32>, %[[P2:[^:]*]]: tensor<1x2x4x4xf32>, %[[P3:[^:]*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG: %[[S:.*]] = tensor.empty() : tensor<4x1x2x4x4xf32>
// CHECK-DAG: %[[Y:.*]] = tensor.empty() : tensor<1x2x8x8xf32>
// CHECK: %[[S0:.*]] = tensor.insert_slice %[[P3]] into %[[S]][3, 0, 0, 0, 0] [1, 1, 2, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[S1:.*]] = tensor.insert_slice %[[P0]] into %[[S0]][0, 0, 0, 0, 0] [1, 1, 2, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[S2:.*]] = tensor.insert_slice %[[P1]] into %[[S1]][1, 0, 0, 0, 0] [1, 1, 2, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[S3:.*]] = tensor.insert_slice %[[P2]] into %[[S2]][2, 0, 0, 0, 0] [1, 1, 2, 4, 4] [1, 1, 1, 1, 1]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$PHASE]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S3]] : tensor<4x1x2x4x4xf32>) outs(%[[Y]] : tensor<1x2x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[X:.*]] = linalg.exp ins(%[[R]] : tensor<1x2x8x8xf32>)
// CHECK: return %[[X]]
// SMALL-LABEL: func.func @four(
// SMALL-COUNT-4: tensor.insert_slice {{.*}} [1, 2, 4, 4] [1, 1, 2, 2]
// SMALL-NOT: linalg.generic
func.func @four(%p0: tensor<1x2x4x4xf32>, %p1: tensor<1x2x4x4xf32>, %p2: tensor<1x2x4x4xf32>, %p3: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p3 into %e[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p0 into %0[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %p1 into %1[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %3 = tensor.insert_slice %p2 into %2[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %o = tensor.empty() : tensor<1x2x8x8xf32>
  %4 = linalg.exp ins(%3 : tensor<1x2x8x8xf32>) outs(%o : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %4 : tensor<1x2x8x8xf32>
}

// -----

// A result the function returns (through a reshape here) is in HBM
// whatever its size: interleaved with the default limit too, not written
// there an element at a time.
// SMALL-LABEL: func.func @returned(
// SMALL-COUNT-2: tensor.insert_slice {{.*}} [1, 1, 2, 4, 4] [1, 1, 1, 1, 1]
// SMALL: %[[R:.*]] = linalg.generic
// SMALL: tensor.collapse_shape %[[R]]
func.func @returned(%p0: tensor<1x2x4x4xf32>, %p1: tensor<1x2x4x4xf32>) -> tensor<2x4x8xf32> {
  %e = tensor.empty() : tensor<1x2x4x8xf32>
  %0 = tensor.insert_slice %p0 into %e[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 2] : tensor<1x2x4x4xf32> into tensor<1x2x4x8xf32>
  %1 = tensor.insert_slice %p1 into %0[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 1, 2] : tensor<1x2x4x4xf32> into tensor<1x2x4x8xf32>
  %2 = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<1x2x4x8xf32> into tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// Steps along the rows only (a 1-D upsample of the height, 3x): three
// phases, phase h mod 3. The result of 1 MiB a partition (ten times more
// than half of an SBUF partition) is interleaved with the default limit
// too; the column maps keep w.
// CHECK: #[[$PHASE:.*]] = affine_map<(d0, d1, d2, d3) -> (d2 mod 3, d0, d1, d2 floordiv 3, d3)>
// CHECK-LABEL: func.func @rows(
// CHECK: tensor.empty() : tensor<3x2x2x32x2048xf32>
// CHECK-COUNT-3: tensor.insert_slice {{.*}} [1, 2, 2, 32, 2048] [1, 1, 1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[$PHASE]],
// SMALL-LABEL: func.func @rows(
// SMALL: linalg.generic
func.func @rows(%p: tensor<2x2x32x2048xf32>) -> tensor<2x2x96x2048xf32> {
  %e = tensor.empty() : tensor<2x2x96x2048xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [2, 2, 32, 2048] [1, 1, 3, 1] : tensor<2x2x32x2048xf32> into tensor<2x2x96x2048xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 1, 0] [2, 2, 32, 2048] [1, 1, 3, 1] : tensor<2x2x32x2048xf32> into tensor<2x2x96x2048xf32>
  %2 = tensor.insert_slice %p into %1[0, 0, 2, 0] [2, 2, 32, 2048] [1, 1, 3, 1] : tensor<2x2x32x2048xf32> into tensor<2x2x96x2048xf32>
  return %2 : tensor<2x2x96x2048xf32>
}

// -----

// Three chains that one op reads (an FPN's upsampled levels summed) are
// live together: 81,920 bytes a partition each, below half of trn2's SBUF
// partition, but 245,760 together, more than SBUF less a kernel's scratch
// (196,608): each is interleaved. Two such chains (163,840 together) stay.
// SMALL-LABEL: func.func @together(
// SMALL-NOT: [1, 1, 1, 2]
// SMALL: tensor.insert_slice {{.*}}[0, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: tensor.insert_slice {{.*}}[1, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: %[[A:.*]] = linalg.generic
// SMALL: tensor.insert_slice {{.*}}[0, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: tensor.insert_slice {{.*}}[1, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: %[[B:.*]] = linalg.generic
// SMALL: tensor.insert_slice {{.*}}[0, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: tensor.insert_slice {{.*}}[1, 0, 0, 0, 0] [1, 1, 2, 160, 64] [1, 1, 1, 1, 1]
// SMALL-NEXT: %[[C:.*]] = linalg.generic
// SMALL: linalg.generic {{.*}} ins(%[[A]], %[[B]], %[[C]] :
// SMALL: arith.addf
// SMALL-LABEL: func.func @pair(
// SMALL-COUNT-4: tensor.insert_slice {{.*}} [1, 1, 1, 2]
// SMALL-NOT: tensor.insert_slice
// SMALL: arith.addf
func.func @together(%p: tensor<1x2x160x64xf32>, %q: tensor<1x2x160x64xf32>, %r: tensor<1x2x160x64xf32>) -> tensor<1x2x160x128xf32> {
  %e0 = tensor.empty() : tensor<1x2x160x128xf32>
  %a0 = tensor.insert_slice %p into %e0[0, 0, 0, 0] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %a1 = tensor.insert_slice %q into %a0[0, 0, 0, 1] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %e1 = tensor.empty() : tensor<1x2x160x128xf32>
  %b0 = tensor.insert_slice %q into %e1[0, 0, 0, 0] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %b1 = tensor.insert_slice %r into %b0[0, 0, 0, 1] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %e2 = tensor.empty() : tensor<1x2x160x128xf32>
  %c0 = tensor.insert_slice %r into %e2[0, 0, 0, 0] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %c1 = tensor.insert_slice %p into %c0[0, 0, 0, 1] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %o = tensor.empty() : tensor<1x2x160x128xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a1, %b1, %c1 : tensor<1x2x160x128xf32>, tensor<1x2x160x128xf32>, tensor<1x2x160x128xf32>) outs(%o : tensor<1x2x160x128xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.addf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x160x128xf32>
  return %s : tensor<1x2x160x128xf32>
}
func.func @pair(%p: tensor<1x2x160x64xf32>, %q: tensor<1x2x160x64xf32>) -> tensor<1x2x160x128xf32> {
  %e0 = tensor.empty() : tensor<1x2x160x128xf32>
  %a0 = tensor.insert_slice %p into %e0[0, 0, 0, 0] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %a1 = tensor.insert_slice %q into %a0[0, 0, 0, 1] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %e1 = tensor.empty() : tensor<1x2x160x128xf32>
  %b0 = tensor.insert_slice %q into %e1[0, 0, 0, 0] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %b1 = tensor.insert_slice %p into %b0[0, 0, 0, 1] [1, 2, 160, 64] [1, 1, 1, 2] : tensor<1x2x160x64xf32> into tensor<1x2x160x128xf32>
  %o = tensor.empty() : tensor<1x2x160x128xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a1, %b1 : tensor<1x2x160x128xf32>, tensor<1x2x160x128xf32>) outs(%o : tensor<1x2x160x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x160x128xf32>
  return %s : tensor<1x2x160x128xf32>
}

// -----

// Left as they are: a phase missing (the other elements would be
// undefined), a phase twice, a slice of some channels only, the partial
// result read before the chain ends, and different steps.
// CHECK-LABEL: func.func @missing(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @missing(%p: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %p into %1[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  return %2 : tensor<1x2x8x8xf32>
}
// CHECK-LABEL: func.func @twice(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @twice(%p: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %p into %1[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %3 = tensor.insert_slice %p into %2[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  return %3 : tensor<1x2x8x8xf32>
}
// CHECK-LABEL: func.func @channels(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @channels(%p: tensor<1x1x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 2, 2] : tensor<1x1x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 0, 1] [1, 1, 4, 4] [1, 1, 2, 2] : tensor<1x1x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %p into %1[0, 0, 1, 0] [1, 1, 4, 4] [1, 1, 2, 2] : tensor<1x1x4x4xf32> into tensor<1x2x8x8xf32>
  %3 = tensor.insert_slice %p into %2[0, 0, 1, 1] [1, 1, 4, 4] [1, 1, 2, 2] : tensor<1x1x4x4xf32> into tensor<1x2x8x8xf32>
  return %3 : tensor<1x2x8x8xf32>
}
// CHECK-LABEL: func.func @partial(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @partial(%p: tensor<1x2x4x4xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %p into %1[0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %3 = tensor.insert_slice %p into %2[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  return %2, %3 : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}
// CHECK-LABEL: func.func @steps(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @steps(%p: tensor<1x2x4x4xf32>, %q: tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32> {
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %0 = tensor.insert_slice %p into %e[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %1 = tensor.insert_slice %p into %0[0, 0, 0, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %2 = tensor.insert_slice %q into %1[0, 0, 1, 0] [1, 2, 4, 8] [1, 1, 2, 1] : tensor<1x2x4x8xf32> into tensor<1x2x8x8xf32>
  return %2 : tensor<1x2x8x8xf32>
}
