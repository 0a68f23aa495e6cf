// nki-prepare-graph folds an inference BatchNormalization's per-channel
// scale into the constant filter of the convolution before it (and into
// the convolution's bias): the normalization then only adds its shift.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#v = affine_map<(d0) -> (d0)>

// The scale gamma * rsqrt(var + 1) = [3 / 2, 4 / 4] is computed at compile
// time and multiplies filter [1, 2] (permuted to [C, KH, KW, F]).
// CHECK-LABEL: func.func @batch_norm
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.500000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK-DAG: %[[SH:.*]] = arith.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}-1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %[[SH]] : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
func.func @batch_norm(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %shift = arith.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) outs(%i : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %se = tensor.empty() : tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
         ins(%gamma, %var : tensor<2xf32>, tensor<2xf32>) outs(%se : tensor<2xf32>) {
  ^bb0(%g: f32, %va: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %t = arith.addf %va, %one : f32
    %r = math.rsqrt %t : f32
    %m = arith.mulf %g, %r : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %s3 = tensor.expand_shape %s [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y, %s3, %shift : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %sc: f32, %sh: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    %r = arith.addf %m, %sh : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  return %bn : tensor<1x2x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>

// A depthwise convolution as the ONNX importer writes it (grouped, its
// filter and result reshaped) and ONNX Conv's bias: each channel's 1x2
// filter row and its bias [10, 20] times its scale [2, -1]; the scale's
// multiply leaves the normalization (scale * s + shift fused with ReLU).
// CHECK-LABEL: func.func @depthwise_bias
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[\[\[}}2.000000e+01]], {{\[\[}}-2.000000e+01]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[SH:.*]] = arith.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}-1.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-DAG: arith.constant dense<{{\[\[\[}}2.000000e+00, 4.000000e+00]], {{\[\[}}-3.000000e+00, -4.000000e+00]]]> : tensor<2x1x2xf32>
// CHECK: %[[YB:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[B]] :
// CHECK: linalg.generic {{.*}} ins(%[[YB]], %[[SH]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
func.func @depthwise_bias(%x: tensor<1x2x4x5xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %s = arith.constant dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %shift = arith.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 4, 5] : tensor<1x2x4x5xf32> into tensor<1x2x1x4x5xf32>
  %w5 = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 1, 1, 1, 2] : tensor<2x1x1x2xf32> into tensor<2x1x1x1x2xf32>
  %e5 = tensor.empty() : tensor<1x2x1x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x2x1x4x4xf32>) -> tensor<1x2x1x4x4xf32>
  %y5 = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x5, %w5 : tensor<1x2x1x4x5xf32>, tensor<2x1x1x1x2xf32>) outs(%i : tensor<1x2x1x4x4xf32>) -> tensor<1x2x1x4x4xf32>
  %y = tensor.collapse_shape %y5 [[0], [1, 2], [3], [4]] : tensor<1x2x1x4x4xf32> into tensor<1x2x4x4xf32>
  %b3 = tensor.expand_shape %b [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %yb = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y, %b3 : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %r = arith.addf %a, %bb : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %bn = linalg.generic {indexing_maps = [#ch, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%s, %yb, %shift : tensor<2x1x1xf32>, tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%sc: f32, %a: f32, %sh: f32, %o: f32):
    %m = arith.mulf %sc, %a : f32
    %r = arith.addf %m, %sh : f32
    %z = arith.constant 0.0 : f32
    %relu = arith.maximumf %r, %z : f32
    linalg.yield %relu : f32
  } -> tensor<1x2x4x4xf32>
  return %bn : tensor<1x2x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch1 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>

// At 1x1 pixels the importer reads [C, 1, 1] through (d1, d2, d3): d2 and
// d3 have one iteration, so it is still per channel. The normalization is
// left a copy.
// CHECK-LABEL: func.func @one_pixel
// CHECK: arith.constant dense<{{\[\[\[\[}}2.000000e+00, -3.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[Y]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield %in
func.func @one_pixel(%x: tensor<1x1x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %s = arith.constant dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x1x1xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x1x1xf32>, tensor<2x1x1x1xf32>) outs(%i : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch1, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y, %s : tensor<1x2x1x1xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x1x1xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x1x1xf32>
  return %bn : tensor<1x2x1x1xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>

// Left alone: a filter that is not a constant; a computed scale (a
// squeeze-and-excitation's); a convolution whose result is also returned;
// one that accumulates into a tensor that is not zero.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-4: arith.addf %out
// CHECK-COUNT-4: arith.mulf %in, %in_{{[0-9]+}} : f32
// CHECK-NOT: arith.mulf
func.func @not_folded(%x: tensor<1x1x4x4xf32>, %wa: tensor<2x1x1x1xf32>, %g: tensor<2x1x1xf32>, %acc: tensor<1x2x4x4xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = arith.constant dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y0 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %wa : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) outs(%i : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) outs(%i : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y2 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) outs(%i : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y3 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) outs(%acc : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y0, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y1, %g : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y2, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%y3, %s : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  return %r0, %r1, %r2, %y2, %r3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>

// A max pooling is a convolution-like op too, but its window is not
// multiplied: a scale after it stays (even with a constant window).
// CHECK-LABEL: func.func @max_pool
// CHECK: arith.mulf %in, %in_{{[0-9]+}} : f32
func.func @max_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = arith.constant dense<1.0> : tensor<2x2xf32>
  %s = arith.constant dense<[[[2.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%i : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%p, %s : tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) outs(%e : tensor<1x2x2x2xf32>) {
  ^bb0(%a: f32, %sc: f32, %o: f32):
    %m = arith.mulf %a, %sc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x2x2xf32>
  return %r : tensor<1x2x2x2xf32>
}

// -----

// A filter with no elements (zero kernel columns) is scaled and laid out
// as [C, KH, KW, F] without dividing by its element count (both used to:
// a crash, not a diagnostic).
// CHECK-LABEL: func.func @zero_size_filter
// CHECK-NOT:     2.000000e+00, 3.000000e+00
// CHECK:         arith.constant dense<> : tensor<3x1x0x4xf32>
// CHECK-NOT:     2.000000e+00, 3.000000e+00
// CHECK:         return
func.func @zero_size_filter(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x9xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3x1x0xf32>
  %e = tensor.empty() : tensor<1x4x8x9xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x8x9xf32>) -> tensor<1x4x8x9xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x1x0xf32>) outs(%f : tensor<1x4x8x9xf32>) -> tensor<1x4x8x9xf32>
  %s = arith.constant dense<[2.0, 3.0, 4.0, 5.0]> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<1x4x8x9xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s : tensor<1x4x8x9xf32>, tensor<4xf32>) outs(%e2 : tensor<1x4x8x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x4x8x9xf32>
  return %m : tensor<1x4x8x9xf32>
}
