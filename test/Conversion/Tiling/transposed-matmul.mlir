// nki-tile: a matmul whose A operand is a transpose of a tensor with K
// along one of its dims and M along another (a sequence model's first
// projection of a convolution's [C, W] features, transposed to [W, C]
// rows) reads that tensor in place, C on the partitions as it is there;
// under --auto-cast=matmul its DMAs round it. Neither the transpose nor the
// cast runs as a kernel of its own: they had stored [W, C] to HBM and
// loaded it back to PE-transpose it into the [C, W] the matmul multiplies.
// RUN: nki-opt %s -split-input-file --nki-pipeline="compile-to=tiled" | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-pipeline="auto-cast=matmul compile-to=tiled" | FileCheck %s --check-prefix=CAST

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @features
// CHECK-NOT: nki.transpose
// CHECK: nki.activation "exp"
// CHECK-NOT: nki.transpose
// CHECK: nki.dma {{.*}} : memref<128x80xf32, strided<[80, 1], offset: ?>> to memref<128x80xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK-NOT: nki.transpose
// CHECK: return
// CAST-LABEL: func.func @features
// CAST-NOT: nki.transpose
// CAST: nki.activation "exp"
// CAST-NOT: nki.transpose
// CAST: nki.dma {{.*}} : memref<128x80xf32, strided<[80, 1], offset: ?>> to memref<128x80xbf16, #nki.memory<sbuf>>
// CAST: nki.matmul {{.*}} : memref<128x80xbf16, #nki.memory<sbuf>>, memref<128x96xbf16, #nki.memory<sbuf>> into memref<80x96xf32, #nki.memory<psum>>
// CAST-NOT: nki.transpose
// CAST: return
func.func @features(%arg: tensor<1x128x1x80xf32>) -> tensor<80x96xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<128x96xf32>
  %e4 = tensor.empty() : tensor<1x128x1x80xf32>
  %f = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg : tensor<1x128x1x80xf32>) outs(%e4 : tensor<1x128x1x80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<1x128x1x80xf32>
  %c = tensor.collapse_shape %f [[0], [1], [2, 3]] : tensor<1x128x1x80xf32> into tensor<1x128x80xf32>
  %et = tensor.empty() : tensor<80x1x128xf32>
  %t = linalg.transpose ins(%c : tensor<1x128x80xf32>) outs(%et : tensor<80x1x128xf32>) permutation = [2, 0, 1]
  %x = tensor.collapse_shape %t [[0, 1], [2]] : tensor<80x1x128xf32> into tensor<80x128xf32>
  %e = tensor.empty() : tensor<80x96xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<80x96xf32>) -> tensor<80x96xf32>
  %m = linalg.matmul ins(%x, %w : tensor<80x128xf32>, tensor<128x96xf32>) outs(%z : tensor<80x96xf32>) -> tensor<80x96xf32>
  return %m : tensor<80x96xf32>
}

// -----

// The transpose has another reader (a residual add): it stays, and the
// matmul still reads the features in place.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @residual
// CHECK: nki.transpose {{.*}} : memref<128x80xf32, #nki.memory<sbuf>> into memref<80x128xf32, #nki.memory<psum>>
// CHECK-NOT: nki.transpose
// CHECK: nki.dma {{.*}} : memref<128x80xf32, strided<[80, 1], offset: ?>> to memref<128x80xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK-NOT: nki.transpose
// CHECK: return
func.func @residual(%arg: tensor<128x80xf32>) -> tensor<80x128xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<128x128xf32>
  %e2 = tensor.empty() : tensor<128x80xf32>
  %f = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%arg : tensor<128x80xf32>) outs(%e2 : tensor<128x80xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<128x80xf32>
  %et = tensor.empty() : tensor<80x128xf32>
  %x = linalg.transpose ins(%f : tensor<128x80xf32>) outs(%et : tensor<80x128xf32>) permutation = [1, 0]
  %z = linalg.fill ins(%zero : f32) outs(%et : tensor<80x128xf32>) -> tensor<80x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<80x128xf32>, tensor<128x128xf32>) outs(%z : tensor<80x128xf32>) -> tensor<80x128xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %x : tensor<80x128xf32>, tensor<80x128xf32>) outs(%et : tensor<80x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<80x128xf32>
  return %r : tensor<80x128xf32>
}

// -----

// Rows that step over two dims of the features (a batch of two images'
// columns interleaved, row = column * 2 + image) are no one stride: the
// transpose runs, and the matmul transposes its rows back.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @interleaved
// CHECK: nki.transpose {{.*}} : memref<128x40xf32, #nki.memory<sbuf>> into memref<40x128xf32, #nki.memory<psum>>
// CHECK: nki.transpose {{.*}} : memref<80x128xf32, #nki.memory<sbuf>> into memref<128x80xf32, #nki.memory<psum>>
// CHECK: nki.copy
// CHECK: nki.matmul
func.func @interleaved(%arg: tensor<2x128x40xf32>) -> tensor<80x96xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<128x96xf32>
  %e3 = tensor.empty() : tensor<2x128x40xf32>
  %f = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg : tensor<2x128x40xf32>) outs(%e3 : tensor<2x128x40xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<2x128x40xf32>
  %et = tensor.empty() : tensor<40x2x128xf32>
  %t = linalg.transpose ins(%f : tensor<2x128x40xf32>) outs(%et : tensor<40x2x128xf32>) permutation = [2, 0, 1]
  %x = tensor.collapse_shape %t [[0, 1], [2]] : tensor<40x2x128xf32> into tensor<80x128xf32>
  %e = tensor.empty() : tensor<80x96xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<80x96xf32>) -> tensor<80x96xf32>
  %m = linalg.matmul ins(%x, %w : tensor<80x128xf32>, tensor<128x96xf32>) outs(%z : tensor<80x96xf32>) -> tensor<80x96xf32>
  return %m : tensor<80x96xf32>
}
