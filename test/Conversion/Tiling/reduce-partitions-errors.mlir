// nki-tile: a reduction over the partition dim must combine with add, max
// or min like any other reduction.
// RUN: nki-opt %s -split-input-file --nki-tile -verify-diagnostics

#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @product(%a: memref<300x8xf32>, %c: memref<8xf32>) {
  // expected-error @+1 {{reduction body must end in add/max/min of the output}}
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<300x8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
func.func @not_into_output(%a: memref<300x8xf32>, %b: memref<300x8xf32>, %c: memref<8xf32>) {
  // expected-error @+1 {{reduction must combine into the output value}}
  linalg.generic {indexing_maps = [#in2, #in2, #col2], iterator_types = ["reduction", "parallel"]}
      ins(%a, %b : memref<300x8xf32>, memref<300x8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
