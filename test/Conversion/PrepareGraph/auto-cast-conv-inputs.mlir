// --auto-cast=matmul: a tensor that only convolutions read, each rounding it
// to bf16 (directly, through a constant pad or through a depthwise channel
// block's slice), is stored in bf16 (so are the parts of a concatenation
// that only such convolutions read): a cast
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

// -----

// A chain: each convolution's result is only the next one's input, so each
// is stored in bf16 and the next reads it so. The convolutions are changed
// in place (the compile fuzzer found the pass reading a convolution it had
// replaced, whose result it still held as the next one's input; only a
// sanitizer build reliably reports that).
// CHECK-LABEL: func.func @chain
// CHECK: %[[C1:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x8x6x6xf32>, tensor<8x1x1x8xbf16>)
// CHECK: %[[B1:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x8x6x6xf32>) outs(%{{.*}} : tensor<1x8x6x6xbf16>)
// CHECK: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[B1]], %{{.*}} : tensor<1x8x6x6xbf16>, tensor<8x1x1x8xbf16>)
// CHECK: %[[B2:.*]] = linalg.generic {{.*}} ins(%[[C2]] : tensor<1x8x6x6xf32>) outs(%{{.*}} : tensor<1x8x6x6xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[B2]], %{{.*}} : tensor<1x8x6x6xbf16>, tensor<8x1x1x8xbf16>)
func.func @chain(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<8x8x1x1xf32>
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c1, %w : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c2, %w : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %c3 : tensor<1x8x6x6xf32>
}

// -----

