// nki-accumulate-convs: an elementwise op reading two convolutions only
// through their sum, one of them 1x1, reads one convolution starting from
// the 1x1's result; per-channel constant shifts of both add up into one.
// Not when neither is 1x1, one is read twice, not from zero, or the two
// meet in something other than a sum.
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-accumulate-convs,canonicalize))' | FileCheck %s

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#in2 = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, 2 * h + kh, 2 * w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// A projection shortcut: conv3(y) + b3 + downsample(x, stride 2) + bd, ReLU.
// The strided convolution starts from the 1x1's result; one shift, b3 + bd.
// CHECK-LABEL: func @shortcut
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[}}[{{\[}}1.500000e+00]], {{\[}}[-1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg1, %{{.*}} : tensor<1x8x6x6xf32>, tensor<8x1x1x2xf32>) outs(%[[P]] : tensor<1x2x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[B]] : tensor<1x2x3x3xf32>, tensor<2x1x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: linalg.yield
func.func @shortcut(%y: tensor<1x4x3x3xf32>, %x: tensor<1x8x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %wd = arith.constant dense<2.0> : tensor<8x1x1x2xf32>
  %b3 = arith.constant dense<[[[1.0]], [[-2.0]]]> : tensor<2x1x1xf32>
  %bd = arith.constant dense<[[[0.5]], [[1.0]]]> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w3 : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %d = linalg.generic {indexing_maps = [#in2, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wd : tensor<1x8x6x6xf32>, tensor<8x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b3, %d, %bd : tensor<1x2x3x3xf32>, tensor<2x1x1xf32>, tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %f: f32, %o: f32):
    %s0 = arith.addf %a, %b : f32
    %s1 = arith.addf %c, %f : f32
    %s = arith.addf %s0, %s1 : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// No shifts (nothing to merge): the sum of the two is read as it is.
// CHECK-LABEL: func @bare
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%arg1, %{{.*}} : tensor<1x8x3x3xf32>, tensor<8x1x1x2xf32>) outs(%[[P]] : tensor<1x2x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<1x2x3x3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.maximumf
func.func @bare(%y: tensor<1x4x3x3xf32>, %x: tensor<1x8x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %wd = arith.constant dense<2.0> : tensor<8x1x1x2xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w3 : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %d = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wd : tensor<1x8x3x3xf32>, tensor<8x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %d : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// Neither convolution is 1x1: both stay, and the op adds them.
// CHECK-LABEL: func @no_1x1
// CHECK-COUNT-2: outs(%{{.*}} : tensor<1x2x3x3xf32>) {
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
func.func @no_1x1(%y: tensor<1x4x5x5xf32>, %x: tensor<1x8x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x3x3x2xf32>
  %wd = arith.constant dense<2.0> : tensor<8x3x3x2xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w3 : tensor<1x4x5x5xf32>, tensor<4x3x3x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %d = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wd : tensor<1x8x5x5xf32>, tensor<8x3x3x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %d : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A product of the two, not a sum: both stay.
// CHECK-LABEL: func @product
// CHECK-COUNT-2: outs(%{{.*}} : tensor<1x2x3x3xf32>) {
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
func.func @product(%y: tensor<1x4x3x3xf32>, %x: tensor<1x8x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %wd = arith.constant dense<2.0> : tensor<8x1x1x2xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w3 : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %d = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wd : tensor<1x8x3x3xf32>, tensor<8x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %d : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// The 1x1's result read again (returned too): both stay.
// CHECK-LABEL: func @read_twice
// CHECK-COUNT-2: outs(%{{.*}} : tensor<1x2x3x3xf32>) {
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
func.func @read_twice(%y: tensor<1x4x3x3xf32>, %x: tensor<1x8x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %wd = arith.constant dense<2.0> : tensor<8x1x1x2xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w3 : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %d = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wd : tensor<1x8x3x3xf32>, tensor<8x1x1x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %d : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  return %r, %p : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A padded 3x3 convolution and, after it, a 1x1 of the same input: the
// 1x1 moves before the padding (the tiling reads a padded input's source
// where its convolution is, and nothing may read it in between), the 3x3
// starts from its result right after the padding.
// CHECK-LABEL: func @padded_main
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>)
// CHECK-NEXT: ^bb0
// CHECK: %[[X:.*]] = tensor.pad %arg0
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<1x4x5x5xf32>, tensor<4x3x3x2xf32>) outs(%[[P]] : tensor<1x2x3x3xf32>)
// The sum alone is what the op computed (it folds away).
// CHECK: return %[[S]]
func.func @padded_main(%y: tensor<1x4x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w3 = arith.constant dense<1.0> : tensor<4x3x3x2xf32>
  %w1 = arith.constant dense<2.0> : tensor<4x1x1x2xf32>
  %yp = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x3x3xf32> to tensor<1x4x5x5xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%yp, %w3 : tensor<1x4x5x5xf32>, tensor<4x3x3x2xf32>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %e2 = tensor.empty() : tensor<1x2x3x3xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%y, %w1 : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%z2 : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %p : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}
