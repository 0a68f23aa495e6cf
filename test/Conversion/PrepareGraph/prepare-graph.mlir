// nki-prepare-graph: entry selection, checks and rewrites.
// RUN: nki-opt %s -split-input-file --nki-prepare-graph -verify-diagnostics | FileCheck %s

// Softmax is decomposed into reductions and elementwise generics.
// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Only the entry is kept.
// CHECK-LABEL: func.func @main
// CHECK-NOT: func.func @unused
// CHECK: return %arg0
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// The only public function is the entry when there is no main.
// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{cannot choose the entry function: no 'main' and 2 public functions; pass --entry=NAME}}
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
}

// -----

// expected-error @+1 {{argument #0 has dynamic shape 'tensor<?x4xf32>'; static shapes are required}}
func.func @main(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument #0 has element type 'f64'; supported: f32, bf16}}
func.func @main(%x: tensor<4xf64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @main(%v: f32) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.splat' op is not supported by the nki compiler}}
  %s = tensor.splat %v : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// tensor.concat is decomposed into insert_slices of a fresh tensor.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.concat
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [2, 4] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[2, 0] [3, 4] [1, 1]
func.func @main(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %c : tensor<5x4xf32>
}
