// nki-prepare-graph: 2-D NCHW convolutions become the implicit-GEMM generic
// (lib/Conversion/Conv/ConvGeneric.h) with the filter in [C, KH, KW, F]
// order; the others keep the im2col decomposition (conv.mlir).
// RUN: nki-opt %s -split-input-file --nki-prepare-graph | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-prepare-graph=auto-cast=matmul | FileCheck %s --check-prefix=CAST
// RUN: not nki-opt %s --nki-prepare-graph=conv=winograd 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: conv must be 'implicit-gemm' or 'im2col', got 'winograd'

// A constant filter is permuted at compile time: w[f, c, kh, kw] =
// 10 * f + c at every tap, so [C, KH, KW, F] holds rows [0, 10] and [1, 11].
// Stride 2 and dilation 3 are the coefficients of the input's map.
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5 * 3, d3 * 2 + d6 * 3)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
// CHECK-DAG: #[[$Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @constant_filter
// CHECK: %[[F:.*]] = arith.constant dense<{{\[\[\[}}[0.000000e+00, 1.000000e+01], [0.000000e+00, 1.000000e+01]], {{\[\[}}0.000000e+00, 1.000000e+01], [0.000000e+00, 1.000000e+01]]], {{\[\[\[}}1.000000e+00, 1.100000e+01], [1.000000e+00, 1.100000e+01]], {{\[\[}}1.000000e+00, 1.100000e+01], [1.000000e+00, 1.100000e+01]]]]> : tensor<2x2x2x2xf32>
// CHECK-NOT: linalg.conv
// CHECK: linalg.generic {indexing_maps = [#[[$X]], #[[$W]], #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %[[F]] : tensor<1x2x9x9xf32>, tensor<2x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// With auto-cast the permuted filter becomes a bf16 constant and the input
// is rounded to bf16 in the body (the kernel's DMA does it); the product
// and the sum stay f32.
// CAST-LABEL: func.func @constant_filter
// CAST: %[[F:.*]] = arith.constant dense<{{.*}}> : tensor<2x2x2x2xbf16>
// CAST: linalg.generic {{.*}} ins(%{{.*}}, %[[F]] : tensor<1x2x9x9xf32>, tensor<2x2x2x2xbf16>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CAST-NEXT: ^bb0(%[[X:.*]]: f32, %[[W:.*]]: bf16, %[[O:.*]]: f32):
// CAST-NEXT: %[[T:.*]] = arith.truncf %[[X]] : f32 to bf16
// CAST-NEXT: %[[XE:.*]] = arith.extf %[[T]] : bf16 to f32
// CAST-NEXT: %[[WE:.*]] = arith.extf %[[W]] : bf16 to f32
// CAST-NEXT: %[[P:.*]] = arith.mulf %[[XE]], %[[WE]] : f32
// CAST-NEXT: arith.addf %[[O]], %[[P]] : f32
func.func @constant_filter(%x: tensor<1x2x9x9xf32>) -> tensor<1x2x3x3xf32> {
  %w = arith.constant dense<[[[[0.0, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]],
                             [[[10.0, 10.0], [10.0, 10.0]], [[11.0, 11.0], [11.0, 11.0]]]]> : tensor<2x2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<3> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x9x9xf32>, tensor<2x2x2x2xf32>) outs(%i : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// A filter that is not a constant goes through a transpose.
// CHECK-LABEL: func.func @argument_filter
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x4xf32>) permutation = [1, 2, 3, 0]
// CHECK: linalg.generic
func.func @argument_filter(%x: tensor<1x3x7x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x5x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x7x5xf32>, tensor<4x3x3x3xf32>) outs(%i : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %y : tensor<1x4x5x3xf32>
}

// -----

// The filter and two bands of one output row's input rows must fit half
// of the chosen target's SBUF. Here they would take 115,320 bytes per
// partition (more than trn2's 112 KiB): im2col. So do a bf16 input with an
// f32 result (the generic is of one type).
// CHECK-LABEL: func.func @too_large
// CHECK: linalg.batch_matmul
func.func @too_large(%x: tensor<1x1x3x5xf32>, %w: tensor<3200x1x3x3xf32>) -> tensor<1x3200x1x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3200x1x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3200x1x3xf32>) -> tensor<1x3200x1x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x3x5xf32>, tensor<3200x1x3x3xf32>) outs(%i : tensor<1x3200x1x3xf32>) -> tensor<1x3200x1x3xf32>
  return %y : tensor<1x3200x1x3xf32>
}

