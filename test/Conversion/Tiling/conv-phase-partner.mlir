// nki-tile: a U-Net decoder's upsampled phases, stacked and interleaved,
// whose sum the skip convolution's epilogue adds (PhasePartner.h). With
// bf16 phases the skip's kernel computes them: sixteen stacked output rows
// of its 8 filters on 128 PSUM partitions, x's rows on sixteen blocks of 8
// partitions, the partner's stationary tiles block-structured (each phase
// filter's kernel row DMAed to its block), and per chunk a matmul per column
// phase and kernel column into every second column of the accumulator. The
// phases' kernels, their stack and the interleaved result are gone: the
// output is the only buffer. In f32 too (since session 55). With 72
// channels of x a block holds one row: a window a row, ten windows per
// column phase and kernel column. Not when x has more channels than the
// partitions (136), nor with accumulate-phases=false.
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-tile=accumulate-phases=false | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @bf16_phases(
// CHECK-NOT: memref.alloc
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<8x2x8xbf16, strided<[32, 8, 1], offset: ?>> to memref<8x2x8xbf16, strided<[256, 128, 1]>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<8x2x8xbf16, strided<[32, 8, 1], offset: ?>> to memref<8x2x8xbf16, strided<[256, 128, 1], offset: 2048>, #nki.memory<sbuf>>
// CHECK: nki.dma %{{.*}} to %{{.*}} : memref<8x2x8xbf16, strided<[32, 8, 1], offset: ?>> to memref<8x2x8xbf16, strided<[256, 128, 1], offset: 2056>, #nki.memory<sbuf>>
// CHECK-NOT: linalg.generic
// CHECK: nki.matmul {{.*}} accumulate : memref<128x128xbf16, strided<[256, 1]>, #nki.memory<sbuf>>, memref<128x1x8xbf16, strided<[10, 80, 1]>, #nki.memory<sbuf>> into memref<128x1x8xf32, strided<[16, 16, 2]>, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} accumulate : memref<128x128xbf16, strided<[256, 1], offset: 128>, #nki.memory<sbuf>>, memref<128x1x8xbf16, strided<[10, 80, 1], offset: 1>, #nki.memory<sbuf>> into memref<128x1x8xf32, strided<[16, 16, 2]>, #nki.memory<psum>>
// CHECK: nki.matmul {{.*}} accumulate : {{.*}} into memref<128x1x8xf32, strided<[16, 16, 2], offset: 1>, #nki.memory<psum>>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
// OFF-LABEL: func.func @bf16_phases(
// OFF: memref.alloc() : memref<4x1x8x8x8xf32>
// OFF-NOT: strided<[16, 16, 2]>, #nki.memory<psum>>
// OFF: return

func.func @bf16_phases(%x: memref<1x8x8x8xbf16>, %skip: memref<1x4x16x16xbf16>, %w0: memref<8x2x2x8xbf16>, %w1: memref<8x2x2x8xbf16>, %w2: memref<8x2x2x8xbf16>, %w3: memref<8x2x2x8xbf16>, %ws: memref<4x3x3x8xbf16>, %bias: memref<8x1x1xf32>) -> memref<1x8x16x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %stack = memref.alloc() : memref<4x1x8x8x8xf32>
  %pad0 = memref.alloc() : memref<1x8x9x9xbf16>
  %zb0 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb0 : bf16) outs(%pad0 : memref<1x8x9x9xbf16>)
  %in0 = memref.subview %pad0[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 10>>
  memref.copy %x, %in0 : memref<1x8x8x8xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 10>>
  %ph0 = memref.subview %stack[0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>
  linalg.fill ins(%zero : f32) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad0, %w0 : memref<1x8x9x9xbf16>, memref<8x2x2x8xbf16>) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad1 = memref.alloc() : memref<1x8x9x9xbf16>
  %zb1 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb1 : bf16) outs(%pad1 : memref<1x8x9x9xbf16>)
  %in1 = memref.subview %pad1[0, 0, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 9>>
  memref.copy %x, %in1 : memref<1x8x8x8xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 9>>
  %ph1 = memref.subview %stack[1, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>
  linalg.fill ins(%zero : f32) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad1, %w1 : memref<1x8x9x9xbf16>, memref<8x2x2x8xbf16>) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad2 = memref.alloc() : memref<1x8x9x9xbf16>
  %zb2 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb2 : bf16) outs(%pad2 : memref<1x8x9x9xbf16>)
  %in2 = memref.subview %pad2[0, 0, 0, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 1>>
  memref.copy %x, %in2 : memref<1x8x8x8xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1], offset: 1>>
  %ph2 = memref.subview %stack[2, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad2, %w2 : memref<1x8x9x9xbf16>, memref<8x2x2x8xbf16>) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad3 = memref.alloc() : memref<1x8x9x9xbf16>
  %zb3 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb3 : bf16) outs(%pad3 : memref<1x8x9x9xbf16>)
  %in3 = memref.subview %pad3[0, 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1]>>
  memref.copy %x, %in3 : memref<1x8x8x8xbf16> to memref<1x8x8x8xbf16, strided<[648, 81, 9, 1]>>
  %ph3 = memref.subview %stack[3, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>
  linalg.fill ins(%zero : f32) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad3, %w3 : memref<1x8x9x9xbf16>, memref<8x2x2x8xbf16>) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %up = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%stack : memref<4x1x8x8x8xf32>) outs(%up : memref<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %spad = memref.alloc() : memref<1x4x18x18xbf16>
  %zs = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zs : bf16) outs(%spad : memref<1x4x18x18xbf16>)
  %sin = memref.subview %spad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  memref.copy %skip, %sin : memref<1x4x16x16xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%spad, %ws : memref<1x4x18x18xbf16>, memref<4x3x3x8xbf16>) outs(%acc : memref<1x8x16x16xf32>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %y = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %acc, %bias : memref<1x8x16x16xf32>, memref<1x8x16x16xf32>, memref<8x1x1xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%p: f32, %c: f32, %b: f32, %out: f32):
    %s1 = arith.addf %p, %c : f32
    %s2 = arith.addf %s1, %b : f32
    linalg.yield %s2 : f32
  }
  return %y : memref<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @f32_phases(
// CHECK-NOT: memref.alloc
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: nki.matmul {{.*}} accumulate : memref<128x128xf32, strided<[256, 1]>, #nki.memory<sbuf>>, memref<128x1x8xf32, strided<[10, 80, 1]>, #nki.memory<sbuf>> into memref<128x1x8xf32, strided<[16, 16, 2]>, #nki.memory<psum>>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
// OFF-LABEL: func.func @f32_phases(
// OFF: memref.alloc() : memref<4x1x8x8x8xf32>

func.func @f32_phases(%x: memref<1x8x8x8xf32>, %skip: memref<1x4x16x16xf32>, %w0: memref<8x2x2x8xf32>, %w1: memref<8x2x2x8xf32>, %w2: memref<8x2x2x8xf32>, %w3: memref<8x2x2x8xf32>, %ws: memref<4x3x3x8xf32>, %bias: memref<8x1x1xf32>) -> memref<1x8x16x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %stack = memref.alloc() : memref<4x1x8x8x8xf32>
  %pad0 = memref.alloc() : memref<1x8x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%pad0 : memref<1x8x9x9xf32>)
  %in0 = memref.subview %pad0[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 10>>
  memref.copy %x, %in0 : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 10>>
  %ph0 = memref.subview %stack[0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>
  linalg.fill ins(%zero : f32) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad0, %w0 : memref<1x8x9x9xf32>, memref<8x2x2x8xf32>) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>) {
    ^bb0(%in: f32, %w: f32, %out: f32):
      %m = arith.mulf %in, %w : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad1 = memref.alloc() : memref<1x8x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%pad1 : memref<1x8x9x9xf32>)
  %in1 = memref.subview %pad1[0, 0, 1, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 9>>
  memref.copy %x, %in1 : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 9>>
  %ph1 = memref.subview %stack[1, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>
  linalg.fill ins(%zero : f32) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad1, %w1 : memref<1x8x9x9xf32>, memref<8x2x2x8xf32>) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>) {
    ^bb0(%in: f32, %w: f32, %out: f32):
      %m = arith.mulf %in, %w : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad2 = memref.alloc() : memref<1x8x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%pad2 : memref<1x8x9x9xf32>)
  %in2 = memref.subview %pad2[0, 0, 0, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 1>>
  memref.copy %x, %in2 : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1], offset: 1>>
  %ph2 = memref.subview %stack[2, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad2, %w2 : memref<1x8x9x9xf32>, memref<8x2x2x8xf32>) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>) {
    ^bb0(%in: f32, %w: f32, %out: f32):
      %m = arith.mulf %in, %w : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad3 = memref.alloc() : memref<1x8x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%pad3 : memref<1x8x9x9xf32>)
  %in3 = memref.subview %pad3[0, 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x9x9xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1]>>
  memref.copy %x, %in3 : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[648, 81, 9, 1]>>
  %ph3 = memref.subview %stack[3, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>
  linalg.fill ins(%zero : f32) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad3, %w3 : memref<1x8x9x9xf32>, memref<8x2x2x8xf32>) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>) {
    ^bb0(%in: f32, %w: f32, %out: f32):
      %m = arith.mulf %in, %w : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %up = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%stack : memref<4x1x8x8x8xf32>) outs(%up : memref<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %spad = memref.alloc() : memref<1x4x18x18xf32>
  linalg.fill ins(%zero : f32) outs(%spad : memref<1x4x18x18xf32>)
  %sin = memref.subview %spad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xf32> to memref<1x4x16x16xf32, strided<[1296, 324, 18, 1], offset: 19>>
  memref.copy %skip, %sin : memref<1x4x16x16xf32> to memref<1x4x16x16xf32, strided<[1296, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%spad, %ws : memref<1x4x18x18xf32>, memref<4x3x3x8xf32>) outs(%acc : memref<1x8x16x16xf32>) {
    ^bb0(%in: f32, %w: f32, %out: f32):
      %m = arith.mulf %in, %w : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %y = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %acc, %bias : memref<1x8x16x16xf32>, memref<1x8x16x16xf32>, memref<8x1x1xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%p: f32, %c: f32, %b: f32, %out: f32):
    %s1 = arith.addf %p, %c : f32
    %s2 = arith.addf %s1, %b : f32
    linalg.yield %s2 : f32
  }
  return %y : memref<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @wide_x(
// CHECK-NOT: memref.alloc() : memref<4x1x8x8x8xf32>
// CHECK: nki.matmul {{.*}} accumulate : memref<72x128xbf16, strided<[256, 1]>, #nki.memory<sbuf>>, memref<72x1x8xbf16, strided<[100, 80, 1]>, #nki.memory<sbuf>> into memref<128x1x8xf32, strided<[16, 16, 2]>, #nki.memory<psum>>
// CHECK: return
// OFF-LABEL: func.func @wide_x(
// OFF: memref.alloc() : memref<4x1x8x8x8xf32>

func.func @wide_x(%x: memref<1x72x8x8xbf16>, %skip: memref<1x4x16x16xbf16>, %w0: memref<72x2x2x8xbf16>, %w1: memref<72x2x2x8xbf16>, %w2: memref<72x2x2x8xbf16>, %w3: memref<72x2x2x8xbf16>, %ws: memref<4x3x3x8xbf16>, %bias: memref<8x1x1xf32>) -> memref<1x8x16x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %stack = memref.alloc() : memref<4x1x8x8x8xf32>
  %pad0 = memref.alloc() : memref<1x72x9x9xbf16>
  %zb0 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb0 : bf16) outs(%pad0 : memref<1x72x9x9xbf16>)
  %in0 = memref.subview %pad0[0, 0, 1, 1] [1, 72, 8, 8] [1, 1, 1, 1] : memref<1x72x9x9xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 10>>
  memref.copy %x, %in0 : memref<1x72x8x8xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 10>>
  %ph0 = memref.subview %stack[0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>
  linalg.fill ins(%zero : f32) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad0, %w0 : memref<1x72x9x9xbf16>, memref<72x2x2x8xbf16>) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad1 = memref.alloc() : memref<1x72x9x9xbf16>
  %zb1 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb1 : bf16) outs(%pad1 : memref<1x72x9x9xbf16>)
  %in1 = memref.subview %pad1[0, 0, 1, 0] [1, 72, 8, 8] [1, 1, 1, 1] : memref<1x72x9x9xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 9>>
  memref.copy %x, %in1 : memref<1x72x8x8xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 9>>
  %ph1 = memref.subview %stack[1, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>
  linalg.fill ins(%zero : f32) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad1, %w1 : memref<1x72x9x9xbf16>, memref<72x2x2x8xbf16>) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad2 = memref.alloc() : memref<1x72x9x9xbf16>
  %zb2 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb2 : bf16) outs(%pad2 : memref<1x72x9x9xbf16>)
  %in2 = memref.subview %pad2[0, 0, 0, 1] [1, 72, 8, 8] [1, 1, 1, 1] : memref<1x72x9x9xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 1>>
  memref.copy %x, %in2 : memref<1x72x8x8xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1], offset: 1>>
  %ph2 = memref.subview %stack[2, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad2, %w2 : memref<1x72x9x9xbf16>, memref<72x2x2x8xbf16>) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad3 = memref.alloc() : memref<1x72x9x9xbf16>
  %zb3 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb3 : bf16) outs(%pad3 : memref<1x72x9x9xbf16>)
  %in3 = memref.subview %pad3[0, 0, 0, 0] [1, 72, 8, 8] [1, 1, 1, 1] : memref<1x72x9x9xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1]>>
  memref.copy %x, %in3 : memref<1x72x8x8xbf16> to memref<1x72x8x8xbf16, strided<[5832, 81, 9, 1]>>
  %ph3 = memref.subview %stack[3, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>
  linalg.fill ins(%zero : f32) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad3, %w3 : memref<1x72x9x9xbf16>, memref<72x2x2x8xbf16>) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %up = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%stack : memref<4x1x8x8x8xf32>) outs(%up : memref<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %spad = memref.alloc() : memref<1x4x18x18xbf16>
  %zs = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zs : bf16) outs(%spad : memref<1x4x18x18xbf16>)
  %sin = memref.subview %spad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  memref.copy %skip, %sin : memref<1x4x16x16xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%spad, %ws : memref<1x4x18x18xbf16>, memref<4x3x3x8xbf16>) outs(%acc : memref<1x8x16x16xf32>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %y = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %acc, %bias : memref<1x8x16x16xf32>, memref<1x8x16x16xf32>, memref<8x1x1xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%p: f32, %c: f32, %b: f32, %out: f32):
    %s1 = arith.addf %p, %c : f32
    %s2 = arith.addf %s1, %b : f32
    linalg.yield %s2 : f32
  }
  return %y : memref<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @wider_x(
// CHECK: memref.alloc() : memref<4x1x8x8x8xf32>
// CHECK-NOT: #nki.memory<psum>> into memref<{{.*}}strided<[16, 16, 2]>
// CHECK: return
// OFF-LABEL: func.func @wider_x(
// OFF: memref.alloc() : memref<4x1x8x8x8xf32>

func.func @wider_x(%x: memref<1x136x8x8xbf16>, %skip: memref<1x4x16x16xbf16>, %w0: memref<136x2x2x8xbf16>, %w1: memref<136x2x2x8xbf16>, %w2: memref<136x2x2x8xbf16>, %w3: memref<136x2x2x8xbf16>, %ws: memref<4x3x3x8xbf16>, %bias: memref<8x1x1xf32>) -> memref<1x8x16x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %stack = memref.alloc() : memref<4x1x8x8x8xf32>
  %pad0 = memref.alloc() : memref<1x136x9x9xbf16>
  %zb0 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb0 : bf16) outs(%pad0 : memref<1x136x9x9xbf16>)
  %in0 = memref.subview %pad0[0, 0, 1, 1] [1, 136, 8, 8] [1, 1, 1, 1] : memref<1x136x9x9xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 10>>
  memref.copy %x, %in0 : memref<1x136x8x8xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 10>>
  %ph0 = memref.subview %stack[0, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>
  linalg.fill ins(%zero : f32) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad0, %w0 : memref<1x136x9x9xbf16>, memref<136x2x2x8xbf16>) outs(%ph0 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1]>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad1 = memref.alloc() : memref<1x136x9x9xbf16>
  %zb1 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb1 : bf16) outs(%pad1 : memref<1x136x9x9xbf16>)
  %in1 = memref.subview %pad1[0, 0, 1, 0] [1, 136, 8, 8] [1, 1, 1, 1] : memref<1x136x9x9xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 9>>
  memref.copy %x, %in1 : memref<1x136x8x8xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 9>>
  %ph1 = memref.subview %stack[1, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>
  linalg.fill ins(%zero : f32) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad1, %w1 : memref<1x136x9x9xbf16>, memref<136x2x2x8xbf16>) outs(%ph1 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 512>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad2 = memref.alloc() : memref<1x136x9x9xbf16>
  %zb2 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb2 : bf16) outs(%pad2 : memref<1x136x9x9xbf16>)
  %in2 = memref.subview %pad2[0, 0, 0, 1] [1, 136, 8, 8] [1, 1, 1, 1] : memref<1x136x9x9xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 1>>
  memref.copy %x, %in2 : memref<1x136x8x8xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1], offset: 1>>
  %ph2 = memref.subview %stack[2, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad2, %w2 : memref<1x136x9x9xbf16>, memref<136x2x2x8xbf16>) outs(%ph2 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1024>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %pad3 = memref.alloc() : memref<1x136x9x9xbf16>
  %zb3 = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zb3 : bf16) outs(%pad3 : memref<1x136x9x9xbf16>)
  %in3 = memref.subview %pad3[0, 0, 0, 0] [1, 136, 8, 8] [1, 1, 1, 1] : memref<1x136x9x9xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1]>>
  memref.copy %x, %in3 : memref<1x136x8x8xbf16> to memref<1x136x8x8xbf16, strided<[11016, 81, 9, 1]>>
  %ph3 = memref.subview %stack[3, 0, 0, 0, 0] [1, 1, 8, 8, 8] [1, 1, 1, 1, 1] : memref<4x1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>
  linalg.fill ins(%zero : f32) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%pad3, %w3 : memref<1x136x9x9xbf16>, memref<136x2x2x8xbf16>) outs(%ph3 : memref<1x8x8x8xf32, strided<[512, 64, 8, 1], offset: 1536>>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %up = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ((d2 mod 2) * 2 + d3 mod 2, d0, d1, d2 floordiv 2, d3 floordiv 2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%stack : memref<4x1x8x8x8xf32>) outs(%up : memref<1x8x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %spad = memref.alloc() : memref<1x4x18x18xbf16>
  %zs = arith.constant 0.000000e+00 : bf16
  linalg.fill ins(%zs : bf16) outs(%spad : memref<1x4x18x18xbf16>)
  %sin = memref.subview %spad[0, 0, 1, 1] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x18x18xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  memref.copy %skip, %sin : memref<1x4x16x16xbf16> to memref<1x4x16x16xbf16, strided<[1296, 324, 18, 1], offset: 19>>
  %acc = memref.alloc() : memref<1x8x16x16xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x8x16x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%spad, %ws : memref<1x4x18x18xbf16>, memref<4x3x3x8xbf16>) outs(%acc : memref<1x8x16x16xf32>) {
    ^bb0(%in: bf16, %w: bf16, %out: f32):
      %xe = arith.extf %in : bf16 to f32
      %we = arith.extf %w : bf16 to f32
      %m = arith.mulf %xe, %we : f32
      %s = arith.addf %out, %m : f32
      linalg.yield %s : f32
    }
  %y = memref.alloc() : memref<1x8x16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%up, %acc, %bias : memref<1x8x16x16xf32>, memref<1x8x16x16xf32>, memref<8x1x1xf32>) outs(%y : memref<1x8x16x16xf32>) {
  ^bb0(%p: f32, %c: f32, %b: f32, %out: f32):
    %s1 = arith.addf %p, %c : f32
    %s2 = arith.addf %s1, %b : f32
    linalg.yield %s2 : f32
  }
  return %y : memref<1x8x16x16xf32>
}
