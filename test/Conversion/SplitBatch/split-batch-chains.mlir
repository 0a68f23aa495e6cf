// nki-split-batch's chains: above `chain-images` images the whole network
// once per chain, one chain after another, each split as the pass splits a
// batch of its size (named as a second candidate, which nki-compile
// compiles too; taking the place of a prefix that holds most of the
// network in more groups; or forced); and values computed from no image
// (an empty tensor, a fill, a filter built from constants) shared by the
// groups whatever their shape (lib/Analysis/BatchGroups.cpp).
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch))' | FileCheck %s
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{chains=2}))' | FileCheck %s --check-prefix=FORCED
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{chain-images=0}))' | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{chains=1}))' | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=4}))' | FileCheck %s --check-prefix=FILTER

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// 16 images of 128 channels of 32 x 32 f32: 64 KiB a partition, more than
// a quarter of trn2's (48 KiB); eight images fit. A second exp reads the
// first exp's result, the last one the function returns. The pass's own
// choice: the prefix (both exps, all of the compute) in 2 groups, not more
// than the 2 chains of 8 images, which are then the second candidate.
// CHECK-LABEL: func.func @sixteen(
// CHECK-SAME: alternative_chains = 2 : i64, chains = 1 : i64
// CHECK-SAME: groups = 2 : i64
// CHECK-COUNT-2: tensor.extract_slice
// Forced, two chains of 8 images, each with nothing to split: each exp
// once per chain on its slice, and the last results concatenated.
// FORCED-LABEL: func.func @sixteen(
// FORCED-SAME: %[[X:[^:]*]]: tensor<16x128x32x32xf32>
// FORCED-SAME: alternative_chains = 0 : i64, chains = 2 : i64
// FORCED-SAME: why = "every result fits with the whole batch"
// FORCED: %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [8, 128, 32, 32] [1, 1, 1, 1]
// FORCED: %[[A0:.*]] = linalg.generic {{.*}} ins(%[[X0]] : tensor<8x128x32x32xf32>)
// FORCED: %[[B0:.*]] = linalg.generic {{.*}} ins(%[[A0]] : tensor<8x128x32x32xf32>)
// FORCED: %[[X1:.*]] = tensor.extract_slice %[[X]][8, 0, 0, 0] [8, 128, 32, 32] [1, 1, 1, 1]
// FORCED: %[[A1:.*]] = linalg.generic {{.*}} ins(%[[X1]] : tensor<8x128x32x32xf32>)
// FORCED: %[[B1:.*]] = linalg.generic {{.*}} ins(%[[A1]] : tensor<8x128x32x32xf32>)
// FORCED: %[[W0:.*]] = tensor.insert_slice %[[B0]] into %{{.*}}[0, 0, 0, 0] [8, 128, 32, 32]
// FORCED: %[[W1:.*]] = tensor.insert_slice %[[B1]] into %[[W0]][8, 0, 0, 0] [8, 128, 32, 32]
// FORCED: return %[[W1]]
// OFF-LABEL: func.func @sixteen(
// OFF-SAME: alternative_chains = 0 : i64, chains = 1 : i64
func.func @sixteen(%x: tensor<16x128x32x32xf32>) -> tensor<16x128x32x32xf32> {
  %e = tensor.empty() : tensor<16x128x32x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<16x128x32x32xf32>) outs(%e : tensor<16x128x32x32xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<16x128x32x32xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<16x128x32x32xf32>) outs(%e : tensor<16x128x32x32xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<16x128x32x32xf32>
  return %b : tensor<16x128x32x32xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#filter = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#w = affine_map<(c, kh, kw, f) -> (c, kh, kw)>
#all = affine_map<(c, kh, kw, f) -> (c, kh, kw, f)>

// A 4-channel depthwise convolution at batch 4, its diagonal filter
// [4, 3, 3, 4] built from its weights as the importer builds it: the
// filter's first dim is the batch's size, but it is computed from no image
// and read along the channels, not the batch. It is one value the groups
// share (taken for a batch value that no group could slice, it kept the
// convolution from being split at all). The convolution's result (128 KiB
// a partition) is the one layer weighed: the time rule declines it (the
// PE estimate of a dense convolution over the diagonal), 4 groups forced
// take it.
// CHECK-LABEL: func.func @diagonal_filter(
// CHECK-SAME: of its 1 ops
// FILTER-LABEL: func.func @diagonal_filter(
// FILTER-SAME: %[[X:[^:]*]]: tensor<4x4x66x130xf32>
// FILTER-SAME: groups = 4 : i64
// FILTER: %[[F:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x3x3xf32>) outs(%{{.*}} : tensor<4x3x3x4xf32>)
// FILTER: %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 66, 130]
// FILTER: linalg.generic {{.*}} ins(%[[X0]], %[[F]] : tensor<1x4x66x130xf32>, tensor<4x3x3x4xf32>)
// FILTER: %[[X1:.*]] = tensor.extract_slice %[[X]][1, 0, 0, 0] [1, 4, 66, 130]
// FILTER: linalg.generic {{.*}} ins(%[[X1]], %[[F]] : tensor<1x4x66x130xf32>, tensor<4x3x3x4xf32>)
// FILTER-NOT: tensor<4x3x3x4xf32> to
// FILTER: return
func.func @diagonal_filter(%x: tensor<4x4x66x130xf32>) -> tensor<4x4x64x128xf32> {
  %wts = arith.constant dense<0.5> : tensor<4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %fe = tensor.empty() : tensor<4x3x3x4xf32>
  %f = linalg.generic {indexing_maps = [#w, #all], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wts : tensor<4x3x3xf32>) outs(%fe : tensor<4x3x3x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = linalg.index 0 : index
    %k = linalg.index 3 : index
    %eq = arith.cmpi eq, %c, %k : index
    %s = arith.select %eq, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x4xf32>
  %e = tensor.empty() : tensor<4x4x64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4x64x128xf32>) -> tensor<4x4x64x128xf32>
  %y = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %f : tensor<4x4x66x130xf32>, tensor<4x3x3x4xf32>) outs(%init : tensor<4x4x64x128xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4x64x128xf32>
  return %y : tensor<4x4x64x128xf32>
}