// -----

// 110,712 bytes per partition fit trn2's half (112 KiB) but not trn1's
// (96 KiB): the kernel on trn2, im2col on trn1.
// CHECK-LABEL: func.func @fits_trn2
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic
// CHECK-NOT: linalg.batch_matmul
func.func @fits_trn2(%x: tensor<1x1x3x5xf32>, %w: tensor<3072x1x3x3xf32>) -> tensor<1x3072x1x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3072x1x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3072x1x3xf32>) -> tensor<1x3072x1x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x3x5xf32>, tensor<3072x1x3x3xf32>) outs(%i : tensor<1x3072x1x3xf32>) -> tensor<1x3072x1x3xf32>
  return %y : tensor<1x3072x1x3xf32>
}

// -----

// CHECK-LABEL: func.func @too_large_trn1
// CHECK: linalg.batch_matmul
module attributes {nki.target = "trn1"} {
func.func @too_large_trn1(%x: tensor<1x1x3x5xf32>, %w: tensor<3072x1x3x3xf32>) -> tensor<1x3072x1x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3072x1x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3072x1x3xf32>) -> tensor<1x3072x1x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x1x3x5xf32>, tensor<3072x1x3x3xf32>) outs(%i : tensor<1x3072x1x3xf32>) -> tensor<1x3072x1x3xf32>
  return %y : tensor<1x3072x1x3xf32>
}
}

// -----

// CHECK-LABEL: func.func @mixed_types
// CHECK: linalg.batch_matmul
func.func @mixed_types(%x: tensor<1x3x7x5xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x4x5x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x5x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x7x5xbf16>, tensor<4x3x3x3xbf16>) outs(%i : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %y : tensor<1x4x5x3xf32>
}

// -----

// A 2-D max pooling with an identity (-inf) init stays whole for nki-tile's
// on-chip pooling kernel (conv=im2col decomposes it: conv.mlir).
// CHECK-LABEL: func.func @maxpool
// CHECK: linalg.pooling_nchw_max
func.func @maxpool(%x: tensor<1x3x9x9xf32>) -> tensor<1x3x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x3x4x4xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %y = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x3x9x9xf32>, tensor<3x3xf32>) outs(%i : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// A depthwise convolution (one channel per group, as the ONNX importer
// writes it) with a constant filter: a dense conv generic whose [C, KH, KW,
// C] filter holds w[c] on the diagonal (w[c, 0, 0, kh, kw] = c + 1 here),
// built by a generic from the compact [C, KH, KW] weights (nki-tile builds
// it on chip).
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00]], {{\[\[}}2.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<2x2x2xf32>) outs(%{{.*}} : tensor<2x2x2x2xf32>)
// CHECK: %[[C:.*]] = linalg.index 0
// CHECK: %[[K:.*]] = linalg.index 3
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[C]], %[[K]]
// CHECK: arith.select %[[EQ]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[F]] : tensor<1x2x5x5xf32>, tensor<2x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 1, 4, 4]
func.func @depthwise(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x1x4x4xf32> {
  %w = arith.constant dense<[[[[[1.0, 1.0], [1.0, 1.0]]]], [[[[2.0, 2.0], [2.0, 2.0]]]]]> : tensor<2x1x1x2x2xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 5, 5] : tensor<1x2x5x5xf32> into tensor<1x2x1x5x5xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x1x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x1x4x4xf32>) -> tensor<1x2x1x4x4xf32>
  %y = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x5, %w : tensor<1x2x1x5x5xf32>, tensor<2x1x1x2x2xf32>) outs(%i : tensor<1x2x1x4x4xf32>) -> tensor<1x2x1x4x4xf32>
  return %y : tensor<1x2x1x4x4xf32>
}

// -----

