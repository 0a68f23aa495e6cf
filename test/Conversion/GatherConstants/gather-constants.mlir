// RUN: nki-opt %s -split-input-file --nki-gather-constants | FileCheck %s

// Per-channel columns loaded from constants (a batch norm's scale and
// shift) become columns of one table, computed at compile time and loaded
// by one DMA before the first reader; the readers read views of it.
// Identical columns share one; the old tiles, their DMAs and the constants
// nothing reads any more are gone.
// CHECK-LABEL: memref.global "private" constant @__nki_constant_table : memref<32x2xf32> = dense<
// CHECK-SAME:    {{\[\[}}1.000000e+00, 5.000000e-01], [2.000000e+00, 5.000000e-01]
// CHECK-NOT:   memref.global {{.*}} @scale
// CHECK-NOT:   memref.global {{.*}} @shift
// CHECK-LABEL: func.func @columns
// CHECK:         %[[G:.*]] = memref.get_global @__nki_constant_table : memref<32x2xf32>
// CHECK:         %[[T:.*]] = nki.alloc : memref<32x2xf32, #nki.memory<sbuf>>
// CHECK:         nki.dma %[[G]] to %[[T]]
// CHECK:         nki.activation "relu" %{{.*}} into %{{.*}} scale %{{.*}} : memref<32x1xf32, strided<[2, 1]>, #nki.memory<sbuf>> bias %{{.*}} : memref<32x1xf32, strided<[2, 1], offset: 1>, #nki.memory<sbuf>>
// CHECK:         nki.activation "relu" %{{.*}} into %{{.*}} scale %{{.*}} : memref<32x1xf32, strided<[2, 1]>, #nki.memory<sbuf>> bias %{{.*}} : memref<32x1xf32, strided<[2, 1], offset: 1>, #nki.memory<sbuf>>
// CHECK-NOT:     nki.dma {{.*}}x1xf32
memref.global "private" constant @scale : memref<32x1x1xf32> = dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]>
memref.global "private" constant @shift : memref<32x1x1xf32> = dense<0.5>
func.func @columns(%x: memref<32x64xf32>) -> memref<32x64xf32> {
  %out = memref.alloc() : memref<32x64xf32>
  %gs = memref.get_global @scale : memref<32x1x1xf32>
  %gb = memref.get_global @shift : memref<32x1x1xf32>
  %t = nki.alloc : memref<32x64xf32, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<32x64xf32> to memref<32x64xf32, #nki.memory<sbuf>>
  %s = nki.alloc : memref<32x1xf32, #nki.memory<sbuf>>
  %vs = memref.reinterpret_cast %gs to offset: [0], sizes: [32, 1], strides: [1, 1] : memref<32x1x1xf32> to memref<32x1xf32, strided<[1, 1]>>
  nki.dma %vs to %s : memref<32x1xf32, strided<[1, 1]>> to memref<32x1xf32, #nki.memory<sbuf>>
  %b = nki.alloc : memref<32x1xf32, #nki.memory<sbuf>>
  %vb = memref.reinterpret_cast %gb to offset: [0], sizes: [32, 1], strides: [1, 1] : memref<32x1x1xf32> to memref<32x1xf32, strided<[1, 1]>>
  nki.dma %vb to %b : memref<32x1xf32, strided<[1, 1]>> to memref<32x1xf32, #nki.memory<sbuf>>
  %y = nki.alloc : memref<32x64xf32, #nki.memory<sbuf>>
  nki.activation "relu" %t into %y scale %s : memref<32x1xf32, #nki.memory<sbuf>> bias %b : memref<32x1xf32, #nki.memory<sbuf>> : memref<32x64xf32, #nki.memory<sbuf>> into memref<32x64xf32, #nki.memory<sbuf>>
  // The same columns loaded again for a second kernel.
  %s2 = nki.alloc : memref<32x1xf32, #nki.memory<sbuf>>
  nki.dma %vs to %s2 : memref<32x1xf32, strided<[1, 1]>> to memref<32x1xf32, #nki.memory<sbuf>>
  %b2 = nki.alloc : memref<32x1xf32, #nki.memory<sbuf>>
  nki.dma %vb to %b2 : memref<32x1xf32, strided<[1, 1]>> to memref<32x1xf32, #nki.memory<sbuf>>
  nki.activation "relu" %y into %y scale %s2 : memref<32x1xf32, #nki.memory<sbuf>> bias %b2 : memref<32x1xf32, #nki.memory<sbuf>> : memref<32x64xf32, #nki.memory<sbuf>> into memref<32x64xf32, #nki.memory<sbuf>>
  nki.dma %y to %out : memref<32x64xf32, #nki.memory<sbuf>> to memref<32x64xf32>
  return %out : memref<32x64xf32>
}

// -----

