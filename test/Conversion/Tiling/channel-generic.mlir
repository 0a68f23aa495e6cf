// The channel-major kernel (lib/Conversion/Tiling/ChannelGeneric.cpp) on
// tensors kept in SBUF: an elementwise op between a max pool and a
// convolution reads and writes resident tiles, and a global sum pooling of
// a convolution's result reduces the resident tile into per-channel
// columns (its zero init is not read: the kernel stores the sums; each
// chunk's sum is a reduce with a scratch tile, run by the DVE or the ACT).
// No activation goes through HBM but the results.
// RUN: nki-opt %s -split-input-file --nki-tile=pack-bands=false | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: nki.tensor_tensor "max" {{.*}} into %{{.*}} : memref<16x4x4xf32, strided<[32, 8, 1]>, #nki.memory<sbuf>>, {{.*}} into memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %[[S:.*]] : memref<16x1xf32, strided<[1, 1], offset: ?>> to memref<16x1xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "relu" %{{.*}} into %{{.*}} scale %[[S]] : memref<16x1xf32, #nki.memory<sbuf>> : memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>> into memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
// CHECK: memref.alloc() {{.*}} : memref<1x16x4x4xf32>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<16x16xf32, #nki.memory<sbuf>>, memref<16x4x4xf32, strided<[16, 4, 1]>, #nki.memory<sbuf>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>, %arg1: memref<16x1x1xf32>) -> memref<1x16x4x4xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<1x16x8x8xf32>, memref<16x1x1x16xf32>) outs(%alloc : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x2xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<1x16x4x4xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%alloc, %alloc_1 : memref<1x16x8x8xf32>, memref<2x2xf32>) outs(%alloc_2 : memref<1x16x4x4xf32>)
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_2, %arg1 : memref<1x16x4x4xf32>, memref<16x1x1xf32>) outs(%alloc_3 : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.maximumf %1, %cst_0 : f32
      linalg.yield %2 : f32
    }
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x4xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_4 : memref<1x16x4x4xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_3, %0 : memref<1x16x4x4xf32>, memref<16x1x1x16xf32>) outs(%alloc_4 : memref<1x16x4x4xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %1 = arith.mulf %in, %in_5 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    return %alloc_4 : memref<1x16x4x4xf32>
  }
}

// -----

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x16x8x8xf32>
// CHECK: nki.alloc : memref<16x1x1x8x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %{{.*}} into %[[V:.*]] s1 %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> {op0 = "max", op1 = "mul"} : memref<16x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>> into memref<16x64xf32, #nki.memory<sbuf>>
// CHECK: nki.reduce "add" %[[V]] into %[[R:[^ ]*]] scratch %{{.*}} :
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.reinterpret_cast
// CHECK-NEXT: nki.dma %[[R]] to %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> to memref<16x1xf32, strided<[1, 1], offset: ?>>
// CHECK-NOT: linalg.fill
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x16x8x8xf32>, %arg1: memref<16x1x1xf32>) -> memref<1x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<1x16x8x8xf32>, memref<16x1x1x16xf32>) outs(%alloc : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.mulf %in, %in_1 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x16xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x16xf32>)
    linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%alloc, %arg1 : memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%alloc_0 : memref<1x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.maximumf %in, %cst : f32
      %2 = arith.mulf %1, %in_1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %alloc_0 : memref<1x16xf32>
  }
}

// -----

