// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// A convolution's chunks go in groups of four that share each tap's
// LoadStationary, all of a group done at its end. The kernel's last group
// goes a chunk at a time when its result leaves by more than an evacuation
// in place (here a DMA to HBM) and the LoadStationary operations it no
// longer shares take less than a DMA's latency (three more of 256 cycles
// in fp32: 0.3 us on trn2), so that its chunks' stores overlap its last
// matmuls. Only at batch 1.
// CHECK-LABEL: func.func @to_hbm(
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NOT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NOT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NOT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NOT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK: {op0 = "max"}
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @to_hbm(%x: memref<1x128x64x64xf32>, %y: memref<1x128x64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x1x1x128xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x128x64x64xf32>, memref<128x1x1x128xf32>) outs(%p : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x128x64x64xf32>) outs(%y : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.maximumf %in, %cst : f32
      linalg.yield %0 : f32
    }
    return
  }
}

// -----

// Two images: the next kernel starts on the first image while this one
// finishes the second; the groups stay whole.
// CHECK-LABEL: func.func @two_images(
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @two_images(%x: memref<2x128x64x64xf32>, %y: memref<2x128x64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x1x1x128xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<2x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<2x128x64x64xf32>, memref<128x1x1x128xf32>) outs(%p : memref<2x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<2x128x64x64xf32>) outs(%y : memref<2x128x64x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.maximumf %in, %cst : f32
      linalg.yield %0 : f32
    }
    return
  }
}

// -----

// A 3x3 convolution with 64 fp32 channels: nine taps a chunk, 27 more
// LoadStationary operations (2.9 us) than a DMA's latency; whole groups.
// CHECK-LABEL: func.func @many_taps(
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK-NOT: nki.matmul
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x3x3x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @many_taps(%x: memref<1x128x66x66xf32>, %y: memref<1x128x64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x3x3x128xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x128x66x66xf32>, memref<128x3x3x128xf32>) outs(%p : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x128x64x64xf32>) outs(%y : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.maximumf %in, %cst : f32
      linalg.yield %0 : f32
    }
    return
  }
}

// -----

// An fp32 result evacuated in place into SBUF (the second convolution
// reads it there) keeps its groups: the fp32 PE is the busy engine and the
// evacuation the only wait. (The second, nine taps, keeps them too.)
// CHECK-LABEL: func.func @in_place(
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x512xf32, #nki.memory<psum>>
// CHECK-COUNT-4: {op0 = "max"}
// CHECK: nki.alloc : memref<128x{{[0-9]+}}xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x{{[0-9]+}}xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x{{[0-9]+}}xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc : memref<128x{{[0-9]+}}xf32, #nki.memory<psum>>
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<128x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @w3 : memref<128x3x3x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @in_place(%x: memref<1x128x64x64xf32>) -> memref<1x128x62x62xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<128x1x1x128xf32>
    %w3 = memref.get_global @w3 : memref<128x3x3x128xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x128x64x64xf32>, memref<128x1x1x128xf32>) outs(%p : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    %r = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : memref<1x128x64x64xf32>) outs(%r : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.maximumf %in, %cst : f32
      linalg.yield %0 : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x128x62x62xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x128x62x62xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%r, %w3 : memref<1x128x64x64xf32>, memref<128x3x3x128xf32>) outs(%y : memref<1x128x62x62xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    return %y : memref<1x128x62x62xf32>
  }
}
