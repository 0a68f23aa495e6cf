// nki-tile: a matmul whose A operand is a program input rounded by
// --auto-cast=matmul reads the input itself, its DMAs rounding it; the
// cast (needed because the input has another reader, a residual add) does
// not run as a kernel of its own, which stored the rounded input to HBM
// and loaded it back.
// RUN: nki-opt %s -split-input-file --nki-pipeline="auto-cast=matmul compile-to=tiled" | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @residual
// CHECK-NOT: #nki.memory<sbuf>> to memref<{{[0-9x]+}}xbf16, strided
// CHECK: nki.dma {{.*}} : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK-NOT: #nki.memory<sbuf>> to memref<{{[0-9x]+}}xbf16, strided
// CHECK: return
func.func @residual(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<256x256xf32>
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<256x256xf32>, tensor<256x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %x : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A computed A that an elementwise generic writes whole, in HBM as the
// residency plan leaves it (an LSTM's hidden state, which the output
// sequence reads too): the exp's kernel stores it in f32 and the matmul's
// DMAs round it as they load it; the cast does not run (it had loaded the
// tensor, rounded it and stored it, a kernel more a step).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @computed
// CHECK: nki.activation "exp"
// CHECK: nki.dma %{{.*}} : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32, strided<[512, 1], offset: ?>>
// CHECK-NOT: memref<128x512xbf16
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128x128xbf16, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK: return
func.func @computed(%arg: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<256x256xf32>
  %e = tensor.empty() : tensor<256x256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<256x256xf32>, tensor<256x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %x : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A computed A that a transpose writes whole (PyTorch's sequence-first
// attention at batch > 1: the rows are (column, image) pairs, two strides
// of the transpose's input, so the matmul cannot read that in place): the
// transpose stores its result and the matmul reads it, its DMAs rounding
// it; no rounded copy goes to HBM and back.
// CHECK-LABEL: func.func @seq_first
// CHECK:     nki.transpose
// CHECK-NOT: #nki.memory<sbuf>> to memref<{{[0-9x]+}}xbf16, strided
// CHECK:     nki.dma {{.*}} : memref<80x128xf32, strided<[128, 1], offset: ?>> to memref<80x128xbf16, #nki.memory<sbuf>>
// CHECK-NOT: #nki.memory<sbuf>> to memref<{{[0-9x]+}}xbf16, strided
// CHECK:     return
func.func @seq_first(%x: tensor<2x128x40xf32>) -> tensor<80x128xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<128x128xf32>
  %e = tensor.empty() : tensor<40x2x128xf32>
  %t = linalg.transpose ins(%x : tensor<2x128x40xf32>) outs(%e : tensor<40x2x128xf32>) permutation = [2, 0, 1]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<40x2x128xf32> into tensor<80x128xf32>
  %o = tensor.empty() : tensor<80x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%o : tensor<80x128xf32>) -> tensor<80x128xf32>
  %m = linalg.matmul ins(%c, %w : tensor<80x128xf32>, tensor<128x128xf32>) outs(%z : tensor<80x128xf32>) -> tensor<80x128xf32>
  return %m : tensor<80x128xf32>
}
