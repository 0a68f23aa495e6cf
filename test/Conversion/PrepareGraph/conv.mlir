// nki-prepare-graph: convolutions become an im2col gather and one matmul,
// pooling elementwise max/add over strided windows.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=conv=im2col -verify-diagnostics | FileCheck %s

// 2-D, stride 2, dilation 1: the filter viewed as [1, F, C*KH*KW]; 9
// strided windows, each collapsed to [C, OH*OW] and copied to rows c*9 + k
// of col[1, C*KH*KW, N*OH*OW]; one batch matmul from zero; the result
// copied per image.
// CHECK-LABEL: func.func @conv2d
// CHECK-NOT: linalg.conv
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3, 4]] : tensor<1x4x3x3x3xf32> into tensor<1x4x27xf32>
// CHECK: %[[COL:.*]] = tensor.empty() : tensor<1x27x6xf32>
// CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 1, 3, 3, 2] [1, 1, 1, 2, 2] : tensor<1x1x3x7x5xf32> to tensor<1x3x3x2xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1], [2, 3]] : tensor<1x3x3x2xf32> into tensor<1x3x6xf32>
// CHECK: tensor.insert_slice %[[C]] into %[[COL]][0, 0, 0] [1, 3, 6] [1, 9, 1] : tensor<1x3x6xf32> into tensor<1x27x6xf32>
// CHECK-COUNT-8: tensor.insert_slice {{.*}} [1, 3, 6] [1, 9, 1]
// CHECK: linalg.fill {{.*}} -> tensor<1x4x6xf32>
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[A]], %{{.*}} : tensor<1x4x27xf32>, tensor<1x27x6xf32>)
// CHECK: tensor.insert_slice %[[P]] into %{{.*}}[0, 0, 0, 0] [1, 1, 4, 6] [1, 1, 1, 1] : tensor<1x4x6xf32> into tensor<1x1x4x6xf32>
// CHECK: return {{.*}} : tensor<1x4x3x2xf32>
func.func @conv2d(%x: tensor<1x3x7x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x3x2xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x7x5xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %y : tensor<1x4x3x2xf32>
}

// -----

// Two images: image n's windows go to columns n*8...; the [F, N*OW]
// product goes back to [N, F, OW] by one slice copy per image; a non-zero
// init is added after.
// CHECK-LABEL: func.func @conv1d_batch
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 8] [1, 4, 8] [1, 3, 1] : tensor<1x4x8xf32> into tensor<1x12x16xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x5x12xf32>, tensor<1x12x16xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 8] [1, 5, 8] [1, 1, 1] : tensor<1x5x16xf32> to tensor<1x5x8xf32>
// CHECK: tensor.insert_slice %{{.*}}[1, 0, 0, 0] [1, 1, 5, 8] [1, 1, 1, 1] : tensor<1x5x8xf32> into tensor<2x1x5x8xf32>
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @conv1d_batch(%x: tensor<2x4x10xf32>, %w: tensor<5x4x3xf32>, %init: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %y = linalg.conv_1d_ncw_fcw {strides = dense<1> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
         ins(%x, %w : tensor<2x4x10xf32>, tensor<5x4x3xf32>) outs(%init : tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

// Groups are the batch of one batch_matmul; dilation 2 spaces the window
// offsets.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 2, 2] [1, 2, 2, 4, 3] [1, 1, 1, 1, 1]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x8xf32>, tensor<2x8x12xf32>)
func.func @grouped(%x: tensor<1x2x2x6x5xf32>, %w: tensor<2x3x2x2x2xf32>) -> tensor<1x2x3x4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x4x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x4x3xf32>) -> tensor<1x2x3x4x3xf32>
  %y = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x2x6x5xf32>, tensor<2x3x2x2x2xf32>) outs(%i : tensor<1x2x3x4x3xf32>) -> tensor<1x2x3x4x3xf32>
  return %y : tensor<1x2x3x4x3xf32>
}

// -----

