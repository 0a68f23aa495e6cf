// --auto-cast=matmul rounds f32 matmul inputs to bf16; accumulation and the
// result stay f32.
// RUN: nki-opt %s --nki-prepare-graph=auto-cast=matmul | FileCheck %s
// RUN: nki-opt %s --nki-prepare-graph | FileCheck %s --check-prefix=NONE
// RUN: not nki-opt %s --nki-prepare-graph=auto-cast=all 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @main
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<16x4xf32>) outs(%{{.*}} : tensor<16x4xbf16>)
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.*}} : tensor<8x4xf32>)
// NONE: linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x4xf32>)
// BAD: auto-cast must be none, matmul, fp8, mxfp8 or mxfp4, got 'all'
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
