// nki-split-batch: the first layers of a batch whose results do not fit in
// SBUF run once per group of images (lib/Conversion/Graph/SplitBatch.cpp,
// the choice in lib/Analysis/BatchGroups.cpp).
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch))' | FileCheck %s
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=1}))' | FileCheck %s --check-prefix=NEVER
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=2}))' | FileCheck %s --check-prefix=FORCED
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{margin=0.1}))' | FileCheck %s --check-prefix=MARGIN
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{pe-bound-margin=1.5}))' | FileCheck %s --check-prefix=PEMARGIN
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{barrier-us=100}))' | FileCheck %s --check-prefix=BARRIER

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#col = affine_map<(n, c, h, w) -> (c)>
#sum = affine_map<(n, c, h, w) -> (n, c)>

// 128 channels of 64 x 128 f32 at batch 2: 64 KiB a partition, more than a
// quarter of trn2's; one image's 32 KiB fit. Two elementwise passes over
// them are bound by their HBM round trips (128 lanes a pass), so they run
// per image, reading slices of the input, and so does the pooling that
// reads the second (no result that does not fit is read after the split):
// the pooled [1, 128] vectors are concatenated. The bias is shared.
// CHECK-LABEL: func.func @dma_bound(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x128x64x128xf32>, %[[B:[^:]*]]: tensor<128xf32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 128, 64, 128] [1, 1, 1, 1] : tensor<2x128x64x128xf32> to tensor<1x128x64x128xf32>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<1x128x64x128xf32>
// CHECK: %[[A0:.*]] = linalg.generic {{.*}} ins(%[[X0]], %[[B]] : tensor<1x128x64x128xf32>, tensor<128xf32>) outs(%[[E0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[R0:.*]] = linalg.generic {{.*}} ins(%[[A0]] : tensor<1x128x64x128xf32>) outs(%[[E0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} -> tensor<1x128xf32>
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} ins(%[[R0]] : tensor<1x128x64x128xf32>) outs(%[[F0]] : tensor<1x128xf32>)
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[X]][1, 0, 0, 0] [1, 128, 64, 128] [1, 1, 1, 1]
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x128x64x128xf32>
// CHECK: %[[A1:.*]] = linalg.generic {{.*}} ins(%[[X1]], %[[B]] :
// CHECK: %[[R1:.*]] = linalg.generic {{.*}} ins(%[[A1]] :
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} ins(%[[R1]] :
// CHECK: %[[W:.*]] = tensor.empty() : tensor<2x128xf32>
// CHECK: %[[W0:.*]] = tensor.insert_slice %[[P0]] into %[[W]][0, 0] [1, 128] [1, 1]
// CHECK: %[[W1:.*]] = tensor.insert_slice %[[P1]] into %[[W0]][1, 0] [1, 128] [1, 1]
// CHECK: return %[[W1]]
// NEVER-LABEL: func.func @dma_bound(
// NEVER-NOT: tensor.extract_slice
// NEVER-NOT: tensor.insert_slice
func.func @dma_bound(%x: tensor<2x128x64x128xf32>, %b: tensor<128xf32>) -> tensor<2x128xf32> {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<2x128x64x128xf32>, tensor<128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %i, %z : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<2x128xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<2x128xf32>) -> tensor<2x128xf32>
  %p = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%r : tensor<2x128x64x128xf32>) outs(%pf : tensor<2x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x128xf32>
  return %p : tensor<2x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Eight channels: a pass uses 8 lanes of the vector engines, and its time
// is more than its HBM round trip's: nothing is split, though 2 x 8 x 64 x
// 128 f32 (64 KiB a partition) does not fit. groups=2 splits it anyway.
// CHECK-LABEL: func.func @compute_bound(
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x8x64x128xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: return
// NEVER-LABEL: func.func @compute_bound(
// With a margin of 0.1 the HBM time saved is enough: split by the time rule.
// MARGIN-LABEL: func.func @compute_bound(
// MARGIN-COUNT-4: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x64x128xf32>)
// FORCED-LABEL: func.func @compute_bound(
// FORCED-COUNT-4: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x64x128xf32>)
// FORCED: %[[W0:.*]] = tensor.insert_slice
// FORCED: %[[W1:.*]] = tensor.insert_slice {{.*}} into %[[W0]][1, 0, 0, 0]
// FORCED: return %[[W1]]
func.func @compute_bound(%x: tensor<2x8x64x128xf32>) -> tensor<2x8x64x128xf32> {
  %e = tensor.empty() : tensor<2x8x64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x8x64x128xf32>) outs(%e : tensor<2x8x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x8x64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x8x64x128xf32>) outs(%e : tensor<2x8x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x8x64x128xf32>
  return %r : tensor<2x8x64x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#first = affine_map<(n, c, h, w) -> (0, c, h, w)>

// An op that reads image 0 for every image (not per image) ends the ops
// that can run per group; the exp's result, which does not fit, would
// cross the split to it at the whole batch: nothing is split.
// CHECK-LABEL: func.func @broadcast_image(
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @broadcast_image(%x: tensor<2x128x64x128xf32>) -> tensor<2x128x64x128xf32> {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %r = linalg.generic {indexing_maps = [#first, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  return %r : tensor<2x128x64x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A batch of one: nothing to split.
// CHECK-LABEL: func.func @one_image(
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @one_image(%x: tensor<1x128x128x128xf32>) -> tensor<1x128x128x128xf32> {
  %e = tensor.empty() : tensor<1x128x128x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x128x128x128xf32>) outs(%e : tensor<1x128x128x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<1x128x128x128xf32>
  return %a : tensor<1x128x128x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Slices of the channels (a depthwise convolution's blocks) run per group
// too, their sizes with the group's images.
// FORCED-LABEL: func.func @channel_blocks(
// FORCED: %[[X0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 144, 64, 64]
// FORCED: tensor.extract_slice %[[X0]][0, 0, 0, 0] [1, 128, 64, 64] [1, 1, 1, 1] : tensor<1x144x64x64xf32> to tensor<1x128x64x64xf32>
// FORCED: tensor.extract_slice %[[X0]][0, 128, 0, 0] [1, 16, 64, 64] [1, 1, 1, 1] : tensor<1x144x64x64xf32> to tensor<1x16x64x64xf32>
// FORCED: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 128, 64, 64] [1, 1, 1, 1] : tensor<1x128x64x64xf32> into tensor<1x144x64x64xf32>
// FORCED: tensor.insert_slice %{{.*}} into %{{.*}}[0, 128, 0, 0] [1, 16, 64, 64] [1, 1, 1, 1] : tensor<1x16x64x64xf32> into tensor<1x144x64x64xf32>
// FORCED: tensor.extract_slice %arg0[1, 0, 0, 0] [1, 144, 64, 64]
// FORCED: %[[W0:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 144, 64, 64] [1, 1, 1, 1] : tensor<1x144x64x64xf32> into tensor<2x144x64x64xf32>
// FORCED: %[[W1:.*]] = tensor.insert_slice %{{.*}} into %[[W0]][1, 0, 0, 0] [1, 144, 64, 64]
// FORCED: return %[[W1]]
func.func @channel_blocks(%x: tensor<2x144x64x64xf32>) -> tensor<2x144x64x64xf32> {
  %a = tensor.extract_slice %x[0, 0, 0, 0] [2, 128, 64, 64] [1, 1, 1, 1] : tensor<2x144x64x64xf32> to tensor<2x128x64x64xf32>
  %b = tensor.extract_slice %x[0, 128, 0, 0] [2, 16, 64, 64] [1, 1, 1, 1] : tensor<2x144x64x64xf32> to tensor<2x16x64x64xf32>
  %ea = tensor.empty() : tensor<2x128x64x64xf32>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x128x64x64xf32>) outs(%ea : tensor<2x128x64x64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x64xf32>
  %eb = tensor.empty() : tensor<2x16x64x64xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<2x16x64x64xf32>) outs(%eb : tensor<2x16x64x64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x16x64x64xf32>
  %e = tensor.empty() : tensor<2x144x64x64xf32>
  %0 = tensor.insert_slice %ra into %e[0, 0, 0, 0] [2, 128, 64, 64] [1, 1, 1, 1] : tensor<2x128x64x64xf32> into tensor<2x144x64x64xf32>
  %1 = tensor.insert_slice %rb into %0[0, 128, 0, 0] [2, 16, 64, 64] [1, 1, 1, 1] : tensor<2x16x64x64xf32> into tensor<2x144x64x64xf32>
  return %1 : tensor<2x144x64x64xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#sum = affine_map<(n, c, h, w) -> (n, c)>
#v = affine_map<(n, c) -> (n, c)>

// %t reads only the pooled sums, which fit, and nothing the groups need
// reads it: it moves after the split and runs once on the whole batch,
// while %u, after it in the function, reads the large %a and stays in the
// groups.
// FORCED-LABEL: func.func @sink(
// FORCED-NOT: ins(%{{[^ ]*}} : tensor<1x128xf32>)
// FORCED: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x128x64x128xf32>) outs(%{{.*}} : tensor<1x128xf32>)
// FORCED: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x128x64x128xf32>, tensor<1x128x64x128xf32>)
// FORCED-NOT: ins(%{{[^ ]*}} : tensor<1x128xf32>)
// FORCED: tensor.insert_slice {{.*}} : tensor<1x128xf32> into tensor<2x128xf32>
// FORCED: %[[S:.*]] = tensor.insert_slice {{.*}} : tensor<1x128xf32> into tensor<2x128xf32>
// FORCED: linalg.generic {{.*}} ins(%[[S]] : tensor<2x128xf32>) outs(%{{.*}} : tensor<2x128xf32>)
func.func @sink(%x: tensor<2x128x64x128xf32>) -> (tensor<2x128xf32>, tensor<2x128x64x128xf32>) {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<2x128xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<2x128xf32>) -> tensor<2x128xf32>
  %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a : tensor<2x128x64x128xf32>) outs(%pf : tensor<2x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x128xf32>
  %t = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<2x128xf32>) outs(%pe : tensor<2x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %x : tensor<2x128x64x128xf32>, tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.addf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<2x128x64x128xf32>
  return %t, %u : tensor<2x128xf32>, tensor<2x128x64x128xf32>
}


// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Two f32 1x3 convolutions of 128 channels, each with its ReLU: the PE's
// time is six times the vector engines' per engine, so the HBM time of
// their 64 KiB results, less than 1.5 times their compute but more than a
// quarter of it, splits them (the groups one after another); with the
// PE-bound margin at 1.5 they stay whole.
// CHECK-LABEL: func.func @pe_bound(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x128x64x128xf32>, %[[W1:[^:]*]]: tensor<128x1x3x128xf32>, %[[W2:[^:]*]]: tensor<128x1x3x128xf32>
// CHECK-SAME: pe_bound = true
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 128, 64, 128]
// CHECK: ins(%{{.*}}, %[[W1]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W2]] : tensor<1x128x64x126xf32>
// CHECK: tensor.extract_slice %[[X]][1, 0, 0, 0] [1, 128, 64, 128]
// CHECK: ins(%{{.*}}, %[[W1]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W2]] : tensor<1x128x64x126xf32>
// CHECK: tensor.insert_slice
// PEMARGIN-LABEL: func.func @pe_bound(
// PEMARGIN-NOT: tensor.extract_slice
// PEMARGIN: return
func.func @pe_bound(%x: tensor<2x128x64x128xf32>, %w1: tensor<128x1x3x128xf32>, %w2: tensor<128x1x3x128xf32>) -> tensor<2x128x64x124xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x128x64x126xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x128x64x126xf32>) -> tensor<2x128x64x126xf32>
  %e2 = tensor.empty() : tensor<2x128x64x124xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x128x64x124xf32>) -> tensor<2x128x64x124xf32>
  %c1 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<2x128x64x128xf32>, tensor<128x1x3x128xf32>) outs(%z1 : tensor<2x128x64x126xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x126xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<2x128x64x126xf32>) outs(%e1 : tensor<2x128x64x126xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x126xf32>
  %c2 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%r1, %w2 : tensor<2x128x64x126xf32>, tensor<128x1x3x128xf32>) outs(%z2 : tensor<2x128x64x124xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x124xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<2x128x64x124xf32>) outs(%e2 : tensor<2x128x64x124xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x124xf32>
  return %r2 : tensor<2x128x64x124xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rows = affine_map<(r, p) -> (r, p)>
#row = affine_map<(r, p) -> (r)>

// @dma_bound's pass with the global pooling in the importer's form: the
// batch and channels merged into 256 rows, 128 per image. The collapse is
// as large as the pass's result, so the pooling that reads it runs per
// image too, on the image's 128 rows, summing into a zero fill of its own
// (not a slice of the whole batch's fill, which the convolutions computing
// a pooling's source could not take over); the pooled rows are
// concatenated.
// CHECK-LABEL: func.func @rows_pooling(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x128x64x128xf32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 128, 64, 128]
// CHECK: %[[R0:.*]] = linalg.generic {{.*}} ins(%[[X0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[C0:.*]] = tensor.collapse_shape %[[R0]] {{\[}}[0, 1], [2, 3]] : tensor<1x128x64x128xf32> into tensor<128x8192xf32>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<128xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<128xf32>) -> tensor<128xf32>
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} ins(%[[C0]] : tensor<128x8192xf32>) outs(%[[F0]] : tensor<128xf32>)
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[X]][1, 0, 0, 0] [1, 128, 64, 128]
// CHECK: %[[C1:.*]] = tensor.collapse_shape {{.*}} into tensor<128x8192xf32>
// CHECK: %[[P1:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<128x8192xf32>) outs(%{{.*}} : tensor<128xf32>)
// CHECK: %[[W:.*]] = tensor.empty() : tensor<256xf32>
// CHECK: %[[W0:.*]] = tensor.insert_slice %[[P0]] into %[[W]][0] [128] [1]
// CHECK: %[[W1:.*]] = tensor.insert_slice %[[P1]] into %[[W0]][128] [128] [1]
// CHECK: %[[V:.*]] = tensor.expand_shape %[[W1]] {{\[}}[0, 1, 2, 3]] output_shape [2, 128, 1, 1]
// CHECK: return %[[V]]
// NEVER-LABEL: func.func @rows_pooling(
// NEVER-NOT: tensor.extract_slice
// With 100 us of drain a pooling and group, the split costs more than the
// HBM time it saves.
// BARRIER-LABEL: func.func @rows_pooling(
// BARRIER-NOT: tensor.extract_slice
// BARRIER: tensor.collapse_shape {{.*}} into tensor<256x8192xf32>
// BARRIER-NOT: tensor.insert_slice
func.func @rows_pooling(%x: tensor<2x128x64x128xf32>) -> tensor<2x128x1x1xf32> {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %i, %z : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %c = tensor.collapse_shape %r [[0, 1], [2, 3]] : tensor<2x128x64x128xf32> into tensor<256x8192xf32>
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<256xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<256xf32>) -> tensor<256xf32>
  %p = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<256x8192xf32>) outs(%pf : tensor<256xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %v = tensor.expand_shape %p [[0, 1, 2, 3]] output_shape [2, 128, 1, 1] : tensor<256xf32> into tensor<2x128x1x1xf32>
  return %v : tensor<2x128x1x1xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#sum = affine_map<(n, c, h, w) -> (n, c)>

// A pad of a result that does not fit is as large: the op reading it runs
// per group too, so the padded tensor never crosses the split at the
// whole batch (it would go through HBM). Only the pooled [1, 128] vectors
// are concatenated.
// FORCED-LABEL: func.func @padded_reader(
// FORCED: %[[R0:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x128x64x128xf32>)
// FORCED: %[[P0:.*]] = tensor.pad %[[R0]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// FORCED: linalg.generic {{.*}} ins(%[[P0]] : tensor<1x128x66x130xf32>) outs(%{{.*}} : tensor<1x128xf32>)
// FORCED: tensor.pad
// FORCED-SAME: low[0, 0, 1, 1]
// FORCED-NOT: tensor<2x128x66x130xf32>
// FORCED: tensor.insert_slice {{.*}} : tensor<1x128xf32> into tensor<2x128xf32>
// Only the importer's [N * C, H * W] pooling counts as a barrier: this
// 4-D one splits at barrier-us=100 too.
// BARRIER-LABEL: func.func @padded_reader(
// BARRIER: tensor.insert_slice {{.*}} : tensor<1x128xf32> into tensor<2x128xf32>
func.func @padded_reader(%x: tensor<2x128x64x128xf32>) -> tensor<2x128xf32> {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x128x64x128xf32> to tensor<2x128x66x130xf32>
  %pe = tensor.empty() : tensor<2x128xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<2x128xf32>) -> tensor<2x128xf32>
  %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%p : tensor<2x128x66x130xf32>) outs(%pf : tensor<2x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %a = arith.addf %i, %o : f32
    linalg.yield %a : f32
  } -> tensor<2x128xf32>
  return %s : tensor<2x128xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Four f32 1x1 convolutions of 128 channels, each with its ReLU: the PE's
// time is six times the vector engines' per engine, so the HBM time of
// their 64 KiB results (more than a quarter of it) splits them, and the
// second group starts when the first is half way: its first convolution
// comes before the first group's last.
// CHECK-LABEL: func.func @overlap(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x128x64x128xf32>, %[[W1:[^:]*]]: tensor<128x1x1x128xf32>, %[[W2:[^:]*]]: tensor<128x1x1x128xf32>, %[[W3:[^:]*]]: tensor<128x1x1x128xf32>, %[[W4:[^:]*]]: tensor<128x1x1x128xf32>
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 128, 64, 128]
// CHECK: ins(%{{.*}}, %[[W1]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W2]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W3]] : tensor<1x128x64x128xf32>
// CHECK: tensor.extract_slice %[[X]][1, 0, 0, 0] [1, 128, 64, 128]
// CHECK: ins(%{{.*}}, %[[W1]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W4]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W2]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W3]] : tensor<1x128x64x128xf32>
// CHECK: ins(%{{.*}}, %[[W4]] : tensor<1x128x64x128xf32>
// CHECK: tensor.insert_slice
// NEVER-LABEL: func.func @overlap(
// NEVER-NOT: tensor.extract_slice
func.func @overlap(%x: tensor<2x128x64x128xf32>, %w1: tensor<128x1x1x128xf32>, %w2: tensor<128x1x1x128xf32>, %w3: tensor<128x1x1x128xf32>, %w4: tensor<128x1x1x128xf32>) -> tensor<2x128x64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x128x64x128xf32>) -> tensor<2x128x64x128xf32>
  %c1 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<2x128x64x128xf32>, tensor<128x1x1x128xf32>) outs(%z : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x128xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %c2 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%r1, %w2 : tensor<2x128x64x128xf32>, tensor<128x1x1x128xf32>) outs(%z : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x128xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %c3 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%r2, %w3 : tensor<2x128x64x128xf32>, tensor<128x1x1x128xf32>) outs(%z : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x128xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3 : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  %c4 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%r3, %w4 : tensor<2x128x64x128xf32>, tensor<128x1x1x128xf32>) outs(%z : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64x128xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c4 : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  return %r4 : tensor<2x128x64x128xf32>
}
