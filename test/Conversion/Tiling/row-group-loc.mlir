// RUN: nki-opt %s --nki-tile --mlir-print-debuginfo | FileCheck %s

// A row group's kernel carries its first generic's location, not that of a
// fill it steps over: CSE shares one fill among every layernorm of an
// encoder, and the profile named them all after the first.
// CHECK-LABEL: func.func @main
// CHECK:     nki.dma {{.*}} loc(#[[SUM:loc[0-9]*]])
// CHECK:     nki.activation "identity" {{.*}} loc(#[[SUM]])
// CHECK:     nki.dma {{.*}} loc(#[[SUM]])
// CHECK:     return
// CHECK-NOT: loc("shared fill")
// CHECK:     #[[SUM]] = loc("row sum")
// CHECK-NOT: loc("shared fill")
#m2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: memref<128x64xf32>, %y: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<128xf32>) loc("shared fill")
  linalg.generic {indexing_maps = [#m2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x64xf32>) outs(%s : memref<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } loc("row sum")
  linalg.generic {indexing_maps = [#m2, #row, #m2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<128x64xf32>, memref<128xf32>) outs(%y : memref<128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.divf %a, %b : f32
    linalg.yield %t : f32
  } loc("scale")
  return
}
