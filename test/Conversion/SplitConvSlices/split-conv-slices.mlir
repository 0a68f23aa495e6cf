// nki-split-conv-slices: a convolution with a constant filter whose result
// (through its epilogue) only channel slices read, its filters past a
// multiple of 128 by at most 32, becomes one convolution and epilogue per
// slice, the filter and per-channel constants sliced. Not for a remainder
// of more than 32, another reader, or a filter that is not a constant.
// RUN: nki-opt %s -split-input-file --pass-pipeline='builtin.module(nki-set-target{target=trn2},func.func(nki-split-conv-slices))' | FileCheck %s

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c, 0, 0)>

// 144 filters read as 128 + 16: two convolutions, two epilogues, each with
// its slice of the filter (a constant) and of the bias.
// CHECK-LABEL: func @expansion
// CHECK-DAG: %[[W0:.*]] = arith.constant dense<1.000000e+00> : tensor<4x1x1x128xf32>
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<1.000000e+00> : tensor<4x1x1x16xf32>
// CHECK-DAG: %[[C0:.*]] = linalg.generic {{.*}} ins(%arg0, %[[W0]] : tensor<1x4x3x3xf32>, tensor<4x1x1x128xf32>)
// CHECK-DAG: %[[C1:.*]] = linalg.generic {{.*}} ins(%arg0, %[[W1]] : tensor<1x4x3x3xf32>, tensor<4x1x1x16xf32>)
// CHECK-DAG: %[[E0:.*]] = linalg.generic {{.*}} ins(%[[C0]], %{{.*}} : tensor<1x128x3x3xf32>, tensor<128x1x1xf32>) outs(%{{.*}} : tensor<1x128x3x3xbf16>)
// CHECK-DAG: %[[E1:.*]] = linalg.generic {{.*}} ins(%[[C1]], %{{.*}} : tensor<1x16x3x3xf32>, tensor<16x1x1xf32>) outs(%{{.*}} : tensor<1x16x3x3xbf16>)
// CHECK-DAG: return %[[E0]], %[[E1]]
func.func @expansion(%x: tensor<1x4x3x3xf32>) -> (tensor<1x128x3x3xbf16>, tensor<1x16x3x3xbf16>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x1x144xf32>
  %b = arith.constant dense<0.5> : tensor<144x1x1xf32>
  %e = tensor.empty() : tensor<1x144x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x3x3xf32>) -> tensor<1x144x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<4x1x1x144xf32>) outs(%z : tensor<1x144x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x144x3x3xf32>
  %eb = tensor.empty() : tensor<1x144x3x3xbf16>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x144x3x3xf32>, tensor<144x1x1xf32>) outs(%eb : tensor<1x144x3x3xbf16>) {
  ^bb0(%a: f32, %v: f32, %o: bf16):
    %s = arith.addf %a, %v : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x144x3x3xbf16>
  %s0 = tensor.extract_slice %r[0, 0, 0, 0] [1, 128, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xbf16> to tensor<1x128x3x3xbf16>
  %s1 = tensor.extract_slice %r[0, 128, 0, 0] [1, 16, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xbf16> to tensor<1x16x3x3xbf16>
  return %s0, %s1 : tensor<1x128x3x3xbf16>, tensor<1x16x3x3xbf16>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>

// A remainder of 64 (192 filters): one convolution stays.
// CHECK-LABEL: func @wide_remainder
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x192x3x3xf32>)
// CHECK: tensor.extract_slice
func.func @wide_remainder(%x: tensor<1x4x3x3xf32>) -> (tensor<1x128x3x3xf32>, tensor<1x64x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x1x192xf32>
  %e = tensor.empty() : tensor<1x192x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x192x3x3xf32>) -> tensor<1x192x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<4x1x1x192xf32>) outs(%z : tensor<1x192x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x192x3x3xf32>
  %s0 = tensor.extract_slice %c[0, 0, 0, 0] [1, 128, 3, 3] [1, 1, 1, 1] : tensor<1x192x3x3xf32> to tensor<1x128x3x3xf32>
  %s1 = tensor.extract_slice %c[0, 128, 0, 0] [1, 64, 3, 3] [1, 1, 1, 1] : tensor<1x192x3x3xf32> to tensor<1x64x3x3xf32>
  return %s0, %s1 : tensor<1x128x3x3xf32>, tensor<1x64x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>

// The whole result read too (returned): one convolution stays.
// CHECK-LABEL: func @whole_read
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x144x3x3xf32>)
// CHECK: tensor.extract_slice
func.func @whole_read(%x: tensor<1x4x3x3xf32>) -> (tensor<1x128x3x3xf32>, tensor<1x144x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x1x144xf32>
  %e = tensor.empty() : tensor<1x144x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x3x3xf32>) -> tensor<1x144x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<4x1x1x144xf32>) outs(%z : tensor<1x144x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x144x3x3xf32>
  %s0 = tensor.extract_slice %c[0, 0, 0, 0] [1, 128, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xf32> to tensor<1x128x3x3xf32>
  return %s0, %c : tensor<1x128x3x3xf32>, tensor<1x144x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>

// A filter that is an argument: one convolution stays.
// CHECK-LABEL: func @filter_argument
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x144x3x3xf32>)
func.func @filter_argument(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x1x144xf32>) -> (tensor<1x128x3x3xf32>, tensor<1x16x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x144x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x3x3xf32>) -> tensor<1x144x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<4x1x1x144xf32>) outs(%z : tensor<1x144x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x144x3x3xf32>
  %s0 = tensor.extract_slice %c[0, 0, 0, 0] [1, 128, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xf32> to tensor<1x128x3x3xf32>
  %s1 = tensor.extract_slice %c[0, 128, 0, 0] [1, 16, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xf32> to tensor<1x16x3x3xf32>
  return %s0, %s1 : tensor<1x128x3x3xf32>, tensor<1x16x3x3xf32>
}

// -----

#in = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fl = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#out = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>

// An epilogue that reads its init's old values: one convolution and one
// epilogue stay (a slice's epilogue would start from a fresh init).
// CHECK-LABEL: func @epilogue_reads_init
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x144x3x3xf32>)
// CHECK: linalg.generic {{.*}} outs(%arg1 : tensor<1x144x3x3xf32>)
func.func @epilogue_reads_init(%x: tensor<1x4x3x3xf32>, %acc: tensor<1x144x3x3xf32>) -> (tensor<1x128x3x3xf32>, tensor<1x16x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x1x1x144xf32>
  %e = tensor.empty() : tensor<1x144x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x144x3x3xf32>) -> tensor<1x144x3x3xf32>
  %c = linalg.generic {indexing_maps = [#in, #fl, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<4x1x1x144xf32>) outs(%z : tensor<1x144x3x3xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x144x3x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x144x3x3xf32>) outs(%acc : tensor<1x144x3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<1x144x3x3xf32>
  %s0 = tensor.extract_slice %r[0, 0, 0, 0] [1, 128, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xf32> to tensor<1x128x3x3xf32>
  %s1 = tensor.extract_slice %r[0, 128, 0, 0] [1, 16, 3, 3] [1, 1, 1, 1] : tensor<1x144x3x3xf32> to tensor<1x16x3x3xf32>
  return %s0, %s1 : tensor<1x128x3x3xf32>, tensor<1x16x3x3xf32>
}
