// A convolution's epilogue relu((acc + b) + r), b a per-channel shift (a
// folded batch norm), r a residual (a ResNet block's end): the residual is
// added to the PSUM accumulator first (one DVE pass with one PSUM input)
// and the shift becomes the ReLU's bias (one ACT pass), instead of an ACT
// pass for the shift, an add of two SBUF tiles and the ReLU.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// (Sixteen channels: eight bands of rows side by side on the partitions.)
// CHECK-LABEL: func.func @residual_relu(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK: %[[RES:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-COUNT-8: nki.dma %{{.*}} to %{{.*}} : memref<16x8xf32, strided<[64, 1], offset: ?>> to memref<16x8xf32, strided<[8, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK-NOT: nki.activation
// CHECK: nki.tensor_tensor "add" %[[ACC]], %[[RES]] into %[[SUM:[^ ]*]] : memref<128x8xf32, #nki.memory<psum>>, memref<128x8xf32, #nki.memory<sbuf>>
// CHECK-NEXT: %[[OUT:.*]] = nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[SUM]] into %[[OUT]] bias %{{.*}} :
// CHECK-NOT: nki.tensor_
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<16x8xf32
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @residual_relu(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%p : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      %2 = arith.maximumf %1, %cst : f32
      linalg.yield %2 : f32
    }
    return
  }
}

// -----

// Without a ReLU nothing would absorb the shift after the add: the shift
// is applied on the way out of PSUM (the scheduler may run it on the ACT)
// and the residual added in SBUF, where the POOL may take that add (a
// PSUM input is the DVE's alone; MobileNetV2's projections at batch 8
// under auto-cast, DVE-bound, ran 794.2 -> 805.1 us reassociated).
// CHECK-LABEL: func.func @residual_only(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_scalar %[[ACC]] into %[[T:[^ ]*]] s0 %{{.*}} {op0 = "add"} : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.tensor_tensor "add" %[[T]], %{{.*}} : memref<128x8xf32, #nki.memory<sbuf>>, memref<128x8xf32, #nki.memory<sbuf>>
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @residual_only(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%p : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      linalg.yield %1 : f32
    }
    return
  }
}

// -----

// A projection shortcut: both sums carry a batch norm's shift,
// relu((acc + b) + (r + d)): the tensors are added (the accumulator in
// PSUM) and the ReLU takes b + d as its bias (a [P, 1] add).
// CHECK-LABEL: func.func @projection_relu(
// CHECK: %[[ACC:.*]] = nki.alloc : memref<128x8xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK-NOT: nki.activation
// CHECK-NOT: nki.tensor_scalar
// CHECK: nki.tensor_tensor "add" %[[ACC]], %{{.*}} into %[[SUM:[^ ]*]] : memref<128x8xf32, #nki.memory<psum>>, memref<128x8xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[BIAS:[^ ]*]] : memref<128x1xf32, #nki.memory<sbuf>>, memref<128x1xf32, #nki.memory<sbuf>>
// CHECK-NEXT: %[[OUT:.*]] = nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[SUM]] into %[[OUT]] bias %[[BIAS]] :
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<8x1x1x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<16x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  memref.global "private" constant @d : memref<16x1x1xf32> = dense<2.500000e-01> {alignment = 64 : i64}
  func.func @projection_relu(%x: memref<1x8x8x8xf32>, %r: memref<1x16x8x8xf32>, %y: memref<1x16x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<8x1x1x16xf32>
    %b = memref.get_global @b : memref<16x1x1xf32>
    %d = memref.get_global @d : memref<16x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x1x16xf32>) outs(%p : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r, %d : memref<1x16x8x8xf32>, memref<16x1x1xf32>, memref<1x16x8x8xf32>, memref<16x1x1xf32>) outs(%y : memref<1x16x8x8xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %di: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %re, %di : f32
      %2 = arith.addf %1, %0 : f32
      %3 = arith.maximumf %2, %cst : f32
      linalg.yield %3 : f32
    }
    return
  }
}

// -----

