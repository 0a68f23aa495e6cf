// nki-tile: elementwise generics and reductions become loops of DMA loads,
// engine ops and DMA stores on tiles of at most 128 partitions.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// Rows on partitions (two full blocks of 128 in a loop and a peeled block
// of 44), columns in one chunk; each body op is one instruction per tile.
// The column vector keeps the dims from merging.
// CHECK-LABEL: func.func @add
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [128, 300], strides: [300, 1]
// CHECK:   nki.dma %{{.*}} to %[[A:.*]] : memref<128x300xf32, strided<[300, 1], offset: ?>> to memref<128x300xf32, #nki.memory<sbuf>>
// CHECK:   nki.dma %{{.*}} to %[[B:.*]] : memref<128x300xf32, strided<[0, 1], offset: ?>>
// CHECK:   nki.tensor_tensor "add" %[[A]], %[[B]] into %[[C:.*]] :
// CHECK:   nki.dma %[[C]] to %{{.*}} : memref<128x300xf32, #nki.memory<sbuf>> to memref<128x300xf32, strided<[300, 1], offset: ?>>
// CHECK: }
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}} : memref<44x300xf32, #nki.memory<sbuf>>
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>
func.func @add(%a: memref<300x300xf32>, %b: memref<300xf32>, %c: memref<300x300xf32>) {
  linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<300x300xf32>, memref<300xf32>) outs(%c : memref<300x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Contiguous operands merge into one dim split over the partitions:
// 300x300 is 90000 elements = 125 partitions x 720.
// CHECK-LABEL: func.func @add_merged
// CHECK-NOT: scf.for
// CHECK: nki.tensor_tensor "sub" %{{.*}}, %{{.*}} into %{{.*}} : memref<125x720xf32, #nki.memory<sbuf>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_merged(%a: memref<300x300xf32>, %b: memref<300x300xf32>, %c: memref<300x300xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<300x300xf32>, memref<300x300xf32>) outs(%c : memref<300x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Contiguous operands merge into one dim split over 128 partitions.
// CHECK-LABEL: func.func @add_flat
// CHECK-NOT: scf.for
// CHECK: sizes: [128, 64], strides: [64, 1]
// CHECK: nki.activation "exp" %{{.*}} into %{{.*}} : memref<128x64xbf16, #nki.memory<sbuf>> into memref<128x64xbf16, #nki.memory<sbuf>>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @add_flat(%a: memref<4x32x64xbf16>, %c: memref<4x32x64xbf16>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<4x32x64xbf16>) outs(%c : memref<4x32x64xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %e = math.exp %x : bf16
    linalg.yield %e : bf16
  }
  return
}

// -----

