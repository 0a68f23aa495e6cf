// nki-split-batch's windows: where splitting the first layers does not pay,
// the few layers around a result too large for the resident plan (more
// than half an SBUF partition) run once per group of images, the layers
// before and after them on the whole batch (lib/Analysis/BatchGroups.cpp).
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch))' | FileCheck %s
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{windows=false}))' | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{window-margin=4 traffic-ratio=0}))' | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{window-margin=4}))' | FileCheck %s --check-prefix=TRAFFIC
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=1}))' | FileCheck %s --check-prefix=OFF

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rev = affine_map<(n, c, h, w) -> (-n + 3, c, h, w)>
#cin = affine_map<(n, f, h, w, c) -> (n, c, h, w)>
#wgt = affine_map<(n, f, h, w, c) -> (c, f)>
#cout = affine_map<(n, f, h, w, c) -> (n, f, h, w)>
#rows = affine_map<(r, p) -> (r, p)>
#row = affine_map<(r, p) -> (r)>

// The function's first op reverses the images (a batch op that cannot run
// per group): nothing from the function's start is split. Three passes
// over two channels follow (bf16, 64 KiB a partition: more than a quarter,
// less than half, so the resident plan keeps them; no window). Then a 1x1
// convolution 2 -> 128 and its epilogue: 4 x 128 x 64 x 128 f32, 128 KiB a
// partition, more than half, read by one more pass as large, whose result
// a squeeze's rows (N x C of them) reduce. Their 67 MB of HBM traffic (182
// us) against 63 us of compute (the PE's 55, and 5 us a group for the
// squeeze): the window from the convolution's product to the squeeze's
// reshape back runs in four groups of one image (32 KiB a partition; two
// images' 64 KiB would not fit a quarter), each reading its slice of the
// third pass's result and filling an accumulator of its own, the rows and
// their sum with it. Only the squeezed [1, 128] vectors are concatenated.
// CHECK-LABEL: func.func @window(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x2x64x128xf32>
// CHECK-SAME: nki.batch_groups = {alternative = 0 : i64, alternative_chains = 0 : i64, chains = 1 : i64, compute_us = 0.000000e+00 : f64, groups = 1 : i64, hbm_us = 0.000000e+00 : f64, ops = 0 : i64, packed = false, pe_bound = false, traffic = false, why = "every result fits with the whole batch", windows = [{compute_us = 63.{{[0-9]+}} : f64, escapes = false, first = 4 : i64, from = "{{.*}}split-batch-windows.mlir:{{[0-9]+}}:8", groups = 4 : i64, hbm_us = 182.{{[0-9]+}} : f64, ops = 6 : i64, to = "{{.*}}split-batch-windows.mlir:{{[0-9]+}}:10", traffic = false}]}
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x2x64x128xf32>) outs(%{{.*}} : tensor<4x2x64x128xbf16>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x2x64x128xbf16>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4x2x64x128xbf16>)
// CHECK: %[[C0:.*]] = tensor.extract_slice %[[C]][0, 0, 0, 0] [1, 2, 64, 128] [1, 1, 1, 1]
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} -> tensor<1x128x64x128xf32>
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} ins(%[[C0]], %{{.*}} : tensor<1x2x64x128xbf16>, tensor<2x128xf32>) outs(%[[F0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[U0:.*]] = linalg.generic {{.*}} ins(%[[P0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[V0:.*]] = linalg.generic {{.*}} ins(%[[U0]] : tensor<1x128x64x128xf32>)
// CHECK: tensor.collapse_shape %[[V0]] {{.*}} into tensor<128x8192xf32>
// CHECK: linalg.fill {{.*}} -> tensor<128xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 128] : tensor<128xf32> into tensor<1x128xf32>
// CHECK: tensor.extract_slice %[[C]][1, 0, 0, 0] [1, 2, 64, 128]
// CHECK: tensor.extract_slice %[[C]][2, 0, 0, 0] [1, 2, 64, 128]
// CHECK: tensor.extract_slice %[[C]][3, 0, 0, 0] [1, 2, 64, 128]
// CHECK: tensor.empty() : tensor<4x128xf32>
// CHECK-COUNT-4: tensor.insert_slice {{.*}} [1, 128] [1, 1] : tensor<1x128xf32> into tensor<4x128xf32>
// CHECK-NOT: linalg.generic {{.*}} tensor<4x128x64x128xf32>
// CHECK: return
// OFF-LABEL: func.func @window(
// OFF-NOT: tensor.extract_slice
// OFF: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x128x64x128xf32>)
// A margin of 4 declines the window on time, but the program would move
// 67 MB through HBM, more than 3 times its 0.5 MB of inputs, outputs and
// weights: the traffic rule takes it (traffic-ratio=0 turns that off).
// TRAFFIC-LABEL: func.func @window(
// TRAFFIC-SAME: groups = 4 : i64, hbm_us = 182.{{[0-9]+}} : f64, ops = 6 : i64, to = "{{.*}}", traffic = true}]}
// TRAFFIC-COUNT-4: tensor.insert_slice {{.*}} [1, 128] [1, 1] : tensor<1x128xf32> into tensor<4x128xf32>
func.func @window(%x: tensor<4x2x64x128xf32>, %wt: tensor<2x128xf32>) -> (tensor<4x2x64x128xf32>, tensor<4x128xf32>) {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x2x64x128xf32>
  %t = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x64x128xf32>) outs(%et : tensor<4x2x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<4x2x64x128xf32>
  %e2 = tensor.empty() : tensor<4x2x64x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x64x128xf32>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: f32, %o: bf16):
    %m = arith.maximumf %i, %z : f32
    %n = arith.truncf %m : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x2x64x128xbf16>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<4x2x64x128xbf16>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: bf16, %o: bf16):
    %m = arith.mulf %i, %i : bf16
    linalg.yield %m : bf16
  } -> tensor<4x2x64x128xbf16>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<4x2x64x128xbf16>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: bf16, %o: bf16):
    %m = arith.addf %i, %i : bf16
    linalg.yield %m : bf16
  } -> tensor<4x2x64x128xbf16>
  %e = tensor.empty() : tensor<4x128x64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x128x64x128xf32>) -> tensor<4x128x64x128xf32>
  %p = linalg.generic {indexing_maps = [#cin, #wgt, #cout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%c, %wt : tensor<4x2x64x128xbf16>, tensor<2x128xf32>) outs(%f : tensor<4x128x64x128xf32>) {
  ^bb0(%i: bf16, %w: f32, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %m = arith.mulf %ie, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x128x64x128xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<4x128x64x128xf32>) outs(%e : tensor<4x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x128x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<4x128x64x128xf32>) outs(%e : tensor<4x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %i : f32
    linalg.yield %m : f32
  } -> tensor<4x128x64x128xf32>
  %r = tensor.collapse_shape %v [[0, 1], [2, 3]] : tensor<4x128x64x128xf32> into tensor<512x8192xf32>
  %se = tensor.empty() : tensor<512xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<512x8192xf32>) outs(%sf : tensor<512xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.addf %i, %o : f32
    linalg.yield %m : f32
  } -> tensor<512xf32>
  %out = tensor.expand_shape %s [[0, 1]] output_shape [4, 128] : tensor<512xf32> into tensor<4x128xf32>
  return %t, %out : tensor<4x2x64x128xf32>, tensor<4x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rev = affine_map<(n, c, h, w) -> (-n + 3, c, h, w)>
#cin = affine_map<(n, f, h, w, c) -> (n, c, h, w)>
#wgt = affine_map<(n, f, h, w, c) -> (c, f)>
#cout = affine_map<(n, f, h, w, c) -> (n, f, h, w)>
#rows = affine_map<(r, p) -> (r, p)>
#row = affine_map<(r, p) -> (r)>

// As @window, but the squared pass's result is also read by a reversal of
// the images at the end (an op that cannot run per group): no window holds
// every reader of both large results. The window that holds the
// convolution's result alone lets the squared one go through HBM whole
// (`escapes`): each group's part is inserted into the whole-batch tensor
// the reversal reads, and only the convolution's result counts for the HBM
// time saved (half of @window's 182 us) and for G.
// CHECK-LABEL: func.func @escape(
// CHECK-SAME: windows = [{compute_us = 63.{{[0-9]+}} : f64, escapes = true, first = 4 : i64, from = "{{.*}}", groups = 4 : i64, hbm_us = 91.{{[0-9]+}} : f64, ops = 6 : i64, to = "{{.*}}", traffic = false}]}
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x64x128xbf16>, tensor<2x128xf32>) outs(%{{.*}} : tensor<1x128x64x128xf32>)
// CHECK: %[[U0:.*]] = linalg.generic {{.*}} ins(%[[P0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[V0:.*]] = linalg.generic {{.*}} ins(%[[U0]] : tensor<1x128x64x128xf32>)
// CHECK: %[[WHOLE:.*]] = tensor.empty() : tensor<4x128x64x128xf32>
// CHECK: tensor.insert_slice %[[V0]] into %[[WHOLE]][0, 0, 0, 0] [1, 128, 64, 128] [1, 1, 1, 1] : tensor<1x128x64x128xf32> into tensor<4x128x64x128xf32>
// CHECK-COUNT-3: tensor.insert_slice {{.*}} : tensor<1x128x64x128xf32> into tensor<4x128x64x128xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x128x64x128xf32>) outs(%{{.*}} : tensor<4x128x64x128xf32>)
// CHECK: return
// OFF-LABEL: func.func @escape(
// OFF-NOT: tensor.extract_slice
func.func @escape(%x: tensor<4x2x64x128xf32>, %wt: tensor<2x128xf32>) -> (tensor<4x2x64x128xf32>, tensor<4x128xf32>, tensor<4x128x64x128xf32>) {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x2x64x128xf32>
  %t = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x64x128xf32>) outs(%et : tensor<4x2x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<4x2x64x128xf32>
  %e2 = tensor.empty() : tensor<4x2x64x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x64x128xf32>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: f32, %o: bf16):
    %m = arith.maximumf %i, %z : f32
    %n = arith.truncf %m : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x2x64x128xbf16>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<4x2x64x128xbf16>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: bf16, %o: bf16):
    %m = arith.mulf %i, %i : bf16
    linalg.yield %m : bf16
  } -> tensor<4x2x64x128xbf16>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<4x2x64x128xbf16>) outs(%e2 : tensor<4x2x64x128xbf16>) {
  ^bb0(%i: bf16, %o: bf16):
    %m = arith.addf %i, %i : bf16
    linalg.yield %m : bf16
  } -> tensor<4x2x64x128xbf16>
  %e = tensor.empty() : tensor<4x128x64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x128x64x128xf32>) -> tensor<4x128x64x128xf32>
  %p = linalg.generic {indexing_maps = [#cin, #wgt, #cout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%c, %wt : tensor<4x2x64x128xbf16>, tensor<2x128xf32>) outs(%f : tensor<4x128x64x128xf32>) {
  ^bb0(%i: bf16, %w: f32, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %m = arith.mulf %ie, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x128x64x128xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<4x128x64x128xf32>) outs(%e : tensor<4x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x128x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<4x128x64x128xf32>) outs(%e : tensor<4x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %i : f32
    linalg.yield %m : f32
  } -> tensor<4x128x64x128xf32>
  %r = tensor.collapse_shape %v [[0, 1], [2, 3]] : tensor<4x128x64x128xf32> into tensor<512x8192xf32>
  %se = tensor.empty() : tensor<512xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<512x8192xf32>) outs(%sf : tensor<512xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.addf %i, %o : f32
    linalg.yield %m : f32
  } -> tensor<512xf32>
  %out = tensor.expand_shape %s [[0, 1]] output_shape [4, 128] : tensor<512xf32> into tensor<4x128xf32>
  %w2 = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<4x128x64x128xf32>) outs(%e : tensor<4x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<4x128x64x128xf32>
  return %t, %out, %w2 : tensor<4x2x64x128xf32>, tensor<4x128xf32>, tensor<4x128x64x128xf32>
}

