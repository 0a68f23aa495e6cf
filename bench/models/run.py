#!/usr/bin/python3
"""Model benchmark: whole ONNX models through nki-compile and nki-run.

    run.py --bin BUILD/bin [--only NAME ...] [--batch 1 8]
           [--mode f32 matmul fp8]
           [--work DIR] [--timeout SECONDS] [--fold-bn]

For each model x batch x mode: models.py exports the torch model (seeded
random weights; BatchNormalization kept in the graph unless --fold-bn) to
ONNX with its input and torch's output; `nki-compile
model.onnx -o model.nkb` (mode f32: the default compile; mode matmul:
`--auto-cast=matmul`, bf16 matmul inputs; mode fp8: `--auto-cast=fp8`) is
timed in host wall seconds;
`nki-run` simulates it with the exported input, compares with torch's output
(`--expected`) and writes its JSON report. Prints a Markdown table (see
README.md for the columns). A failure (export, compile, simulation error,
mismatch, timeout) becomes a row with the reason; the run goes on.

Roofline floor: max(FLOPs / PE peak, bytes / DMA peak). FLOPs are 2 x MACs
of the graph's Conv, ConvTranspose (with groups), Gemm and MatMul, from
onnx.shape_inference shapes; bytes are the initializers plus the graph's
inputs and outputs in their stored types. The peaks come from nki-run's JSON
report (`pe_peak_flops_per_second_fp32` for f32, `pe_peak_flops_per_second`,
the 2-byte-input peak, for matmul mode; `dma_peak_bytes_per_second`), never
from numbers written here; if the report lacks a key the script stops with
a message.

Engines bound: bounds.py's `engines` bound of the graph at the report's
engine clocks (`engine_clocks_hz`), a matmul column at the mode's PE peak;
the table gives it and the fraction of it each row reaches.

Tolerances (nki-run's |got - expected| <= atol + rtol * |expected|, with
atol scaled by the largest |expected| so that it means the same for outputs
of any magnitude):
  f32:    rtol 1e-3, atol 1e-3 * max|expected|. The simulator computes in
          fp32 like torch, but in another summation order (im2col matmuls
          accumulate K in order with fma, BN folded at compile time), so
          errors grow by a few ulps per layer; 1e-3 leaves room for ~50
          layers while still catching a wrong layer (measured: at most
          6e-5 of max|expected| at batch 1).
  matmul: rtol 5e-2, atol 0.15 * max|expected|. Matmul and convolution
          inputs are rounded to bf16 (relative error up to 2^-9 per
          operand). These random-weight nets amplify that noise: torch
          itself, with its conv/linear inputs and weights rounded to bf16,
          is off from its fp32 output by a relative L2 error of 10 % and a
          max abs error of 0.09 * max|expected| on resnet50 (mobilenet_v2
          9 %, 0.1; unet 6 %, 0.05), and nki's error is the same size. So
          5e-2 alone fails on precision, not on bugs; 0.15 still fails a
          wrong layer. The match column adds the relative L2 error.
  fp8:    rtol 0.25, atol 0.5 * max|expected|. --auto-cast=fp8 quantises
          the matmuls of weights to e4m3 (relative error up to 2^-4 per
          operand, 32x bf16's) and rounds the rest to bf16; the tolerance
          only catches gross errors, and the match column's relative L2
          error is the report of the accuracy cost (the exact check of the
          quantisation is test/e2e/auto-cast-fp8.test). Its floor uses the
          fp8 peak (`pe_peak_flops_per_second_fp8`) for all FLOPs.
  mxfp8:  as fp8 (--auto-cast=mxfp8, trn3 only: MX blocks of 32 with e8m0
          scales); the floor uses the MX peak (`pe_peak_flops_per_second_mx`).
  mxfp4:  as mxfp8 in MXFP4 (e2m1) blocks (--auto-cast=mxfp4, trn3 only;
          rtol 0.5, atol 1.0 * max|expected|: e2m1 keeps one mantissa bit,
          so only a wrong layer fails); same floor.
--target picks the machine (default trn2); a target other than trn2 keeps
its binaries in their own directories (MODE-TARGET).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bounds  # noqa: E402
import models  # noqa: E402

TOLERANCES = {"f32": (1e-3, 1e-3), "matmul": (5e-2, 0.15),
              "fp8": (0.25, 0.5), "mxfp8": (0.25, 0.5), "mxfp4": (0.5, 1.0)}
PE_PEAK_KEY = {"f32": "pe_peak_flops_per_second_fp32",
               "matmul": "pe_peak_flops_per_second",
               "fp8": "pe_peak_flops_per_second_fp8",
               "mxfp8": "pe_peak_flops_per_second_mx",
               "mxfp4": "pe_peak_flops_per_second_mx"}


class MissingKey(Exception):
    pass


# --- ONNX graph analysis ----------------------------------------------------

def _dims(vi):
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def _prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def graph_costs(onnx_path):
    """(matmul/conv FLOPs, initializer + input + output bytes) of a model."""
    import onnx
    from onnx import helper, mapping  # noqa: F401
    m = bounds._fold_shapes(onnx.load(onnx_path))
    g = m.graph
    shapes = {}
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        shapes[vi.name] = _dims(vi)
    for t in g.initializer:
        shapes[t.name] = list(t.dims)

    def attr(node, name, default):
        for a in node.attribute:
            if a.name == name:
                return helper.get_attribute_value(a)
        return default

    macs = 0
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            # y [N, M, *out], w [M, C/g, *k]
            macs += _prod(y) * _prod(w[1:])
        elif n.op_type == "ConvTranspose":
            x, w = shapes[n.input[0]], shapes[n.input[1]]
            # x [N, C, *in], w [C, M/g, *k]: each input element is spread
            # over M/g x prod(k) outputs.
            macs += _prod(x) * _prod(w[1:])
        elif n.op_type == "Gemm":
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            k = a[0] if attr(n, "transA", 0) else a[1]
            macs += _prod(y) * k
        elif n.op_type == "MatMul":
            a, b, y = (shapes[n.input[0]], shapes[n.input[1]],
                       shapes[n.output[0]])
            # K from A [.., K], else from B [.., K, N] (shape inference
            # leaves some exported inputs without a shape).
            k = a[-1] if a else (b[-2] if len(b) >= 2 else None)
            if k is None or not y:
                sys.exit(f"run.py: no shapes for MatMul {n.name!r}; "
                         "cannot count its FLOPs")
            macs += _prod(y) * k
    # Stored sizes: initializers as stored, inputs/outputs by element type.
    def nbytes(elem_type, dims):
        np_type = helper.tensor_dtype_to_np_dtype(elem_type) \
            if hasattr(helper, "tensor_dtype_to_np_dtype") \
            else mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]
        return _prod(dims) * np_type.itemsize
    inits = {t.name for t in g.initializer}
    total = sum(nbytes(t.data_type, t.dims) for t in g.initializer)
    for vi in list(g.input) + list(g.output):
        if vi.name not in inits:
            total += nbytes(vi.type.tensor_type.elem_type, _dims(vi))
    return 2 * macs, total


_GRAPHS = {}
_BOUNDS = {}


def engines_bound_us(onnx_path, report, mode):
    """bounds.py's engines bound at the report's engine clocks: the least
    time the target's engines allow the graph's convolutions, matmuls and
    depthwise work at their rates, however the kernels pack them (a bound
    they stay above). A matmul column costs 128 x 128 x 2 FLOPs at the
    mode's PE peak; None for a graph bounds.py cannot read."""
    clocks = report["engine_clocks_hz"]
    cycles = (2 * bounds.PARTITIONS ** 2 * clocks["pe"] /
              report[PE_PEAK_KEY[mode]])
    key = (onnx_path, cycles, tuple(sorted(clocks.items())))
    if key not in _BOUNDS:
        try:
            if onnx_path not in _GRAPHS:
                _GRAPHS[onnx_path] = bounds.load(onnx_path)
            _BOUNDS[key] = bounds.engines_bound(
                _GRAPHS[onnx_path], clocks["pe"] / 1e9, clocks["act"] / 1e9,
                clocks["dve"] / 1e9, clocks["pool"] / 1e9, cycles)
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            print(f"run.py: no engines bound for {onnx_path}: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            _BOUNDS[key] = None
    return _BOUNDS[key]


# --- one model --------------------------------------------------------------

def _tail(text, lines=6):
    """The error lines of a tool's output, else its last lines."""
    text = (text or "").strip().splitlines()
    errors = [line for line in text if "error" in line]
    if errors:
        text = errors
    return " / ".join(line.strip() for line in text[-lines:])[:400]


def run_one(args, name, batch, mode):
    """Returns a dict with the row's fields (or 'error')."""
    import numpy as np
    row = {"model": name, "batch": batch, "mode": mode}
    d = os.path.join(args.work,
                     f"{name}-b{batch}" + ("-foldbn" if args.fold_bn else ""))
    onnx_path = os.path.join(d, "model.onnx")
    inp = os.path.join(d, "input.npy")
    exp = os.path.join(d, "expected.npy")
    if not all(os.path.exists(p) for p in (onnx_path, inp, exp)):
        start = time.perf_counter()
        try:
            models.export(name, batch, d, fold_bn=args.fold_bn)
        except Exception as e:  # noqa: BLE001
            row["error"] = f"export: {type(e).__name__}: {e}"[:400]
            return row
        row["export_s"] = time.perf_counter() - start
    md = os.path.join(d, mode if args.target == "trn2"
                      else f"{mode}-{args.target}")
    os.makedirs(md, exist_ok=True)
    nkb = os.path.join(md, "model.nkb")
    cmd = [os.path.join(args.bin, "nki-compile"), onnx_path, "-o", nkb,
           f"--target={args.target}"]
    if mode != "f32":
        cmd.append(f"--auto-cast={mode}")
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        row["compile_s"] = time.perf_counter() - start
        row["error"] = f"compile timeout after {args.timeout:.0f} s"
        return row
    row["compile_s"] = time.perf_counter() - start
    if p.returncode != 0:
        row["error"] = f"compile exit {p.returncode}: {_tail(p.stderr)}"
        return row

    expected = np.load(exp)
    rtol, atol = TOLERANCES[mode]
    atol *= max(float(np.abs(expected).max()), 1e-30)
    report = os.path.join(md, "report.json")
    outdir = os.path.join(md, "out")
    for f in (report, os.path.join(outdir, models.OUTPUT_NAME + ".npy")):
        if os.path.exists(f):
            os.remove(f)
    cmd = [os.path.join(args.bin, "nki-run"), nkb,
           "--input", f"{models.INPUT_NAME}={inp}",
           "--expected", f"{models.OUTPUT_NAME}={exp}",
           "--rtol", f"{rtol:g}", "--atol", f"{atol:g}",
           "--output-dir", outdir, f"--report=json={report}"]
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        row["sim_s"] = time.perf_counter() - start
        row["error"] = f"simulation timeout after {args.timeout:.0f} s"
        return row
    row["sim_s"] = time.perf_counter() - start
    got = os.path.join(outdir, models.OUTPUT_NAME + ".npy")
    if os.path.exists(got):
        diff = np.load(got).astype(np.float64) - expected
        row["max_abs_diff"] = float(np.abs(diff).max())
        row["rel_l2"] = float(np.linalg.norm(diff) /
                              max(np.linalg.norm(expected), 1e-30))
    if os.path.exists(report):
        with open(report) as f:
            r = json.load(f)
        for key in (PE_PEAK_KEY[mode], "dma_peak_bytes_per_second",
                    "dma_hbm_bytes", "engine_clocks_hz"):
            if key not in r:
                raise MissingKey(
                    f"nki-run's JSON report ({report}) has no '{key}'; this "
                    "script reads the machine's peaks from the report and "
                    "needs an nki-run that writes "
                    "pe_peak_flops_per_second, pe_peak_flops_per_second_fp32, "
                    "pe_peak_flops_per_second_fp8, "
                    "dma_peak_bytes_per_second, dma_hbm_bytes and "
                    "engine_clocks_hz")
        flops, nbytes = graph_costs(onnx_path)
        floor_s = max(flops / r[PE_PEAK_KEY[mode]],
                      nbytes / r["dma_peak_bytes_per_second"])
        row.update(sim_us=r["total_ps"] / 1e6, floor_us=floor_s * 1e6,
                   pe_util=100 * r["pe_utilisation"],
                   dma_x=r["dma_bytes"] / nbytes,
                   hbm_x=r["dma_hbm_bytes"] / nbytes, flops=flops,
                   bytes=nbytes)
        bound_us = engines_bound_us(onnx_path, r, mode)
        if bound_us is not None:
            row["bound_us"] = bound_us
    if p.returncode != 0:
        mismatch = "out of tolerance" in p.stdout + p.stderr
        why = "mismatch" if mismatch else "nki-run error"
        row["error"] = (f"{why} (exit {p.returncode}): "
                        f"{_tail(p.stdout + chr(10) + p.stderr, 3)}")
    return row


# --- table ------------------------------------------------------------------

def fmt_row(r):
    def f(key, spec):
        return format(r[key], spec) if key in r else "-"
    pct = (f"{100 * r['floor_us'] / r['sim_us']:.2f}"
           if "sim_us" in r and r["sim_us"] > 0 else "-")
    of_bound = (f"{100 * r['bound_us'] / r['sim_us']:.1f}"
                if "bound_us" in r and r.get("sim_us", 0) > 0 else "-")
    if "error" in r:
        match = "FAIL: " + r["error"].replace("|", "\\|")
        if "max_abs_diff" in r:
            match += (f" (max abs diff {r['max_abs_diff']:.3g}, "
                      f"rel L2 {r['rel_l2']:.2g})")
    else:
        match = (f"{r.get('max_abs_diff', float('nan')):.3g} "
                 f"(rel L2 {r.get('rel_l2', float('nan')):.2g})")
    return (f"| {r['model']} | {r['batch']} | {r['mode']} | "
            f"{f('compile_s', '.1f')} | {f('sim_us', '.1f')} | "
            f"{f('floor_us', '.1f')} | {pct} | {f('bound_us', '.1f')} | "
            f"{of_bound} | {f('pe_util', '.2f')} | "
            f"{f('hbm_x', '.2f')} | {f('dma_x', '.2f')} | {match} |")


HEADER = ("| model | batch | mode | compile s | simulated us | floor us | "
          "% of floor | engines bound us | % of bound | PE util % | "
          "HBM bytes / floor bytes (x) | DMA bytes / floor bytes (x) | "
          "match (max abs diff) |\n"
          "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True,
                   help="directory of nki-compile and nki-run")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   choices=sorted(models.ZOO),
                   help="models to run (default: those of --group)")
    p.add_argument("--group", default="bench", choices=models.GROUPS,
                   help="the zoo's group to run without --only: bench (the "
                   f"default: {' '.join(models.BENCH_MODELS)}), attention, "
                   "transformer, ...")
    p.add_argument("--batch", nargs="+", type=int, default=[1, 8])
    p.add_argument("--mode", nargs="+",
                   choices=["f32", "matmul", "fp8", "mxfp8", "mxfp4"],
                   default=["f32", "matmul"])
    p.add_argument("--target", default="trn2", choices=["trn1", "trn2", "trn3"],
                   help="the machine to compile for and simulate")
    p.add_argument("--work", default=None,
                   help="directory for the exported models and binaries "
                   "(default: a new temporary directory); exports found "
                   "there are reused")
    p.add_argument("--fold-bn", action="store_true",
                   help="let torch's exporter fold BatchNorm into the "
                   "convolutions (default: the ONNX graph keeps "
                   "BatchNormalization and nki folds it)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds per compile and per simulation")
    args = p.parse_args()
    if args.work is None:
        import tempfile
        args.work = tempfile.mkdtemp(prefix="nki-models-")
    os.makedirs(args.work, exist_ok=True)
    names = args.only or [n for n, v in models.ZOO.items()
                          if v[2] == args.group]
    rows = []
    print(f"work directory: {args.work}", file=sys.stderr)
    for batch in args.batch:
        for name in names:
            if batch != 1 and models.one_sequence(name):
                print(f"{name}: one sequence, batch 1 only; no batch {batch} "
                      "rows", file=sys.stderr)
                continue
            for mode in args.mode:
                try:
                    r = run_one(args, name, batch, mode)
                except MissingKey as e:
                    sys.exit(f"run.py: {e}")
                rows.append(r)
                print(f"{name} b{batch} {mode}: compile "
                      f"{r.get('compile_s', 0):.1f} s, simulate "
                      f"{r.get('sim_s', 0):.1f} s"
                      + (f", {r['error']}" if "error" in r else ""),
                      file=sys.stderr, flush=True)
    print(HEADER)
    for r in rows:
        print(fmt_row(r))
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
