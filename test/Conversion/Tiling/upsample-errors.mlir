// The upsample kernel's diagnostics (lib/Conversion/Tiling/Upsample.cpp).
// RUN: nki-opt %s -split-input-file --nki-tile -verify-diagnostics

#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @columns(%arg0: memref<1x16x4x4xf32>) -> memref<1x16x8x16xf32> {
  %out = memref.alloc() : memref<1x16x8x16xf32>
  %every2 = memref.subview %out[0, 0, 0, 0] [1, 16, 8, 8] [1, 1, 1, 2] : memref<1x16x8x16xf32> to memref<1x16x8x8xf32, strided<[2048, 128, 16, 2]>>
  // expected-error @+1 {{upsample output rows must be contiguous}}
  linalg.generic {indexing_maps = [#up, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x16x4x4xf32>) outs(%every2 : memref<1x16x8x8xf32, strided<[2048, 128, 16, 2]>>) {
  ^bb0(%in: f32, %out_0: f32):
    linalg.yield %in : f32
  }
  return %out : memref<1x16x8x16xf32>
}

// -----

#phase = affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @phase_columns(%s: memref<4x1x16x4x8xf32>) -> memref<1x16x8x8xf32> {
  %out = memref.alloc() : memref<1x16x8x8xf32>
  %every2 = memref.subview %s[0, 0, 0, 0, 0] [4, 1, 16, 4, 4] [1, 1, 1, 1, 2] : memref<4x1x16x4x8xf32> to memref<4x1x16x4x4xf32, strided<[512, 512, 32, 8, 2]>>
  // expected-error @+1 {{interleaved phases must be row-major}}
  linalg.generic {indexing_maps = [#phase, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%every2 : memref<4x1x16x4x4xf32, strided<[512, 512, 32, 8, 2]>>) outs(%out : memref<1x16x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return %out : memref<1x16x8x8xf32>
}
