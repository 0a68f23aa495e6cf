// RUN: nki-opt %s -split-input-file -nki-forward-stores | FileCheck %s
// RUN: nki-opt %s -split-input-file -nki-forward-stores=margin=114000 | FileCheck %s --check-prefix=MARGIN

// A tile stored to scratch and loaded back whole: the loader's readers read
// the stored tile, the load goes, and so do the store and the scratch
// buffer, which nothing else reads.
// CHECK-LABEL: func.func @whole
// CHECK:         memref.alloc() : memref<80x128xf32>
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
// CHECK-NEXT:    nki.dma %{{.*}} to %[[A]]
// CHECK-NEXT:    %[[O:.*]] = nki.alloc
// CHECK-NEXT:    nki.activation "exp" %[[A]] into %[[O]] :
// CHECK-NEXT:    nki.dma %[[O]] to %{{.*}} : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
// CHECK-NEXT:    return
func.func @whole(%x: memref<80x128xf32>) -> memref<80x128xf32> {
  %out = memref.alloc() : memref<80x128xf32>
  %scratch = memref.alloc() : memref<80x128xf32>
  %a = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %a to %scratch : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  %b = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %scratch to %b : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  %o = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.activation "exp" %b into %o : memref<80x128xf32, #nki.memory<sbuf>> into memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %o to %out : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  memref.dealloc %scratch : memref<80x128xf32>
  return %out : memref<80x128xf32>
}

// -----

// Row blocks stored whole and loaded in column boxes (a matmul's K blocks
// of a layernorm's rows): each box is a view of its stored tile, and a
// subview of the loaded tile a view of that view.
// CHECK-LABEL: func.func @boxes
// CHECK:         memref.alloc() : memref<2x128xf32>
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = nki.alloc : memref<128x8xbf16, #nki.memory<sbuf>>
// CHECK:         %[[B:.*]] = memref.subview %[[A]][0, 4] [128, 4] [1, 1]
// CHECK:         %[[C:.*]] = memref.subview %[[B]][0, 0] [128, 2] [1, 1]
// CHECK:         nki.transpose %[[C]] into
// CHECK-NOT:     nki.dma {{.*}} to memref<128x8xbf16>
// CHECK:         return
func.func @boxes(%x: memref<128x8xbf16>) -> memref<2x128xf32> {
  %out = memref.alloc() : memref<2x128xf32>
  %scratch = memref.alloc() : memref<256x8xbf16>
  %a = nki.alloc : memref<128x8xbf16, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<128x8xbf16> to memref<128x8xbf16, #nki.memory<sbuf>>
  %rows = memref.reinterpret_cast %scratch to offset: [1024], sizes: [128, 8], strides: [8, 1] : memref<256x8xbf16> to memref<128x8xbf16, strided<[8, 1], offset: 1024>>
  nki.dma %a to %rows : memref<128x8xbf16, #nki.memory<sbuf>> to memref<128x8xbf16, strided<[8, 1], offset: 1024>>
  %box = memref.reinterpret_cast %scratch to offset: [1028], sizes: [128, 4], strides: [8, 1] : memref<256x8xbf16> to memref<128x4xbf16, strided<[8, 1], offset: 1028>>
  %b = nki.alloc : memref<128x4xbf16, #nki.memory<sbuf>>
  %half = memref.subview %b[0, 0] [128, 2] [1, 1] : memref<128x4xbf16, #nki.memory<sbuf>> to memref<128x2xbf16, strided<[4, 1]>, #nki.memory<sbuf>>
  nki.dma %box to %b : memref<128x4xbf16, strided<[8, 1], offset: 1028>> to memref<128x4xbf16, #nki.memory<sbuf>>
  %p = nki.alloc : memref<2x128xf32, #nki.memory<psum>>
  nki.transpose %half into %p : memref<128x2xbf16, strided<[4, 1]>, #nki.memory<sbuf>> into memref<2x128xf32, #nki.memory<psum>>
  %o = nki.alloc : memref<2x128xf32, #nki.memory<sbuf>>
  nki.copy %p into %o : memref<2x128xf32, #nki.memory<psum>> into memref<2x128xf32, #nki.memory<sbuf>>
  nki.dma %o to %out : memref<2x128xf32, #nki.memory<sbuf>> to memref<2x128xf32>
  return %out : memref<2x128xf32>
}

// -----