// A generic that reads the [2, 3, 5, 8] convolution result through a
// transposing map ([N, C] swapped: the kernel's loops are [3, 2, 5, 8])
// cannot read it in place at its own (n, c): the result stays in HBM and
// the kernel reads it with its strides (found by the compile fuzzer).
// CHECK-LABEL: func.func @transposed_read(
// CHECK-NOT: nki.alloc : memref<3x1x2x5x8xf32
// CHECK: %[[Y:.*]] = memref.alloc() {{.*}} : memref<2x3x5x8xf32>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<3x80xf32, #nki.memory<sbuf>> to memref<3x2x40xf32, strided<[40, 120, 1], offset: ?>>
// CHECK: memref.reinterpret_cast %[[Y]] {{.*}} sizes: [2, 40], strides: [120, 1]
// CHECK: nki.tensor_scalar {{.*}} {imm0 = -1.500000e+00 : f32, op0 = "mul"}
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @transposed_read(%arg0: memref<2x32x10x15xf32>, %arg1: memref<32x1x1x3xf32>) -> memref<3x2x5x8xf32> {
  %cst = arith.constant -1.500000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x3x5x8xf32>
  linalg.fill ins(%zero : f32) outs(%alloc : memref<2x3x5x8xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<2x32x10x15xf32>, memref<32x1x1x3xf32>) outs(%alloc : memref<2x3x5x8xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<3x2x5x8xf32>
  linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc : memref<2x3x5x8xf32>) outs(%alloc_3 : memref<3x2x5x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %cst : f32
    linalg.yield %0 : f32
  }
  return %alloc_3 : memref<3x2x5x8xf32>
}

// -----

