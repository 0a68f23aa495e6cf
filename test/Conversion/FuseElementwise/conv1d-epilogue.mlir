// RUN: nki-opt %s -split-input-file --nki-prepare-graph --nki-fuse-elementwise | FileCheck %s

// A 1-D convolution runs as the 2-D one of one-pixel rows (Conv1DAsConv2D);
// its bias and ReLU, on the [N, C, W] result, run in the [N, C, 1, W] space
// of the convolution's result, read directly (its epilogue), and only
// their result is collapsed back. The bias keeps its map's broadcast
// (d1, 0), now over four loops.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @bias_relu
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}"reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x4x1x32xf32>, tensor<4x1x3x8xf32>) outs(%{{.*}} : tensor<2x8x1x30xf32>)
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #{{.*}}, #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]], %{{.*}} : tensor<2x8x1x30xf32>, tensor<8x1xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: tensor.collapse_shape %[[E]] {{\[\[}}0], [1], [2, 3]] : tensor<2x8x1x30xf32> into tensor<2x8x30xf32>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d1, 0)>
func.func @bias_relu(%x: tensor<2x4x32xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8x1xf32>) -> tensor<2x8x30xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x30xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x30xf32>) -> tensor<2x8x30xf32>
  %y = linalg.conv_1d_ncw_fcw {strides = dense<1> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
         ins(%x, %w : tensor<2x4x32xf32>, tensor<8x4x3xf32>) outs(%i : tensor<2x8x30xf32>) -> tensor<2x8x30xf32>
  %r = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%y, %b : tensor<2x8x30xf32>, tensor<8x1xf32>) outs(%e : tensor<2x8x30xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x30xf32>
  return %r : tensor<2x8x30xf32>
}