// Loads that stay: one after a store over the same bytes, one of rows the
// store did not write whole, and one of a tile written after its store.
// The scratch buffers keep their stores.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: memref.alloc()
// CHECK-COUNT-12: nki.dma
// CHECK-NOT:     nki.dma
// CHECK-NOT:     nki.copy
// CHECK:         return
func.func @kept(%x: memref<64x32xf32>, %out: memref<64x32xf32>) {
  %s1 = memref.alloc() : memref<64x32xf32>
  %s2 = memref.alloc() : memref<64x32xf32>
  %s3 = memref.alloc() : memref<128x32xf32>
  %a = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %a to %s2 : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  nki.dma %x to %s2 : memref<64x32xf32> to memref<64x32xf32>
  %c = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %s2 to %c : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %c to %out : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  %top = memref.subview %s3[0, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1]>>
  nki.dma %a to %top : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32, strided<[32, 1]>>
  %mid = memref.subview %s3[32, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1], offset: 1024>>
  %d = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %mid to %d : memref<64x32xf32, strided<[32, 1], offset: 1024>> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %d to %out : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  %e = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %e : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %e to %s1 : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  nki.memset %e, 0.0 : memref<64x32xf32, #nki.memory<sbuf>>
  %f = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %s1 to %f : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %f to %out : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  return
}

// -----

// A load that casts (an auto-cast matmul input rounded to bf16 on its way
// back) becomes an engine copy of the box from the stored tile, which
// rounds the same way; the scratch buffer goes.
// CHECK-LABEL: func.func @copy_cast
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = nki.alloc : memref<80x96xf32, #nki.memory<sbuf>>
// CHECK:         %[[B:.*]] = nki.alloc : memref<80x32xbf16, #nki.memory<sbuf>>
// CHECK:         %[[V:.*]] = memref.subview %[[A]][0, 64] [80, 32] [1, 1]
// CHECK-NEXT:    nki.copy %[[V]] into %[[B]] : memref<80x32xf32, strided<[96, 1], offset: 64>, #nki.memory<sbuf>> into memref<80x32xbf16, #nki.memory<sbuf>>
// CHECK-NEXT:    nki.dma %[[B]] to
// CHECK-NEXT:    return
func.func @copy_cast(%x: memref<80x96xf32>, %y: memref<80x32xbf16>) {
  %scratch = memref.alloc() : memref<80x96xf32>
  %a = nki.alloc : memref<80x96xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<80x96xf32> to memref<80x96xf32, #nki.memory<sbuf>>
  nki.dma %a to %scratch : memref<80x96xf32, #nki.memory<sbuf>> to memref<80x96xf32>
  %v = memref.reinterpret_cast %scratch to offset: [64], sizes: [80, 32], strides: [96, 1] : memref<80x96xf32> to memref<80x32xf32, strided<[96, 1], offset: 64>>
  %b = nki.alloc : memref<80x32xbf16, #nki.memory<sbuf>>
  nki.dma %v to %b : memref<80x32xf32, strided<[96, 1], offset: 64>> to memref<80x32xbf16, #nki.memory<sbuf>>
  nki.dma %b to %y : memref<80x32xbf16, #nki.memory<sbuf>> to memref<80x32xbf16>
  return
}

// -----

// Attention's heads stored side by side (each head's [80, 32] into columns
// of every row: their extents interleave, their boxes do not) and loaded
// back as one [80, 64] block by the output projection: a copy of each
// stored tile into its columns of the loaded tile.
// CHECK-LABEL: func.func @gather
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[H0:.*]] = nki.alloc : memref<80x32xf32, #nki.memory<sbuf>>
// CHECK:         %[[H1:.*]] = nki.alloc : memref<80x32xf32, #nki.memory<sbuf>>
// CHECK:         %[[B:.*]] = nki.alloc : memref<80x64xf32, #nki.memory<sbuf>>
// CHECK:         %[[C0:.*]] = memref.subview %[[B]][0, 0] [80, 32] [1, 1]
// CHECK-NEXT:    nki.copy %[[H0]] into %[[C0]]
// CHECK-NEXT:    %[[C1:.*]] = memref.subview %[[B]][0, 32] [80, 32] [1, 1]
// CHECK-NEXT:    nki.copy %[[H1]] into %[[C1]]
// CHECK-NEXT:    nki.dma %[[B]] to
// CHECK-NEXT:    return
func.func @gather(%x: memref<80x32xf32>, %y: memref<80x64xf32>) {
  %scratch = memref.alloc() : memref<80x2x32xf32>
  %h0 = nki.alloc : memref<80x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %h0 : memref<80x32xf32> to memref<80x32xf32, #nki.memory<sbuf>>
  %v0 = memref.reinterpret_cast %scratch to offset: [0], sizes: [80, 32], strides: [64, 1] : memref<80x2x32xf32> to memref<80x32xf32, strided<[64, 1]>>
  nki.dma %h0 to %v0 : memref<80x32xf32, #nki.memory<sbuf>> to memref<80x32xf32, strided<[64, 1]>>
  %h1 = nki.alloc : memref<80x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %h1 : memref<80x32xf32> to memref<80x32xf32, #nki.memory<sbuf>>
  %v1 = memref.reinterpret_cast %scratch to offset: [32], sizes: [80, 32], strides: [64, 1] : memref<80x2x32xf32> to memref<80x32xf32, strided<[64, 1], offset: 32>>
  nki.dma %h1 to %v1 : memref<80x32xf32, #nki.memory<sbuf>> to memref<80x32xf32, strided<[64, 1], offset: 32>>
  %all = memref.collapse_shape %scratch [[0], [1, 2]] : memref<80x2x32xf32> into memref<80x64xf32>
  %b = nki.alloc : memref<80x64xf32, #nki.memory<sbuf>>
  nki.dma %all to %b : memref<80x64xf32> to memref<80x64xf32, #nki.memory<sbuf>>
  nki.dma %b to %y : memref<80x64xf32, #nki.memory<sbuf>> to memref<80x64xf32>
  return
}

