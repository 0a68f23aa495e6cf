// nki-compose-convs: a convolution plus a per-channel bias read only by a
// 1x1 convolution becomes one convolution (W = W1 W2, the second's
// epilogue adding b2 + W2^T b1); not across an activation, a second
// reader, a larger second kernel, a bias the second's reader does not add
// to, or when the composite needs more matmuls than the two.
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(nki-compose-convs))' | FileCheck %s

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// W1 [4 -> 2], b1, W2 [2 -> 3], b2, then a ReLU: W = W1 W2 exactly, the
// ReLU's bias b2 + W2^T b1 = [0.5, 0, -1] + [1, 4, 2].
// CHECK-LABEL: func @f32
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[{{\[}}[1.000000e+00, 2.000000e+00, 0.000000e+00]]], {{\[}}[{{\[}}0.000000e+00, 1.000000e+00, 1.000000e+00]]], {{\[}}[{{\[}}1.000000e+00, 3.000000e+00, 1.000000e+00]]], {{\[}}[{{\[}}2.000000e+00, 3.000000e+00, -1.000000e+00]]]]> : tensor<4x1x1x3xf32>
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg0, %[[W]] : tensor<1x4x5x5xf32>, tensor<4x1x1x3xf32>) outs(%{{.*}} : tensor<1x3x5x5xf32>)
// CHECK-NOT: linalg.generic {{.*}}tensor<2x1x1x3xf32>
// CHECK: %[[B:.*]] = arith.constant dense<{{\[}}[{{\[}}1.500000e+00]], {{\[}}[4.000000e+00]], {{\[}}[1.000000e+00]]]> : tensor<3x1x1xf32>
// CHECK: linalg.generic {{.*}} ins(%[[E]], %[[B]] : tensor<1x3x5x5xf32>, tensor<3x1x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
func.func @f32(%x: tensor<1x4x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<[[[[1.0, 0.0]]], [[[0.0, 1.0]]], [[[1.0, 1.0]]], [[[2.0, -1.0]]]]> : tensor<4x1x1x2xf32>
  %b1 = arith.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<[[[[1.0, 2.0, 0.0]]], [[[0.0, 1.0, 1.0]]]]> : tensor<2x1x1x3xf32>
  %b2 = arith.constant dense<[[[0.5]], [[0.0]], [[-1.0]]]> : tensor<3x1x1xf32>
  %e2 = tensor.empty() : tensor<1x2x5x5xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x4x5x5xf32>, tensor<4x1x1x2xf32>) outs(%z2 : tensor<1x2x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x5x5xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x5x5xf32>, tensor<2x1x1xf32>) outs(%e2 : tensor<1x2x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x5x5xf32>
  %e3 = tensor.empty() : tensor<1x3x5x5xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x5x5xf32>, tensor<2x1x1x3xf32>) outs(%z3 : tensor<1x3x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x5x5xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x3x5x5xf32>, tensor<3x1x1xf32>) outs(%e3 : tensor<1x3x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// Auto-cast's form: bf16 filters, the bias rounding the intermediate to
// bf16 for the second convolution. The composite filter is bf16, rounded
// once from the product of the bf16 filters (0.5 x 3 + 0.25 x 1 = 1.75).
// CHECK-LABEL: func @bf16
// CHECK: %[[W:.*]] = arith.constant dense<1.750000e+00> : tensor<2x1x1x2xbf16>
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[W]] : tensor<1x2x3x3xbf16>, tensor<2x1x1x2xbf16>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK-NOT: truncf
// CHECK: return
func.func @bf16(%x: tensor<1x2x3x3xbf16>) -> tensor<1x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<[[[[0.5, 0.25]]], [[[0.5, 0.25]]]]> : tensor<2x1x1x2xbf16>
  %b1 = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<[[[[3.0, 3.0]]], [[[1.0, 1.0]]]]> : tensor<2x1x1x2xbf16>
  %b2 = arith.constant dense<0.0> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %eb = tensor.empty() : tensor<1x2x3x3xbf16>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x2x3x3xbf16>, tensor<2x1x1x2xbf16>) outs(%z : tensor<1x2x3x3xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) outs(%eb : tensor<1x2x3x3xbf16>) {
  ^bb0(%a: f32, %b: f32, %o: bf16):
    %s = arith.addf %a, %b : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x2x3x3xbf16>
  %z2 = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x3x3xbf16>, tensor<2x1x1x2xbf16>) outs(%z2 : tensor<1x2x3x3xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// Three 1x1 convolutions with no bias between them, the last one's result
// returned: one convolution, W = W1 W2 W3 (2 x 3 x 0.25 = 1.5), composed
// twice.
// CHECK-LABEL: func @three
// CHECK-NOT: dense<6.000000e+00>
// CHECK: %[[W:.*]] = arith.constant dense<1.500000e+00> : tensor<1x1x1x1xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%arg0, %[[W]] :
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @three(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<2.0> : tensor<1x1x1x1xf32>
  %w2 = arith.constant dense<3.0> : tensor<1x1x1x1xf32>
  %w3 = arith.constant dense<0.25> : tensor<1x1x1x1xf32>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) outs(%z : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x4xf32>
  %q = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w2 : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) outs(%z : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x4xf32>
  %r = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w3 : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) outs(%z : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}
// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// A ReLU between them: not linear.
// CHECK-LABEL: func @activation
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<{{.*}}>, tensor<4x1x1x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<{{.*}}>, tensor<2x1x1x3xf32>)
func.func @activation(%x: tensor<1x4x4x4xf32>) -> (tensor<1x3x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %b1 = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<2x1x1x3xf32>
  %b2 = arith.constant dense<1.0> : tensor<3x1x1xf32>
  %em = tensor.empty() : tensor<1x2x4x4xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x4x4x4xf32>, tensor<4x1x1x2xf32>) outs(%zm : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%em : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %ef = tensor.empty() : tensor<1x3x4x4xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x4x4xf32>, tensor<2x1x1x3xf32>) outs(%zf : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) outs(%ef : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// The intermediate is also returned: it must be computed anyway.
// CHECK-LABEL: func @two_readers
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<{{.*}}>, tensor<4x1x1x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<{{.*}}>, tensor<2x1x1x3xf32>)
func.func @two_readers(%x: tensor<1x4x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %b1 = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<2x1x1x3xf32>
  %b2 = arith.constant dense<1.0> : tensor<3x1x1xf32>
  %em = tensor.empty() : tensor<1x2x4x4xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x4x4x4xf32>, tensor<4x1x1x2xf32>) outs(%zm : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%em : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %ef = tensor.empty() : tensor<1x3x4x4xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x4x4xf32>, tensor<2x1x1x3xf32>) outs(%zf : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) outs(%ef : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x4x4xf32>
  return %y, %q : tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>
}
// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// The second convolution is 3x3, not a per-pixel map.
// CHECK-LABEL: func @kernel_3x3
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<{{.*}}>, tensor<4x1x1x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<{{.*}}>, tensor<2x3x3x3xf32>)
func.func @kernel_3x3(%x: tensor<1x4x4x4xf32>) -> (tensor<1x3x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %b1 = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<2x3x3x3xf32>
  %b2 = arith.constant dense<1.0> : tensor<3x1x1xf32>
  %em = tensor.empty() : tensor<1x2x4x4xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x4x4x4xf32>, tensor<4x1x1x2xf32>) outs(%zm : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%em : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %ef = tensor.empty() : tensor<1x3x2x2xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) outs(%zf : tensor<1x3x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x2x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) outs(%ef : tensor<1x3x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}
// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// b1 but the second's reader adds no per-channel constant to join it.
// CHECK-LABEL: func @no_bias_add
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<{{.*}}>, tensor<4x1x1x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<{{.*}}>, tensor<2x1x1x3xf32>)
func.func @no_bias_add(%x: tensor<1x4x4x4xf32>) -> (tensor<1x3x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<4x1x1x2xf32>
  %b1 = arith.constant dense<1.0> : tensor<2x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<2x1x1x3xf32>
  %b2 = arith.constant dense<1.0> : tensor<3x1x1xf32>
  %em = tensor.empty() : tensor<1x2x4x4xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x4x4x4xf32>, tensor<4x1x1x2xf32>) outs(%zm : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%em : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %ef = tensor.empty() : tensor<1x3x4x4xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x2x4x4xf32>, tensor<2x1x1x3xf32>) outs(%zf : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x3x4x4xf32>) outs(%ef : tensor<1x3x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// 384 -> 8 -> 384: 3 + 3 matmuls per column as two, 9 composed.
// CHECK-LABEL: func @wide
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<{{.*}}>, tensor<384x1x1x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<{{.*}}>, tensor<8x1x1x384xf32>)
func.func @wide(%x: tensor<1x384x1x1xf32>) -> (tensor<1x384x1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<1.0> : tensor<384x1x1x8xf32>
  %b1 = arith.constant dense<1.0> : tensor<8x1x1xf32>
  %w2 = arith.constant dense<1.0> : tensor<8x1x1x384xf32>
  %b2 = arith.constant dense<1.0> : tensor<384x1x1xf32>
  %em = tensor.empty() : tensor<1x8x1x1xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %p = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : tensor<1x384x1x1xf32>, tensor<384x1x1x8xf32>) outs(%zm : tensor<1x8x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x1xf32>
  %q = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b1 : tensor<1x8x1x1xf32>, tensor<8x1x1xf32>) outs(%em : tensor<1x8x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x1xf32>
  %ef = tensor.empty() : tensor<1x384x1x1xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x384x1x1xf32>) -> tensor<1x384x1x1xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w2 : tensor<1x8x1x1xf32>, tensor<8x1x1x384xf32>) outs(%zf : tensor<1x384x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x384x1x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b2 : tensor<1x384x1x1xf32>, tensor<384x1x1xf32>) outs(%ef : tensor<1x384x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x384x1x1xf32>
  return %y : tensor<1x384x1x1xf32>
}
