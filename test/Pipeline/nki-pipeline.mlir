// The registered nki-pipeline runs the same stages as nki-compile, with the
// same options, inside nki-opt.
// RUN: nki-opt %s --nki-pipeline="compile-to=tiled" | FileCheck %s --check-prefix=TILED
// RUN: nki-opt %s --nki-pipeline="target=trn1" | FileCheck %s --check-prefix=NISA
// RUN: nki-opt %s --nki-pipeline="target=trn1" | nki-translate --nisa-to-binary -o %t.nkb
// RUN: nki-run %t.nkb --random-inputs=7 --report | FileCheck %s --check-prefix=SIM
// RUN: not nki-opt %s --nki-pipeline="auto-cast=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// TILED: nki.tensor_tensor "add"
// TILED-NOT: linalg.
// NISA: nisa.program target("trn1")
// NISA: nisa.tensor_tensor add
// SIM: target trn1, total {{[0-9.]+}} us
// BAD: auto-cast must be none, matmul, fp8, mxfp8 or mxfp4, got 'sometimes'
func.func @main(%a: tensor<256x64xf32>, %b: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x64xf32>
  %r = linalg.add ins(%a, %b : tensor<256x64xf32>, tensor<256x64xf32>) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}
