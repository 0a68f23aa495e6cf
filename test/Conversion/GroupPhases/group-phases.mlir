// nki-group-phases: the phases of a convolution of a nearest upsample
// (nki-prepare-graph, UpsampledConv.cpp) whose filters together fill the
// PE's columns become one convolution of their union window, each phase's
// filters in a quadrant of the columns, its block of the result sliced into
// its strided insert (lib/Conversion/Graph/GroupPhases.cpp); only where a
// direct convolution's epilogue adds the result and it stays in SBUF.
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(nki-prepare-graph,func.func(nki-group-phases))' | FileCheck %s

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// The upsampled part of a concatenation with a skip, a 3x3 kernel, pad 1
// (upsampled-conv.mlir's @skip): the four 2x2 phases' union is 3x3 on x
// padded by one all round; phase k's single filter at column 32 k.
// CHECK-LABEL: func.func @skip
// CHECK: %[[X:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<1x1x4x4xf32>, tensor<1x3x3x128xf32>) outs(%{{.*}} : tensor<1x128x2x2xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: %[[Y0:.*]] = tensor.insert_slice %[[P0]] into %{{.*}}[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[T]][0, 32, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: %[[Y1:.*]] = tensor.insert_slice %[[P1]] into %[[Y0]][0, 0, 0, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: %[[P2:.*]] = tensor.extract_slice %[[T]][0, 64, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: %[[Y2:.*]] = tensor.insert_slice %[[P2]] into %[[Y1]][0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: %[[P3:.*]] = tensor.extract_slice %[[T]][0, 96, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: %[[Y:.*]] = tensor.insert_slice %[[P3]] into %[[Y2]][0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x6x6xf32>, tensor<1x3x3x1xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %[[D]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
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
// The same at 256 x 512: the result takes 512 KiB a partition, more than
// half of one; nki-interleave-phases assembles it, the phases stay apart.
// CHECK-LABEL: func.func @large
// CHECK-NOT: tensor.extract_slice
// CHECK-COUNT-4: linalg.generic {{.*}} : tensor<1x1x129x257xf32>, tensor<1x2x2x1xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @large(%x: tensor<1x1x128x256xf32>, %s: tensor<1x1x256x512xf32>) -> tensor<1x1x256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]]]> : tensor<1x2x3x3xf32>
  %e = tensor.empty() : tensor<1x1x256x512xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x128x256xf32>) outs(%e : tensor<1x1x256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x256x512xf32>
  %cat = tensor.concat dim(1) %u, %s : (tensor<1x1x256x512xf32>, tensor<1x1x256x512xf32>) -> tensor<1x2x256x512xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x256x512xf32> to tensor<1x2x258x514xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x256x512xf32>) -> tensor<1x1x256x512xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x2x258x514xf32>, tensor<1x2x3x3xf32>) outs(%f : tensor<1x1x256x512xf32>) -> tensor<1x1x256x512xf32>
  return %y : tensor<1x1x256x512xf32>
}

// -----

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// No skip connection: the phases' result is returned, not added by an
// epilogue, and stays one convolution a phase.
// CHECK-LABEL: func.func @alone
// CHECK-NOT: tensor.extract_slice
// CHECK-COUNT-4: linalg.generic {{.*}} : tensor<1x1x3x3xf32>, tensor<1x2x2x1xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @alone(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1x2x2xf32>) outs(%e : tensor<1x1x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x4x4xf32>
  %p = tensor.pad %u low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x1x4x4xf32> to tensor<1x1x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) outs(%f : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// A transposed convolution composed with the convolution after it
// (upsampled-conv.mlir's @transposed): one convolution of x and the ones
// channel padded by the union window.
// CHECK-LABEL: func.func @transposed
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x3x3x128xf32>)
// CHECK-COUNT-4: tensor.extract_slice
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