// A tile filled by two DMAs (a column replicated for two bands packed side
// by side) is one column; a load into bf16 is rounded at compile time as
// the DMA would round it (1 + 2^-8 is a tie: to even, 1.0).
// CHECK:       memref.global "private" constant @__nki_constant_table : memref<4x1xbf16> = dense<{{\[\[}}1.000000e+00], [2.000000e+00], [1.000000e+00], [2.000000e+00]]>
// CHECK-LABEL: func.func @replicated_and_rounded
// CHECK:         %[[T:.*]] = nki.alloc : memref<4x1xbf16, #nki.memory<sbuf>>
// CHECK:         %[[V:.*]] = memref.subview %[[T]][0, 0] [4, 1] [1, 1]
// CHECK:         nki.tensor_scalar %{{.*}} into %{{.*}} s0 %[[V]]
memref.global "private" constant @w : memref<2xf32> = dense<[1.00390625, 2.0]>
func.func @replicated_and_rounded(%x: memref<4x8xbf16>) -> memref<4x8xbf16> {
  %out = memref.alloc() : memref<4x8xbf16>
  %g = memref.get_global @w : memref<2xf32>
  %t = nki.alloc : memref<4x8xbf16, #nki.memory<sbuf>>
  nki.dma %x to %t : memref<4x8xbf16> to memref<4x8xbf16, #nki.memory<sbuf>>
  %c = nki.alloc : memref<4x1xbf16, #nki.memory<sbuf>>
  %v = memref.reinterpret_cast %g to offset: [0], sizes: [2, 1], strides: [1, 1] : memref<2xf32> to memref<2x1xf32, strided<[1, 1]>>
  %lo = memref.subview %c[0, 0] [2, 1] [1, 1] : memref<4x1xbf16, #nki.memory<sbuf>> to memref<2x1xbf16, strided<[1, 1]>, #nki.memory<sbuf>>
  nki.dma %v to %lo : memref<2x1xf32, strided<[1, 1]>> to memref<2x1xbf16, strided<[1, 1]>, #nki.memory<sbuf>>
  %hi = memref.subview %c[2, 0] [2, 1] [1, 1] : memref<4x1xbf16, #nki.memory<sbuf>> to memref<2x1xbf16, strided<[1, 1], offset: 2>, #nki.memory<sbuf>>
  nki.dma %v to %hi : memref<2x1xf32, strided<[1, 1]>> to memref<2x1xbf16, strided<[1, 1], offset: 2>, #nki.memory<sbuf>>
  %y = nki.alloc : memref<4x8xbf16, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %y s0 %c : memref<4x1xbf16, #nki.memory<sbuf>> {op0 = "mul"} : memref<4x8xbf16, #nki.memory<sbuf>> into memref<4x8xbf16, #nki.memory<sbuf>>
  nki.dma %y to %out : memref<4x8xbf16, #nki.memory<sbuf>> to memref<4x8xbf16>
  return %out : memref<4x8xbf16>
}

// -----

// Left alone: a tile loaded from an input, one an engine also writes, one
// wider than 128 bytes per partition, and one only partly written.
// CHECK-LABEL: func.func @not_gathered
// CHECK-NOT:     __nki_constant_table
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<{{.*}}> to memref<{{.*}}, #nki.memory<sbuf>>
memref.global "private" constant @k : memref<64x64xf32> = dense<1.0>
func.func @not_gathered(%arg: memref<16x1xf32>, %x: memref<16x64xf32>) -> memref<16x64xf32> {
  %out = memref.alloc() : memref<16x64xf32>
  %g = memref.get_global @k : memref<64x64xf32>
  %a = nki.alloc : memref<16x1xf32, #nki.memory<sbuf>>
  nki.dma %arg to %a : memref<16x1xf32> to memref<16x1xf32, #nki.memory<sbuf>>
  %m = nki.alloc : memref<16x1xf32, #nki.memory<sbuf>>
  %vm = memref.reinterpret_cast %g to offset: [0], sizes: [16, 1], strides: [64, 1] : memref<64x64xf32> to memref<16x1xf32, strided<[64, 1]>>
  nki.dma %vm to %m : memref<16x1xf32, strided<[64, 1]>> to memref<16x1xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %m into %m {op0 = "add", imm0 = 1.0 : f32} : memref<16x1xf32, #nki.memory<sbuf>> into memref<16x1xf32, #nki.memory<sbuf>>
  %w = nki.alloc : memref<16x64xf32, #nki.memory<sbuf>>
  %vw = memref.reinterpret_cast %g to offset: [0], sizes: [16, 64], strides: [64, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1]>>
  nki.dma %vw to %w : memref<16x64xf32, strided<[64, 1]>> to memref<16x64xf32, #nki.memory<sbuf>>
  %p = nki.alloc : memref<16x2xf32, #nki.memory<sbuf>>
  %pv = memref.subview %p[0, 0] [16, 1] [1, 1] : memref<16x2xf32, #nki.memory<sbuf>> to memref<16x1xf32, strided<[2, 1]>, #nki.memory<sbuf>>
  nki.dma %vm to %pv : memref<16x1xf32, strided<[64, 1]>> to memref<16x1xf32, strided<[2, 1]>, #nki.memory<sbuf>>
  %t = nki.alloc : memref<16x64xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %w, %w into %t : memref<16x64xf32, #nki.memory<sbuf>>, memref<16x64xf32, #nki.memory<sbuf>> into memref<16x64xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %t s0 %a : memref<16x1xf32, #nki.memory<sbuf>> s1 %m : memref<16x1xf32, #nki.memory<sbuf>> {op0 = "add", op1 = "add"} : memref<16x64xf32, #nki.memory<sbuf>> into memref<16x64xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %t into %t s0 %pv : memref<16x1xf32, strided<[2, 1]>, #nki.memory<sbuf>> {op0 = "add"} : memref<16x64xf32, #nki.memory<sbuf>> into memref<16x64xf32, #nki.memory<sbuf>>
  nki.dma %t to %out : memref<16x64xf32, #nki.memory<sbuf>> to memref<16x64xf32>
  return %out : memref<16x64xf32>
}
