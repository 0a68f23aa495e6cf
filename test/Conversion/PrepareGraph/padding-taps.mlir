// nki-prepare-graph: kernel taps that read only a convolution's zero
// padding are sliced off its filter, and only the padding the kept taps
// reach stays (PaddingTaps.cpp).
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=conv=im2col | FileCheck %s

// DeepLabV3's outer ASPP branch at low resolution: a 3x3 kernel dilated by
// 8 over 8 rows of padding of a 6 x 6 input reads the input only through
// its centre tap: a 1x1 convolution of the unpadded input.
// CHECK-LABEL: func.func @centre
// CHECK-NOT: tensor.pad
// CHECK: %[[W:.*]] = tensor.extract_slice %arg1[0, 0, 1, 1] [4, 3, 1, 1] [1, 1, 1, 1] : tensor<4x3x3x3xf32> to tensor<4x3x1x1xf32>
// CHECK-NOT: tensor.pad
// CHECK: linalg.batch_matmul
func.func @centre(%x: tensor<1x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 8, 8] high[0, 0, 8, 8] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x6x6xf32> to tensor<1x3x22x22xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<8> : tensor<2xi64>}
         ins(%p, %w : tensor<1x3x22x22xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// A 7 x 5 input padded by 6, dilation 6: every kernel row reaches the 7
// rows, only the centre column the 5 columns: a 3x1 kernel, padded by 6
// rows and no columns.
// CHECK-LABEL: func.func @rows_kept
// CHECK: tensor.extract_slice %arg1[0, 0, 0, 1] [4, 3, 3, 1] [1, 1, 1, 1] : tensor<4x3x3x3xf32> to tensor<4x3x3x1xf32>
// CHECK: tensor.pad %{{.*}} low[0, 0, 6, 0] high[0, 0, 6, 0]
// CHECK: tensor<1x3x7x5xf32> to tensor<1x3x19x5xf32>
func.func @rows_kept(%x: tensor<1x3x7x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x7x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 6, 6] high[0, 0, 6, 6] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x7x5xf32> to tensor<1x3x19x17xf32>
  %e = tensor.empty() : tensor<1x4x7x5xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x7x5xf32>) -> tensor<1x4x7x5xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<6> : tensor<2xi64>}
         ins(%p, %w : tensor<1x3x19x17xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x7x5xf32>) -> tensor<1x4x7x5xf32>
  return %y : tensor<1x4x7x5xf32>
}

// -----

// Padding the taps reach on every side (an ordinary 3x3 with padding 1),
// or padded by another value: left alone.
// CHECK-LABEL: func.func @kept
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.pad %{{.*}} low[0, 0, 8, 8] high[0, 0, 8, 8]
func.func @kept(%x: tensor<1x3x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x6x6xf32> to tensor<1x3x8x8xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%p, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %q = tensor.pad %x low[0, 0, 8, 8] high[0, 0, 8, 8] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x3x6x6xf32> to tensor<1x3x22x22xf32>
  %z = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<8> : tensor<2xi64>}
         ins(%q, %w : tensor<1x3x22x22xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}