// A long contiguous elementwise op is cut into tiles that are each one
// contiguous block of HBM: [blocks, 128 partitions, free].
// CHECK-LABEL: func.func @contiguous_blocks
// CHECK: scf.for
// CHECK:   memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [128, 2048], strides: [2048, 1]
// CHECK:   nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x2048xbf16, #nki.memory<sbuf>>
#flat = affine_map<(d0, d1) -> (d0, d1)>
func.func @contiguous_blocks(%a: memref<1024x1024xbf16>, %b: memref<1024x1024xbf16>, %c: memref<1024x1024xbf16>) {
  linalg.generic {indexing_maps = [#flat, #flat, #flat], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1024x1024xbf16>, memref<1024x1024xbf16>) outs(%c : memref<1024x1024xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %s = arith.addf %x, %y : bf16
    linalg.yield %s : bf16
  }
  return
}

// -----

// A row vector broadcast over rows is read with partition stride 0; a
// column vector becomes a per-partition scalar operand; constants are
// immediates.
// CHECK-LABEL: func.func @broadcast
// CHECK-DAG: memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [16, 1], strides: [1, 1]
// CHECK-DAG: memref.reinterpret_cast %arg2 to offset: [%{{.*}}], sizes: [16, 8], strides: [0, 1]
// CHECK: nki.tensor_scalar %{{.*}} into %{{.*}} s0 %{{.*}} : memref<16x1xf32, #nki.memory<sbuf>> {op0 = "sub"}
// CHECK: nki.tensor_tensor "mul"
// CHECK: nki.tensor_scalar %{{.*}} into %{{.*}} {imm0 = 2.000000e+00 : f32, op0 = "max"}
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @broadcast(%x: memref<16x8xf32>, %r: memref<16xf32>, %c: memref<8xf32>, %o: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [#m2, #row, #col, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r, %c : memref<16x8xf32>, memref<16xf32>, memref<8xf32>) outs(%o : memref<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    %m = arith.mulf %s, %d : f32
    %two = arith.constant 2.0 : f32
    %y = arith.maximumf %m, %two : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A row reduction: the output's initial value is loaded as a [P,1] column,
// each column chunk is reduced on the DVE and combined into it.
// CHECK-LABEL: func.func @row_sum
// CHECK: nki.dma %{{.*}} to %[[ACC:.*]] : memref<100x1xf32, strided<[1, 1], offset: ?>> to memref<100x1xf32, #nki.memory<sbuf>>
// CHECK: scf.for
// CHECK:   nki.reduce "add" %{{.*}} into %[[PART:.*]] : memref<100x2048xf32, #nki.memory<sbuf>> into memref<100x1xf32, #nki.memory<sbuf>>
// CHECK:   nki.tensor_tensor "add" %[[ACC]], %[[PART]] into %[[ACC]]
// CHECK: nki.reduce "add" %{{.*}} into %{{.*}} : memref<100x1808xf32, #nki.memory<sbuf>>
// CHECK: nki.dma %[[ACC]] to %{{.*}} : memref<100x1xf32, #nki.memory<sbuf>> to memref<100x1xf32, strided<[1, 1], offset: ?>>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: memref<100x10000xf32>, %o: memref<100xf32>) {
  linalg.generic {indexing_maps = [#m2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<100x10000xf32>) outs(%o : memref<100xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// memref.copy between HBM buffers is a DMA that never goes through SBUF.
// CHECK-LABEL: func.func @copy
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[OFF:.*]] = arith.addi %[[C16]], %{{.*}} : index
// CHECK: %[[SRC:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%[[OFF]]], sizes: [4, 16], strides: [32, 1]
// CHECK: %[[DST:.*]] = memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [4, 16], strides: [16, 1]
// CHECK: nki.dma %[[SRC]] to %[[DST]] : memref<4x16xf32, strided<[32, 1], offset: ?>> to memref<4x16xf32, strided<[16, 1], offset: ?>>
// CHECK-NOT: memref.copy
func.func @copy(%a: memref<4x32xf32>, %b: memref<4x16xf32>) {
  %s = memref.subview %a[0, 16] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1], offset: 16>>
  memref.copy %s, %b : memref<4x16xf32, strided<[32, 1], offset: 16>> to memref<4x16xf32>
  return
}

// -----

// Every result becomes its own output buffer: an argument, a constant and
// a repeated result are copied (HBM to HBM) into fresh allocations.
// CHECK-LABEL: func.func @results
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>
memref.global "private" constant @w : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>
func.func @results(%x: memref<2x2xf32>) -> (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) {
  %w = memref.get_global @w : memref<2x2xf32>
  %a = memref.alloc() : memref<2x2xf32>
  memref.copy %x, %a : memref<2x2xf32> to memref<2x2xf32>
  return %x, %w, %a, %a : memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>
}

// -----

// Rank 0 runs on one partition; an empty tensor needs no instruction.
// CHECK-LABEL: func.func @scalar_and_empty
// CHECK: nki.tensor_tensor "mul" %{{.*}}, %{{.*}} into %{{.*}} : memref<1x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.tensor_tensor
// CHECK: return
func.func @scalar_and_empty(%a: memref<f32>, %o: memref<f32>, %e: memref<0x4xf32>, %f: memref<0x4xf32>) {
  linalg.mul ins(%a, %a : memref<f32>, memref<f32>) outs(%o : memref<f32>)
  linalg.add ins(%e, %e : memref<0x4xf32>, memref<0x4xf32>) outs(%f : memref<0x4xf32>)
  return
}

// -----

// A transpose runs on the PE in 128x128 blocks: contiguous loads of the
// input's rows, nki.transpose into PSUM, contiguous stores.
// CHECK-LABEL: func.func @transpose
// CHECK: nki.dma %{{.*}} to %[[IN:.*]] : memref<128x128xf32, strided<[300, 1], offset: ?>> to memref<128x128xf32, #nki.memory<sbuf>>
// CHECK: nki.transpose %[[IN]] into %[[T:.*]] : memref<128x128xf32, #nki.memory<sbuf>> into memref<128x128xf32, #nki.memory<psum>>
// CHECK: nki.copy %[[T]] into %[[OUT:.*]] :
// CHECK: nki.dma %[[OUT]] to %{{.*}} : memref<128x128xf32, #nki.memory<sbuf>> to memref<128x128xf32, strided<[200, 1], offset: ?>>
func.func @transpose(%x: memref<200x300xf32>, %y: memref<300x200xf32>) {
  linalg.transpose ins(%x : memref<200x300xf32>) outs(%y : memref<300x200xf32>) permutation = [1, 0]
  return
}

// -----

// A batch of one does not go on the partitions: the size-1 dim is dropped
// (it kept the residual add of a [1, 512, 768] activation and a [512, 768]
// matmul result from merging, one partition per instruction), and the
// merged rows are split into [blocks, 128 partitions, free].
// CHECK-LABEL: func.func @unit_batch
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<128x1536xf32, strided<[1536, 1], offset: ?>> to memref<128x1536xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x1536xf32, #nki.memory<sbuf>>
// CHECK-NOT: memref<1x{{[0-9]+}}xf32, #nki.memory<sbuf>>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @unit_batch(%x: memref<1x512x768xf32>, %y: memref<512x768xf32>, %o: memref<1x512x768xf32>) {
  linalg.generic {indexing_maps = [#id3, #rows, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : memref<1x512x768xf32>, memref<512x768xf32>) outs(%o : memref<1x512x768xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Few rows of a long last dim ([4 heads, 512 x 64], a rotary embedding's
// cos broadcast over the heads): the last dim is split onto the
// partitions instead of putting the 4 heads there.
// CHECK-LABEL: func.func @few_rows
// CHECK: nki.tensor_tensor "mul" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x256xf32, #nki.memory<sbuf>>
// CHECK-NOT: memref<4x{{[0-9]+}}xf32, #nki.memory<sbuf>>
#heads = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#table = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @few_rows(%x: memref<4x512x64xf32>, %cos: memref<512x64xf32>, %o: memref<4x512x64xf32>) {
  linalg.generic {indexing_maps = [#heads, #table, #heads], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %cos : memref<4x512x64xf32>, memref<512x64xf32>) outs(%o : memref<4x512x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A last dim of exactly one partition block stays on the free axis: split
// onto the partitions it would leave one element a partition, and the rows
// in loops of one instruction each. A transformer encoder's residual add
// over [8 images, 80 steps, 128 features], one operand a transposed view
// (the CNN's features): 640 DMAs and adds of [128, 1] (the OCR recogniser
// at batch 8 under auto-cast: 1,266.6 us, 930 of them in two such adds and
// a transpose), now eight of [80, 128].
// CHECK-LABEL: func.func @row_of_128
// CHECK-NOT: memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %{{.*}} : memref<80x128xf32, #nki.memory<sbuf>>
#nsd = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#nds = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
func.func @row_of_128(%x: memref<8x128x80xf32>, %y: memref<8x80x128xf32>, %o: memref<8x80x128xf32>) {
  linalg.generic {indexing_maps = [#nds, #nsd, #nsd], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : memref<8x128x80xf32>, memref<8x80x128xf32>) outs(%o : memref<8x80x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A narrowing of an f32 value only it reads: the instruction that computes
// the value stores it in the cast's type (the store rounds), no copy. A
// value read twice keeps its f32 tile and the cast is a copy; a widening
// after a narrowing is a copy (the rounding stays).
// CHECK-LABEL: func.func @cast_in_store
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[S:.*]] : memref<128x64xf32, #nki.memory<sbuf>>, memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK-NOT: nki.copy
// CHECK: nki.dma %[[S]] to
// CHECK-LABEL: func.func @cast_of_shared
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[S:.*]] : {{.*}} into memref<128x64xf32, #nki.memory<sbuf>>
// CHECK: nki.copy %[[S]] into %{{.*}} : memref<128x64xf32, #nki.memory<sbuf>> into memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK-LABEL: func.func @round_trip
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[R:.*]] : {{.*}} into memref<128x64xbf16, #nki.memory<sbuf>>
// CHECK: nki.copy %[[R]] into %[[W:.*]] : memref<128x64xbf16, #nki.memory<sbuf>> into memref<128x64xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "square" %[[W]] into %{{.*}} : {{.*}} into memref<128x64xbf16, #nki.memory<sbuf>>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @cast_in_store(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xbf16>) {
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}
func.func @cast_of_shared(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xbf16>) {
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to bf16
    %u = arith.extf %t : bf16 to f32
    %v = arith.mulf %u, %s : f32
    %w = arith.truncf %v : f32 to bf16
    linalg.yield %w : bf16
  }
  return
}
func.func @round_trip(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xbf16>) {
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to bf16
    %u = arith.extf %t : bf16 to f32
    %v = arith.mulf %u, %u : f32
    %w = arith.truncf %v : f32 to bf16
    linalg.yield %w : bf16
  }
  return
}

// -----

// Reduced dims that do not merge (the divisor is broadcast along the last):
// the longer (64) stays on the free axis, the other (7) is a loop whose
// iterations each combine their partial sum with the output the one
// before stored (found by the compile fuzzer, which was refused with
// "reductions over non-contiguous dims are not supported").
// CHECK-LABEL: func.func @sum_over_broadcast(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c7
// CHECK: nki.dma %{{.*}} to %[[ACC:.*]] : memref<2x1xf32, strided<[1, 1], offset: ?>> to memref<2x1xf32, #nki.memory<sbuf>>
// CHECK: memref.reinterpret_cast %arg0 {{.*}} sizes: [2, 64], strides: [448, 7]
// CHECK: nki.tensor_tensor "div"
// CHECK: nki.reduce "add" %{{.*}} into %[[P:.*]] : memref<2x64xf32, #nki.memory<sbuf>> into memref<2x1xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %[[ACC]], %[[P]] into %[[ACC]]
// CHECK: nki.dma %[[ACC]] to
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#out = affine_map<(d0, d1, d2) -> (d0)>
func.func @sum_over_broadcast(%x: memref<2x64x7xf32>, %s: memref<2x64xf32>, %y: memref<2xf32>) {
  linalg.generic {indexing_maps = [#in, #row, #out], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x, %s : memref<2x64x7xf32>, memref<2x64xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %q = arith.divf %a, %b : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row mean, sum(x / 10000): each chunk's reduce sums x and its [P,1] sum
// is divided once before joining the others (no pass divides every
// element).
// CHECK-LABEL: func.func @row_mean
// CHECK-NOT: op0 = "div"} : memref<100x2048xf32
// CHECK: scf.for
// CHECK:   nki.reduce "add" %{{.*}} into %[[PART:[^ ]*]] : memref<100x2048xf32, #nki.memory<sbuf>> into memref<100x1xf32, #nki.memory<sbuf>>
// CHECK:   nki.tensor_scalar %[[PART]] into %[[SCALED:[^ ]*]] {imm0 = 1.000000e+04 : f32, op0 = "div"}
// CHECK:   nki.tensor_tensor "add" %{{.*}}, %[[SCALED]] into
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_mean(%x: memref<100x10000xf32>, %o: memref<100xf32>) {
  %n = arith.constant 1.0e4 : f32
  linalg.generic {indexing_maps = [#m2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<100x10000xf32>) outs(%o : memref<100xf32>) {
  ^bb0(%a: f32, %out: f32):
    %d = arith.divf %a, %n : f32
    %s = arith.addf %d, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same for a bf16 summand: the chunk's sum (fp32) is divided once,
// by the body's constant (10000 in bf16 is 9984).
// CHECK-LABEL: func.func @row_mean_bf16
// CHECK-NOT: op0 = "div"} : memref<100x2048xbf16
// CHECK: scf.for
// CHECK:   nki.tensor_scalar %{{.*}} into %{{.*}} {imm0 = 9.984000e+03 : f32, op0 = "div"} : memref<100x1xf32
#m2b = affine_map<(d0, d1) -> (d0, d1)>
#rowb = affine_map<(d0, d1) -> (d0)>
func.func @row_mean_bf16(%x: memref<100x10000xbf16>, %o: memref<100xbf16>) {
  %n = arith.constant 1.0e4 : bf16
  linalg.generic {indexing_maps = [#m2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<100x10000xbf16>) outs(%o : memref<100xbf16>) {
  ^bb0(%a: bf16, %out: bf16):
    %d = arith.divf %a, %n : bf16
    %s = arith.addf %d, %out : bf16
    linalg.yield %s : bf16
  }
  return
}
