// RUN: nki-opt %s -split-input-file -nki-plan-memory -verify-diagnostics

// A loop nki-unroll did not remove.
func.func @leftover_loop(%a: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{'scf.for' is control flow; memory planning needs straight-line tile code (run nki-unroll first)}}
  scf.for %i = %c0 to %c2 step %c1 {
    %t = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  }
  return
}

// -----

// expected-error @+1 {{function @branches has 2 blocks; memory planning needs straight-line tile code}}
func.func @branches(%a: memref<4xf32>) {
  cf.br ^bb1
^bb1:
  return
}

// -----

func.func @returns_argument(%a: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{'func.return' op returns function argument #0 as result #0; outputs must be distinct buffers allocated in the function (bufferization should have copied the argument)}}
  return %a : memref<4xf32>
}

// -----

func.func @returns_twice() -> (memref<4xf32>, memref<4xf32>) {
  %o = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{returns the same buffer as results #0 and #1; outputs must be distinct buffers}}
  return %o, %o : memref<4xf32>, memref<4xf32>
}

// -----

func.func @returns_view() -> memref<2xf32, strided<[1], offset: 2>> {
  %o = memref.alloc() : memref<4xf32>
  %v = memref.subview %o[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  // expected-error @+1 {{returns a view ('memref.subview') as result #0; outputs must be whole buffers allocated in the function (memref.alloc)}}
  return %v : memref<2xf32, strided<[1], offset: 2>>
}

// -----

// Two 128 KiB tiles live together need 262,144 bytes of a 229,376-byte
// partition. The error names the memory and its capacity and carries the
// planner's memory map; the note shows the op where the peak is.
// expected-error @+1 {{SBUF overflow on trn2 (229376 bytes per partition): out of memory: the buffers live at position 3 need 262144 bytes, more than the capacity 229376}}
func.func @sbuf_overflow(%a: memref<128x32768xf32>) {
  %t0 = nki.alloc : memref<128x32768xf32, #nki.memory<sbuf>>
  nki.dma %a to %t0 : memref<128x32768xf32> to memref<128x32768xf32, #nki.memory<sbuf>>
  %t1 = nki.alloc : memref<128x32768xf32, #nki.memory<sbuf>>
  // expected-note @+1 {{position 3 of the memory map is this op}}
  nki.dma %a to %t1 : memref<128x32768xf32> to memref<128x32768xf32, #nki.memory<sbuf>>
  nki.copy %t1 into %t0 : memref<128x32768xf32, #nki.memory<sbuf>> into memref<128x32768xf32, #nki.memory<sbuf>>
  return
}

// -----

// Nine 1,200-byte accumulators take 10,800 of PSUM's 16,384 bytes, but two
// never fit in one 2 KiB bank: the ninth has no bank left. The error is at
// the tile that did not fit.
func.func @psum_banks_exhausted() {
  %s = nki.alloc : memref<128x128xbf16, #nki.memory<sbuf>>
  nki.memset %s, 1.0 : memref<128x128xbf16, #nki.memory<sbuf>>
  %m = nki.alloc : memref<128x300xbf16, #nki.memory<sbuf>>
  nki.memset %m, 1.0 : memref<128x300xbf16, #nki.memory<sbuf>>
  %p0 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p1 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p2 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p3 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p4 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p5 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p6 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  %p7 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  // expected-error @+1 {{PSUM overflow on trn2 (16384 bytes per partition in banks of 2048): out of memory: buffer #8}}
  %p8 = nki.alloc : memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p0 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p1 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p2 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p3 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p4 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p5 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p6 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.matmul %s, %m into %p7 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  // expected-note @+1 {{position 21 of the memory map is this op}}
  nki.matmul %s, %m into %p8 : memref<128x128xbf16, #nki.memory<sbuf>>, memref<128x300xbf16, #nki.memory<sbuf>> into memref<128x300xf32, #nki.memory<psum>>
  nki.copy %p0 into %p8 : memref<128x300xf32, #nki.memory<psum>> into memref<128x300xf32, #nki.memory<psum>>
  nki.copy %p1 into %p7 : memref<128x300xf32, #nki.memory<psum>> into memref<128x300xf32, #nki.memory<psum>>
  nki.copy %p2 into %p6 : memref<128x300xf32, #nki.memory<psum>> into memref<128x300xf32, #nki.memory<psum>>
  nki.copy %p3 into %p5 : memref<128x300xf32, #nki.memory<psum>> into memref<128x300xf32, #nki.memory<psum>>
  nki.copy %p4 into %p5 : memref<128x300xf32, #nki.memory<psum>> into memref<128x300xf32, #nki.memory<psum>>
  return
}

// -----

func.func @sbuf_tile_too_wide() {
  // expected-error @+1 {{allocates 'memref<128x60000xf32, #nki.memory<sbuf>>': 240000 bytes per partition, more than the 229376 bytes of an SBUF partition on trn2}}
  %t = nki.alloc : memref<128x60000xf32, #nki.memory<sbuf>>
  return
}

// -----

func.func @empty_tile() {
  // expected-error @+1 {{allocates 'memref<128x0xf32, #nki.memory<sbuf>>', which has no elements}}
  %t = nki.alloc : memref<128x0xf32, #nki.memory<sbuf>>
  return
}

// -----

// expected-error @+1 {{argument #0 of @dynamic_argument has type 'memref<?xf32>'; HBM tensors must be static, row-major and contiguous}}
func.func @dynamic_argument(%a: memref<?xf32>) {
  return
}

// -----

func.func @onchip_memref_alloc() {
  // expected-error @+1 {{scratch buffer has type 'memref<128x4xf32, #nki.memory<sbuf>>', on chip; HBM tensors are memrefs in the default memory space}}
  %t = memref.alloc() : memref<128x4xf32, #nki.memory<sbuf>>
  return
}

// -----

// 8 GiB of inputs and 8 GiB of outputs do not fit trn2's 12 GiB of HBM.
// expected-error @+1 {{function @hbm_overflow needs 17179869184 bytes of HBM for its tensors, more than the 12884901888 bytes of trn2 (inputs 8589934592, outputs 8589934592, constants 0, scratch 0 bytes, each tensor 64-byte aligned)}}
func.func @hbm_overflow(%a: memref<2147483648xf32>) -> memref<2147483648xf32> {
  %o = memref.alloc() : memref<2147483648xf32>
  return %o : memref<2147483648xf32>
}

// -----

// An HBM f4E2M1FN tensor is packed two values a byte.
// expected-error @+1 {{argument #0 of @odd_fp4 has type 'memref<4x3xf4E2M1FN>'; f4E2M1FN tensors are stored two values a byte, so their innermost dim must be even}}
func.func @odd_fp4(%a: memref<4x3xf4E2M1FN>) {
  return
}
