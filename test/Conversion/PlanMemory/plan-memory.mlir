// RUN: nki-opt %s -split-input-file -nki-plan-memory | FileCheck %s

// The attributes nki-to-nisa reads: `offset` on every nki.alloc,
// `nki.hbm_offset` on arguments, allocations and get_global ops, and
// `nki.output_offsets` on the function. An existing `nki.name` stays.

// CHECK-LABEL: func.func @annotate
// CHECK-SAME:    (%{{.*}}: memref<128x64xf32> {nki.hbm_offset = 0 : i64, nki.name = "x"},
// CHECK-SAME:     %{{.*}}: memref<64xf32> {nki.hbm_offset = 32768 : i64})
// CHECK-SAME:    attributes {nki.output_offsets = array<i64: 33024>}
// CHECK:         memref.alloc() {nki.hbm_offset = 33024 : i64} : memref<128x64xf32>
// CHECK:         memref.get_global @c : memref<128x128xbf16> {nki.hbm_offset = 65792 : i64}
// CHECK:         nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
// CHECK:         nki.alloc {offset = 256 : i64} : memref<64x128xf32, #nki.memory<sbuf>>
// CHECK:         nki.alloc {offset = 0 : i64} : memref<64x128xf32, #nki.memory<psum>>
// CHECK:         memref.get_global @c : memref<128x128xbf16> {nki.hbm_offset = 65792 : i64}
// CHECK:         return
memref.global "private" constant @c : memref<128x128xbf16> = dense<1.0>
func.func @annotate(%x: memref<128x64xf32> {nki.name = "x"}, %b: memref<64xf32>) -> memref<128x64xf32> {
  %out = memref.alloc() : memref<128x64xf32>
  %c0 = memref.get_global @c : memref<128x128xbf16>
  %t = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<128x64xf32> to memref<128x64xf32, #nki.memory<sbuf>>
  %u = nki.alloc : memref<64x128xf32, #nki.memory<sbuf>>
  %p = nki.alloc : memref<64x128xf32, #nki.memory<psum>>
  nki.transpose %t into %p : memref<128x64xf32, #nki.memory<sbuf>> into memref<64x128xf32, #nki.memory<psum>>
  nki.copy %p into %u : memref<64x128xf32, #nki.memory<psum>> into memref<64x128xf32, #nki.memory<sbuf>>
  nki.dma %u to %out : memref<64x128xf32, #nki.memory<sbuf>> to memref<128x64xf32>
  %c1 = memref.get_global @c : memref<128x128xbf16>
  return %out : memref<128x64xf32>
}

// -----

// A function without tiles or results still gets its HBM layout.
// CHECK-LABEL: func.func @no_tiles
// CHECK-SAME:    {nki.hbm_offset = 0 : i64}
// CHECK-SAME:    attributes {nki.output_offsets = array<i64>}
func.func @no_tiles(%x: memref<4xf32>) {
  return
}

// -----

// Declarations are left alone.
// CHECK-LABEL: func.func private @external(memref<4xf32>)
// CHECK-NOT:     nki.
func.func private @external(memref<4xf32>)
