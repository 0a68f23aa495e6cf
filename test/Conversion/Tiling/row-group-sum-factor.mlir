// nki-tile: a row sum of `y / n` (a mean's or variance's constant factor)
// sums y and divides the [P,1] sum once: the ACT square that computes y
// also sums it, and no pass over the row divides every element.
// RUN: nki-opt %s --nki-prepare-graph --linalg-fuse-elementwise-ops --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --nki-tile | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: nki.activation "square" %{{.*}} into %{{.*}} accum %[[SUM:.*]] : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK-NOT: memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[SUM]] into %{{.*}} {imm0 = 5.120000e+02 : f32, op0 = "div"} : memref<128x1xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.activation "rsqrt"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %ms = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x512xf32>) outs(%z : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %d = arith.divf %sq, %n : f32
    %s = arith.addf %o, %d : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %ms : tensor<256x512xf32>, tensor<256xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %v = arith.addf %m, %eps : f32
    %r = math.rsqrt %v : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  } -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
