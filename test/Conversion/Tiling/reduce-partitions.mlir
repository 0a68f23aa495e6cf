// nki-tile: reductions over the dim that lies on the partitions (column
// sums, reductions over every dim) run on the PE with contiguous row loads.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s

// A column sum: a ones column [k, 1] is the stationary operand, each
// [k, 300] row block the moving one; the blocks accumulate in one PSUM row
// (start on the first), which is added to the output's initial value.
// CHECK-LABEL: func.func @colsum
// CHECK: %[[ONES:.*]] = nki.alloc : memref<128x1xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %[[ONES]], 1.000000e+00
// CHECK: %[[ACC:.*]] = nki.alloc : memref<1x300xf32, #nki.memory<psum>>
// CHECK: nki.dma %{{.*}} to %[[X0:.*]] : memref<128x300xf32, strided<[300, 1], offset: ?>> to memref<128x300xf32, #nki.memory<sbuf>>
// CHECK: nki.matmul %[[ONES]], %[[X0]] into %[[ACC]] :
// CHECK: nki.dma %{{.*}} to %[[X1:.*]] : memref<128x300xf32, strided<[300, 1], offset: ?>>
// CHECK: nki.matmul %[[ONES]], %[[X1]] into %[[ACC]] accumulate :
// CHECK: %[[K:.*]] = memref.subview %[[ONES]][0, 0] [44, 1] [1, 1]
// CHECK: nki.matmul %[[K]], %{{.*}} into %[[ACC]] accumulate : memref<44x1xf32, {{.*}}>, memref<44x300xf32, #nki.memory<sbuf>> into memref<1x300xf32, #nki.memory<psum>>
// CHECK: nki.dma %{{.*}} to %[[INIT:.*]] : memref<1x300xf32, strided<[1, 1], offset: ?>> to memref<1x300xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "add" %[[INIT]], %[[ACC]] into %[[RES:.*]] :
// CHECK: nki.dma %[[RES]] to %{{.*}} : memref<1x300xf32, #nki.memory<sbuf>> to memref<1x300xf32, strided<[1, 1], offset: ?>>
// CHECK-NOT: nki.reduce
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @colsum(%a: memref<300x300xf32>, %c: memref<300xf32>) {
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<300x300xf32>) outs(%c : memref<300xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The mean of every element as sum(x / n): the one merged dim becomes
// [129, 7] (rows on the partitions), the PE sums the rows into [1, 7], the
// DVE sums those, and the division by n is applied once, to the sum.
// CHECK-LABEL: func.func @mean_all
// CHECK: nki.memset %[[ONES:.*]], 1.000000e+00 : memref<128x1xf32
// CHECK: nki.matmul %[[ONES]], %{{.*}} into %[[ACC:.*]] : memref<128x1xf32, #nki.memory<sbuf>>, memref<128x7xf32, #nki.memory<sbuf>> into memref<1x7xf32, #nki.memory<psum>>
// CHECK: nki.matmul %{{.*}}, %{{.*}} into %[[ACC]] accumulate : memref<1x1xf32, {{.*}}>, memref<1x7xf32, #nki.memory<sbuf>> into memref<1x7xf32, #nki.memory<psum>>
// CHECK: nki.reduce "add" %[[ACC]] into %[[SUM:.*]] : memref<1x7xf32, #nki.memory<psum>> into memref<1x1xf32, #nki.memory<sbuf>>
// CHECK: nki.tensor_scalar %[[SUM]] into %{{.*}} {imm0 = 9.030000e+02 : f32, op0 = "div"}
// CHECK-NOT: arith.divf
#all = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @mean_all(%a: memref<129x7xf32>, %c: memref<f32>) {
  linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<129x7xf32>) outs(%c : memref<f32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.constant 903.0 : f32
    %d = arith.divf %x, %n : f32
    %s = arith.addf %d, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column max: each [k, 128] block is transposed on the PE (the reduced
// dim lands on the free axis of PSUM), reduced there by the DVE, and the
// partial columns are combined.
// CHECK-LABEL: func.func @colmax
// CHECK: nki.transpose %{{.*}} into %[[T0:.*]] : memref<128x100xbf16, #nki.memory<sbuf>> into memref<100x128xf32, #nki.memory<psum>>
// CHECK: nki.reduce "max" %[[T0]] into %[[ACC:.*]] : memref<100x128xf32, #nki.memory<psum>> into memref<100x1xf32, #nki.memory<sbuf>>
// CHECK: nki.transpose %{{.*}} into %[[T1:.*]] : memref<72x100xbf16, #nki.memory<sbuf>> into memref<100x72xf32, #nki.memory<psum>>
// CHECK: nki.reduce "max" %[[T1]] into %[[P:.*]] :
// CHECK: nki.tensor_tensor "max" %[[ACC]], %[[P]] into %[[ACC]]
// CHECK: nki.tensor_tensor "max" %{{.*}}, %[[ACC]] into %{{.*}} : memref<100x1xbf16, #nki.memory<sbuf>>, memref<100x1xf32, #nki.memory<sbuf>> into memref<100x1xbf16, #nki.memory<sbuf>>
#in3 = affine_map<(d0, d1) -> (d0, d1)>
#col3 = affine_map<(d0, d1) -> (d1)>
func.func @colmax(%a: memref<200x100xbf16>, %c: memref<100xbf16>) {
  linalg.generic {indexing_maps = [#in3, #col3], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<200x100xbf16>) outs(%c : memref<100xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %s = arith.maximumf %x, %o : bf16
    linalg.yield %s : bf16
  }
  return
}

// -----

// Reductions that stay on the free axis: the reduced dim is the contiguous
// one (a sum over the rows of a transposed view), or the values are
// integers, which the PE does not take.
// CHECK-LABEL: func.func @not_on_the_pe
// CHECK-NOT: nki.matmul
// CHECK: nki.reduce "add"
// CHECK-NOT: nki.matmul
// CHECK: nki.reduce "add"
// CHECK-NOT: nki.matmul
#tin = affine_map<(d0, d1) -> (d1, d0)>
#tcol = affine_map<(d0, d1) -> (d1)>
#iin = affine_map<(d0, d1) -> (d0, d1)>
#icol = affine_map<(d0, d1) -> (d1)>
func.func @not_on_the_pe(%a: memref<64x32xf32>, %c: memref<64xf32>, %i: memref<32x64xi32>, %d: memref<64xi32>) {
  linalg.generic {indexing_maps = [#tin, #tcol], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#iin, #icol], iterator_types = ["reduction", "parallel"]}
      ins(%i : memref<32x64xi32>) outs(%d : memref<64xi32>) {
  ^bb0(%x: i32, %o: i32):
    %s = arith.addi %x, %o : i32
    linalg.yield %s : i32
  }
  return
}
