// RUN: nki-opt %s -split-input-file -nki-test-print-memory-plan -o /dev/null | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-set-target=target=trn1 -nki-test-print-memory-plan -o /dev/null | FileCheck %s --check-prefix=TRN1

// The plan, line by line: "<memory> offset <bytes> size <bytes per
// partition> live [first, last] <file:line:col> <shape>". Positions count the
// ops of the function body from 0.

// Tiles live at the same time get disjoint bytes, each SBUF offset 64-byte
// aligned (a 128x100xf32 tile is 400 bytes and the next starts at 448).
// CHECK-LABEL: memory plan @disjoint
// CHECK-NEXT:    hbm  offset 0 size 51200 input #0
// CHECK-NEXT:    hbm  offset 51200 size 51200 input #1
// CHECK-NEXT:    sbuf offset 0 size 400 live [1, 7] {{.*}}print-plan.mlir:[[#@LINE+6]]:{{.*}} 128x100xf32
// CHECK-NEXT:    sbuf offset 448 size 400 live [3, 5] {{.*}} 128x100xf32
// CHECK-NEXT:    sbuf offset 896 size 200 live [5, 6] {{.*}} 128x100xbf16
// CHECK-NEXT:    sbuf peak 1096 (rotate)
// CHECK-NOT:     psum
func.func @disjoint(%a: memref<128x100xf32>, %b: memref<128x100xf32>) {
  %t0 = nki.alloc : memref<128x100xf32, #nki.memory<sbuf>>
  nki.dma %a to %t0 : memref<128x100xf32> to memref<128x100xf32, #nki.memory<sbuf>>
  %t1 = nki.alloc : memref<128x100xf32, #nki.memory<sbuf>>
  nki.dma %b to %t1 : memref<128x100xf32> to memref<128x100xf32, #nki.memory<sbuf>>
  %t2 = nki.alloc : memref<128x100xbf16, #nki.memory<sbuf>>
  nki.copy %t1 into %t2 : memref<128x100xf32, #nki.memory<sbuf>> into memref<128x100xbf16, #nki.memory<sbuf>>
  nki.copy %t2 into %t0 : memref<128x100xbf16, #nki.memory<sbuf>> into memref<128x100xf32, #nki.memory<sbuf>>
  nki.dma %t0 to %a : memref<128x100xf32, #nki.memory<sbuf>> to memref<128x100xf32>
  return
}

// -----

// Reuse of a dead tile's bytes: each tile takes half of SBUF on trn2
// (114,688 of 229,376 bytes); the third starts after the first died and
// takes its bytes. On trn1 (196,608 bytes) the second tile does not fit next
// to the first, which is dead by then, so every tile reuses offset 0.
// CHECK-LABEL: memory plan @reuse_dead_tile
// CHECK:         sbuf offset 0 size 114688 live [1, 2]
// CHECK-NEXT:    sbuf offset 114688 size 114688 live [4, 5]
// CHECK-NEXT:    sbuf offset 0 size 114688 live [7, 8]
// CHECK-NEXT:    sbuf peak 229376 (rotate)
// TRN1-LABEL:  memory plan @reuse_dead_tile on trn1
// TRN1:          sbuf offset 0 size 114688 live [1, 2]
// TRN1-NEXT:     sbuf offset 0 size 114688 live [4, 5]
// TRN1-NEXT:     sbuf offset 0 size 114688 live [7, 8]
func.func @reuse_dead_tile(%a: memref<128x28672xf32>) {
  %t0 = nki.alloc : memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %a to %t0 : memref<128x28672xf32> to memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %t0 to %a : memref<128x28672xf32, #nki.memory<sbuf>> to memref<128x28672xf32>
  %t1 = nki.alloc : memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %a to %t1 : memref<128x28672xf32> to memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %t1 to %a : memref<128x28672xf32, #nki.memory<sbuf>> to memref<128x28672xf32>
  %t2 = nki.alloc : memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %a to %t2 : memref<128x28672xf32> to memref<128x28672xf32, #nki.memory<sbuf>>
  nki.dma %t2 to %a : memref<128x28672xf32, #nki.memory<sbuf>> to memref<128x28672xf32>
  return
}

// -----