// A grouped convolution of several channels a group (2 groups of 2
// channels and 1 filter; w[g, 0, i] = 2 g + i + 1) with a constant
// filter: one dense conv generic over every group, whose [C, KH, KW, F]
// filter holds each group's weights on its diagonal block and zeros
// elsewhere, not the im2col batch matmul.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 0.000000e+00]]], {{\[\[\[}}2.000000e+00, 0.000000e+00]]], {{\[\[\[}}0.000000e+00, 3.000000e+00]]], {{\[\[\[}}0.000000e+00, 4.000000e+00]]]]> : tensor<4x1x1x2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32>) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 1, 3, 3]
func.func @grouped(%x: tensor<1x4x3x3xf32>) -> tensor<1x2x1x3x3xf32> {
  %w = arith.constant dense<[[[[[1.0]], [[2.0]]]], [[[[3.0]], [[4.0]]]]]> : tensor<2x1x2x1x1xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 3, 3] : tensor<1x4x3x3xf32> into tensor<1x2x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x1x3x3xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x1x3x3xf32>) -> tensor<1x2x1x3x3xf32>
  %y = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x5, %w : tensor<1x2x2x3x3xf32>, tensor<2x1x2x1x1xf32>) outs(%i : tensor<1x2x1x3x3xf32>) -> tensor<1x2x1x3x3xf32>
  return %y : tensor<1x2x1x3x3xf32>
}

// -----

// Three groups of 64 channels and 64 filters: two groups fill the
// partitions on both sides, so the first block convolves channels [0, 128)
// into filters [0, 128) and the second [128, 192) into [128, 192), each
// block's result written into its slice of the whole.
// CHECK-LABEL: func.func @grouped_blocks
// CHECK-NOT: linalg.batch_matmul
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 128, 4, 4]
// CHECK: linalg.generic {{.*}} : tensor<1x128x4x4xf32>, tensor<128x1x1x128xf32>) outs(%{{.*}} : tensor<1x128x4x4xf32>)
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0, 0] [1, 128, 4, 4]
// CHECK: tensor.extract_slice %{{.*}}[0, 128, 0, 0] [1, 64, 4, 4]
// CHECK: linalg.generic {{.*}} : tensor<1x64x4x4xf32>, tensor<64x1x1x64xf32>) outs(%{{.*}} : tensor<1x64x4x4xf32>)
// CHECK: tensor.insert_slice %{{.*}}[0, 128, 0, 0] [1, 64, 4, 4]
func.func @grouped_blocks(%x: tensor<1x192x4x4xf32>) -> tensor<1x3x64x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<3x64x64x1x1xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 3, 64, 4, 4] : tensor<1x192x4x4xf32> into tensor<1x3x64x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x64x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x64x4x4xf32>) -> tensor<1x3x64x4x4xf32>
  %y = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x5, %w : tensor<1x3x64x4x4xf32>, tensor<3x64x64x1x1xf32>) outs(%i : tensor<1x3x64x4x4xf32>) -> tensor<1x3x64x4x4xf32>
  return %y : tensor<1x3x64x4x4xf32>
}

// -----

// A contraction too large for one kernel is split into convolutions over
// slices of whole 128-channel blocks, each accumulating onto the last
// one's result. A block here takes 45,088 bytes a partition (its 3x3x8
// filter and two bands of the 5 rows dilation 2 spans, 1,120 columns
// each), two blocks fit trn2's 112 KiB and three do not: channels [0, 256)
// and then [256, 384), each slice padded on its own (the kernel sets the
// padding on chip) and the filter's rows sliced after its transpose.
// CHECK-LABEL: func.func @split_contraction
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[W:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x384x3x3xf32>)
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[X:.*]][0, 0, 0, 0] [1, 256, 3, 1116] [1, 1, 1, 1] : tensor<1x384x3x1116xf32> to tensor<1x256x3x1116xf32>
// CHECK: %[[P0:.*]] = tensor.pad %[[X0]] low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [256, 3, 3, 8] [1, 1, 1, 1]
// CHECK: %[[Y0:.*]] = linalg.generic {{.*}} ins(%[[P0]], %[[W0]] : tensor<1x256x7x1120xf32>, tensor<256x3x3x8xf32>) outs(%[[Z:.*]] : tensor<1x8x3x1116xf32>)
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[X]][0, 256, 0, 0] [1, 128, 3, 1116]
// CHECK: %[[P1:.*]] = tensor.pad %[[X1]] low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK: %[[W1:.*]] = tensor.extract_slice %[[W]][256, 0, 0, 0] [128, 3, 3, 8] [1, 1, 1, 1]
// CHECK: %[[Y1:.*]] = linalg.generic {{.*}} ins(%[[P1]], %[[W1]] : tensor<1x128x7x1120xf32>, tensor<128x3x3x8xf32>) outs(%[[Y0]] : tensor<1x8x3x1116xf32>)
// CHECK: return %[[Y1]]
func.func @split_contraction(%x: tensor<1x384x3x1116xf32>, %w: tensor<8x384x3x3xf32>) -> tensor<1x8x3x1116xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x384x3x1116xf32> to tensor<1x384x7x1120xf32>
  %e = tensor.empty() : tensor<1x8x3x1116xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x3x1116xf32>) -> tensor<1x8x3x1116xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
         ins(%p, %w : tensor<1x384x7x1120xf32>, tensor<8x384x3x3xf32>) outs(%i : tensor<1x8x3x1116xf32>) -> tensor<1x8x3x1116xf32>
  return %y : tensor<1x8x3x1116xf32>
}