// -----

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rev = affine_map<(n, c, h, w) -> (-n + 3, c, h, w)>
#cin = affine_map<(n, f, h, w, c) -> (n, c, h, w)>
#wgt = affine_map<(n, f, h, w, c) -> (c, f)>
#cout = affine_map<(n, f, h, w, c) -> (n, f, h, w)>
#rows = affine_map<(r, p) -> (r, p)>
#row = affine_map<(r, p) -> (r)>

// As @window with 64 filters over 96 rows (192 KiB a partition at the whole
// batch, 48 KiB in a group of one image): a result of fewer channels than
// half the partitions, whose kernel may pack two bands of rows beside one
// another at the whole batch (its result then in HBM) but not in a window
// (kept channel-major in SBUF). The estimate does not see that, so the
// batch unsplit is named the second candidate (alternative = 1), which
// nki-compile compiles too (BatchGroupSolution::alternative). Without
// windows there is none.
// CHECK-LABEL: func.func @few_channels(
// CHECK-SAME: nki.batch_groups = {alternative = 1 : i64,
// CHECK-SAME: windows = [{
// OFF-LABEL: func.func @few_channels(
// OFF-SAME: nki.batch_groups = {alternative = 0 : i64,
// OFF-NOT: tensor.extract_slice

func.func @few_channels(%x: tensor<4x2x96x128xf32>, %wt: tensor<2x64xf32>) -> (tensor<4x2x96x128xf32>, tensor<4x64xf32>) {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x2x96x128xf32>
  %t = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x96x128xf32>) outs(%et : tensor<4x2x96x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<4x2x96x128xf32>
  %e2 = tensor.empty() : tensor<4x2x96x128xbf16>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<4x2x96x128xf32>) outs(%e2 : tensor<4x2x96x128xbf16>) {
  ^bb0(%i: f32, %o: bf16):
    %n = arith.truncf %i : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<4x2x96x128xbf16>
  %e = tensor.empty() : tensor<4x64x96x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x64x96x128xf32>) -> tensor<4x64x96x128xf32>
  %p = linalg.generic {indexing_maps = [#cin, #wgt, #cout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%c, %wt : tensor<4x2x96x128xbf16>, tensor<2x64xf32>) outs(%f : tensor<4x64x96x128xf32>) {
  ^bb0(%i: bf16, %w: f32, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %m = arith.mulf %ie, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x64x96x128xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<4x64x96x128xf32>) outs(%e : tensor<4x64x96x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x64x96x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<4x64x96x128xf32>) outs(%e : tensor<4x64x96x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.mulf %i, %i : f32
    linalg.yield %m : f32
  } -> tensor<4x64x96x128xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<4x64x96x128xf32>) outs(%e : tensor<4x64x96x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.addf %i, %i : f32
    linalg.yield %m : f32
  } -> tensor<4x64x96x128xf32>
  %r = tensor.collapse_shape %w [[0, 1], [2, 3]] : tensor<4x64x96x128xf32> into tensor<256x12288xf32>
  %se = tensor.empty() : tensor<256xf32>
  %sf = linalg.fill ins(%z : f32) outs(%se : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<256x12288xf32>) outs(%sf : tensor<256xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.addf %i, %o : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %out = tensor.expand_shape %s [[0, 1]] output_shape [4, 64] : tensor<256xf32> into tensor<4x64xf32>
  return %t, %out : tensor<4x2x96x128xf32>, tensor<4x64xf32>
}
