// RUN: not nki-opt %s -split-input-file -nki-plan-memory 2>&1 | FileCheck %s
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn1 -nki-plan-memory 2>&1 | FileCheck %s --check-prefix=TRN1
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn3 -nki-plan-memory 2>&1 | FileCheck %s --check-prefix=TRN3
// RUN: not nki-opt %s -split-input-file --nki-set-target=target=trn9 -nki-plan-memory 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// trn3's SBUF is larger, still not enough.
// TRN3: error: SBUF overflow on trn3 (262144 bytes per partition): out of memory: the buffers live at position 5 need 327680 bytes, more than the capacity 262144

// What the user sees when tiles do not fit: the memory, its capacity on the
// target, and the planner's memory map, whose rows name each live tile by
// its allocation site and shape.

// CHECK:      memory-map.mlir:[[#@LINE+12]]:1: error: SBUF overflow on trn2 (229376 bytes per partition): out of memory: the buffers live at position 5 need 327680 bytes, more than the capacity 229376
// CHECK-NEXT: memory map at position 5 (capacity 229376 bytes; 327680 bytes live, 0 placed):
// CHECK-NEXT:       offset        end       size  live                   buffer
// CHECK-NEXT:            -          -     131072  [1, 6]                 #0 'memory-map.mlir:[[#@LINE+10]]:9 128x32768xf32'
// CHECK-NEXT:            -          -     131072  [3, 6]                 #1 'memory-map.mlir:[[#@LINE+11]]:9 128x32768xf32'
// CHECK-NEXT:            -          -      65536  [5, 6]                 #2 'memory-map.mlir:[[#@LINE+12]]:9 128x32768xbf16'
// CHECK:      memory-map.mlir:[[#@LINE+12]]:3: note: position 5 of the memory map is this op

// trn1's SBUF is smaller.
// TRN1: error: SBUF overflow on trn1 (196608 bytes per partition)

// UNKNOWN: error: unknown target "trn9" in 'nki.target' (expected trn1, trn2 or trn3)
func.func @three_big_tiles(%a: memref<128x32768xf32>, %b: memref<128x32768xbf16>) {
  %t0 = nki.alloc : memref<128x32768xf32, #nki.memory<sbuf>>
  nki.dma %a to %t0 : memref<128x32768xf32> to memref<128x32768xf32, #nki.memory<sbuf>>
  %t1 = nki.alloc : memref<128x32768xf32, #nki.memory<sbuf>>
  nki.dma %a to %t1 : memref<128x32768xf32> to memref<128x32768xf32, #nki.memory<sbuf>>
  %t2 = nki.alloc : memref<128x32768xbf16, #nki.memory<sbuf>>
  nki.dma %b to %t2 : memref<128x32768xbf16> to memref<128x32768xbf16, #nki.memory<sbuf>>
  nki.tensor_tensor "add" %t0, %t1 into %t2 : memref<128x32768xf32, #nki.memory<sbuf>>, memref<128x32768xf32, #nki.memory<sbuf>> into memref<128x32768xbf16, #nki.memory<sbuf>>
  return
}
