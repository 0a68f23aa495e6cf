// RUN: nki-opt %s --nki-prepare-graph --nki-fuse-elementwise --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --nki-tile | FileCheck %s

// Softmax over the last dim of a [B, S, H] tensor: nki-fuse-elementwise
// collapses its generics to [B*S, H], bufferization leaves collapse_shape
// views of the input and the result, and the row group takes the views:
// one kernel, one loop over blocks of 128 rows, no intermediate in HBM.
// The result, a view of a [256, 300] allocation, becomes the allocation
// itself ([4, 64, 300], seen by the kernel through a collapse): no copy.
// CHECK-LABEL: func.func @main
// CHECK-NOT:   linalg.
// CHECK:       memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<4x64x300xf32> into memref<256x300xf32>
// CHECK:       %[[OUT:.*]] = memref.alloc() : memref<4x64x300xf32>
// CHECK:       memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<4x64x300xf32> into memref<256x300xf32>
// CHECK:       scf.for
// CHECK:         nki.reduce "max"
// CHECK:         nki.activation "exp"
// CHECK:         nki.dma %{{.*}} to %{{.*}} : memref<128x300xf32, #nki.memory<sbuf>> to memref<128x300xf32, strided<[300, 1], offset: ?>>
// CHECK-NEXT:  }
// CHECK-NOT:   scf.for
// CHECK-NOT:   memref.alloc
// CHECK:       return %[[OUT]]
func.func @main(%x: tensor<4x64x300xf32>) -> tensor<4x64x300xf32> {
  %e = tensor.empty() : tensor<4x64x300xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<4x64x300xf32>) outs(%e : tensor<4x64x300xf32>) -> tensor<4x64x300xf32>
  return %r : tensor<4x64x300xf32>
}
