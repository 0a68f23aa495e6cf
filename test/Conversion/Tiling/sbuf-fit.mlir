// nki-tile sizes the free chunk of elementwise and reduction kernels so that
// the tiles one chunk iteration holds at once fit SBUF twice over within 3/4
// of it (the next iteration's loads overlap this one's compute). Without
// this, a max over many window slices (a pooling window) overflowed SBUF
// in nki-plan-memory.
// RUN: nki-opt %s -split-input-file --nki-tile=free-chunk=65536 | FileCheck %s
// RUN: nki-opt %s -split-input-file --nki-set-target=target=trn1 --nki-tile="free-chunk=65536" | FileCheck %s --check-prefix=TRN1
// RUN: nki-opt %s -split-input-file --nki-set-target=target=trn3 --nki-tile="free-chunk=65536" | FileCheck %s --check-prefix=TRN3
// RUN: nki-opt %s -split-input-file --nki-tile | FileCheck %s --check-prefix=DEFAULT

// x, y and z are loaded before the body runs; with x + y that is four
// values live at once, five tiles with the stored result: 5 x 4 bytes x 2
// iterations = 40 bytes per element, so at most 229376 * 3/4 / 40 = 4300
// elements on trn2, 196608 * 3/4 / 40 = 3686 on trn1 and 262144 * 3/4 /
// 40 = 4915 on trn3. The contiguous
// 128x16384 space merges into one dim split into [blocks, 128, f] with f
// the largest divisor of 16384 within that: 4096 and 2048. The default free
// chunk (2048) is below both and stays.
// CHECK-LABEL: func.func @chain
// CHECK: nki.tensor_tensor "add" {{.*}} into {{.*}} : memref<128x4096xf32, #nki.memory<sbuf>>
// TRN1-LABEL: func.func @chain
// TRN1: nki.tensor_tensor "add" {{.*}} into {{.*}} : memref<128x2048xf32, #nki.memory<sbuf>>
// TRN3-LABEL: func.func @chain
// TRN3: nki.tensor_tensor "add" {{.*}} into {{.*}} : memref<128x4096xf32, #nki.memory<sbuf>>
// DEFAULT-LABEL: func.func @chain
// DEFAULT: nki.tensor_tensor "add" {{.*}} into {{.*}} : memref<128x2048xf32, #nki.memory<sbuf>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: memref<128x16384xf32>, %b: memref<128x16384xf32>, %c: memref<128x16384xf32>, %out: memref<128x16384xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : memref<128x16384xf32>, memref<128x16384xf32>, memref<128x16384xf32>) outs(%out : memref<128x16384xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %z : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A max over 24 window slices: all 24 loads are live when the first max
// runs, 25 values with its result, 26 tiles with the stored one, so chunks
// of at most 229376 * 3/4 / (2 * 26 * 4) = 827 elements; the merged
// 128x2048 space splits into [4 blocks, 128 partitions, 512] (512 is the
// largest divisor of 2048 within the limit), also with the default free
// chunk. Before, the tiles were 128x2048: 24 live tiles of 8 KiB per
// partition, with the next iteration's loads more than SBUF holds.
// CHECK-LABEL: func.func @window_max
// CHECK-COUNT-23: nki.tensor_tensor "max" {{.*}} : memref<128x512xf32, #nki.memory<sbuf>>
// DEFAULT-LABEL: func.func @window_max
// DEFAULT: nki.tensor_tensor "max" {{.*}} : memref<128x512xf32, #nki.memory<sbuf>>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @window_max(%a0: memref<128x2048xf32>, %a1: memref<128x2048xf32>, %a2: memref<128x2048xf32>, %a3: memref<128x2048xf32>, %a4: memref<128x2048xf32>, %a5: memref<128x2048xf32>, %a6: memref<128x2048xf32>, %a7: memref<128x2048xf32>, %a8: memref<128x2048xf32>, %a9: memref<128x2048xf32>, %a10: memref<128x2048xf32>, %a11: memref<128x2048xf32>, %a12: memref<128x2048xf32>, %a13: memref<128x2048xf32>, %a14: memref<128x2048xf32>, %a15: memref<128x2048xf32>, %a16: memref<128x2048xf32>, %a17: memref<128x2048xf32>, %a18: memref<128x2048xf32>, %a19: memref<128x2048xf32>, %a20: memref<128x2048xf32>, %a21: memref<128x2048xf32>, %a22: memref<128x2048xf32>, %a23: memref<128x2048xf32>, %out: memref<128x2048xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11, %a12, %a13, %a14, %a15, %a16, %a17, %a18, %a19, %a20, %a21, %a22, %a23 : memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>, memref<128x2048xf32>) outs(%out : memref<128x2048xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %x4: f32, %x5: f32, %x6: f32, %x7: f32, %x8: f32, %x9: f32, %x10: f32, %x11: f32, %x12: f32, %x13: f32, %x14: f32, %x15: f32, %x16: f32, %x17: f32, %x18: f32, %x19: f32, %x20: f32, %x21: f32, %x22: f32, %x23: f32, %o: f32):
    %m1 = arith.maximumf %x0, %x1 : f32
    %m2 = arith.maximumf %m1, %x2 : f32
    %m3 = arith.maximumf %m2, %x3 : f32
    %m4 = arith.maximumf %m3, %x4 : f32
    %m5 = arith.maximumf %m4, %x5 : f32
    %m6 = arith.maximumf %m5, %x6 : f32
    %m7 = arith.maximumf %m6, %x7 : f32
    %m8 = arith.maximumf %m7, %x8 : f32
    %m9 = arith.maximumf %m8, %x9 : f32
    %m10 = arith.maximumf %m9, %x10 : f32
    %m11 = arith.maximumf %m10, %x11 : f32
    %m12 = arith.maximumf %m11, %x12 : f32
    %m13 = arith.maximumf %m12, %x13 : f32
    %m14 = arith.maximumf %m13, %x14 : f32
    %m15 = arith.maximumf %m14, %x15 : f32
    %m16 = arith.maximumf %m15, %x16 : f32
    %m17 = arith.maximumf %m16, %x17 : f32
    %m18 = arith.maximumf %m17, %x18 : f32
    %m19 = arith.maximumf %m18, %x19 : f32
    %m20 = arith.maximumf %m19, %x20 : f32
    %m21 = arith.maximumf %m20, %x21 : f32
    %m22 = arith.maximumf %m21, %x22 : f32
    %m23 = arith.maximumf %m22, %x23 : f32
    linalg.yield %m23 : f32
  }
  return
}
