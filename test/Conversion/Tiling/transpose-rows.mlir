// nki-tile: a transpose that keeps its innermost dim moves whole rows, and
// between HBM buffers it is DMAs of the input read through the permutation
// (a descriptor a row), in pieces spread over the DMA queues; rows shorter
// than a descriptor's 512 bytes keep the elementwise tiling.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// PyTorch's batch-first attention at batch 2 ([N, S, d] -> [S, N, d]): rows
// of 2 x 768 f32 a piece row, at most 64 KiB a piece (ten rows), one DMA
// each; the input is read with the image's stride inside each row.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c10
// CHECK: %[[S:.*]] = memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [10, 2, 768], strides: [768, 393216, 1]
// CHECK: %[[D:.*]] = memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [10, 2, 768], strides: [1536, 768, 1]
// CHECK: nki.dma %[[S]] to %[[D]]
// CHECK: sizes: [2, 2, 768], strides: [768, 393216, 1]
// CHECK-NOT: nki.alloc
// CHECK: return
func.func @rows(%a: memref<2x512x768xf32>, %b: memref<512x2x768xf32>) {
  linalg.transpose ins(%a : memref<2x512x768xf32>) outs(%b : memref<512x2x768xf32>) permutation = [1, 0, 2]
  return
}

// -----

// 320 KiB in rows of 4 KiB: sixteen pieces of five rows, one a queue (not
// five of 64 KiB).
// CHECK-LABEL: func.func @spread
// CHECK: scf.for %{{.*}} = %c0 to %c80 step %c5
// CHECK: memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [5, 8, 128], strides: [128, 10240, 1]
// CHECK: nki.dma
// CHECK-NOT: nki.alloc
func.func @spread(%a: memref<8x80x128xf32>, %b: memref<80x8x128xf32>) {
  linalg.transpose ins(%a : memref<8x80x128xf32>) outs(%b : memref<80x8x128xf32>) permutation = [1, 0, 2]
  return
}

// -----

// Any permutation that keeps the innermost dim: [2, 0, 1, 3] reads dim 2
// of the input first; dims 0 and 1 stay in order and merge (12 rows of
// stride 512).
// CHECK-LABEL: func.func @cycle
// CHECK: memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [1, 12, 256], strides: [256, 512, 1]
// CHECK: memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [1, 12, 256], strides: [3072, 256, 1]
// CHECK-NOT: nki.alloc
func.func @cycle(%a: memref<4x3x2x256xf32>, %b: memref<2x4x3x256xf32>) {
  linalg.transpose ins(%a : memref<4x3x2x256xf32>) outs(%b : memref<2x4x3x256xf32>) permutation = [2, 0, 1, 3]
  return
}

// -----

// Rows of 32 bytes: through SBUF as before.
// CHECK-LABEL: func.func @short
// CHECK: nki.alloc : memref<2x8xf32, #nki.memory<sbuf>>
func.func @short(%a: memref<2x64x8xf32>, %b: memref<64x2x8xf32>) {
  linalg.transpose ins(%a : memref<2x64x8xf32>) outs(%b : memref<64x2x8xf32>) permutation = [1, 0, 2]
  return
}

// -----

// Rows of 32 f32 (128 bytes) whose two innermost dims the permutation
// keeps together, contiguous on both sides: a row is 4 x 32 (512 bytes),
// one DMA a piece of them.
// CHECK-LABEL: func.func @kept_tail
// CHECK: memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [{{[0-9]+}}, 2, 128], strides: [128, 8192, 1]
// CHECK: nki.dma
// CHECK-NOT: nki.alloc
func.func @kept_tail(%a: memref<2x64x4x32xf32>, %b: memref<64x2x4x32xf32>) {
  linalg.transpose ins(%a : memref<2x64x4x32xf32>) outs(%b : memref<64x2x4x32xf32>) permutation = [1, 0, 2, 3]
  return
}

// -----

// The same tail not contiguous in the output (a view of every other
// 32-element row): rows of 128 bytes, through SBUF.
// CHECK-LABEL: func.func @kept_tail_strided
// CHECK: nki.alloc
func.func @kept_tail_strided(%a: memref<2x64x4x32xf32>, %b: memref<64x2x4x32xf32, strided<[512, 256, 64, 1]>>) {
  linalg.transpose ins(%a : memref<2x64x4x32xf32>) outs(%b : memref<64x2x4x32xf32, strided<[512, 256, 64, 1]>>) permutation = [1, 0, 2, 3]
  return
}
