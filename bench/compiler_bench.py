#!/usr/bin/python3
"""Compiler benchmarks: what nki-compile's code reaches on the simulator.

    compiler_bench.py --bin BUILD/bin [--quick] [--only NAME ...]

Each row compiles a program (test/e2e/gen.py writes it), runs it in nki-run
with random inputs and reads the simulated time from --report=json, so the
figures are exact and repeatable (they do not depend on the host). Compile
times are host wall-clock seconds. Prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "test", "e2e", "gen.py")


def build(case, dims, dtype, work):
    d = os.path.join(work, f"{case}-{'x'.join(map(str, dims))}-{dtype}")
    subprocess.run([sys.executable, GEN, case, "--dims",
                    ",".join(map(str, dims)), "--dtype", dtype, "--mlir-only",
                    "--dir", d], check=True)
    return d


def compile_(binpath, d, extra=()):
    start = time.perf_counter()
    subprocess.run([os.path.join(binpath, "nki-compile"),
                    os.path.join(d, "prog.mlir"), "-o",
                    os.path.join(d, "prog.nkb"), *extra], check=True)
    return time.perf_counter() - start


def simulate(binpath, d):
    report = os.path.join(d, "report.json")
    subprocess.run([os.path.join(binpath, "nki-run"),
                    os.path.join(d, "prog.nkb"), "--random-inputs=1",
                    f"--report=json={report}"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(report) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True, help="directory of nki-compile "
                   "and nki-run")
    p.add_argument("--quick", action="store_true",
                   help="1024-sized problems instead of 4096 (smoke test)")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   choices=["gemm", "add", "softmax", "layernorm", "compile"],
                   help="run only these rows (gemm covers bf16, f32, fp8, "
                   "MXFP8 and MXFP4, on trn2 and trn3)")
    args = p.parse_args()
    wanted = lambda name: not args.only or name in args.only  # noqa
    n = 1024 if args.quick else 4096
    work = tempfile.mkdtemp(prefix="nki-bench-")
    rows = []

    def gemm(dtype, target_pct, target="trn2", case="matmul"):
        d = build(case, (n, n, n), dtype, work)
        secs = compile_(args.bin, d, [f"--target={target}"])
        r = simulate(args.bin, d)
        # pe_utilisation counts each matmul against the peak of its inputs'
        # types (fp8: the double-row rate; matmul_mx: the quad-row rate).
        util = 100 * r["pe_utilisation"]
        if case == "matmul_mx":
            # MXFP4 packs along K: B is stored [N, K] (gen.py).
            name = "MXFP4 e2m1" if dtype == "f4E2M1FN" else "MXFP8 e4m3"
            peak = "MX"
        else:
            name = {"bf16": "bf16", "f32": "f32", "f8E4M3FN": "fp8 e4m3"}[dtype]
            peak = {"bf16": "bf16", "f32": "fp32", "f8E4M3FN": "fp8"}[dtype]
        rows.append((f"GEMM {n}^3 {name} ({target})",
                     f"{r['total_ps'] / 1e6:.1f}",
                     f"{util:.1f} % of {peak} peak", f">= {target_pct} %",
                     f"{secs:.2f}"))
        return secs

    gemm_secs = None
    if wanted("gemm"):
        gemm_secs = gemm("bf16", 85)
        gemm("f32", 80)
        gemm("f8E4M3FN", 85)
        gemm("bf16", 85, "trn3")
        gemm("f8E4M3FN", 85, "trn3")
        gemm("f8E4M3FN", 85, "trn3", "matmul_mx")
        gemm("f4E2M1FN", 85, "trn3", "matmul_mx")

    # Elementwise add of two 64 MiB bf16 tensors (8192 x 4096 at full size).
    rows_ = 8192 if n == 4096 else 2048
    d = build("add", (rows_, n), "bf16", work)
    secs = compile_(args.bin, d)
    r = simulate(args.bin, d)
    bw = r["dma_bytes"] / (r["total_ps"] * 1e-12)
    peak = r["dma_peak_bytes_per_second"]
    mib = rows_ * n * 2 / 2**20
    if wanted("add"):
        rows.append((f"add {mib:.0f} MiB + {mib:.0f} MiB bf16",
                     f"{r['total_ps'] / 1e6:.1f}",
                     f"{100 * bw / peak:.1f} % of peak DMA bandwidth",
                     ">= 80 %", f"{secs:.2f}"))

    # softmax and layernorm over [n, n] bf16: the DMA-bound floor reads the
    # input once and writes the output once at peak bandwidth.
    for case in ("softmax", "layernorm"):
        if not wanted(case):
            continue
        d = build(case, (n, n), "bf16", work)
        secs = compile_(args.bin, d)
        r = simulate(args.bin, d)
        floor_ps = 2 * n * n * 2 / peak * 1e12
        rows.append((f"{case} [{n}, {n}] bf16", f"{r['total_ps'] / 1e6:.1f}",
                     f"{100 * floor_ps / r['total_ps']:.1f} % of the DMA floor "
                     f"({floor_ps / 1e6:.1f} us)", ">= 60 %", f"{secs:.2f}"))

    print("| benchmark | simulated us | achieved | target | compile s |")
    print("|---|---:|---|---|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    if gemm_secs is not None:
        print(f"GEMM {n}^3 bf16 compiles in {gemm_secs:.2f} s "
              "(target < 10 s).")
    if wanted("compile"):
        # Compile time against program size: a 10x step in layers.
        small = build("chain", (4, 512, 512), "f32", work)
        large = build("chain", (40, 512, 512), "f32", work)
        t_small = compile_(args.bin, small)
        t_large = compile_(args.bin, large)
        print(f"Compile time, 4 vs 40 layers of 512x512 matmul + bias + relu: "
              f"{t_small:.2f} s vs {t_large:.2f} s "
              f"({t_large / t_small:.1f}x for 10x the program).")


if __name__ == "__main__":
    main()
