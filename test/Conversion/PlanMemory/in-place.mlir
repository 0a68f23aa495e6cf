// nki-plan-memory: an elementwise op whose input tile dies at the op writes
// its result over that input (one tile instead of two).
// RUN: nki-opt %s -split-input-file -nki-plan-memory | FileCheck %s

// The chain load -> scale -> add -> store runs in one tile.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[T:.*]] = nki.alloc {offset = 0 : i64} : memref<128x64xf32, #nki.memory<sbuf>>
// CHECK:         nki.dma %{{.*}} to %[[T]]
// CHECK:         nki.tensor_scalar %[[T]] into %[[T]]
// CHECK:         nki.activation "exp" %[[T]] into %[[T]]
// CHECK:         nki.tensor_tensor "add" %[[T]], %[[T]] into %[[T]]
// CHECK:         nki.dma %[[T]] to
// CHECK-NOT:     nki.alloc
func.func @chain(%x: memref<128x64xf32>, %y: memref<128x64xf32>) {
  %a = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<128x64xf32> to memref<128x64xf32, #nki.memory<sbuf>>
  %b = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %a into %b {imm0 = 2.0 : f32, op0 = "mul"} : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
  %c = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.activation "exp" %b into %c : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
  %d = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %c, %c into %d : memref<128x64xf32, #nki.memory<sbuf>>, memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
  nki.dma %d to %y : memref<128x64xf32, #nki.memory<sbuf>> to memref<128x64xf32>
  return
}

// -----

// Not in place: the input is read again later, the output has another
// type, and the input is also the per-partition operand.
// CHECK-LABEL: func.func @not_in_place
// CHECK-COUNT-5: nki.alloc
// CHECK:         return
func.func @not_in_place(%x: memref<128x64xf32>, %y: memref<128x64xf32>, %z: memref<128x64xbf16>, %v: memref<128x1xf32>) {
  %a = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.dma %x to %a : memref<128x64xf32> to memref<128x64xf32, #nki.memory<sbuf>>
  %b = nki.alloc : memref<128x64xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %a into %b {imm0 = 2.0 : f32, op0 = "mul"} : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
  nki.dma %a to %y : memref<128x64xf32, #nki.memory<sbuf>> to memref<128x64xf32>
  %c = nki.alloc : memref<128x64xbf16, #nki.memory<sbuf>>
  nki.copy %b into %c : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xbf16, #nki.memory<sbuf>>
  nki.dma %c to %z : memref<128x64xbf16, #nki.memory<sbuf>> to memref<128x64xbf16>
  %s = nki.alloc : memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %v to %s : memref<128x1xf32> to memref<128x1xf32, #nki.memory<sbuf>>
  %t = nki.alloc : memref<128x1xf32, #nki.memory<sbuf>>
  nki.tensor_scalar %s into %t s0 %s : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "mul"} : memref<128x1xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
  nki.dma %t to %v : memref<128x1xf32, #nki.memory<sbuf>> to memref<128x1xf32>
  return
}
