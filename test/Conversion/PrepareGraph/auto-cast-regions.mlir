// --auto-cast=matmul: tensors that only move data (constant pads, max
// poolings, inserts into a concatenation or a phase scatter) between
// producers that can round their result and convolutions that round it to
// bf16 are computed in bf16 (StoreRegionsInBF16.h): the producers round
// (a cast their epilogue takes), the moves copy bf16, the convolutions read
// bf16 without rounding in their bodies. Not when any value of the region
// has another reader, or comes from the program's input.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=matmul | FileCheck %s

// A U-Net level's output (the skip connection), max pooled for the next
// level and concatenated with the decoder's upsampled tensor: both paths
// round it, so it is stored in bf16 once.
// CHECK-LABEL: func.func @skip_pooled_and_concatenated
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x8x8xf32>) outs(%{{.*}} : tensor<1x2x8x8xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %in : f32 to bf16
// CHECK: %[[M:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[S]], %{{.*}} : tensor<1x2x8x8xbf16>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<1x2x4x4xbf16>, tensor<2x1x1x2xbf16>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x8x8xf32>) outs(%{{.*}} : tensor<1x2x8x8xbf16>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x8x8xbf16>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[U]] into %[[E]]
// CHECK: %[[C:.*]] = tensor.insert_slice %[[S]] into %[[I]]{{.*}} : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
// CHECK: %[[P:.*]] = tensor.pad %[[C]]
// CHECK: } : tensor<1x4x8x8xbf16> to tensor<1x4x10x10xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<1x4x10x10xbf16>, tensor<4x3x3x2xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: bf16,
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
// CHECK-NOT: xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT: into tensor<1x4x8x8xf32>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @skip_pooled_and_concatenated(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<2x2x1x1xf32>
  %w3 = arith.constant dense<0.75> : tensor<2x2x1x1xf32>
  %w4 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %skip = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %pe = tensor.empty() : tensor<1x2x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%skip, %win : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f2 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w3 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cat = tensor.concat dim(1) %up, %skip : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c2, %c4 : tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>
}

// -----

// A transposed convolution's phases (each a convolution and its bias)
// scattered with steps into its result, which is concatenated: the phases
// round, the scatter and the concatenation are bf16.
// CHECK-LABEL: func.func @phases_into_concat
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x4xbf16>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x4xbf16>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x8x8xbf16>
// CHECK: %[[S0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2]
// CHECK: %[[S1:.*]] = tensor.insert_slice %[[B]] into %[[S0]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2]
// CHECK: tensor.insert_slice %[[S1]] into %{{.*}} : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
// CHECK: tensor.pad
// CHECK: } : tensor<1x4x8x8xbf16> to tensor<1x4x10x10xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @phases_into_concat(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %wa = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %wb = arith.constant dense<0.75> : tensor<2x2x1x1xf32>
  %wy = arith.constant dense<0.25> : tensor<2x2x1x1xf32>
  %w2 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e4 = tensor.empty() : tensor<1x2x4x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %ca = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wa : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f4 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pa = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ca, %bias : tensor<1x2x4x4xf32>, tensor<2xf32>) outs(%e4 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %cb = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wb : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f4 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pb = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cb, %bias : tensor<1x2x4x4xf32>, tensor<2xf32>) outs(%e4 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %e8 = tensor.empty() : tensor<1x2x8x8xf32>
  %s0 = tensor.insert_slice %pa into %e8[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %s1 = tensor.insert_slice %pb into %s0[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x8x8xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %cy = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %wy : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f8 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ry = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cy : tensor<1x2x8x8xf32>) outs(%e8 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cat = tensor.concat dim(1) %s1, %ry : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f8 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}

// -----

// The skip connection is also read by an elementwise op (a residual add):
// the region stays f32 (the pooling, the concatenation), its convolutions
// round in their bodies.
// CHECK-LABEL: func.func @skip_also_added
// CHECK: linalg.pooling_nchw_max {{.*}} outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: tensor.insert_slice %{{.*}} : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK-NOT: into tensor<1x4x8x8xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @skip_also_added(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<2x2x1x1xf32>
  %w4 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %skip = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %pe = tensor.empty() : tensor<1x2x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%skip, %win : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f2 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%skip, %x : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x8x8xf32>
  %cat = tensor.concat dim(1) %x, %skip : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c2, %c4, %sum : tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}

// -----

// A part of the concatenation is the program's input, which keeps its
// type: the concatenation stays f32 (and so does the other part's region).
// CHECK-LABEL: func.func @part_is_input
// CHECK: tensor.insert_slice %arg0 into %{{.*}} : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK-NOT: into tensor<1x4x8x8xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @part_is_input(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<2x2x1x1xf32>
  %w4 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %skip = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %pe = tensor.empty() : tensor<1x2x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%skip, %win : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f2 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %cat = tensor.concat dim(1) %x, %skip : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c2, %c4 : tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>
}

// -----

// The concatenation is also returned: it stays f32.
// CHECK-LABEL: func.func @concat_returned
// CHECK: tensor.insert_slice %{{.*}} : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK-NOT: into tensor<1x4x8x8xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @concat_returned(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %w4 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %skip = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %pe = tensor.empty() : tensor<1x2x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%skip, %win : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %cat = tensor.concat dim(1) %skip, %skip : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c4, %cat : tensor<1x2x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Two concatenations into one shared tensor.empty: the first has the
// program's input as a part and stays f32; the second is bf16 all the
// same (a fresh tensor belongs to every region that starts from it).
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x8x8xbf16>
// CHECK: tensor.insert_slice %arg0 into %{{.*}} : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E]]{{.*}} : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
// CHECK: tensor.insert_slice %{{.*}} : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @shared_empty(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x2x1x1xf32>
  %w4 = arith.constant dense<0.125> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x8x8xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %e4 = tensor.empty() : tensor<1x4x8x8xf32>
  %i0 = tensor.insert_slice %x into %e4[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
  %cat1 = tensor.insert_slice %a into %i0[0, 2, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %j0 = tensor.insert_slice %d into %e4[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
  %cat2 = tensor.insert_slice %b into %j0[0, 2, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
  %p1 = tensor.pad %cat1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %p2 = tensor.pad %cat2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p1, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p2, %w4 : tensor<1x4x10x10xf32>, tensor<2x4x3x3xf32>) outs(%f : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %c2, %c3 : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}