// -----

// A forwarded tile holds its bytes until the loaded tile's last reader:
// beside a tile of 40,000 bytes a partition live in between, a stored tile
// of 80,000 would leave the planner less than half of trn2's 229,376 (the
// pass's reserve), so its load stays; the small one's goes. A margin (what
// nki-compile passes when it tiles a fragmented plan again) adds to the
// reserve: with 114,000 bytes more, the small one stays too.
// MARGIN-LABEL: func.func @budget
// MARGIN:       memref.alloc() : memref<128x20000xf32>
// MARGIN:       memref.alloc() : memref<128x16xf32>
// CHECK-LABEL: func.func @budget
// CHECK:         memref.alloc() : memref<128x20000xf32>
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[S:.*]] = nki.alloc : memref<128x16xf32, #nki.memory<sbuf>>
// CHECK:         nki.dma %{{.*}} to %{{.*}} : memref<128x20000xf32> to memref<128x20000xf32, #nki.memory<sbuf>>
// CHECK:         nki.dma %[[S]] to %{{.*}} : memref<128x16xf32, #nki.memory<sbuf>> to memref<128x16xf32>
// CHECK-NEXT:    return
func.func @budget(%x: memref<128x20000xf32>, %y: memref<128x10000xf32>, %z: memref<128x16xf32>) {
  %big = memref.alloc() : memref<128x20000xf32>
  %small = memref.alloc() : memref<128x16xf32>
  %a = nki.alloc : memref<128x20000xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<128x20000xf32> to memref<128x20000xf32, #nki.memory<sbuf>>
  nki.dma %a to %big : memref<128x20000xf32, #nki.memory<sbuf>> to memref<128x20000xf32>
  %s = nki.alloc : memref<128x16xf32, #nki.memory<sbuf>>
  nki.dma %z to %s : memref<128x16xf32> to memref<128x16xf32, #nki.memory<sbuf>>
  nki.dma %s to %small : memref<128x16xf32, #nki.memory<sbuf>> to memref<128x16xf32>
  %m = nki.alloc : memref<128x10000xf32, #nki.memory<sbuf>>
  nki.dma %y to %m : memref<128x10000xf32> to memref<128x10000xf32, #nki.memory<sbuf>>
  nki.dma %m to %y : memref<128x10000xf32, #nki.memory<sbuf>> to memref<128x10000xf32>
  %b = nki.alloc : memref<128x20000xf32, #nki.memory<sbuf>>
  nki.dma %big to %b : memref<128x20000xf32> to memref<128x20000xf32, #nki.memory<sbuf>>
  nki.dma %b to %x : memref<128x20000xf32, #nki.memory<sbuf>> to memref<128x20000xf32>
  %t = nki.alloc : memref<128x16xf32, #nki.memory<sbuf>>
  nki.dma %small to %t : memref<128x16xf32> to memref<128x16xf32, #nki.memory<sbuf>>
  nki.dma %t to %z : memref<128x16xf32, #nki.memory<sbuf>> to memref<128x16xf32>
  return
}

// -----

// The function's result is no scratch: it keeps its store, and the load of
// it stays (only DMAs of scratch buffers are followed).
// CHECK-LABEL: func.func @output
// CHECK-COUNT-4: nki.dma
// CHECK:         return
func.func @output(%x: memref<64x32xf32>, %y: memref<64x32xf32>) -> memref<64x32xf32> {
  %out = memref.alloc() : memref<64x32xf32>
  %a = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %a to %out : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  %b = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %out to %b : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %b to %y : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  return %out : memref<64x32xf32>
}

// -----

