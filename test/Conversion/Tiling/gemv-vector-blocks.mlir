// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// A GEMV (one row of A) with fp32 inputs: each K block costs the PE four
// cycles a column of B (1.77 us for 1000 columns on trn2) while the vector
// engines idle, so the first K blocks go to them (Matmul.cpp vectorBlocks):
// B's rows scaled by A's element on their partition, summed in PSUM, the
// last sum written to SBUF; then the PE's own blocks, and one matmul of a
// ones column per bank adds the partitions into its accumulator. Of 10
// blocks, 6 balance the DVE's sums (1.2 us a block) against the PE's 4.
// CHECK-LABEL: func.func @gemv(
// CHECK: nki.tensor_scalar %{{.*}} into %[[S0:[^ ]*]] s0 %[[A0:[^ ]*]] : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "mul"} : memref<128x512xf32, strided<[1000, 1]>, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: nki.tensor_tensor "add" %[[S0]], %{{.*}} into %[[S0]] : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.tensor_tensor "add" %[[S0]], %{{.*}} into %[[SUM0:[^ ]*]] : {{.*}} into memref<128x512xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %{{.*}} into %[[S1:[^ ]*]] s0 %[[A0]] : {{.*}} into memref<128x488xf32, #nki.memory<psum>>
// CHECK-COUNT-4: nki.tensor_tensor "add" %[[S1]], %{{.*}} into %[[S1]]
// CHECK: nki.tensor_tensor "add" %[[S1]], %{{.*}} into %[[SUM1:[^ ]*]] : {{.*}} into memref<128x488xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.tensor_scalar
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC0:[^ ]*]] : memref<128x1xf32, #nki.memory<sbuf>>, memref<128x512xf32, strided<[1000, 1]>, #nki.memory<sbuf>> into memref<1x512xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC1:[^ ]*]] : {{.*}} into memref<1x488xf32, #nki.memory<psum>>
// CHECK-COUNT-6: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} accumulate
// CHECK: nki.memset %[[ONES:[^ ]*]], 1.000000e+00 : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[ONES]], %[[SUM0]] into %[[ACC0]] accumulate
// CHECK: nki.matmul %[[ONES]], %[[SUM1]] into %[[ACC1]] accumulate
// CHECK-NOT: nki.matmul
// CHECK: return
module {
  func.func @gemv(%a: memref<1x1280xf32>, %w: memref<1280x1000xf32>) -> memref<1x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c = memref.alloc() {alignment = 64 : i64} : memref<1x1000xf32>
    linalg.fill ins(%cst : f32) outs(%c : memref<1x1000xf32>)
    linalg.matmul ins(%a, %w : memref<1x1280xf32>, memref<1280x1000xf32>) outs(%c : memref<1x1000xf32>)
    return %c : memref<1x1000xf32>
  }
}

// -----

// With bf16 inputs a block's columns cost the PE a cycle each, less than a
// vector pass over them; with two rows of A every vector pass would be
// twice as many; with two K blocks the reduction would cost the PE as
// much as it saves. All stay on the PE.
// CHECK-LABEL: func.func @bf16(
// CHECK-NOT: nki.tensor_scalar
// CHECK-COUNT-20: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK-LABEL: func.func @two_rows(
// CHECK-NOT: nki.tensor_scalar
// CHECK-COUNT-20: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK-LABEL: func.func @two_blocks(
// CHECK-NOT: nki.tensor_scalar
// CHECK-COUNT-4: nki.matmul
// CHECK-NOT: nki.matmul
module {
  func.func @bf16(%a: memref<1x1280xbf16>, %w: memref<1280x1000xbf16>) -> memref<1x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c = memref.alloc() {alignment = 64 : i64} : memref<1x1000xf32>
    linalg.fill ins(%cst : f32) outs(%c : memref<1x1000xf32>)
    linalg.matmul ins(%a, %w : memref<1x1280xbf16>, memref<1280x1000xbf16>) outs(%c : memref<1x1000xf32>)
    return %c : memref<1x1000xf32>
  }
  func.func @two_rows(%a: memref<2x1280xf32>, %w: memref<1280x1000xf32>) -> memref<2x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c = memref.alloc() {alignment = 64 : i64} : memref<2x1000xf32>
    linalg.fill ins(%cst : f32) outs(%c : memref<2x1000xf32>)
    linalg.matmul ins(%a, %w : memref<2x1280xf32>, memref<1280x1000xf32>) outs(%c : memref<2x1000xf32>)
    return %c : memref<2x1000xf32>
  }
  func.func @two_blocks(%a: memref<1x256xf32>, %w: memref<256x1000xf32>) -> memref<1x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c = memref.alloc() {alignment = 64 : i64} : memref<1x1000xf32>
    linalg.fill ins(%cst : f32) outs(%c : memref<1x1000xf32>)
    linalg.matmul ins(%a, %w : memref<1x256xf32>, memref<256x1000xf32>) outs(%c : memref<1x1000xf32>)
    return %c : memref<1x1000xf32>
  }
}