// Also read by an elementwise op of one input: the tensor stays f32 and the
// convolution rounds it in its body (the pass indexed a second input of
// every generic reading the tensor and aborted on a detector's hardswish).
// CHECK-LABEL: func.func @also_elementwise
// CHECK-NOT: tensor<1x4x10x10xbf16>
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x4x10x10xf32>, tensor<4x3x3x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16, %{{.*}}: f32):
// CHECK-NEXT: arith.truncf %[[IN]] : f32 to bf16
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @also_elementwise(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
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
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.negf %in : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2, %n : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// A producer that reads per-channel operands through broadcasting maps
// ((d1, 0, 0)): a BatchNormalization's shift, computed from constants
// (nki-fuse-elementwise folds it later), is no obstacle: the normalised
// tensor is stored in bf16. A factor computed from the program's input
// (a squeeze-and-excitation scale, which nki-tile folds into the next
// convolution's filter) keeps its producer in f32.
// CHECK-LABEL: func.func @broadcast_operands
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK: arith.addf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[N]] : tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x4x8x8xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[B]], %{{.*}} : tensor<1x4x8x8xbf16>, tensor<4x1x1x4xbf16>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK: arith.mulf
// CHECK-NOT: outs(%{{.*}} : tensor<1x4x8x8xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[S]], %{{.*}} : tensor<1x4x8x8xf32>, tensor<4x1x1x4xbf16>)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#ch1 = affine_map<(d0) -> (d0)>
func.func @broadcast_operands(%x: tensor<1x4x8x8xf32>, %g: tensor<4x1x1xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %beta = arith.constant dense<[0.5, 1.0, 1.5, 2.0]> : tensor<4xf32>
  %half = arith.constant 0.5 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %shift = linalg.generic {indexing_maps = [#ch1, #ch1], iterator_types = ["parallel"]} ins(%beta : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %shift3 = tensor.expand_shape %shift [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %shift3 : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%n, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %g : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %m = arith.mulf %in, %k : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c1, %c2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// A max pooling whose result only rounding convolutions read pools in bf16
// (the rounded max of a window is the max of its rounded elements, padding
// and init): its input is rounded where it is made, padded with a bf16
// -inf, and the convolution reads the bf16 result.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x8x8xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %in : f32 to bf16
// CHECK: %[[NINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK: %[[P:.*]] = tensor.pad %[[B]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]] : bf16
// CHECK: %[[I:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<1x4x4x4xbf16>)
// CHECK: %[[M:.*]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %{{.*}} : tensor<1x4x10x10xbf16>, tensor<3x3xf32>) outs(%[[I]] : tensor<1x4x4x4xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<1x4x4x4xbf16>, tensor<4x1x1x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: bf16,
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @max_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x1x1xf32>
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
    tensor.yield %ninf : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %pe = tensor.empty() : tensor<1x4x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x4x10x10xf32>, tensor<3x3xf32>) outs(%pf : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%f2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c2 : tensor<1x4x4x4xf32>
}

// -----

// The pooled result is also returned: the pooling stays f32.
// CHECK-LABEL: func.func @max_pool_returned
// CHECK: linalg.pooling_nchw_max {{.*}} outs(%{{.*}} : tensor<1x4x4x4xf32>)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @max_pool_returned(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x1x1xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %pe = tensor.empty() : tensor<1x4x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%c1, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%f2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c2, %mp : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// A U-Net level's output: pooled for the next level and read by a decoder
// convolution through a zero pad (the skip connection). Both round it, so
// it is stored in bf16 once, and the pooling and the pad read that.
// CHECK-LABEL: func.func @max_pool_skip
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x8x8xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %in : f32 to bf16
// CHECK: %[[M:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[B]], %{{.*}} : tensor<1x4x8x8xbf16>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x4x4x4xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<1x4x4x4xbf16>, tensor<4x1x1x4xbf16>)
// CHECK: %[[P:.*]] = tensor.pad %[[B]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<1x4x10x10xbf16>, tensor<4x3x3x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: bf16,
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
// CHECK-NOT: tensor<1x4x8x8xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @max_pool_skip(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x1x1xf32>
  %w3 = arith.constant dense<0.125> : tensor<4x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %pe = tensor.empty() : tensor<1x4x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%r, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%f2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w3 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2, %c3 : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>
}

// -----

// The pooled tensor is also a result of the function: it stays f32, and
// so do the pooling and the decoder convolution's input.
// CHECK-LABEL: func.func @max_pool_skip_returned
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x4x10x10xf32>, tensor<4x3x3x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: f32,
// CHECK-NEXT: arith.truncf %[[IN]] : f32 to bf16
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @max_pool_skip_returned(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x1x1xf32>
  %w3 = arith.constant dense<0.125> : tensor<4x4x3x3xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %pe = tensor.empty() : tensor<1x4x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%r, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%mp, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) outs(%f2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w3 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2, %c3, %r : tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// -----

// Read by a depthwise convolution of 130 channels, which nki-prepare-graph
// decomposes into channel blocks of 128 and 2, each reading its slice of
// the tensor through a constant pad: the tensor is stored in bf16, and each
// block slices and pads the bf16 tensor.
// CHECK-LABEL: func.func @depthwise_blocks
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x130x4x4xf32>) outs(%{{.*}} : tensor<1x130x4x4xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf %in : f32 to bf16
// CHECK: tensor.extract_slice %[[B]][0, 0, 0, 0] [1, 128, 4, 4] [1, 1, 1, 1] : tensor<1x130x4x4xbf16> to tensor<1x128x4x4xbf16>
// CHECK: } : tensor<1x128x4x4xbf16> to tensor<1x128x6x6xbf16>
// CHECK: tensor.extract_slice %[[B]][0, 128, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x130x4x4xbf16> to tensor<1x2x4x4xbf16>
// CHECK: } : tensor<1x2x4x4xbf16> to tensor<1x2x6x6xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise_blocks(%arg0: tensor<1x4x4x4xf32> {nki.name = "input"}) -> (tensor<1x130x4x4xf32> {nki.name = "output"}) {
  %cst = arith.constant dense<5.000000e-01> : tensor<130x4x1x1xf32>
  %cst_0 = arith.constant dense<2.500000e-01> : tensor<130x1x3x3xf32>
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x130x4x4xf32>
  %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<1x130x4x4xf32>) -> tensor<1x130x4x4xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %cst : tensor<1x4x4x4xf32>, tensor<130x4x1x1xf32>) outs(%1 : tensor<1x130x4x4xf32>) -> tensor<1x130x4x4xf32>
  %3 = tensor.empty() : tensor<1x130x4x4xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x130x4x4xf32>) outs(%3 : tensor<1x130x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst_8 = arith.constant 0.000000e+00 : f32
    %8 = arith.maximumf %in, %cst_8 : f32
    linalg.yield %8 : f32
  } -> tensor<1x130x4x4xf32>
  %cst_2 = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %4 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
    tensor.yield %cst_2 : f32
  } : tensor<1x130x4x4xf32> to tensor<1x130x6x6xf32>
  %collapsed = tensor.collapse_shape %padded [[0, 1, 2, 3]] : tensor<1x130x6x6xf32> into tensor<4680xf32>
  %expanded = tensor.expand_shape %collapsed [[0, 1, 2, 3, 4]] output_shape [1, 130, 1, 6, 6] : tensor<4680xf32> into tensor<1x130x1x6x6xf32>
  %collapsed_3 = tensor.collapse_shape %cst_0 [[0, 1, 2, 3]] : tensor<130x1x3x3xf32> into tensor<1170xf32>
  %expanded_4 = tensor.expand_shape %collapsed_3 [[0, 1, 2, 3, 4]] output_shape [130, 1, 1, 3, 3] : tensor<1170xf32> into tensor<130x1x1x3x3xf32>
  %cst_5 = arith.constant 0.000000e+00 : f32
  %5 = tensor.empty() : tensor<1x130x1x4x4xf32>
  %6 = linalg.fill ins(%cst_5 : f32) outs(%5 : tensor<1x130x1x4x4xf32>) -> tensor<1x130x1x4x4xf32>
  %7 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%expanded, %expanded_4 : tensor<1x130x1x6x6xf32>, tensor<130x1x1x3x3xf32>) outs(%6 : tensor<1x130x1x4x4xf32>) -> tensor<1x130x1x4x4xf32>
  %collapsed_6 = tensor.collapse_shape %7 [[0, 1, 2, 3, 4]] : tensor<1x130x1x4x4xf32> into tensor<2080xf32>
  %expanded_7 = tensor.expand_shape %collapsed_6 [[0, 1, 2, 3]] output_shape [1, 130, 4, 4] : tensor<2080xf32> into tensor<1x130x4x4xf32>
  return %expanded_7 : tensor<1x130x4x4xf32>
}

