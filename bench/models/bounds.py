#!/usr/bin/python3
"""Lower bounds on a model's run time from its ONNX graph, beside the
roofline floor of run.py: what the machine allows these shapes at best.

    bounds.py MODEL.onnx [MODEL.onnx ...] [--bf16] [--pe-ghz 2.4] ...

A matmul column contracts at most min(128, C x KH x KW) rows into at most
min(128, F) outputs and costs 4 PE cycles with fp32 inputs, so a dense
convolution (or Gemm/MatMul) of M MACs needs at least M / (K x F') such
columns, even with every kernel tap folded into the contraction. A
depthwise convolution's MACs (one input channel per output) are a
multiply-accumulate per partition lane each; the PE (one per 4 cycles with
the diagonal filter; one with --bf16, the matmul inputs of
--auto-cast=matmul), the DVE (a cycle at its clock accumulating in PSUM)
and the POOL (two cycles at its clock) share them at best, multiplies free
(on the ACT). The bound is the least T with dense PE time + the PE's share
of the depthwise work <= T and the DVE's and POOL's shares each <= T.
Clocks: trn2's (docs/machine-model.md); no latency, epilogue or DMA is
counted, so real kernels stay above it.

The second bound also counts the PE's per-instruction minimums: a matmul
moves at most 512 columns and at least 64 (max(N, 64) cycles), and each
stationary block is loaded (64 columns' time) once per group of four
matmuls, as nki-tile's kernels share it; a Gemm or MatMul takes the
cheaper of its two orientations (activations or weights moving). At 7x7
pixels or one image's classifier these minimums, not the MACs, are the
PE's work.
"""
import argparse
import math
import sys

import onnx
from onnx import helper, shape_inference

PARTITIONS = 128


def min_columns(pixels, k, m):
    """Matmul columns (64-column LoadStationary included) of a [k, m]
    stationary operand over `pixels` moving columns, with the minimums.
    Its [128, 128] blocks are counted fractionally, as the MAC bound does
    (bands of pixels side by side fill a block's partial rows and
    columns)."""
    chunks = [min(512, pixels - i) for i in range(0, pixels, 512)]
    moving = sum(max(n, 64) for n in chunks)
    loads = math.ceil(len(chunks) / 4) * 64
    blocks = (max(k, PARTITIONS) / PARTITIONS) * (max(m, PARTITIONS) /
                                                  PARTITIONS)
    return blocks * (moving + loads)


def bound(path, pe_ghz, dve_ghz, pool_ghz, column_cycles, minimums=False):
    g = shape_inference.infer_shapes(onnx.load(path)).graph
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
              for vi in list(g.input) + list(g.output) + list(g.value_info)}
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    column_ns = column_cycles / pe_ghz  # a matmul column
    dense_ns = 0.0
    lane_macs = 0.0  # depthwise multiply-accumulates per partition lane
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            group = next((helper.get_attribute_value(a) for a in n.attribute
                          if a.name == "group"), 1)
            f, cg, taps = w[0], w[1], math.prod(w[2:])
            macs = math.prod(y) * cg * taps
            if group > 1 and cg == 1:
                lane_macs += macs / PARTITIONS
                continue
            k, m = min(PARTITIONS, cg * taps), min(PARTITIONS, f)
            if minimums:
                dense_ns += min_columns(math.prod(y) // f, cg * taps,
                                        f) * column_ns
                continue
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            trans = next((helper.get_attribute_value(x) for x in n.attribute
                          if x.name == "transA"), 0)
            kd = a[0] if trans else a[-1]
            macs = math.prod(y) * kd
            k, m = min(PARTITIONS, kd), min(PARTITIONS, y[-1])
            if minimums:
                rows = math.prod(y) // y[-1]
                dense_ns += min(min_columns(rows, kd, y[-1]),
                                min_columns(y[-1], kd, rows)) * column_ns
                continue
        else:
            continue
        dense_ns += macs / (k * m) * column_ns
    rates = {"pe": 1 / column_ns, "dve": dve_ghz, "pool": pool_ghz / 2}
    lo, hi = dense_ns, dense_ns + lane_macs * column_ns
    for _ in range(100):  # the least T whose engines hold the depthwise work
        t = (lo + hi) / 2
        held = (t - dense_ns) * rates["pe"] + t * (rates["dve"] + rates["pool"])
        lo, hi = (lo, t) if held >= lane_macs else (t, hi)
    return dense_ns / 1000, lane_macs, hi / 1000


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--pe-ghz", type=float, default=2.4)
    p.add_argument("--dve-ghz", type=float, default=0.96)
    p.add_argument("--pool-ghz", type=float, default=1.2)
    p.add_argument("--bf16", action="store_true",
                   help="bf16 matmul inputs: a column costs one PE cycle")
    args = p.parse_args()
    print("| model | dense PE us | depthwise MACs per lane | bound us | "
          "dense PE us with minimums | bound us with minimums |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in args.models:
        cycles = 1 if args.bf16 else 4
        dense, lanes, t = bound(path, args.pe_ghz, args.dve_ghz, args.pool_ghz,
                                cycles)
        dense_min, _, t_min = bound(path, args.pe_ghz, args.dve_ghz,
                                    args.pool_ghz, cycles, minimums=True)
        print(f"| {path} | {dense:.1f} | {lanes:,.0f} | {t:.1f} | "
              f"{dense_min:.1f} | {t_min:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