// Matmuls faster than the evacuations (a 64-channel 1x1 in bf16, ResNet-50's
// conv3 under auto-cast: 0.22 us of PE, 0.60 of DVE and 0.48 of ACT a
// chunk): the chunks share the engines by their loads, the DVE's add from
// PSUM for most, the written order for every fourth (an ACT or DVE pass out
// of PSUM, then an add and a ReLU in SBUF that the POOL can take).
// CHECK-LABEL: func.func @evacuation_bound(
// CHECK-COUNT-4: nki.matmul
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[S0:[^ ]*]] : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[S0]] into %{{.*}} bias
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} into %[[S1:[^ ]*]] : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.activation "relu" %[[S1]] into %{{.*}} bias
// CHECK: nki.tensor_scalar %{{.*}} into %[[T:[^ ]*]] s0 %{{.*}} {op0 = "add"} : memref<128x512xf32, #nki.memory<psum>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.tensor_tensor "add" %[[T]], %{{.*}} into %[[U:[^ ]*]] : memref<128x512xf32, #nki.memory<sbuf>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK-NEXT: nki.alloc
// CHECK-NEXT: nki.tensor_scalar %[[U]] into %{{.*}} {op0 = "max"}
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// The last group (the result goes to HBM) goes a chunk at a time, each
// chunk's matmul then its evacuation.
// CHECK: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_scalar %{{.*}} {op0 = "add"} : memref<128x512xf32, #nki.memory<psum>>
// CHECK: nki.matmul
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "add" %{{.*}}, %{{.*}} : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.tensor_scalar {{.*}} {op0 = "add"} : memref<128x512xf32, #nki.memory<psum>>
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<64x1x1x128xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<128x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @evacuation_bound(%x: memref<1x64x64x64xbf16>, %r: memref<1x128x64x64xf32>, %y: memref<1x128x64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<64x1x1x128xbf16>
    %b = memref.get_global @b : memref<128x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x64x64x64xbf16>, memref<64x1x1x128xbf16>) outs(%p : memref<1x128x64x64xf32>) {
    ^bb0(%in: bf16, %in_1: bf16, %o: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_1 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %o, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x128x64x64xf32>, memref<128x1x1xf32>, memref<1x128x64x64xf32>) outs(%y : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      %2 = arith.maximumf %1, %cst : f32
      linalg.yield %2 : f32
    }
    return
  }
}

// -----

// The same layer in f32: the PE's column costs four cycles, the matmuls
// take longer than any evacuation and every chunk keeps the DVE's add.
// CHECK-LABEL: func.func @pe_bound(
// CHECK-NOT: nki.tensor_scalar {{.*}} {op0 = "add"}
// CHECK-COUNT-8: nki.tensor_tensor "add" %{{.*}}, %{{.*}} : memref<128x512xf32, #nki.memory<psum>>, memref<128x512xf32, #nki.memory<sbuf>>
// CHECK-NOT: nki.tensor_scalar {{.*}} {op0 = "add"}
// CHECK: return
#conv = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#filt = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  memref.global "private" constant @w : memref<64x1x1x128xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @b : memref<128x1x1xf32> = dense<-1.000000e+00> {alignment = 64 : i64}
  func.func @pe_bound(%x: memref<1x64x64x64xf32>, %r: memref<1x128x64x64xf32>, %y: memref<1x128x64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<64x1x1x128xf32>
    %b = memref.get_global @b : memref<128x1x1xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x128x64x64xf32>
    linalg.fill ins(%cst : f32) outs(%p : memref<1x128x64x64xf32>)
    linalg.generic {indexing_maps = [#conv, #filt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x64x64x64xf32>, memref<64x1x1x128xf32>) outs(%p : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %o: f32):
      %0 = arith.mulf %in, %in_1 : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %b, %r : memref<1x128x64x64xf32>, memref<128x1x1xf32>, memref<1x128x64x64xf32>) outs(%y : memref<1x128x64x64xf32>) {
    ^bb0(%in: f32, %bi: f32, %re: f32, %o: f32):
      %0 = arith.addf %in, %bi : f32
      %1 = arith.addf %0, %re : f32
      %2 = arith.maximumf %1, %cst : f32
      linalg.yield %2 : f32
    }
    return
  }
}