// -----

// A concatenation whose parts only it reads, each the result of an
// elementwise op (a convolution's ReLU), read only by a rounding
// convolution: each part is rounded by its producer and inserted into a
// bf16 tensor, which the convolution pads and reads.
// CHECK-LABEL: func.func @concat_parts
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x8x8xbf16>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x8x8xbf16>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x8x8xbf16>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
// CHECK: %[[C:.*]] = tensor.insert_slice %[[B]] into %[[I]][0, 2, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<1x2x8x8xbf16> into tensor<1x4x8x8xbf16>
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.pad %[[C]]
// CHECK: } : tensor<1x4x8x8xbf16> to tensor<1x4x10x10xbf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @concat_parts(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %wa = arith.constant dense<0.5> : tensor<2x4x1x1xf32>
  %wb = arith.constant dense<0.75> : tensor<2x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x3x3xf32>
  %e2 = tensor.empty() : tensor<1x2x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ca = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wa : tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) outs(%f2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ca : tensor<1x2x8x8xf32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cb = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wb : tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) outs(%f2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cb : tensor<1x2x8x8xf32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cat = tensor.concat dim(1) %ra, %rb : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2 : tensor<1x4x8x8xf32>
}

// -----

// A part the function also returns: the concatenation stays f32 and the
// convolution rounds it in its body.
// CHECK-LABEL: func.func @concat_part_returned
// CHECK-NOT: tensor<1x4x8x8xbf16>
// CHECK: tensor.insert_slice %{{.*}} : tensor<1x2x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x4x10x10xf32>, tensor<4x3x3x4xbf16>)
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @concat_part_returned(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %wa = arith.constant dense<0.5> : tensor<2x4x1x1xf32>
  %wb = arith.constant dense<0.75> : tensor<2x4x1x1xf32>
  %w2 = arith.constant dense<0.25> : tensor<4x4x3x3xf32>
  %e2 = tensor.empty() : tensor<1x2x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ca = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wa : tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) outs(%f2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ca : tensor<1x2x8x8xf32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cb = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wb : tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) outs(%f2 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cb : tensor<1x2x8x8xf32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x8xf32>
  %cat = tensor.concat dim(1) %ra, %rb : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %cat low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) outs(%f : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %c2, %ra : tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>
}
