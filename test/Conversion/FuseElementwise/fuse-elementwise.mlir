// RUN: nki-opt %s -split-input-file --nki-fuse-elementwise | FileCheck %s

// A matmul between reshapes (how a rank-3 ONNX MatMul is imported) stays a
// 2-D linalg.matmul for the PE: the reshapes are not folded into it. The
// bias add and relu after it fuse into one generic, which is collapsed to
// the matmul's 2-D shape and reads its result directly (nki-tile then runs
// it on the PSUM tiles as the matmul's epilogue); the expand_shape moves
// after it.
// CHECK-LABEL: func.func @matmul_between_reshapes
// CHECK:       tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK:       %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x4xf32>, tensor<4x5xf32>)
// CHECK:       %[[G:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<6x5xf32>, tensor<5xf32>)
// CHECK:         arith.addf
// CHECK:         arith.maximumf
// CHECK:       %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 5]
// CHECK:       return %[[E]]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @matmul_between_reshapes(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e0 = tensor.empty() : tensor<6x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %m = linalg.matmul ins(%c, %w : tensor<6x4xf32>, tensor<4x5xf32>) outs(%z : tensor<6x5xf32>) -> tensor<6x5xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %a = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %b : tensor<2x3x5xf32>, tensor<5xf32>) outs(%e1 : tensor<2x3x5xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<2x3x5xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<2x3x5xf32>) outs(%e2 : tensor<2x3x5xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.maximumf %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// -----

// Reshapes still fold into elementwise generics by expansion, as in
// upstream's linalg-fuse-elementwise-ops: the exp runs on the 2x3 input and
// the collapse moves after it.
// CHECK-LABEL: func.func @reshape_into_elementwise
// CHECK:       %[[R:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         math.exp
// CHECK:       tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
#id1 = affine_map<(d0) -> (d0)>
func.func @reshape_into_elementwise(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %o = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%c : tensor<6xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

// After fusion, the leading parallel dims of a generic are collapsed into
// one when every operand walks them in order, and a fill init follows:
// a row sum over [2, 3, 4] becomes one over [6, 4] into a [6] fill.
// CHECK-LABEL: func.func @row_sum_rank3
// CHECK:       %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK:       %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6xf32>)
// CHECK:       %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<6x4xf32>) outs(%[[F]] : tensor<6xf32>)
// CHECK:       tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
#id3r = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_sum_rank3(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = linalg.generic {indexing_maps = [#id3r, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x4xf32>) outs(%f : tensor<2x3xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// An inference BatchNormalization's per-channel scale and shift computed
// from constants (gamma * rsqrt(var + eps), beta - mean * scale) are
// evaluated at compile time: gamma = [2, 8], var = [3, 15], eps = 1, so the
// scale is [1, 2]; beta = [1, 1], mean = [4, 1] give the shift [-3, -1].
// CHECK-LABEL: func.func @batchnorm_constants
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[-3.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NOT: math.rsqrt
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
func.func @batchnorm_constants(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %gamma = arith.constant dense<[2.0, 8.0]> : tensor<2xf32>
  %var = arith.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %beta = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %mean = arith.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %eps = arith.constant 1.0 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %scale = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%gamma, %var : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%g: f32, %v: f32, %o: f32):
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    %s = arith.mulf %g, %r : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %shift = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%beta, %mean, %scale : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%b: f32, %m: f32, %s: f32, %o: f32):
    %ms = arith.mulf %m, %s : f32
    %t = arith.subf %b, %ms : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %scale, %shift : tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %o: f32):
    %vs = arith.mulf %v, %s : f32
    %r = arith.addf %vs, %t : f32
    linalg.yield %r : f32
  } -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Float arithmetic on constants is evaluated on APFloats (negf, divf by a
// scalar from outside the body: [1, 4] -> [-0.5, -2]); a body with another
// op (maximumf) folds through the ops' folders ([1, 4] -> [2.5, 4]).
// CHECK-LABEL: func.func @constants_other_ops
// CHECK-DAG: arith.constant dense<[-5.000000e-01, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[2.500000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NOT: arith.divf
// CHECK-NOT: arith.maximumf
func.func @constants_other_ops() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %two = arith.constant 2.0 : f32
  %lo = arith.constant 2.5 : f32
  %e = tensor.empty() : tensor<2xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %d = arith.divf %n, %two : f32
    linalg.yield %d : f32
  } -> tensor<2xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %lo : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %q, %m : tensor<2xf32>, tensor<2xf32>
}