// -----

// A global pooling's result comes a channel block at a time from the
// convolution before (here its fused sums, 16 filter blocks of 0.85 us of
// PE each): the vector engines start on the first block while the PE
// still runs the other 15 (ConvEpilogue.cpp records that tail, 12.8 us), so they
// take 14 of the 16 K blocks (10 from a common start).
// CHECK-LABEL: func.func @pooled(
// CHECK-COUNT-14: {op0 = "mul"} : memref<128x512xf32, strided<[1000, 1]>, #nki.memory<sbuf>>
// CHECK-NOT: {op0 = "mul"} : memref<128x512xf32, strided<[1000, 1]>, #nki.memory<sbuf>>
// CHECK-COUNT-14: {op0 = "mul"} : memref<128x488xf32, strided<[1000, 1], offset: 512>, #nki.memory<sbuf>>
// CHECK-NOT: {op0 = "mul"}
// CHECK-COUNT-4: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x1xf32, strided<[16, 1]{{.*}}>, #nki.memory<sbuf>>, memref<128x{{512|488}}xf32, strided<[1000, 1]{{.*}}>, #nki.memory<sbuf>> into memref<1x{{512|488}}xf32, #nki.memory<psum>>
// CHECK-COUNT-2: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} accumulate : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#pool = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
module {
  memref.global "private" constant @w : memref<512x1x1x2048xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @fc : memref<2048x1000xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @pooled(%x: memref<1x512x7x7xf32>) -> memref<1x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %n = arith.constant 4.900000e+01 : f32
    %w = memref.get_global @w : memref<512x1x1x2048xf32>
    %fc = memref.get_global @fc : memref<2048x1000xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x2048x7x7xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x2048x7x7xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x512x7x7xf32>, memref<512x1x1x2048xf32>) outs(%p : memref<1x2048x7x7xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %g = memref.alloc() {alignment = 64 : i64} : memref<1x2048xf32>
    linalg.fill ins(%cst : f32) outs(%g : memref<1x2048xf32>)
    linalg.generic {indexing_maps = [#id, #pool], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%p : memref<1x2048x7x7xf32>) outs(%g : memref<1x2048xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.maximumf %in, %cst : f32
      %1 = arith.divf %0, %n : f32
      %2 = arith.addf %o, %1 : f32
      linalg.yield %2 : f32
    }
    %c = memref.alloc() {alignment = 64 : i64} : memref<1x1000xf32>
    linalg.fill ins(%cst : f32) outs(%c : memref<1x1000xf32>)
    linalg.matmul ins(%g, %fc : memref<1x2048xf32>, memref<2048x1000xf32>) outs(%c : memref<1x1000xf32>)
    return %c : memref<1x1000xf32>
  }
}

// -----

// A 1x1 convolution of one pixel (a squeeze-and-excitation's first 1x1,
// 1152 -> 48) is a GEMV too (Conv.cpp pixelGemvBlocks): each channel
// block costs the PE 512 cycles for one column, the vector engines about a
// tenth of a microsecond for 48 filters. Six of the nine blocks are scaled
// by the pixel's value on their partition and summed (the [128, 1, 1]
// window collapsed to the [128, 1] scalar), three stay on the PE, and the
// sum's partitions go into the accumulator as the stationary operand of a
// matmul with a ones column.
// CHECK-LABEL: func.func @excite(
// CHECK: nki.tensor_scalar %{{.*}} into %[[S:[^ ]*]] s0 %{{.*}} : memref<128x1xf32, strided<[1, 1]>, #nki.memory<sbuf>> {op0 = "mul"} : memref<128x48xf32, #nki.memory<sbuf>> into memref<128x48xf32, #nki.memory<psum>>
// CHECK-COUNT-4: nki.tensor_tensor "add" %[[S]], %{{.*}} into %[[S]]
// CHECK: nki.tensor_tensor "add" %[[S]], %{{.*}} into %[[SUM:[^ ]*]] : {{.*}} into memref<128x48xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC:[^ ]*]] : memref<128x48xf32, #nki.memory<sbuf>>, memref<128x1x1xf32
// CHECK-COUNT-2: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]] accumulate : memref<128x48xf32, #nki.memory<sbuf>>, memref<128x1x1xf32
// CHECK: nki.memset %[[ONES:[^ ]*]], 1.000000e+00 : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[SUM]], %[[ONES]] into %[[ACC]] accumulate : memref<128x48xf32, #nki.memory<sbuf>>, memref<128x1xf32, #nki.memory<sbuf>> into memref<48x1xf32, #nki.memory<psum>>
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<1152x1x1x48xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @excite(%x: memref<1x1152x1x1xf32>) -> memref<1x48x1x1xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<1152x1x1x48xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x48x1x1xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x48x1x1xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1152x1x1xf32>, memref<1152x1x1x48xf32>) outs(%p : memref<1x48x1x1xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %p : memref<1x48x1x1xf32>
  }
}
