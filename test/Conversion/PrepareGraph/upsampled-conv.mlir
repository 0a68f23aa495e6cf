// nki-prepare-graph: a stride-1 convolution of a nearest upsample (also
// through a channel concatenation) becomes one convolution of the small
// tensor per output phase, written into its strided slice of the result
// (lib/Conversion/Graph/UpsampledConv.cpp); the parts that are not
// upsampled keep a convolution of their own, added after the phases.
// (nki-group-phases groups the phases that fill the PE's columns together:
// GroupPhases/group-phases.mlir.) A
// kernel-2 stride-2 transposed convolution's phases (the importer's 1x1
// convolutions and bias) compose the same way, each phase's channels mixed
// by its 1x1 filter and the bias carried by a channel of ones.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=sub-pixel=false | FileCheck %s --check-prefix=OFF

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// A 2x upsample concatenated with a skip, a 3x3 kernel, pad 1. Output row
// 2q reads x rows q - 1 (tap 0) and q (taps 1, 2); row 2q + 1 reads q (taps
// 0, 1) and q + 1 (tap 2). So phase (0, 0) of w = [[1, 2, 3], [4, 5, 6],
// [7, 8, 9]] is [[1, 2 + 3], [4 + 7, 5 + 6 + 8 + 9]] on x padded at the
// top and left, and so on; the skip's channel keeps its 3x3 convolution.
// CHECK-LABEL: func.func @skip
// CHECK-DAG: %[[S:.*]] = arith.constant dense<5.000000e-01> : tensor<1x3x3x1xf32>
// CHECK-DAG: %[[P11:.*]] = arith.constant dense<{{\[\[\[\[}}1.200000e+01], [9.000000e+00]], {{\[\[}}1.500000e+01], [9.000000e+00]]]]> : tensor<1x2x2x1xf32>
// CHECK-DAG: %[[P10:.*]] = arith.constant dense<{{\[\[\[\[}}5.000000e+00], [1.600000e+01]], {{\[\[}}7.000000e+00], [1.700000e+01]]]]> : tensor<1x2x2x1xf32>
// CHECK-DAG: %[[P01:.*]] = arith.constant dense<{{\[\[\[\[}}3.000000e+00], [3.000000e+00]], {{\[\[}}2.400000e+01], [1.500000e+01]]]]> : tensor<1x2x2x1xf32>
// CHECK-DAG: %[[P00:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00], [5.000000e+00]], {{\[\[}}1.100000e+01], [2.800000e+01]]]]> : tensor<1x2x2x1xf32>
// CHECK: %[[X00:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: %[[C00:.*]] = linalg.generic {{.*}} ins(%[[X00]], %[[P00]] : tensor<1x1x3x3xf32>, tensor<1x2x2x1xf32>)
// CHECK: %[[Y0:.*]] = tensor.insert_slice %[[C00]] into %{{.*}}[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: tensor.pad %arg0 low[0, 0, 1, 0] high[0, 0, 0, 1]
// CHECK: %[[Y1:.*]] = tensor.insert_slice %{{.*}} into %[[Y0]][0, 0, 0, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: tensor.pad %arg0 low[0, 0, 0, 1] high[0, 0, 1, 0]
// CHECK: %[[Y2:.*]] = tensor.insert_slice %{{.*}} into %[[Y1]][0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: %[[Y:.*]] = tensor.insert_slice %{{.*}} into %[[Y2]][0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: %[[XS:.*]] = tensor.pad %arg1 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[XS]], %[[S]] : tensor<1x1x6x6xf32>, tensor<1x3x3x1xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[Y]], %[[D]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK: return %[[SUM]]
// The four phases of one filter each take a quadrant of the 128 PE
// columns (filters 0, 32, 64 and 96, the rest zero) of one convolution of
// x padded by the union of their windows, 3x3; each phase's block is
// copied into its strided slice (nki-tile evacuates it there).
// OFF-LABEL: func.func @skip
// OFF-NOT: [1, 1, 2, 2]
// OFF: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// OFF-NOT: [1, 1, 2, 2]
// OFF: return
func.func @skip(%x: tensor<1x1x2x2xf32>, %s: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]]]> : tensor<1x2x3x3xf32>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x2xf32>) outs(%e : tensor<1x1x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x4x4xf32>
  %cat = tensor.concat dim(1) %u, %s : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32>) outs(%f : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// Every channel upsampled and an init that is not a fill: each phase
// accumulates onto its strided slice of the init.
// CHECK-LABEL: func.func @accumulate
// CHECK-COUNT-4: tensor.extract_slice %arg1[0, 0, {{[01]}}, {{[01]}}] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK-NOT: arith.addf %in
// CHECK: return
func.func @accumulate(%x: tensor<1x3x3x3xf32>, %acc: tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.25> : tensor<2x3x3x3xf32>
  %e = tensor.empty() : tensor<1x3x6x6xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x3x3x3xf32>) outs(%e : tensor<1x3x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x6x6xf32>
  %p = tensor.pad %u low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x6x6xf32> to tensor<1x3x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) outs(%acc : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %y : tensor<1x2x6x6xf32>
}

// -----

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// Left as they are: a 1x1 kernel (each phase multiplies as much as the
// upsampled convolution) and stride 2.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: [1, 1, 2, 2] :
// CHECK: return
func.func @unchanged(%x: tensor<1x4x128x128xf32>) -> (tensor<1x2x256x256xf32>, tensor<1x2x128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<2x4x1x1xf32>
  %w3 = arith.constant dense<0.5> : tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x256x256xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x128x128xf32>) outs(%e : tensor<1x4x256x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x256x256xf32>
  %p0 = tensor.pad %u low[0, 0, 0, 0] high[0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x256x256xf32> to tensor<1x4x256x256xf32>
  %eo = tensor.empty() : tensor<1x2x256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x2x256x256xf32>) -> tensor<1x2x256x256xf32>
  %y1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p0, %w1 : tensor<1x4x256x256xf32>, tensor<2x4x1x1xf32>) outs(%f : tensor<1x2x256x256xf32>) -> tensor<1x2x256x256xf32>
  %p1 = tensor.pad %u low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x256x256xf32> to tensor<1x4x258x258xf32>
  %es = tensor.empty() : tensor<1x2x128x128xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x2x128x128xf32>) -> tensor<1x2x128x128xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p1, %w3 : tensor<1x4x258x258xf32>, tensor<2x4x3x3xf32>) outs(%fs : tensor<1x2x128x128xf32>) -> tensor<1x2x128x128xf32>
  return %y1, %y2 : tensor<1x2x256x256xf32>, tensor<1x2x128x128xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// A kernel-2 stride-2 transposed convolution (the importer's four 1x1