// A global max pooling of a resident convolution result reduces each
// image's [4, 5, 3] view of the tile over both free dims into a column
// (found by the compile fuzzer: it reduced only the last one).
// CHECK-LABEL: func.func @global_max_of_resident(
// CHECK: nki.alloc : memref<4x1x2x5x3xf32, #nki.memory<sbuf>>
// CHECK: nki.reduce "max" %{{.*}} into %{{.*}} {axes = 2 : i64} : memref<4x5x3xf32, strided<[30, 3, 1]>, #nki.memory<sbuf>> into memref<4x1xf32, #nki.memory<sbuf>>
// CHECK: nki.reduce "max" %{{.*}} into %{{.*}} {axes = 2 : i64} : memref<4x5x3xf32, strided<[30, 3, 1], offset: 15>, #nki.memory<sbuf>> into memref<4x1xf32, #nki.memory<sbuf>>
#gmap = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#gmap1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#gmap2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#gmap3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#gmap4 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @global_max_of_resident(%arg0: memref<2x8x12x8xf32>, %arg1: memref<4x8x3x3xf32>) -> memref<2x4xf32> {
  %cst = arith.constant -3.000000e+38 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x4x5x3xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<2x4x5x3xf32>)
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<8x3x3x4xf32>
  linalg.transpose ins(%arg1 : memref<4x8x3x3xf32>) outs(%alloc_1 : memref<8x3x3x4xf32>) permutation = [1, 2, 3, 0] 
  linalg.generic {indexing_maps = [#gmap, #gmap1, #gmap2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %alloc_1 : memref<2x8x12x8xf32>, memref<8x3x3x4xf32>) outs(%alloc : memref<2x4x5x3xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %0 = arith.mulf %in, %in_3 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<2x4xf32>)
  linalg.generic {indexing_maps = [#gmap3, #gmap4], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%alloc : memref<2x4x5x3xf32>) outs(%alloc_2 : memref<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  }
  return %alloc_2 : memref<2x4xf32>
}

// -----

// A global average pooling, sum(x / 64): each chunk sums x itself (an ACT
// identity pass over the input tile accumulates it; no pass divides every
// element) and the [C, 1] sum is divided once.
// CHECK-LABEL: func.func @global_mean(
// CHECK-NOT: op0 = "div"} : memref<16x64xf32
// CHECK: nki.activation "identity" %[[X:[^ ]*]] into %{{.*}} accum %[[S:[^ ]*]] : memref<16x1xf32, #nki.memory<sbuf>> : memref<16x64xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[S]] into %[[M:[^ ]*]] {imm0 = 6.400000e+01 : f32, op0 = "div"} : memref<16x1xf32, #nki.memory<sbuf>> into memref<16x1xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %[[M]] to
#mean = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mean1 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @global_mean(%arg0: memref<2x16x8x8xf32>) -> memref<2x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %n = arith.constant 6.400000e+01 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16xf32>
  linalg.fill ins(%cst : f32) outs(%alloc : memref<2x16xf32>)
  linalg.generic {indexing_maps = [#mean, #mean1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : memref<2x16x8x8xf32>) outs(%alloc : memref<2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return %alloc : memref<2x16xf32>
}

// -----

// A global mean pooling of two 7x7 images kept in SBUF: one pass over
// both ([16, 2, 7, 7] in, a [16, 98] tile out), one reduce of its [16, 2,
// 49] view into a column per image, one division and one store for the
// two; not a pass, a reduce and a division per image.
// CHECK-LABEL: func.func @images(
// CHECK: %[[T:.*]] = nki.alloc : memref<16x1x2x7x7xf32, #nki.memory<sbuf>>
// CHECK: %[[V:.*]] = memref.subview %[[T]][0, 0, 0, 0, 0] [16, 1, 2, 7, 7]
// CHECK: nki.tensor_scalar %[[V]] into %[[P:[^ ]*]] s1 %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> {op0 = "max", op1 = "add"} : memref<16x2x7x7xf32, {{.*}}> into memref<16x98xf32, #nki.memory<sbuf>>
// CHECK: %[[E:.*]] = memref.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [16, 2, 49]
// CHECK: nki.reduce "add" %[[E]] into %[[S:[^ ]*]] : memref<16x2x49xf32, #nki.memory<sbuf>> into memref<16x2xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[S]] into %[[M:[^ ]*]] {imm0 = 4.900000e+01 : f32, op0 = "div"} : memref<16x2xf32
// CHECK: nki.dma %[[M]] to %{{.*}} : memref<16x2xf32, #nki.memory<sbuf>> to memref<16x2xf32, strided<[1, 16], offset: ?>>
// CHECK-NOT: nki.reduce
// CHECK-NOT: op0 = "div"
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
module {
  memref.global "private" constant @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @images(%arg0: memref<2x16x7x7xf32>, %arg1: memref<16x1x1xf32>) -> memref<2x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %n = arith.constant 4.900000e+01 : f32
    %0 = memref.get_global @__constant_16x1x1x16xf32 : memref<16x1x1x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x7x7xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<2x16x7x7xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<2x16x7x7xf32>, memref<16x1x1x16xf32>) outs(%alloc : memref<2x16x7x7xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.mulf %in, %in_1 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<2x16xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<2x16xf32>)
    linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%alloc, %arg1 : memref<2x16x7x7xf32>, memref<16x1x1xf32>) outs(%alloc_0 : memref<2x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.maximumf %in, %cst : f32
      %2 = arith.addf %1, %in_1 : f32
      %3 = arith.divf %2, %n : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return %alloc_0 : memref<2x16xf32>
  }
}

// -----

// Three 32x32 images, two at a time: the sum of the first two reduces
// their [8, 2, 32, 32] view's last two axes into two columns, the third's
// [8, 32, 32] view into one.
// CHECK-LABEL: func.func @remainder(
// CHECK: nki.reduce "add" %{{.*}} into %[[A:[^ ]*]] {axes = 2 : i64} : memref<8x2x32x32xf32, {{.*}}> into memref<8x2xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %[[A]] to %{{.*}} : memref<8x2xf32, #nki.memory<sbuf>> to memref<8x2xf32, strided<[1, 8], offset: ?>>
// CHECK: nki.reduce "add" %{{.*}} into %[[B:[^ ]*]] {axes = 2 : i64} : memref<8x32x32xf32, {{.*}}> into memref<8x1xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %[[B]] to
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w8 : memref<8x1x1x8xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @remainder(%arg0: memref<3x8x32x32xf32>) -> memref<3x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @w8 : memref<8x1x1x8xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x8x32x32xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<3x8x32x32xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %0 : memref<3x8x32x32xf32>, memref<8x1x1x8xf32>) outs(%alloc : memref<3x8x32x32xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %1 = arith.mulf %in, %in_1 : f32
      %2 = arith.addf %out, %1 : f32
      linalg.yield %2 : f32
    }
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<3x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<3x8xf32>)
    linalg.generic {indexing_maps = [#map3, #map5], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%alloc : memref<3x8x32x32xf32>) outs(%alloc_0 : memref<3x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.addf %out, %in : f32
      linalg.yield %1 : f32
    }
    return %alloc_0 : memref<3x8xf32>
  }
}
