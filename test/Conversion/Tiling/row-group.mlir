// nki-tile keeps row-wise kernels whole: softmax (after decomposition) runs
// as one kernel per block of 128 rows, the input is read once, the row max
// and sum stay [P,1] columns in SBUF, exp(x - max) is one activation with a
// bias, and its accumulator gives the row sums.
// RUN: nki-opt %s --nki-prepare-graph --linalg-fuse-elementwise-ops --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --nki-tile | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.
// CHECK: scf.for
// CHECK:   nki.dma %{{.*}} to %[[X:.*]] : memref<128x512xf32, strided<[512, 1], offset: ?>> to memref<128x512xf32, #nki.memory<sbuf>>
// CHECK:   nki.reduce "max" %[[X]] into %[[MAX:.*]] :
// CHECK:   nki.tensor_scalar %[[MAX]] into %[[NEG:.*]] {imm0 = -1.000000e+00 : f32, op0 = "mul"}
// CHECK:   nki.activation "exp" %[[X]] into %[[E:.*]] bias %[[NEG]] : memref<128x1xf32, #nki.memory<sbuf>> accum %[[SUM:.*]] : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK:   nki.tensor_scalar %[[E]] into %[[Y:.*]] s0 %[[SUM]] : memref<128x1xf32, #nki.memory<sbuf>> {op0 = "div"}
// CHECK:   nki.dma %[[Y]] to %{{.*}} : memref<128x512xf32, #nki.memory<sbuf>> to memref<128x512xf32, strided<[512, 1], offset: ?>>
// CHECK-NEXT: }
// CHECK-NOT: nki.dma
func.func @main(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
