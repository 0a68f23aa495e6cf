// A tensor kept in SBUF that one convolution writes and one convolution
// with packed bands or stacked rows reads is kept in that reader's band
// tile (lib/Conversion/Tiling/PackedLayout.h): the writer's rows go there
// by DMA, to every partition block that holds them, and the reader's
// matmuls read it in place, with no copy from a channel-major tile into
// band tiles (docs/compiler.md, "Packed residents"). Here two 16-channel
// 3x3 convolutions at 32 x 32 in f32, the first with a batch norm and ReLU:
// the second stacks six rows (eight partition groups of 16 channels, each
// group's tile rows six padded rows apart: 6 rows, the last group of 2
// rows included); the first, stacked too, copies its result blocks there
// (block j's rows to groups j + 1 and j + 7). The padding (tile rows that
// are a padding row in some group, then the border columns of the others)
// is set before the first kernel.
// RUN: nki-opt %s --nki-tile | FileCheck %s
// RUN: nki-opt %s --nki-tile=pack-residents=false | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @main(
// CHECK: %[[T:.*]] = nki.alloc : memref<128x1x6x34xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.alloc : memref<16x1x1x34x34xf32
// CHECK: %[[P0:.*]] = memref.subview %[[T]][0, 0, 0, 0] [128, 1, 1, 34]
// CHECK: nki.memset %[[P0]], 0.0
// CHECK: %[[L:.*]] = memref.subview %[[T]][0, 0, 1, 0] [128, 1, 4, 1]
// CHECK: nki.memset %[[L]], 0.0
// CHECK: %[[R:.*]] = memref.subview %[[T]][0, 0, 1, 33] [128, 1, 4, 1]
// CHECK: nki.memset %[[R]], 0.0
// CHECK: %[[P5:.*]] = memref.subview %[[T]][0, 0, 5, 0] [128, 1, 1, 34]
// CHECK: nki.memset %[[P5]], 0.0
// The first convolution's block 0 (output rows 0, 6, ..., 24 of 32): to
// group 1 at tile rows 0-4 and group 7 at rows 0-3 (one DMA each).
// CHECK: %[[G1:.*]] = memref.subview %[[T]][16, 0, 0, 1] [16, 1, 5, 32]
// CHECK: nki.dma %{{.*}} to %[[G1]] : memref<16x160xf32, {{.*}}> to memref<16x5x32xf32, strided<[204, 34, 1], offset: 3265>, #nki.memory<sbuf>>
// CHECK: %[[G7:.*]] = memref.subview %[[T]][112, 0, 0, 1] [16, 1, 4, 32]
// CHECK: nki.dma %{{.*}} to %[[G7]] : memref<16x128xf32, {{.*}}> to memref<16x4x32xf32, strided<[204, 34, 1], offset: 22849>, #nki.memory<sbuf>>
// The second convolution's first group of rows: three matmuls over the
// tile itself, one a kernel column.
// CHECK: %[[IN:.*]] = memref.subview %[[T]][0, 0, 0, 0] [128, 1, 5, 34]
// CHECK-NOT: nki.dma
// CHECK: %[[W0:.*]] = memref.subview %[[IN]][0, 0, 0] [128, 5, 32]
// CHECK: nki.matmul %{{.*}}, %[[W0]] into %{{.*}} : memref<128x96xf32
// CHECK: %[[W1:.*]] = memref.subview %[[IN]][0, 0, 1] [128, 5, 32]
// CHECK: nki.matmul %{{.*}}, %[[W1]] into %{{.*}} accumulate
// CHECK: return

// Off, the tensor is channel-major with its zero border, and the second
// convolution copies its rows into band tiles.
// OFF-LABEL: func.func @main(
// OFF: nki.alloc : memref<16x1x1x34x34xf32, #nki.memory<sbuf>>
// OFF-NOT: nki.alloc : memref<128x1x6x34xf32
// OFF: return
func.func @main(%arg0: memref<1x16x32x32xf32> {nki.name = "x"}, %arg1: memref<16x16x3x3xf32> {nki.name = "w"}, %arg2: memref<16x16x3x3xf32> {nki.name = "w2"}, %arg3: memref<16xf32> {nki.name = "scale"}, %arg4: memref<16xf32> {nki.name = "shift"}) -> memref<1x16x32x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x16x34x34xf32>
  linalg.map outs(%alloc : memref<1x16x34x34xf32>)
    (%init: f32) {
      linalg.yield %cst : f32
    }
  %subview = memref.subview %alloc[0, 0, 1, 1] [1, 16, 32, 32] [1, 1, 1, 1] : memref<1x16x34x34xf32> to memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>
  memref.copy %arg0, %subview : memref<1x16x32x32xf32> to memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>
  %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x16x32x32xf32>)
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<16x3x3x16xf32>
  linalg.transpose ins(%arg1 : memref<16x16x3x3xf32>) outs(%alloc_1 : memref<16x3x3x16xf32>) permutation = [1, 2, 3, 0] 
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc, %alloc_1 : memref<1x16x34x34xf32>, memref<16x3x3x16xf32>) outs(%alloc_0 : memref<1x16x32x32xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %0 = arith.mulf %in, %in_7 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc_0, %arg3, %arg4 : memref<1x16x32x32xf32>, memref<16xf32>, memref<16xf32>) outs(%alloc_2 : memref<1x16x32x32xf32>) {
  ^bb0(%in: f32, %in_7: f32, %in_8: f32, %out: f32):
    %0 = arith.mulf %in, %in_7 : f32
    %1 = arith.addf %0, %in_8 : f32
    %2 = arith.maximumf %1, %cst : f32
    linalg.yield %2 : f32
  }
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<1x16x34x34xf32>
  linalg.map outs(%alloc_3 : memref<1x16x34x34xf32>)
    (%init: f32) {
      linalg.yield %cst : f32
    }
  %subview_4 = memref.subview %alloc_3[0, 0, 1, 1] [1, 16, 32, 32] [1, 1, 1, 1] : memref<1x16x34x34xf32> to memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>
  memref.copy %alloc_2, %subview_4 : memref<1x16x32x32xf32> to memref<1x16x32x32xf32, strided<[18496, 1156, 34, 1], offset: 35>>
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<16x3x3x16xf32>
  linalg.transpose ins(%arg2 : memref<16x16x3x3xf32>) outs(%alloc_5 : memref<16x3x3x16xf32>) permutation = [1, 2, 3, 0] 
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<1x16x32x32xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_6 : memref<1x16x32x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_3, %alloc_5 : memref<1x16x34x34xf32>, memref<16x3x3x16xf32>) outs(%alloc_6 : memref<1x16x32x32xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %0 = arith.mulf %in, %in_7 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return %alloc_6 : memref<1x16x32x32xf32>
}

