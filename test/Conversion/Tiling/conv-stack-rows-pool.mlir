// A 2x2 max pooling right after a convolution is computed by the
// convolution's kernel from each chunk of output rows. With stacked rows a
// pooled pair of rows spans two partition blocks: an even number of stacked
// rows pairs them (after the max over column pairs, each pair's blocks trade
// places by DMA and one max over every block leaves each pair's maxes in
// its first block, pooled rows stack / 2 apart; conv-stack-rows.mlir; or,
// where every pair's blocks start where an engine may read them, one max a
// pair reads both in place).
// When an odd number of stacked rows takes fewer PE columns than any fused
// choice (fp32: 3 / 3 a pixel against 3 / 2 with two stacked rows), the
// pooling runs as its own kernel after it (lib/Conversion/Tiling/Conv.cpp,
// poolingCostsStackedRows; the comparison counts stacks that divide the
// rows): with several images, or with one whose input the program
// computes, in rows of at least a DMA descriptor's minimum.
// RUN: nki-opt %s --split-input-file --nki-tile | FileCheck %s

// Two images of 16 channels: each stacks six rows (16 in groups of 6, 6
// and 4: 3 matmuls of [128, 96] for the first two groups, 3 for the last),
// and pools them: three pairs of blocks of 16 partitions (two in the last
// group), their pooled rows three apart.
// CHECK-LABEL: func.func @two_images(
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x96xf32, {{.*}}, memref<128x2x16xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<96x2x8xf32, strided<[32, 16, 2]>
// CHECK-COUNT-6: nki.dma %{{.*}} to %{{.*}} : memref<16x2x8xf32, {{.*}}#nki.memory<sbuf>> to memref<16x2x8xf32, {{.*}}#nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<96x2x8xf32, #nki.memory<sbuf>>, memref<96x2x8xf32, #nki.memory<sbuf>>
// CHECK-COUNT-3: nki.dma %{{.*}} to %{{.*}} : memref<16x2x8xf32, {{.*}}#nki.memory<sbuf>> to memref<16x2x8xf32, strided<[64, 24, 1], offset: ?>>
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x96xf32, {{.*}}, memref<128x1x16xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<64x1x8xf32, strided<[16, 16, 2]>
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x1x8xf32, {{.*}}#nki.memory<sbuf>> to memref<16x1x8xf32, {{.*}}#nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<64x1x8xf32, #nki.memory<sbuf>>, memref<64x1x8xf32, #nki.memory<sbuf>>
// CHECK-COUNT-2: nki.dma %{{.*}} to %{{.*}} : memref<16x1x8xf32, {{.*}}#nki.memory<sbuf>> to memref<16x1x8xf32, strided<[64, 24, 1], offset: ?>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @two_images(%arg0: memref<2x16x18x18xf32>) -> memref<2x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x16x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x16x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<2x16x18x18xf32>, memref<16x3x3x16xf32>) outs(%y : memref<2x16x16x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x16x8x8xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<2x16x8x8xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<2x16x16x16xf32>, memref<2x2xf32>) outs(%p : memref<2x16x8x8xf32>)
    return %p : memref<2x16x8x8xf32>
  }
}

// -----

// bf16 operands do not stack (one PE cycle a column): the convolution
// keeps the pooling, computed from each chunk of its result, which only
// the pooling reads and which is not stored: eight bands side by side then
// move no rows of it (9 bf16 matmuls of [128, 128] for the image's 16
// rows, against 3 of [48, 16] over every pixel with the kernel rows
// folded; the maxes along W and then along H of the chunk, every band at
// once).
// CHECK-LABEL: func.func @bf16(
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xbf16
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x2x8xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x1x8xf32
// CHECK-NOT: "max"
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xbf16> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @bf16(%arg0: memref<1x16x18x18xbf16>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<16x3x3x16xbf16>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x16x18x18xbf16>, memref<16x3x3x16xbf16>) outs(%y : memref<1x16x16x16xf32>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: f32):
      %a = arith.extf %in : bf16 to f32
      %b = arith.extf %in_3 : bf16 to f32
      %2 = arith.mulf %a, %b : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<1x16x16x16xf32>, memref<2x2xf32>) outs(%p : memref<1x16x8x8xf32>)
    return %p : memref<1x16x8x8xf32>
  }
}
// -----

// One image: the pooling's own kernel would have nothing to overlap, so
// the convolution keeps it and runs eight bands side by side (nine
// matmuls of [128, 128]), pooling every band at once.
// CHECK-LABEL: func.func @one_image(
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xf32
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x2x8xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x1x8xf32
// CHECK-NOT: "max"
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @one_image(%arg0: memref<1x16x18x18xf32>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<1x16x18x18xf32>, memref<16x3x3x16xf32>) outs(%y : memref<1x16x16x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<1x16x16x16xf32>, memref<2x2xf32>) outs(%p : memref<1x16x8x8xf32>)
    return %p : memref<1x16x8x8xf32>
  }
}

// -----