// A write through a view of other element type (a bitcast) ends a store
// whose bytes it covers, though their element offsets look apart: the
// second half of rows as bf16 elements 2048.. is f32 elements 1024.. of
// the store's. The load stays.
// CHECK-LABEL: func.func @bitcast_write
// CHECK:         memref.alloc() : memref<64x32xf32>
// CHECK-COUNT-4: nki.dma
// CHECK:         return
func.func @bitcast_write(%x: memref<64x32xf32>, %z: memref<32x64xbf16>, %y: memref<64x32xf32>) {
  %scratch = memref.alloc() : memref<64x32xf32>
  %a = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %a to %scratch : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  %bc = nki.bitcast %scratch : memref<64x32xf32> to memref<64x64xbf16>
  %half = memref.subview %bc[32, 0] [32, 64] [1, 1] : memref<64x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: 2048>>
  nki.dma %z to %half : memref<32x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: 2048>>
  %b = nki.alloc : memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %scratch to %b : memref<64x32xf32> to memref<64x32xf32, #nki.memory<sbuf>>
  nki.dma %b to %y : memref<64x32xf32, #nki.memory<sbuf>> to memref<64x32xf32>
  return
}

// -----

// A loaded tile stored again (MaxViT's attention): the second store stores
// what replaced the first load's tile, and both loads are forwarded (the
// pass read the erased tile and crashed).
// CHECK-LABEL: func.func @stored_again
// CHECK:         memref.alloc() : memref<80x128xf32>
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
// CHECK-NEXT:    nki.dma %{{.*}} to %[[A]]
// CHECK-NEXT:    %[[O:.*]] = nki.alloc
// CHECK-NEXT:    nki.activation "exp" %[[A]] into %[[O]] :
// CHECK-NEXT:    nki.dma %[[O]] to %{{.*}} : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
// CHECK-NEXT:    return
func.func @stored_again(%x: memref<80x128xf32>) -> memref<80x128xf32> {
  %out = memref.alloc() : memref<80x128xf32>
  %s1 = memref.alloc() : memref<80x128xf32>
  %s2 = memref.alloc() : memref<80x128xf32>
  %a = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %a to %s1 : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  %b = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %s1 to %b : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %b to %s2 : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  %c = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %s2 to %c : memref<80x128xf32> to memref<80x128xf32, #nki.memory<sbuf>>
  %o = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
  nki.activation "exp" %c into %o : memref<80x128xf32, #nki.memory<sbuf>> into memref<80x128xf32, #nki.memory<sbuf>>
  nki.dma %o to %out : memref<80x128xf32, #nki.memory<sbuf>> to memref<80x128xf32>
  memref.dealloc %s1 : memref<80x128xf32>
  memref.dealloc %s2 : memref<80x128xf32>
  return %out : memref<80x128xf32>
}

// -----

// The same through a box: the first load becomes a view of the stored
// tile's columns, so the second store stores that view, and the last DMA
// reads it in place.
// CHECK-LABEL: func.func @stored_again_as_view
// CHECK:         memref.alloc() : memref<128x4xf32>
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-NEXT:    nki.dma %{{.*}} to %[[A]]
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[A]][0, 4] [128, 4] [1, 1]
// CHECK-NEXT:    nki.dma %[[V]] to %{{.*}} : memref<128x4xf32, strided<[8, 1], offset: 4>, #nki.memory<sbuf>> to memref<128x4xf32>
// CHECK-NEXT:    return
func.func @stored_again_as_view(%x: memref<128x8xf32>) -> memref<128x4xf32> {
  %out = memref.alloc() : memref<128x4xf32>
  %s1 = memref.alloc() : memref<128x8xf32>
  %s2 = memref.alloc() : memref<128x4xf32>
  %a = nki.alloc : memref<128x8xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<128x8xf32> to memref<128x8xf32, #nki.memory<sbuf>>
  nki.dma %a to %s1 : memref<128x8xf32, #nki.memory<sbuf>> to memref<128x8xf32>
  %box = memref.reinterpret_cast %s1 to offset: [4], sizes: [128, 4], strides: [8, 1] : memref<128x8xf32> to memref<128x4xf32, strided<[8, 1], offset: 4>>
  %b = nki.alloc : memref<128x4xf32, #nki.memory<sbuf>>
  nki.dma %box to %b : memref<128x4xf32, strided<[8, 1], offset: 4>> to memref<128x4xf32, #nki.memory<sbuf>>
  nki.dma %b to %s2 : memref<128x4xf32, #nki.memory<sbuf>> to memref<128x4xf32>
  %c = nki.alloc : memref<128x4xf32, #nki.memory<sbuf>>
  nki.dma %s2 to %c : memref<128x4xf32> to memref<128x4xf32, #nki.memory<sbuf>>
  nki.dma %c to %out : memref<128x4xf32, #nki.memory<sbuf>> to memref<128x4xf32>
  memref.dealloc %s1 : memref<128x8xf32>
  memref.dealloc %s2 : memref<128x4xf32>
  return %out : memref<128x4xf32>
}