// phases plus the bias 0.5) concatenated with a skip: composed with the
// 3x3 convolution, phase (0, 0) of the result reads x through taps
// (q - 1, p - 1) <- w[0][0] x W(1, 1), (q - 1, p) <- w[0][1] x W(1, 0) +
// w[0][2] x W(1, 1), (q, p - 1) <- w[1][0] x W(0, 1) + w[2][0] x W(1, 1),
// (q, p) <- the other four; with W(s, t) = 1, 10, 100, 1000 and w = [[1,
// 2, 3], [4, 5, 6], [7, 8, 9]]: [[1000, 3200], [7040, 9865]], and the
// ones channel the same taps times the bias: [[0.5, 2.5], [5.5, 14]].
// CHECK-LABEL: func.func @transposed
// CHECK-DAG: %[[P00:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+03], [3.200000e+03]], {{\[\[}}7.040000e+03], [9.865000e+03]]], {{\[\[\[}}5.000000e-01], [2.500000e+00]], {{\[\[}}5.500000e+00], [1.400000e+01]]]]> : tensor<2x2x2x1xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONES:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK: %[[XA:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x2xf32> into tensor<1x2x2x2xf32>
// CHECK: %[[XB:.*]] = tensor.insert_slice %[[ONES]] into %[[XA]][0, 1, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: %[[X00:.*]] = tensor.pad %[[XB]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: linalg.generic {{.*}} ins(%[[X00]], %[[P00]] : tensor<1x2x3x3xf32>, tensor<2x2x2x1xf32>)
// CHECK-COUNT-3: linalg.generic {{.*}} : tensor<1x2x3x3xf32>, tensor<2x2x2x1xf32>)
// CHECK-NOT: tensor<1x1x1x1xf32>
// CHECK: return
// OFF-LABEL: func.func @transposed
// OFF-COUNT-4: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>)
func.func @transposed(%x: tensor<1x1x2x2xf32>, %s: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %b = arith.constant dense<0.5> : tensor<1x1x1xf32>
  %w00 = arith.constant dense<1.0> : tensor<1x1x1x1xf32>
  %w01 = arith.constant dense<10.0> : tensor<1x1x1x1xf32>
  %w10 = arith.constant dense<100.0> : tensor<1x1x1x1xf32>
  %w11 = arith.constant dense<1000.0> : tensor<1x1x1x1xf32>
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]]]> : tensor<1x2x3x3xf32>
  %small = tensor.empty() : tensor<1x1x2x2xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%small : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %u0 = tensor.empty() : tensor<1x1x4x4xf32>
  %c00 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w00 : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) outs(%fs : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b00 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c00, %b : tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) outs(%small : tensor<1x1x2x2xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %a = arith.addf %in, %in1 : f32
    linalg.yield %a : f32
  } -> tensor<1x1x2x2xf32>
  %u1 = tensor.insert_slice %b00 into %u0[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x2x2xf32> into tensor<1x1x4x4xf32>
  %c01 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w01 : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) outs(%fs : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b01 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c01, %b : tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) outs(%small : tensor<1x1x2x2xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %a = arith.addf %in, %in1 : f32
    linalg.yield %a : f32
  } -> tensor<1x1x2x2xf32>
  %u2 = tensor.insert_slice %b01 into %u1[0, 0, 0, 1] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x2x2xf32> into tensor<1x1x4x4xf32>
  %c10 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w10 : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) outs(%fs : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b10 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c10, %b : tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) outs(%small : tensor<1x1x2x2xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %a = arith.addf %in, %in1 : f32
    linalg.yield %a : f32
  } -> tensor<1x1x2x2xf32>
  %u3 = tensor.insert_slice %b10 into %u2[0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x2x2xf32> into tensor<1x1x4x4xf32>
  %c11 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w11 : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) outs(%fs : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b11 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c11, %b : tensor<1x1x2x2xf32>, tensor<1x1x1xf32>) outs(%small : tensor<1x1x2x2xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %a = arith.addf %in, %in1 : f32
    linalg.yield %a : f32
  } -> tensor<1x1x2x2xf32>
  %u = tensor.insert_slice %b11 into %u3[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2] : tensor<1x1x2x2xf32> into tensor<1x1x4x4xf32>
  %cat = tensor.concat dim(1) %u, %s : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x6x6xf32>, tensor<1x2x3x3xf32>) outs(%f : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}
