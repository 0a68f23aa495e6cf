// nki-tile folds kernel columns into the contraction beside the kernel rows
// when a convolution has few fp32 input channels (lib/Conversion/Tiling/
// ConvBands.cpp, chooseBands): partition block kwi of a band holds the folded
// input rows shifted by kwi columns, so that one matmul contracts several
// kernel columns.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile=fold-columns=false | FileCheck %s --check-prefix=OFF

// A ResNet-like stem: 3 channels, 7x7, stride 2, 64 filters, 48x48
// outputs. Three kernel columns of the 21 folded (kh, c) rows make 63
// partitions a band, two bands 126 (128 filters): a row of 7 taps is 3
// matmuls (columns 0-2, 3-5 and 6 with a zero filter for the missing 7
// and 8) instead of 7. The filter tile [63, 3 x 64] is zeroed, then one
// DMA per tap puts w[:, kh, kw, :] at partitions (kw % 3 * 7 + kh) * 3
// and columns kw / 3 * 64; each band's input rows go to the three column
// groups shifted by 0, 1 and 2 columns (101, 100 and 99 loaded), the last
// two columns of every partition set first.
// CHECK-LABEL: func.func @main(
// CHECK: %[[F:.*]] = nki.alloc : memref<63x192xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %[[F]], 0.000000e+00 : memref<63x192xf32, #nki.memory<sbuf>>
// CHECK-COUNT-49: nki.dma %{{.*}} to %{{.*}} : memref<3x64xf32, strided<[3136, 1], offset: ?>> to memref<3x64xf32, strided<[192, 1]{{.*}}>, #nki.memory<sbuf>>
// CHECK: nki.alloc : memref<126x384xf32, #nki.memory<sbuf>>
// CHECK: %[[IN:.*]] = nki.alloc : memref<126x24x101xf32, #nki.memory<sbuf>>
// CHECK: nki.memset %{{.*}}, 0.000000e+00 : memref<126x24x2xf32, strided<[2424, 101, 1], offset: 99>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<3x{{[0-9]+}}x101xf32
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<3x{{[0-9]+}}x100xf32
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<3x{{[0-9]+}}x99xf32
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}}{{( accumulate)?}} : memref<126x128xf32, strided<[384, 1]{{(, offset: 128|, offset: 256)?}}>, #nki.memory<sbuf>>, memref<126x{{[0-9]+}}x48xf32, strided<[2424, 101, 2]{{(, offset: [0-9]+)?}}>
// CHECK-NOT: nki.matmul
// OFF-LABEL: func.func @main(
// OFF-NOT: memref<63x192xf32
// OFF-COUNT-21: nki.matmul %{{.*}}, %{{.*}} into %{{.*}}{{( accumulate)?}} : memref<42x128xf32
// OFF-NOT: nki.matmul
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<3x7x7x64xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x3x101x101xf32>) -> memref<1x64x48x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %w = memref.get_global @w : memref<3x7x7x64xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x48x48xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x48x48xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x3x101x101xf32>, memref<3x7x7x64xf32>) outs(%y : memref<1x64x48x48xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x64x48x48xf32>
  }
}

// -----

// The same stem under a -inf padding (absorbed: the fill and the copy into
// its middle): a last group of fewer kernel columns would multiply the
// shifted copies' padded tail by a zero filter row, -inf x 0 = NaN, so the
// columns do not fold (rows only: 21 partitions a band, two bands).
// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref<126x128xf32
// CHECK: nki.matmul {{.*}} : memref<42x128xf32
// OFF-LABEL: func.func @main(
// OFF: nki.matmul {{.*}} : memref<42x128xf32
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<3x7x7x64xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @main(%arg0: memref<1x3x95x95xf32>) -> memref<1x64x48x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<3x7x7x64xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x3x101x101xf32>
    linalg.map outs(%p : memref<1x3x101x101xf32>)
      (%init: f32) {
        linalg.yield %ninf : f32
      }
    %sv = memref.subview %p[0, 0, 3, 3] [1, 3, 95, 95] [1, 1, 1, 1] : memref<1x3x101x101xf32> to memref<1x3x95x95xf32, strided<[30603, 10201, 101, 1], offset: 306>>
    memref.copy %arg0, %sv : memref<1x3x95x95xf32> to memref<1x3x95x95xf32, strided<[30603, 10201, 101, 1], offset: 306>>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x64x48x48xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x64x48x48xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<1x3x101x101xf32>, memref<3x7x7x64xf32>) outs(%y : memref<1x64x48x48xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    return %y : memref<1x64x48x48xf32>
  }
}
