// The per-source-op profile of nki-run's report, on timing.mlir's program
// with named locations (what an ONNX node's instructions carry).
//
// trn2 (worked out in timing.mlir): the load is in flight [0, 4149392), the
// exp [4199392, 4889392), the store [4939392, 9088784). No two overlap, so
// each op is owed its own interval. The load's DMA busy time 2849392 over 16
// queues is 178087 ps; the ACT's 690000 ps bounds the exp, busy over its
// whole span (100 %).
//
// RUN: nki-translate --nisa-to-binary %s -o %t.nkb
// RUN: nki-run %t.nkb --random-inputs=1 --report | FileCheck %s --check-prefix=TABLE
// TABLE:      top 3 of 3 source ops by simulated time
// TABLE-NEXT:    time (us)      %   instrs        MFLOP    DMA bytes bound  util %   PE %  source op
// TABLE-NEXT:        4.149  45.65        1        0.000        32768   dma    4.29   0.00  /layer/load
// TABLE-NEXT:        4.149  45.65        1        0.000        32768   dma    4.29   0.00  /layer/store
// TABLE-NEXT:        0.690   7.59        1        0.000            0   act  100.00   0.00  /layer/exp
//
// The critical path: the store waited for the exp (50 ns of sync), which
// waited for the load's completion (its 2849392 ps of transfer, 1.3 us of
// latency, 50 ns of sync); the store's own latency ends the run. 2849392 +
// 1300000 + 50000 + 690000 + 50000 + 2849392 + 1300000 = 9088784.
// TABLE-NEXT: critical path 9.089 us over 3 instructions: busy pe 0.000, act 0.690, dve 0.000, pool 0.000, dma 5.699; DMA latency 2.600, sync 0.100, other 0.000 (us)
// TABLE-NEXT: top 3 of 3 source ops on the critical path
// TABLE-NEXT:    time (us)      %   instrs engine  source op
// TABLE-NEXT:        4.149  45.65        1    dma  /layer/load
// TABLE-NEXT:        4.149  45.65        1    dma  /layer/store
// TABLE-NEXT:        0.690   7.59        1    act  /layer/exp
//
// RUN: nki-run %t.nkb --random-inputs=1 --report=json | FileCheck %s --check-prefix=JSON
// JSON: "pe_peak_flops_per_second": 7.86432e+13, "pe_peak_flops_per_second_fp32": 1.96608e+13, "pe_peak_flops_per_second_fp8": 1.57286e+14, "pe_peak_flops_per_second_mx": 0,
// JSON-SAME: "engine_clocks_hz": {"pe": 2.4e+09, "act": 1.2e+09, "dve": 9.6e+08, "pool": 1.2e+09},
// JSON-SAME: "ops": [{"source": "/layer/load", "attributed_ps": 4149392, "first_start_ps": 0, "last_complete_ps": 4149392, "instructions": 1, "busy_ps": {"pe": 0, "act": 0, "dve": 0, "pool": 0, "dma": 2849392}, "matmul_flops": 0, "dma_bytes": 32768, "dma_hbm_bytes": 32768, "bound": "dma", "bound_utilisation": 0.04291{{[0-9]+}}, "pe_utilisation": 0},
// JSON-SAME: {"source": "/layer/store", "attributed_ps": 4149392,
// JSON-SAME: {"source": "/layer/exp", "attributed_ps": 690000, "first_start_ps": 4199392, "last_complete_ps": 4889392, "instructions": 1, "busy_ps": {"pe": 0, "act": 690000, "dve": 0, "pool": 0, "dma": 0}, "matmul_flops": 0, "dma_bytes": 0, "dma_hbm_bytes": 0, "bound": "act", "bound_utilisation": 1, "pe_utilisation": 0}],
// JSON-SAME: "critical_path": {"total_ps": 9088784, "instructions": 3, "busy_ps": {"pe": 0, "act": 690000, "dve": 0, "pool": 0, "dma": 5698784}, "dma_latency_ps": 2600000, "sync_ps": 100000, "other_ps": 0,
// JSON-SAME: "ops": [{"source": "/layer/load", "ps": 4149392, "instructions": 1, "engine_ps": {"pe": 0, "act": 0, "dve": 0, "pool": 0, "dma": 4149392}},
// JSON-SAME: {"source": "/layer/store", "ps": 4149392, "instructions": 1, "engine_ps": {"pe": 0, "act": 0, "dve": 0, "pool": 0, "dma": 4149392}},
// JSON-SAME: {"source": "/layer/exp", "ps": 690000, "instructions": 1, "engine_ps": {"pe": 0, "act": 690000, "dve": 0, "pool": 0, "dma": 0}}]}}
//
// The trace names the source op on every slice.
// RUN: nki-run %t.nkb --random-inputs=1 --trace=%t.trace.json > /dev/null
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace.json
// TRACE: "name": "dma_copy /layer/load", "cat": "dma_copy",
// TRACE-SAME: "source": "/layer/load"
// TRACE: "name": "activation /layer/exp", "cat": "activation",
// TRACE: "name": "dma_copy /layer/store", "cat": "dma_copy",
//
// and repeats the critical path's instructions on a track of its own, each
// over its time on the path.
// TRACE: "tid": 1000, "name": "thread_name", "args": {"name": "critical path"}}
// TRACE: "tid": 1000, "name": "dma_copy /layer/load", "cat": "critical", "ts": 0.000000, "dur": 4.149392, "args": {"stream": "dma0", "index": 0, "source": "/layer/load"}}
// TRACE-NEXT: "tid": 1000, "name": "activation /layer/exp", "cat": "critical", "ts": 4.199392, "dur": 0.690000,
// TRACE-NEXT: "tid": 1000, "name": "dma_copy /layer/store", "cat": "critical", "ts": 4.939392, "dur": 4.149392,

nisa.program target("trn2") semaphores(2) {
  nisa.tensor @x input f32 [128, 64] at 0
  nisa.tensor @y output f32 [128, 64] at 32768

  nisa.stream @dma0 {
    nisa.dma_copy sbuf[0:128, 0, f32][(1,64)], hbm[0, f32][(64,128),(1,64)] signal(s0) loc("/layer/load")
  }
  nisa.stream @act {
    nisa.activation exp sbuf[0:128, 256, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)]
        scale 1.0 bias 0.0 wait(s0 >= 1) signal(s1) loc("/layer/exp")
  }
  nisa.stream @dma1 {
    nisa.dma_copy hbm[32768, f32][(64,128),(1,64)], sbuf[0:128, 256, f32][(1,64)] wait(s1 >= 1) loc("/layer/store")
  }
}