// Multi-buffering: an unrolled load/store loop whose 57,344-byte tiles rotate
// over as many slots as SBUF holds, so the load of tile i+1 never waits for
// the store of tile i: four slots on trn2, three on trn1.
// CHECK-LABEL: memory plan @rotation
// CHECK:         sbuf offset 0 size 57344
// CHECK-NEXT:    sbuf offset 57344 size 57344
// CHECK-NEXT:    sbuf offset 114688 size 57344
// CHECK-NEXT:    sbuf offset 172032 size 57344
// CHECK-NEXT:    sbuf offset 0 size 57344
// CHECK-NEXT:    sbuf offset 57344 size 57344
// TRN1-LABEL:  memory plan @rotation
// TRN1:          sbuf offset 0 size 57344
// TRN1-NEXT:     sbuf offset 57344 size 57344
// TRN1-NEXT:     sbuf offset 114688 size 57344
// TRN1-NEXT:     sbuf offset 0 size 57344
// TRN1-NEXT:     sbuf offset 57344 size 57344
// TRN1-NEXT:     sbuf offset 114688 size 57344
func.func @rotation(%in: memref<768x14336xf32>, %out: memref<768x14336xf32>) {
  %i0 = memref.subview %in[0, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1]>>
  %o0 = memref.subview %out[0, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1]>>
  %t0 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i0 to %t0 : memref<128x14336xf32, strided<[14336, 1]>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t0 to %o0 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1]>>
  %i1 = memref.subview %in[128, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 1835008>>
  %o1 = memref.subview %out[128, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 1835008>>
  %t1 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i1 to %t1 : memref<128x14336xf32, strided<[14336, 1], offset: 1835008>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t1 to %o1 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1], offset: 1835008>>
  %i2 = memref.subview %in[256, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 3670016>>
  %o2 = memref.subview %out[256, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 3670016>>
  %t2 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i2 to %t2 : memref<128x14336xf32, strided<[14336, 1], offset: 3670016>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t2 to %o2 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1], offset: 3670016>>
  %i3 = memref.subview %in[384, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 5505024>>
  %o3 = memref.subview %out[384, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 5505024>>
  %t3 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i3 to %t3 : memref<128x14336xf32, strided<[14336, 1], offset: 5505024>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t3 to %o3 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1], offset: 5505024>>
  %i4 = memref.subview %in[512, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 7340032>>
  %o4 = memref.subview %out[512, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 7340032>>
  %t4 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i4 to %t4 : memref<128x14336xf32, strided<[14336, 1], offset: 7340032>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t4 to %o4 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1], offset: 7340032>>
  %i5 = memref.subview %in[640, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 9175040>>
  %o5 = memref.subview %out[640, 0] [128, 14336] [1, 1] : memref<768x14336xf32> to memref<128x14336xf32, strided<[14336, 1], offset: 9175040>>
  %t5 = nki.alloc : memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %i5 to %t5 : memref<128x14336xf32, strided<[14336, 1], offset: 9175040>> to memref<128x14336xf32, #nki.memory<sbuf>>
  nki.dma %t5 to %o5 : memref<128x14336xf32, #nki.memory<sbuf>> to memref<128x14336xf32, strided<[14336, 1], offset: 9175040>>
  return
}

// -----

// PSUM: 4-byte alignment, and no tile crosses a 2 KiB bank. Two 1,200-byte
// accumulators cannot share a bank, so the second starts at the next one;
// the 800-byte tile still fits after the first in bank 0 (1200 + 800 <= 2048).
// CHECK-LABEL: memory plan @psum_banks
// CHECK:         psum offset 0 size 1200 live [6, 12]
// CHECK-NEXT:    psum offset 2048 size 1200 live [7, 13]
// CHECK-NEXT:    psum offset 1200 size 800 live [10, 15]
// CHECK:         psum peak 3248 (rotate)
func.func @psum_banks(%x: memref<128x128xbf16>, %y: memref<128x300xbf16>) {
  %s = nki.alloc : memref<128x128xbf16, #nki.memory<sbuf>>
  nki.dma %x to %s : memref<128x128xbf16> to memref<128x128xbf16, #nki.memory<sbuf>>
  %m = nki.alloc : memref<128x300xbf16, #nki.memory<sbuf>>
  nki.dma %y to %m : memref<128x300xbf16> to memref<128x300xbf16, #nki.memory<sbuf>>
  %acc0 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %acc1 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %acc0 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %acc1 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  %acc2 = nki.alloc : memref<128x200xf32, #nki.memory<psum>>
  %m2 = memref.subview %m[0, 0] [128, 200] [1, 1] : memref<128x300xbf16, #nki.memory<sbuf>> to memref<128x200xbf16, strided<[300, 1]>, #nki.memory<sbuf>>
  nki.matmul %s, %m2 into %acc2 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x200xbf16, strided<[300, 1]>, #nki.memory<sbuf>> into memref<128x200xf32, #nki.memory<psum>>
  %r = nki.alloc : memref<128x300xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %acc0, %r into %r : memref<128x300xf32, #nki.memory<psum>>, memref<128x300xf32, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %acc1, %r into %r : memref<128x300xf32, #nki.memory<psum>>, memref<128x300xf32, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<sbuf>>
  %r2 = memref.subview %r[0, 0] [128, 200] [1, 1] : memref<128x300xf32, #nki.memory<sbuf>> to memref<128x200xf32, strided<[300, 1]>, #nki.memory<sbuf>>
  nki.copy %acc2 into %r2 : memref<128x200xf32, #nki.memory<psum>> into memref<128x200xf32, strided<[300, 1]>, #nki.memory<sbuf>>
  return
}

// -----

// Uses through views count: %t is only reached through a subview and a cast
// of it, at positions 3 and 6. The view ops themselves do not use bytes, so
// %u, allocated first but used only at 4, starts there.
// CHECK-LABEL: memory plan @views
// CHECK:         sbuf offset {{[0-9]+}} size 2048 live [3, 6] {{.*}} 128x512xf32
// CHECK-NEXT:    sbuf offset {{[0-9]+}} size 1024 live [4, 4] {{.*}} 128x256xf32
func.func @views(%a: memref<128x256xf32>) {
  %t = nki.alloc : memref<128x512xf32, #nki.memory<sbuf>>
  %u = nki.alloc : memref<128x256xf32, #nki.memory<sbuf>>
  %v = memref.subview %t[0, 256] [128, 256] [1, 1] : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x256xf32, strided<[512, 1], offset: 256>, #nki.memory<sbuf>>
  nki.dma %a to %v : memref<128x256xf32> to memref<128x256xf32, strided<[512, 1], offset: 256>, #nki.memory<sbuf>>
  nki.dma %a to %u : memref<128x256xf32> to memref<128x256xf32, #nki.memory<sbuf>>
  %c = memref.cast %v : memref<128x256xf32, strided<[512, 1], offset: 256>, #nki.memory<sbuf>> to memref<128x256xf32, strided<[512, 1], offset: ?>, #nki.memory<sbuf>>
  nki.dma %c to %a : memref<128x256xf32, strided<[512, 1], offset: ?>, #nki.memory<sbuf>> to memref<128x256xf32>
  return
}

// -----

// HBM: inputs in argument order, outputs in return order, constants (one
// slot per global, shared by every get_global of it), then scratch; every
// tensor 64-byte aligned.
// CHECK-LABEL: memory plan @hbm_layout
// CHECK-NEXT:    hbm  offset 0 size 40 input #0
// CHECK-NEXT:    hbm  offset 64 size 256 input #1
// CHECK-NEXT:    hbm  offset 320 size 12 output #0
// CHECK-NEXT:    hbm  offset 384 size 2 output #1
// CHECK-NEXT:    hbm  offset 448 size 16 constant @w
// CHECK-NEXT:    hbm  offset 512 size 4 constant @v
// CHECK-NEXT:    hbm  offset 576 size 1024 scratch
// CHECK-NEXT:    hbm  offset 1600 size 400 scratch
// CHECK-NOT:     hbm
memref.global "private" constant @w : memref<4xf32> = dense<1.0>
memref.global "private" constant @v : memref<2xbf16> = dense<2.0>
func.func @hbm_layout(%a: memref<10xf32>, %b: memref<8x8xf32>) -> (memref<3xf32>, memref<1xbf16>) {
  %w0 = memref.get_global @w : memref<4xf32>
  %s0 = memref.alloc() : memref<16x16xf32>
  %out1 = memref.alloc() : memref<1xbf16>
  %v = memref.get_global @v : memref<2xbf16>
  %w1 = memref.get_global @w : memref<4xf32>
  %out0 = memref.alloc() : memref<3xf32>
  %s1 = memref.alloc() : memref<100xf32>
  return %out0, %out1 : memref<3xf32>, memref<1xbf16>
}