// -----

// A constant filter's slices are constants: a splat's stay splats. On trn1
// (96 KiB) a block fits alone: three slices of 128 channels, the second
// and third accumulating onto the first.
// CHECK-LABEL: func.func @split_constant
// CHECK-DAG: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<128x3x3x8xf32>
// CHECK: %[[Y0:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x128x7x2000xf32>, tensor<128x3x3x8xf32>) outs(%{{.*}} : tensor<1x8x3x1996xf32>)
// CHECK: %[[Y1:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x128x7x2000xf32>, tensor<128x3x3x8xf32>) outs(%[[Y0]] : tensor<1x8x3x1996xf32>)
// CHECK: %[[Y2:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x128x7x2000xf32>, tensor<128x3x3x8xf32>) outs(%[[Y1]] : tensor<1x8x3x1996xf32>)
// CHECK: return %[[Y2]]
module attributes {nki.target = "trn1"} {
func.func @split_constant(%x: tensor<1x384x3x1996xf32>) -> tensor<1x8x3x1996xf32> {
  %w = arith.constant dense<0.5> : tensor<8x384x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x384x3x1996xf32> to tensor<1x384x7x2000xf32>
  %e = tensor.empty() : tensor<1x8x3x1996xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x3x1996xf32>) -> tensor<1x8x3x1996xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
         ins(%p, %w : tensor<1x384x7x2000xf32>, tensor<8x384x3x3xf32>) outs(%i : tensor<1x8x3x1996xf32>) -> tensor<1x8x3x1996xf32>
  return %y : tensor<1x8x3x1996xf32>
}
}

// -----

// A 1-D convolution is the 2-D one of rows of one pixel: the input's pad
// moves after the reshape to [N, C, 1, W], the zero init is filled in its
// new shape, stride 2 and dilation 3 stay on the row, and the result goes
// back to [N, F, OW].
// CHECK-DAG: #[[$X1:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 * 2 + d6 * 3)>
// CHECK-LABEL: func.func @conv1d
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 4, 1, 20] : tensor<2x4x20xf32> into tensor<2x4x1x20xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 2] high[0, 0, 0, 1]
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x5x1x9xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$X1]], {{.*}} ins(%[[P]], %{{.*}} : tensor<2x4x1x23xf32>, tensor<4x1x3x5xf32>) outs(%[[Z]] : tensor<2x5x1x9xf32>)
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : tensor<2x5x1x9xf32> into tensor<2x5x9xf32>
func.func @conv1d(%x: tensor<2x4x20xf32>, %w: tensor<5x4x3xf32>) -> tensor<2x5x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2] high[0, 0, 1] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %zero : f32
  } : tensor<2x4x20xf32> to tensor<2x4x23xf32>
  %e = tensor.empty() : tensor<2x5x9xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %y = linalg.conv_1d_ncw_fcw {strides = dense<2> : tensor<1xi64>, dilations = dense<3> : tensor<1xi64>}
         ins(%p, %w : tensor<2x4x23xf32>, tensor<5x4x3xf32>) outs(%i : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  return %y : tensor<2x5x9xf32>
}