// -----

// An upsample (a generic reading through floordiv) is fused neither with
// the relu before it nor with the add after it: nki-tile has a kernel for
// it as it is.
// CHECK-LABEL: func.func @upsample_between
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], {{.*}} ins(%{{.*}} : tensor<1x4x2x2xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
func.func @upsample_between(%x: tensor<1x4x2x2xf32>, %skip: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x2x2xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x2x2xf32>) outs(%e0 : tensor<1x4x2x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x2x2xf32>
  %e1 = tensor.empty() : tensor<1x4x4x4xf32>
  %u = linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x4x2x2xf32>) outs(%e1 : tensor<1x4x4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x4x4x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u, %skip : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) outs(%e1 : tensor<1x4x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// -----

// --auto-cast=matmul's rounding of a weight to bf16 is done at compile
// time whatever the weight's size (here 5120 elements, read through a
// transpose), so no kernel reads, rounds and stores it again.
// CHECK-LABEL: func.func @weight_cast
// CHECK: %[[W:.*]] = arith.constant dense<1.507810e+00> : tensor<2560x2xbf16>
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<1x2560xbf16>, tensor<2560x2xbf16>)
func.func @weight_cast(%x: tensor<1x2560xbf16>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.505> : tensor<2x2560xf32>
  %e = tensor.empty() : tensor<2560x2xbf16>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<2x2560xf32>) outs(%e : tensor<2560x2xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2560x2xbf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<1x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<1x2xf32>) -> tensor<1x2xf32>
  %y = linalg.matmul ins(%x, %c : tensor<1x2560xbf16>, tensor<2560x2xbf16>) outs(%acc : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// An elementwise op (batch norm and ReLU) over a tensor assembled from two
// convolutions' channel blocks (how a depthwise convolution of 144
// channels is split) runs once per block, right after the block's
// convolution, on its result and its slice of the per-channel operands:
// each is then that convolution's epilogue. The blocks' results are
// assembled instead, and each convolution computes into its own tensor.
// CHECK-LABEL: func.func @epilogue_per_channel_block
// CHECK:       %[[C0:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x128x4x4xf32>)
// CHECK:       %[[S0:.*]] = tensor.extract_slice %[[SCALE:[a-z0-9]+]][0, 0, 0] [128, 1, 1] [1, 1, 1]
// CHECK:       %[[E0:.*]] = linalg.generic {{.*}} ins(%[[C0]], %[[S0]] : tensor<1x128x4x4xf32>, tensor<128x1x1xf32>)
// CHECK:       %[[I0:.*]] = tensor.insert_slice %[[E0]] into %{{.*}}[0, 0, 0, 0] [1, 128, 4, 4]
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<1x16x4x4xf32>
// CHECK:       %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x16x4x4xf32>)
// CHECK:       %[[C1:.*]] = linalg.generic {{.*}} outs(%[[Z]] : tensor<1x16x4x4xf32>)
// CHECK:       %[[S1:.*]] = tensor.extract_slice %[[SCALE]][128, 0, 0] [16, 1, 1] [1, 1, 1]
// CHECK:       %[[E1:.*]] = linalg.generic {{.*}} ins(%[[C1]], %[[S1]] : tensor<1x16x4x4xf32>, tensor<16x1x1xf32>)
// CHECK:       %[[I1:.*]] = tensor.insert_slice %[[E1]] into %[[I0]][0, 128, 0, 0] [1, 16, 4, 4]
// CHECK:       return %[[I1]]
#conv_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#conv_w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#conv_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @epilogue_per_channel_block(%x0: tensor<1x128x4x4xf32>, %w0: tensor<128x1x1x128xf32>, %x1: tensor<1x16x4x4xf32>, %w1: tensor<16x1x1x16xf32>, %scale: tensor<144x1x1xf32>) -> tensor<1x144x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %whole = tensor.empty() : tensor<1x144x4x4xf32>
  %e0 = tensor.empty() : tensor<1x128x4x4xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x128x4x4xf32>) -> tensor<1x128x4x4xf32>
  %c0 = linalg.generic {indexing_maps = [#conv_x, #conv_w, #conv_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x0, %w0 : tensor<1x128x4x4xf32>, tensor<128x1x1x128xf32>) outs(%z0 : tensor<1x128x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128x4x4xf32>
  %i0 = tensor.insert_slice %c0 into %whole[0, 0, 0, 0] [1, 128, 4, 4] [1, 1, 1, 1] : tensor<1x128x4x4xf32> into tensor<1x144x4x4xf32>
  %e1 = tensor.extract_slice %i0[0, 128, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x144x4x4xf32> to tensor<1x16x4x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %c1 = linalg.generic {indexing_maps = [#conv_x, #conv_w, #conv_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x1, %w1 : tensor<1x16x4x4xf32>, tensor<16x1x1x16xf32>) outs(%z1 : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x4xf32>
  %i1 = tensor.insert_slice %c1 into %i0[0, 128, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x144x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%i1, %scale : tensor<1x144x4x4xf32>, tensor<144x1x1xf32>) outs(%whole : tensor<1x144x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %m, %z : f32
    linalg.yield %y : f32
  } -> tensor<1x144x4x4xf32>
  return %r : tensor<1x144x4x4xf32>
}

// -----

// The assembled tensor has another reader: the op stays whole.
// CHECK-LABEL: func.func @assembled_tensor_read_twice
// CHECK:       %[[A:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 128, 0, 0] [1, 16, 4, 4]
// CHECK:       linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<1x144x4x4xf32>, tensor<144xf32>)
// CHECK-NOT:   tensor.insert_slice
#conv_x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#conv_w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#conv_y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @assembled_tensor_read_twice(%x0: tensor<1x128x4x4xf32>, %w0: tensor<128x1x1x128xf32>, %x1: tensor<1x16x4x4xf32>, %w1: tensor<16x1x1x16xf32>, %scale: tensor<144x1x1xf32>) -> (tensor<1x144x4x4xf32>, tensor<1x144x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %whole = tensor.empty() : tensor<1x144x4x4xf32>
  %e0 = tensor.empty() : tensor<1x128x4x4xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x128x4x4xf32>) -> tensor<1x128x4x4xf32>
  %c0 = linalg.generic {indexing_maps = [#conv_x, #conv_w, #conv_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x0, %w0 : tensor<1x128x4x4xf32>, tensor<128x1x1x128xf32>) outs(%z0 : tensor<1x128x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128x4x4xf32>
  %i0 = tensor.insert_slice %c0 into %whole[0, 0, 0, 0] [1, 128, 4, 4] [1, 1, 1, 1] : tensor<1x128x4x4xf32> into tensor<1x144x4x4xf32>
  %e1 = tensor.empty() : tensor<1x16x4x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %c1 = linalg.generic {indexing_maps = [#conv_x, #conv_w, #conv_y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x1, %w1 : tensor<1x16x4x4xf32>, tensor<16x1x1x16xf32>) outs(%z1 : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x4xf32>
  %i1 = tensor.insert_slice %c1 into %i0[0, 128, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x144x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%i1, %scale : tensor<1x144x4x4xf32>, tensor<144x1x1xf32>) outs(%whole : tensor<1x144x4x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x144x4x4xf32>
  return %r, %i1 : tensor<1x144x4x4xf32>, tensor<1x144x4x4xf32>
}

// -----

// Layernorm as ONNX exports it over [1, S, H]: the keepdims mean is read
// as [1, S, 1] through (d0, d1, 0). The size-1 dim is dropped from that
// operand, so the leading dims collapse and every generic of the norm is
// over [S, H] (one row group for nki-tile).
// CHECK-LABEL: func.func @layernorm_keepdims
// CHECK-NOT: tensor<1x8x1xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK-NOT: tensor<1x8x1xf32>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#bcast = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @layernorm_keepdims(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x16xf32>) outs(%z : tensor<1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x8xf32>
  %mean = tensor.expand_shape %sum [[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xf32> into tensor<1x8x1xf32>
  %e3 = tensor.empty() : tensor<1x8x16xf32>
  %c = linalg.generic {indexing_maps = [#id3, #bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean : tensor<1x8x16xf32>, tensor<1x8x1xf32>) outs(%e3 : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %n = arith.constant 0.0625 : f32
    %mm = arith.mulf %m, %n : f32
    %d = arith.subf %a, %mm : f32
    linalg.yield %d : f32
  } -> tensor<1x8x16xf32>
  return %c : tensor<1x8x16xf32>
}

// -----

// Rotary embeddings: x * cos + cat(-x2, x1) * sin. The elementwise op over
// the concatenation runs once per part, reading each part where it is
// computed (the negation fuses into the first), so the concatenation is
// never assembled.
// CHECK-LABEL: func.func @rotate_half
// CHECK: %[[LO:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: } -> tensor<2x8x4xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %[[LO]] into %{{.*}}[0, 0, 0] [2, 8, 4]
// CHECK: %[[HI:.*]] = linalg.generic
// CHECK-NOT: arith.negf
// CHECK: } -> tensor<2x8x4xf32>
// CHECK: tensor.insert_slice %[[HI]] into %[[A]][0, 0, 4] [2, 8, 4]
// CHECK-NOT: linalg.generic
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#table = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @rotate_half(%x: tensor<2x8x8xf32>, %cos: tensor<8x8xf32>, %sin: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
  %x2 = tensor.extract_slice %x[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
  %e4 = tensor.empty() : tensor<2x8x4xf32>
  %neg = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x2 : tensor<2x8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x8x4xf32>
  %e8 = tensor.empty() : tensor<2x8x8xf32>
  %c0 = tensor.insert_slice %neg into %e8[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x4xf32> into tensor<2x8x8xf32>
  %rot = tensor.insert_slice %x1 into %c0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x4xf32> into tensor<2x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id3, #table, #id3, #table, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %cos, %rot, %sin : tensor<2x8x8xf32>, tensor<8x8xf32>, tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%e8 : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %b: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %b, %s : f32
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}

// -----

// Llama's repeat_kv copies each K head to the query heads of its group.
// The rotary embedding before it is not fused into that copy (it would run
// once per query head); the copy stays, a view for the attention kernel.
// CHECK-LABEL: func.func @repeat_kv
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: } -> tensor<16x4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x3x8x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kv = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @repeat_kv(%k: tensor<2x8x4xf32>, %cos: tensor<2x8x4xf32>) -> tensor<2x3x8x4xf32> {
  %e = tensor.empty() : tensor<2x8x4xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k, %cos : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    linalg.yield %p : f32
  } -> tensor<2x8x4xf32>
  %e4 = tensor.empty() : tensor<2x3x8x4xf32>
  %b = linalg.generic {indexing_maps = [#kv, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<2x8x4xf32>) outs(%e4 : tensor<2x3x8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x3x8x4xf32>
  return %b : tensor<2x3x8x4xf32>
}

// -----

// A residual add of a [1, S, H] activation and an [S, H] matmul result runs
// in the matmul's [S, H] space (its epilogue), without the batch of one.
// CHECK-LABEL: func.func @residual_unit_batch
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [1, 8, 16]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @residual_unit_batch(%x: tensor<1x8x16xf32>, %a: tensor<8x4xf32>, %w: tensor<4x16xf32>) -> tensor<1x8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e3 = tensor.empty() : tensor<1x8x16xf32>
  %r = linalg.generic {indexing_maps = [#id3, #rows, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<1x8x16xf32>, tensor<8x16xf32>) outs(%e3 : tensor<1x8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<1x8x16xf32>
  return %r : tensor<1x8x16xf32>
}

// -----

// A head transpose [S, H, d] -> [H, S, d] (innermost dim in place) whose
// halves ops that compute read (a rotary embedding) is read through their
// indexing maps instead of being copied: the halves are slices of its
// input. A copy or cast of it (which the attention kernel looks through)
// keeps it.
// CHECK-LABEL: func.func @head_transpose
// CHECK: linalg.transpose ins(%arg0 : tensor<8x2x4xf32>)
// CHECK-DAG: %[[LO:.*]] = tensor.extract_slice %arg0[0, 0, 0] [8, 2, 2] [1, 1, 1] : tensor<8x2x4xf32> to tensor<8x2x2xf32>
// CHECK-DAG: %[[HI:.*]] = tensor.extract_slice %arg0[0, 0, 2] [8, 2, 2] [1, 1, 1] : tensor<8x2x4xf32> to tensor<8x2x2xf32>
// CHECK: linalg.generic {{.*}} ins(%[[LO]], %arg1, %[[HI]], %arg2 : tensor<8x2x2xf32>, tensor<8x2xf32>, tensor<8x2x2xf32>, tensor<8x2xf32>) outs(%{{.*}} : tensor<2x8x2xf32>)
// CHECK: arith.truncf
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#t2 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @head_transpose(%q: tensor<8x2x4xf32>, %cos: tensor<8x2xf32>, %sin: tensor<8x2xf32>) -> (tensor<2x8x2xf32>, tensor<2x8x4xbf16>) {
  %e = tensor.empty() : tensor<2x8x4xf32>
  %t = linalg.transpose ins(%q : tensor<8x2x4xf32>) outs(%e : tensor<2x8x4xf32>) permutation = [1, 0, 2]
  %lo = tensor.extract_slice %t[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
  %hi = tensor.extract_slice %t[0, 0, 2] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
  %e2 = tensor.empty() : tensor<2x8x2xf32>
  %r = linalg.generic {indexing_maps = [#id3, #t2, #id3, #t2, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%lo, %cos, %hi, %sin : tensor<2x8x2xf32>, tensor<8x2xf32>, tensor<2x8x2xf32>, tensor<8x2xf32>) outs(%e2 : tensor<2x8x2xf32>) {
  ^bb0(%a: f32, %c: f32, %h: f32, %s: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %m = arith.mulf %h, %s : f32
    %x = arith.subf %p, %m : f32
    linalg.yield %x : f32
  } -> tensor<2x8x2xf32>
  %eb = tensor.empty() : tensor<2x8x4xbf16>
  %b = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x8x4xf32>) outs(%eb : tensor<2x8x4xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %c = arith.truncf %a : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<2x8x4xbf16>
  return %r, %b : tensor<2x8x2xf32>, tensor<2x8x4xbf16>
}

// -----

// A bias add and relu over the four phases of a sub-pixel convolution (the
// phases' pieces are convolutions' results; one fills two phases) runs
// once per distinct piece, right after its convolution (nki-tile makes it
// that convolution's epilogue), and the results fill the phases instead.
// CHECK-LABEL: func.func @over_phases
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x2x2x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK: %[[EA:.*]] = linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<1x4x4x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x2x2x4xf32>)
// CHECK: %[[EB:.*]] = linalg.generic {{.*}} ins(%[[B]], %{{.*}} : tensor<1x4x4x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x8x8xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[EA]] into %[[E]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[EA]] into %[[I0]][0, 0, 0, 1] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[EB]] into %[[I1]][0, 0, 1, 0] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: %[[I3:.*]] = tensor.insert_slice %[[EB]] into %[[I2]][0, 0, 1, 1] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: return %[[I3]]
#conv_in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#conv_w = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#conv_out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>
func.func @over_phases(%x: tensor<1x4x6x6xf32>, %wa: tensor<4x2x2x4xf32>, %wb: tensor<4x2x2x4xf32>, %bias: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %a = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wa : tensor<1x4x6x6xf32>, tensor<4x2x2x4xf32>) outs(%z : tensor<1x4x4x4xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x4xf32>
  %b = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %wb : tensor<1x4x6x6xf32>, tensor<4x2x2x4xf32>) outs(%z : tensor<1x4x4x4xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x4xf32>
  %big = tensor.empty() : tensor<1x4x8x8xf32>
  %p0 = tensor.insert_slice %a into %big[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p1 = tensor.insert_slice %a into %p0[0, 0, 0, 1] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p2 = tensor.insert_slice %b into %p1[0, 0, 1, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p3 = tensor.insert_slice %b into %p2[0, 0, 1, 1] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %o = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p3, %bias : tensor<1x4x8x8xf32>, tensor<4xf32>) outs(%o : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %s = arith.addf %in, %bv : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// An operand that varies along the rows (here a second full tensor) is not
// the same for every pixel of a phase: the op stays over the assembled
// result.
// CHECK-LABEL: func.func @phases_and_tensor
// CHECK-COUNT-3: tensor.insert_slice %arg0
// CHECK: %[[I3:.*]] = tensor.insert_slice %arg0
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[I3]] {{.*}} into tensor<32x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<32x8xf32>, tensor<32x8xf32>)
#id2 = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @phases_and_tensor(%a: tensor<1x4x4x4xf32>, %t: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %big = tensor.empty() : tensor<1x4x8x8xf32>
  %p0 = tensor.insert_slice %a into %big[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p1 = tensor.insert_slice %a into %p0[0, 0, 0, 1] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p2 = tensor.insert_slice %a into %p1[0, 0, 1, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %p3 = tensor.insert_slice %a into %p2[0, 0, 1, 1] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x8x8xf32>
  %o = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p3, %t : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%o : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %tv: f32, %out: f32):
    %s = arith.addf %in, %tv : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// A depthwise block's diagonal filter over a splat of weights (a box
// filter): linalg's fusion patterns fold the splat into the generic's body
// (no control function decides that), which would then be collapsed into a
// generic of index arithmetic that nki-tile cannot build; the pass gives
// the generic back its compact weights, so that it stays the diagonal
// filter nki-tile builds on chip.
// CHECK-LABEL: func.func @box_filter
// CHECK: %[[W:.*]] = arith.constant dense<0.111111112> : tensor<4x3x3xf32>
// CHECK: %[[D:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[W]] : tensor<4x3x3xf32>) outs(%{{.*}} : tensor<4x3x3x4xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 3
// CHECK-NOT: arith.divsi
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[D]] : tensor<1x4x10x10xf32>, tensor<4x3x3x4xf32>)
#w = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#x = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#k = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#y = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
func.func @box_filter(%x: tensor<1x4x10x10xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.111111112> : tensor<4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3x3x4xf32>
  %d = linalg.generic {indexing_maps = [#w, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w : tensor<4x3x3xf32>) outs(%e : tensor<4x3x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = linalg.index 0 : index
    %f = linalg.index 3 : index
    %eq = arith.cmpi eq, %c, %f : index
    %s = arith.select %eq, %in, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x3x3x4xf32>
  %ye = tensor.empty() : tensor<1x4x8x8xf32>
  %yz = linalg.fill ins(%zero : f32) outs(%ye : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = linalg.generic {indexing_maps = [#x, #k, #y],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %d : tensor<1x4x10x10xf32>, tensor<4x3x3x4xf32>) outs(%yz : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