// One image whose input the program computes (here a ReLU; in a U-Net the
// layer before, kept in SBUF) in rows of at least a DMA descriptor's
// minimum: the convolution is PE-bound, so it stacks rows as with several
// images (4 rows: [96, 64] filters, 2 groups a matmul) and pools them in
// pairs of blocks, each pooled row pair two rows apart.
// CHECK-LABEL: func.func @one_image_computed_input(
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<96x64xf32, {{.*}}, memref<96x2x128xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<64x2x64xf32, strided<[256, 128, 2]>
// CHECK-COUNT-4: nki.dma %{{.*}} to %{{.*}} : memref<16x2x64xf32, {{.*}}#nki.memory<sbuf>> to memref<16x2x64xf32, {{.*}}#nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<64x2x64xf32, #nki.memory<sbuf>>, memref<64x2x64xf32, #nki.memory<sbuf>>
// CHECK-COUNT-2: nki.dma %{{.*}} to %{{.*}} : memref<16x2x64xf32, {{.*}}#nki.memory<sbuf>> to memref<16x2x64xf32, strided<[256, 128, 1], offset: ?>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @one_image_computed_input(%arg0: memref<1x16x10x130xf32>) -> memref<1x16x4x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %x = memref.alloc() {alignment = 64 : i64} : memref<1x16x10x130xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x16x10x130xf32>) outs(%x : memref<1x16x10x130xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %cst : f32
      linalg.yield %r : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x128xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x8x128xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x16x10x130xf32>, memref<16x3x3x16xf32>) outs(%y : memref<1x16x8x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x4x64xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<1x16x4x64xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<1x16x8x128xf32>, memref<2x2xf32>) outs(%p : memref<1x16x4x64xf32>)
    return %p : memref<1x16x4x64xf32>
  }
}

// -----

// The same with rows of 18 pixels (72 bytes, a descriptor each if
// stacked): the convolution keeps the pooling, in eight bands.
// CHECK-LABEL: func.func @one_image_short_rows(
// CHECK-COUNT-9: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x128xf32
// CHECK-NOT: nki.matmul
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x2x8xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<128x1x8xf32
// CHECK-NOT: "max"
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<16x3x3x16xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @one_image_short_rows(%arg0: memref<1x16x18x18xf32>) -> memref<1x16x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<16x3x3x16xf32>
    %x = memref.alloc() {alignment = 64 : i64} : memref<1x16x18x18xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<1x16x18x18xf32>) outs(%x : memref<1x16x18x18xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %cst : f32
      linalg.yield %r : f32
    }
    %y = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<1x16x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x16x18x18xf32>, memref<16x3x3x16xf32>) outs(%y : memref<1x16x16x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<1x16x8x8xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<1x16x8x8xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<1x16x16x16xf32>, memref<2x2xf32>) outs(%p : memref<1x16x8x8xf32>)
    return %p : memref<1x16x8x8xf32>
  }
}

// -----

// Two images of 24 channels at 18 x 18: three stacked rows (3 matmuls of
// [120, 72] per group) beat two (3 / 2 columns a pixel), so the pooling
// runs as its own kernel after the convolution: the maxes along W and then
// along H of each image.
// CHECK-LABEL: func.func @odd_stack(
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<120x72xf32
// CHECK-NOT: "max"
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<24x18x9xf32
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<24x3x3x24xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @odd_stack(%arg0: memref<2x24x20x20xf32>) -> memref<2x24x9x9xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<24x3x3x24xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x24x18x18xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x24x18x18xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<2x24x20x20xf32>, memref<24x3x3x24xf32>) outs(%y : memref<2x24x18x18xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x24x9x9xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<2x24x9x9xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<2x24x18x18xf32>, memref<2x2xf32>) outs(%p : memref<2x24x9x9xf32>)
    return %p : memref<2x24x9x9xf32>
  }
}

// -----

// Two stacked rows of 32 channels: a pair's blocks at partitions 0 and 32,
// where an engine may read them, so one max reads both in place into block
// 0, and nothing trades places by DMA.
// CHECK-LABEL: func.func @pairs_in_place(
// CHECK-COUNT-3: nki.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<128x64xf32, {{.*}}, memref<128x8x16xf32
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<64x8x8xf32, strided<[128, 16, 2]>
// CHECK-NOT: nki.dma {{.*}}#nki.memory<sbuf>> to {{.*}}#nki.memory<sbuf>>
// CHECK: nki.tensor_tensor "max" %{{.*}}, %{{.*}} into %{{.*}} : memref<32x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>>, memref<32x8x8xf32, strided<[64, 8, 1], offset: 2048>, #nki.memory<sbuf>> into memref<32x8x8xf32, strided<[64, 8, 1]>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<32x8x8xf32, strided<[64, 8, 1]>, #nki.memory<sbuf>> to memref<32x8x8xf32, strided<[64, 8, 1], offset: ?>>
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module {
  memref.global "private" constant @w : memref<32x3x3x32xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  func.func @pairs_in_place(%arg0: memref<2x32x18x18xf32>) -> memref<2x32x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %w = memref.get_global @w : memref<32x3x3x32xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<2x32x16x16xf32>
    linalg.fill ins(%cst : f32) outs(%y : memref<2x32x16x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %w : memref<2x32x18x18xf32>, memref<32x3x3x32xf32>) outs(%y : memref<2x32x16x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %2 = arith.mulf %in, %in_3 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    %win = memref.alloc() : memref<2x2xf32>
    %p = memref.alloc() {alignment = 64 : i64} : memref<2x32x8x8xf32>
    linalg.fill ins(%ninf : f32) outs(%p : memref<2x32x8x8xf32>)
    linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %win : memref<2x32x16x16xf32>, memref<2x2xf32>) outs(%p : memref<2x32x8x8xf32>)
    return %p : memref<2x32x8x8xf32>
  }
}
