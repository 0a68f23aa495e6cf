// nki-unroll: tile loops become straight-line code with static offsets.
// RUN: nki-opt %s --nki-tile --nki-unroll | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK-NOT: scf.for
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [128, 300], strides: [300, 1]
// CHECK: nki.dma %{{.*}} : memref<128x300xf32, strided<[300, 1]>> to memref<128x300xf32, #nki.memory<sbuf>>
// CHECK: memref.reinterpret_cast %arg0 to offset: [38400], sizes: [128, 300], strides: [300, 1]
// CHECK: nki.dma %{{.*}} : memref<128x300xf32, strided<[300, 1], offset: 38400>> to
// CHECK: memref.reinterpret_cast %arg0 to offset: [76800], sizes: [44, 300], strides: [300, 1]
// CHECK-NOT: arith.addi
#id = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>
func.func @rows(%a: memref<300x300xf32>, %b: memref<300xf32>, %c: memref<300x300xf32>) {
  linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<300x300xf32>, memref<300xf32>) outs(%c : memref<300x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