// Depthwise: every channel its own group with one filter.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<3x1x4xf32>, tensor<3x4x9xf32>)
func.func @depthwise(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x4x4xf32>, tensor<3x2x2xf32>) outs(%i : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

// Max pooling 2x2 stride 2 from a -inf init, one dim at a time: two
// strided row windows (views of the input), then two column windows of
// their max; no init operand.
// CHECK-LABEL: func.func @maxpool
// CHECK-COUNT-2: tensor.extract_slice %arg0{{.*}} [1, 2, 3, 7] [1, 1, 2, 1] : tensor<1x2x6x7xf32> to tensor<1x2x3x7xf32>
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x3x7xf32>, tensor<1x2x3x7xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.extract_slice %[[H]][0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 1, 2]
// CHECK: tensor.extract_slice %[[H]][0, 0, 0, 1] [1, 2, 3, 3] [1, 1, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.pooling
func.func @maxpool(%x: tensor<1x2x6x7xf32>) -> tensor<1x2x3x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %y = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %k : tensor<1x2x6x7xf32>, tensor<2x2xf32>) outs(%i : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Sum pooling over 9 windows: 8 in the first generic, then the partial sum
// and the last window.
// CHECK-LABEL: func.func @sumpool
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[M:map[0-9]*]], #[[M]], #[[M]], #[[M]], #[[M]], #[[M]], #[[M]], #[[M]], #[[M]]]
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<2x3x4xf32>, tensor<2x3x4xf32>)
func.func @sumpool(%x: tensor<2x3x12xf32>) -> tensor<2x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %k = tensor.empty() : tensor<9xf32>
  %y = linalg.pooling_ncw_sum {strides = dense<1> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
         ins(%x, %k : tensor<2x3x12xf32>, tensor<9xf32>) outs(%i : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// Channels-last forms are not decomposed: a diagnostic, not a tiling failure.
func.func @nhwc(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  // expected-error @+1 {{'linalg.conv_2d_nhwc_hwcf' op is not supported by the nki compiler: supported convolutions are the NC-first}}
  %y = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x5x5x3xf32>, tensor<3x3x3x4xf32>) outs(%i : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

func.func @pool_nhwc(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  // expected-error @+1 {{'linalg.pooling_nhwc_max' op is not supported by the nki compiler}}
  %y = linalg.pooling_nhwc_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %k : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Many images: a chunk's windows are one chain of insert_slices, whose
// bufferization analysis grows with the cube of its length, so the images
// go in chunks of at most 32 windows: with 9 windows per image, chunks of
// 3, 3 and 1 images, each its own im2col and batch matmul.
// CHECK-LABEL: func.func @conv_many_images
// CHECK-COUNT-27: tensor.insert_slice {{.*}} into tensor<1x18x72xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x2x18xf32>, tensor<1x18x72xf32>)
// CHECK-COUNT-3: tensor.insert_slice {{.*}} into tensor<7x1x2x24xf32>
// CHECK-COUNT-27: tensor.insert_slice {{.*}} into tensor<1x18x72xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x2x18xf32>, tensor<1x18x72xf32>)
// CHECK-COUNT-3: tensor.insert_slice {{.*}} into tensor<7x1x2x24xf32>
// CHECK-COUNT-9: tensor.insert_slice {{.*}} into tensor<1x18x24xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x2x18xf32>, tensor<1x18x24xf32>)
// CHECK: tensor.insert_slice {{.*}}[6, 0, 0, 0] [1, 1, 2, 24] [1, 1, 1, 1] : tensor<1x2x24xf32> into tensor<7x1x2x24xf32>
func.func @conv_many_images(%x: tensor<7x2x6x8xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<7x2x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x2x4x6xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<7x2x4x6xf32>) -> tensor<7x2x4x6xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<7x2x6x8xf32>, tensor<2x2x3x3xf32>) outs(%i : tensor<7x2x4x6xf32>) -> tensor<7x2x4x6xf32>
  return %y : tensor<7x2x4x6xf32>
}

// -----

// Windows that tile the input (kernel = stride, no dilation: a vision
// transformer's patch embedding) are all of im2col at once: x's first 4 x
// 6 of 5 x 7 (its last row and column fall outside every window) seen as
// [N, G, C, OH, KH, OW, KW], one transpose to [G, C, KH, KW, N, OH, OW],
// collapsed to col[1, C*KH*KW, N*OH*OW]; no window copies, and every image
// in one batch matmul.
// CHECK-LABEL: func.func @patches
// CHECK-NOT: tensor.insert_slice {{.*}} into tensor<1x12x12xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [2, 1, 3, 4, 6] [1, 1, 1, 1, 1] : tensor<2x1x3x5x7xf32> to tensor<2x1x3x4x6xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0], [1], [2], [3, 4], [5, 6]] output_shape [2, 1, 3, 2, 2, 3, 2] : tensor<2x1x3x4x6xf32> into tensor<2x1x3x2x2x3x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<2x1x3x2x2x3x2xf32>) outs(%{{.*}} : tensor<1x3x2x2x2x2x3xf32>) permutation = [1, 2, 4, 6, 0, 3, 5]
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3], [4, 5, 6]] : tensor<1x3x2x2x2x2x3xf32> into tensor<1x12x12xf32>
// CHECK-NOT: tensor.insert_slice {{.*}} into tensor<1x12x12xf32>
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[COL]] : tensor<1x4x12xf32>, tensor<1x12x12xf32>)
// CHECK-COUNT-2: tensor.insert_slice {{.*}} into tensor<2x1x4x6xf32>
func.func @patches(%x: tensor<2x3x5x7xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<2x4x2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x2x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x2x3xf32>) -> tensor<2x4x2x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x3x5x7xf32>, tensor<4x3x2x2xf32>) outs(%i : tensor<2x4x2x3xf32>) -> tensor<2x4x2x3xf32>
  return %y : tensor<2x4x2x3xf32>
}
