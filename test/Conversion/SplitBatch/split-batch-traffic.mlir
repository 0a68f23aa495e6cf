// nki-split-batch's traffic rule (lib/Analysis/BatchGroups.cpp,
// `solveTraffic`): PE-bound f32 layers whose results fit no group of
// images channel-major within a quarter of a partition, so that the time
// rule cannot split them, while at the whole batch the tensors they keep
// live at once do not fit SBUF and would go through HBM.
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch))' | FileCheck %s
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{traffic-ratio=0}))' | FileCheck %s --check-prefix=OFF
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{traffic-ratio=100}))' | FileCheck %s --check-prefix=WITHIN
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{traffic-ratio=0.5}))' | FileCheck %s --check-prefix=SECOND
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=8}))' | FileCheck %s --check-prefix=FORCED
// RUN: nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=2}))' | FileCheck %s --check-prefix=TOOFEW

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Four 1x1 convolutions over 16 channels of 128 x 128 at batch 8, the last
// adding the first two results (a and b, each read by two layers, which
// the resident plan does not pack). Channel-major one image's result takes
// 64 KiB a partition (more than trn2's quarter, 56 KiB); at the whole
// batch a, b and c are live at once and go through HBM (some 50 MB against
// the program's 1 MB of input, output and weights). At one image a group
// (G = 8) a and b are kept channel-major and c packed, within SBUF less two
// kernels' scratch (160 KiB): the split is taken, the groups one after
// another.
// CHECK-LABEL: func.func @traffic(
// CHECK-SAME: nki.batch_groups = {{{.*}}groups = 8 : i64{{.*}}ops = {{[0-9]+}} : i64, packed = true, pe_bound = false, traffic = true, why = "", windows = []}
// CHECK-COUNT-8: tensor.extract_slice %{{.*}}[{{[0-7]}}, 0, 0, 0] [1, 1, 128, 128]
// CHECK: return
// Off, or with the traffic within the ratio: no split, and why.
// OFF-LABEL: func.func @traffic(
// OFF-SAME: nki.batch_groups = {alternative = 0 : i64,
// OFF-SAME: packed = false, pe_bound = false, traffic = false, why = "a result does not fit with 1 image(s)"
// OFF-NOT: tensor.extract_slice
// Where the rule declines the 8 groups that hold every result (here its
// budget, half the program's own bytes, is one no split meets) they are
// the driver's second candidate (nki-compile compiles both and keeps the
// shorter schedule).
// SECOND-LABEL: func.func @traffic(
// SECOND-SAME: nki.batch_groups = {alternative = 8 : i64,
// SECOND-SAME: ops = 0 : i64, packed = false, pe_bound = false, traffic = false, why = "a result does not fit with 1 image(s); HBM traffic {{[0-9.]+}} MB at the whole batch, {{[0-9.]+}} MB in 8 groups
// SECOND-NOT: tensor.extract_slice
// Forced to one image a group, the results fit only as the traffic rule
// holds them: the groups run one after another, not for the rule. At two
// groups a and b do not fit even packed: no split.
// FORCED-LABEL: func.func @traffic(
// FORCED-SAME: groups = 8 : i64{{.*}}packed = true, pe_bound = false, traffic = false, why = ""
// FORCED-COUNT-8: tensor.extract_slice %{{.*}}[{{[0-7]}}, 0, 0, 0] [1, 1, 128, 128]
// TOOFEW-LABEL: func.func @traffic(
// TOOFEW-SAME: ops = 0 : i64, packed = false, pe_bound = false, traffic = false, why = "a result does not fit with 4 image(s)"
// TOOFEW-NOT: tensor.extract_slice
// WITHIN-LABEL: func.func @traffic(
// WITHIN-SAME: nki.batch_groups = {alternative = 0 : i64,
// WITHIN-SAME: why = "a result does not fit with 1 image(s); HBM traffic {{[0-9.]+}} MB at the whole batch, the program's own 1.{{[0-9]}} MB"
// WITHIN-NOT: tensor.extract_slice
func.func @traffic(%x: tensor<8x1x128x128xf32>, %w1: tensor<1x1x1x16xf32>, %w2: tensor<16x1x1x16xf32>, %w3: tensor<16x1x1x16xf32>, %w4: tensor<16x1x1x16xf32>, %w5: tensor<16x1x1x1xf32>) -> tensor<8x1x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<8x16x128x128xf32>
  %z16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<8x16x128x128xf32>) -> tensor<8x16x128x128xf32>
  %e1 = tensor.empty() : tensor<8x1x128x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1x128x128xf32>) -> tensor<8x1x128x128xf32>
  %c1 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<8x1x128x128xf32>, tensor<1x1x1x16xf32>) outs(%z16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16x128x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<8x16x128x128xf32>) outs(%e16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16x128x128xf32>
  %c2 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%a, %w2 : tensor<8x16x128x128xf32>, tensor<16x1x1x16xf32>) outs(%z16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16x128x128xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<8x16x128x128xf32>) outs(%e16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16x128x128xf32>
  %c3 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%b, %w3 : tensor<8x16x128x128xf32>, tensor<16x1x1x16xf32>) outs(%z16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16x128x128xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3 : tensor<8x16x128x128xf32>) outs(%e16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = arith.maximumf %i, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16x128x128xf32>
  %c4 = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%c, %w4 : tensor<8x16x128x128xf32>, tensor<16x1x1x16xf32>) outs(%z16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16x128x128xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c4, %a, %b : tensor<8x16x128x128xf32>, tensor<8x16x128x128xf32>, tensor<8x16x128x128xf32>) outs(%e16 : tensor<8x16x128x128xf32>) {
  ^bb0(%i: f32, %j: f32, %k: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    %t = arith.addf %s, %k : f32
    linalg.yield %t : f32
  } -> tensor<8x16x128x128xf32>
  %y = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%d, %w5 : tensor<8x16x128x128xf32>, tensor<16x1x1x1xf32>) outs(%z1 : tensor<8x1x128x128xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x1x128x128xf32>
  return %y : tensor<8x1x128x128xf32>
}
