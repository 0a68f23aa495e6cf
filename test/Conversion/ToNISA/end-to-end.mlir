// Tile, unroll, plan, schedule, encode and simulate: the simulator must find
// no race, no uninitialised read and no deadlock, and the result must match
// a reference computed independently in Python integers (exact in fp32).
// RUN: nki-opt %s --linalg-fuse-elementwise-ops \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --canonicalize --nki-tile --nki-unroll --nki-plan-memory --nki-schedule --nki-synchronize -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: nki-translate --nisa-to-binary %t.mlir -o %t.nkb
// RUN: nki-run %t.nkb --random-inputs=7 --report | FileCheck %s --check-prefix=SIM
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %system_python %S/Inputs/matmul_relu_ref.py %t.dir
// RUN: nki-run %t.nkb --input a=%t.dir/a.npy --input b=%t.dir/b.npy \
// RUN:   --expected out0=%t.dir/c.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT

// Same on trn1 (other clocks, DMA bandwidth and SBUF size).
// RUN: nki-opt %s --linalg-fuse-elementwise-ops \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --canonicalize --nki-set-target=target=trn1 --nki-tile --nki-unroll --nki-plan-memory \
// RUN:   --nki-schedule --nki-synchronize | nki-translate --nisa-to-binary -o %t.trn1.nkb
// RUN: nki-run %t.trn1.nkb --input a=%t.dir/a.npy --input b=%t.dir/b.npy \
// RUN:   --expected out0=%t.dir/c.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT

// IR:      nisa.program target("trn2")
// IR-DAG:  nisa.tensor @a input f32 [160, 200]
// IR-DAG:  nisa.tensor @b input f32 [200, 96]
// IR-DAG:  nisa.tensor @out0 output f32 [160, 96]
// IR:      nisa.stream @pe {
// IR:        nisa.matmul {{.*}} start
// IR:      nisa.stream @dma0 {
// IR-NOT:  func.func

// SIM: target trn2, total {{.*}} us
// SIM: pe {{.*}}
// EXACT: output 'out0' matches (max |diff| 0)

func.func @main(%a: tensor<160x200xf32> {nki.name = "a"},
                %b: tensor<200x96xf32> {nki.name = "b"}) -> tensor<160x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<160x96xf32>) -> tensor<160x96xf32>
  %c = linalg.matmul ins(%a, %b : tensor<160x200xf32>, tensor<200x96xf32>)
                     outs(%init : tensor<160x96xf32>) -> tensor<160x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<160x96xf32>) outs(%e : tensor<160x96xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<160x96xf32>
  return %r : tensor<160x96xf32>
}
