// Malformed IR gives a diagnostic with file, line and column, and exit code 1.
// RUN: not nki-opt %s 2>&1 | FileCheck %s
// RUN: bash -c "nki-opt %s >/dev/null 2>&1; test \$? -eq 1"

func.func @bad(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: malformed.mlir:[[@LINE+1]]:23: error: use of undeclared SSA value name
  %r = arith.addf %a, %missing : tensor<4xf32>
  return %r : tensor<4xf32>
}
