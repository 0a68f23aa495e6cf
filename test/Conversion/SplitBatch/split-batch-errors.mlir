// nki-split-batch: a number of groups that does not divide the batch is an
// error naming both; a negative one is an error naming it.
// RUN: nki-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=3}))'
// RUN: not nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{groups=-2}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: nki-split-batch: groups must be >= 0, not -2
// RUN: not nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{chains=-1}))' 2>&1 | FileCheck %s --check-prefix=CHAINS
// CHAINS: error: nki-split-batch: chains must be >= 0, not -1
// RUN: not nki-opt %s --pass-pipeline='builtin.module(func.func(nki-split-batch{chain-images=-8}))' 2>&1 | FileCheck %s --check-prefix=IMAGES
// IMAGES: error: nki-split-batch: chain-images must be >= 0, not -8
// Chains that do not divide the batch, or forced with groups.
// RUN: not nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{chains=3}))' 2>&1 | FileCheck %s --check-prefix=THREE
// THREE: error: nki-split-batch: 3 chains do not divide the batch of 2
// RUN: not nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{chains=2 groups=2}))' 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: nki-split-batch: chains and groups of the first layers both forced
// A negative margin for PE-bound layers is an input error of the choice.
// RUN: not nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{pe-bound-margin=-1}))' 2>&1 | FileCheck %s --check-prefix=MARGIN
// MARGIN: error: nki-split-batch: negative margin
// So is a negative drain time per global pooling.
// RUN: not nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-split-batch{barrier-us=-1}))' 2>&1 | FileCheck %s --check-prefix=BARRIER
// BARRIER: error: nki-split-batch: negative barrier time

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// expected-error @+1 {{nki-split-batch: 3 groups do not divide the batch of 2}}
func.func @three_groups(%x: tensor<2x128x64x128xf32>) -> tensor<2x128x64x128xf32> {
  %e = tensor.empty() : tensor<2x128x64x128xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<2x128x64x128xf32>) outs(%e : tensor<2x128x64x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %m = math.exp %i : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64x128xf32>
  return %a : tensor<2x128x64x128xf32>
}
