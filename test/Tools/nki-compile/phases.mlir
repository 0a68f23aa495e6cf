// nki-compile stops after any phase and prints its IR.
// RUN: nki-compile %s --compile-to=graph | FileCheck %s --check-prefix=GRAPH
// RUN: nki-compile %s --compile-to=tiled | FileCheck %s --check-prefix=TILED
// RUN: nki-compile %s --compile-to=planned | FileCheck %s --check-prefix=PLANNED
// RUN: nki-compile %s --compile-to=scheduled | FileCheck %s --check-prefix=SCHED
// RUN: nki-compile %s --compile-to=nisa --target=trn1 | FileCheck %s --check-prefix=TRN1
// RUN: nki-compile %s --compile-to=nisa --target=trn3 | FileCheck %s --check-prefix=TRN3
// RUN: nki-compile %s -o %t.nkb --report | FileCheck %s --check-prefix=REPORT
// RUN: nki-translate --binary-to-nisa %t.nkb | FileCheck %s --check-prefix=NISA
// nki-compile encodes the binary one instruction at a time; nki-translate
// encodes the whole nisa program it prints: the same bytes.
// RUN: nki-compile %s --compile-to=nisa --mlir-print-debuginfo -o %t.nisa.mlir
// RUN: nki-translate --nisa-to-binary %t.nisa.mlir -o %t.translated.nkb
// RUN: cmp %t.nkb %t.translated.nkb
// The IR is verified after the graph phase and the last one by default;
// --verify=phases after every phase and --verify-each (--verify=each)
// after every pass, with the same result.
// RUN: nki-compile %s --verify=phases -o %t.phases.nkb
// RUN: cmp %t.nkb %t.phases.nkb
// RUN: nki-compile %s --verify-each -o %t.each.nkb
// RUN: cmp %t.nkb %t.each.nkb
// RUN: nki-compile %s --verify=each -o %t.each2.nkb
// RUN: cmp %t.nkb %t.each2.nkb
// RUN: not nki-compile %s --verify=sometimes -o %t.bad.nkb 2>&1 | FileCheck %s --check-prefix=BADVERIFY
// BADVERIFY: Cannot find option named 'sometimes'

// GRAPH-LABEL: func.func @main
// GRAPH: linalg.matmul
// GRAPH: linalg.generic
// GRAPH: math.tanh

// The tanh runs on the matmul's PSUM tile (the epilogue), in a loop over
// M blocks of 128 with a peeled block of 44.
// TILED: scf.for
// TILED: nki.matmul %{{.*}}, %{{.*}} into %[[ACC:.*]] : memref<64x128xf32, #nki.memory<sbuf>>
// TILED: nki.activation "tanh" %[[ACC]] into
// TILED: }
// TILED: nki.activation "tanh" %{{.*}} : memref<44x96xf32, #nki.memory<psum>>
// TILED-NOT: linalg.

// PLANNED-NOT: scf.for
// PLANNED: nki.alloc {offset = {{[0-9]+}} : i64} : memref<{{.*}}#nki.memory<psum>>
// PLANNED: nki.matmul

// The scheduled program: instructions on their streams in the order they
// run, each with its place in the program order, no semaphores yet; the
// program carries the schedule's estimated end.
// SCHED: nisa.program target("trn2") semaphores(0) attributes {nisa.makespan_ps = {{[0-9]+}} : i64}
// SCHED: nisa.stream @pe
// SCHED: nisa.matmul {{.*}} {nisa.seq = {{[0-9]+}} : i64}
// SCHED: nisa.stream @act
// SCHED: nisa.activation tanh {{.*}} {nisa.seq = {{[0-9]+}} : i64}
// SCHED-NOT: wait(
// SCHED-NOT: func.func

// NISA: nisa.program target("trn2")
// NISA-DAG: nisa.tensor @x input f32 [300, 64]
// NISA-DAG: nisa.tensor @w input f32 [64, 96]
// NISA-DAG: nisa.tensor @out0 output f32 [300, 96]
// NISA: nisa.stream @pe
// NISA: nisa.matmul

// TRN1: nisa.program target("trn1")
// TRN3: nisa.program target("trn3")

// REPORT: nki-compile report (target trn2)
// REPORT: graph
// REPORT: tiled
// REPORT: planned
// REPORT: scheduled
// REPORT: binary
// REPORT: SBUF peak: {{[0-9]+}} bytes per partition
// REPORT: PSUM peak: {{[0-9]+}} bytes per partition
// REPORT: instructions pe
// REPORT: peak memory: {{[0-9]+\.[0-9]}} MiB

func.func @main(%x: tensor<300x64xf32> {nki.name = "x"}, %w: tensor<64x96xf32> {nki.name = "w"}) -> tensor<300x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300x96xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<300x96xf32>) -> tensor<300x96xf32>
  %m = linalg.matmul ins(%x, %w : tensor<300x64xf32>, tensor<64x96xf32>) outs(%z : tensor<300x96xf32>) -> tensor<300x96xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<300x96xf32>) outs(%e : tensor<300x96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<300x96xf32>
  return %t : tensor<300x96xf32>
}
