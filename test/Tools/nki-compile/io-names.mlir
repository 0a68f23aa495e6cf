// Inputs and outputs are named by nki.name (argument and result attributes),
// else arg<i> / out<i>; two inputs or outputs with one name are an error.
// RUN: nki-compile %s --compile-to=nisa | FileCheck %s
// RUN: not nki-compile %S/Inputs/io-names-duplicate.mlir -o %t2.nkb 2>&1 | FileCheck %s --check-prefix=DUP

// CHECK-DAG: nisa.tensor @x input
// CHECK-DAG: nisa.tensor @arg1 input
// Outputs are listed in return order (positional nki-run --expected).
// CHECK: nisa.tensor @sum output
// CHECK: nisa.tensor @out1 output
func.func @main(%x: tensor<4x8xf32> {nki.name = "x"}, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32> {nki.name = "sum"}, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.mul ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %p : tensor<4x8xf32>, tensor<4x8xf32>
}

// DUP: error: 'func.func' op names two inputs or outputs 'x'; nki.name attributes must be unique
