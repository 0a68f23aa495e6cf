// --auto-cast=matmul: a tensor that only convolutions read, each rounding it
// to bf16 (directly or through a constant pad), is stored in bf16: a cast
// after its producer (which fuses into the producer's epilogue), the pad in
// bf16, and the convolution reading bf16 with no rounding in its body. The
// program's input keeps its type.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=matmul | FileCheck %s

// CHECK-LABEL: func.func @conv_only
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x4x8x8xf32>, tensor<4x1x1x4xbf16>)
// CHECK: arith.truncf %in : f32 to bf16
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x4x8x8xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %in : f32 to bf16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: %[[P:.*]] = tensor.pad %[[B]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[Z]] : bf16
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<1x4x10x10xbf16>, tensor<4x3x3x4xbf16>) outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %[[W:.*]]: bf16, %[[OUT:.*]]: f32):
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: arith.extf %[[W]] : bf16 to f32
// CHECK-NEXT: arith.mulf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_only(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// -----

// Also a result of the function: the tensor stays f32 and the second
// convolution rounds it in its body.
// CHECK-LABEL: func.func @also_returned
// CHECK-NOT: tensor<1x4x10x10xbf16>
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x4x10x10xf32>, tensor<4x3x3x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16, %{{.*}}: f32):
// CHECK-NEXT: arith.truncf %[[IN]] : f32 to bf16
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @also_returned(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2, %r : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
