#!/usr/bin/python3
"""Compile time against program size: seconds per phase and per 1,000
instructions, and peak memory, for generated programs of about 10 k, 100 k
and 1 M instructions.

    compile_time.py --bin BUILD/bin [--sizes 10000,100000,1000000]
                    [--only conv matmul] [--work DIR] [--models]

Two program families, each a stack of identical layers (the layer count is
scaled to reach each size):
  conv    3x3 convolutions, 64 -> 64 channels on 1x64x56x56, zero padding
          1, bias and relu (a CNN body);
  matmul  [512, 768] x [768, 768] matmuls with bias and GELU (the
          projections of a transformer layer), a weight per 8 layers.
Each program compiles once with `nki-compile --report`; the phase times,
instruction counts and peak resident memory come from the report. Linear
scaling shows as a constant us/instruction column. The last column is the
peak above that of compiling a program of a few instructions (start-up:
the pages of libLLVM and libMLIR the loader touches, about 100 MiB).
Prints a Markdown table.

--models compiles, instead, the models of bench/models/models.py (the
model benchmark's and the OCR-style classifier, recogniser and detector),
exported with torch into --work once, end to end from ONNX at batch 1.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "e2e"))
import gen  # noqa: E402  (the e2e tests' MLIR building blocks)

PHASES = ["graph", "tiled", "planned", "scheduled", "nisa", "binary"]


def conv_stack(layers):
    shape, c = (1, 64, 56, 56), 64
    args = [("x", gen.ttype(shape, "f32"))]
    body, prev = "", "x"
    for i in range(layers):
        args += [(f"w{i}", gen.ttype((c, c, 3, 3), "f32")),
                 (f"b{i}", gen.ttype((c,), "f32"))]
        pad, padded = gen.pad_mlir(f"p{i}", prev, shape, 1, "zero_f32")
        out = gen.ttype(shape, "f32")
        body += pad + f"""
  %y{i}_e = tensor.empty() : {out}
  %y{i}_z = linalg.fill ins(%zero_f32 : f32) outs(%y{i}_e : {out}) -> {out}
  %y{i} = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%p{i}, %w{i} : {gen.ttype(padded, "f32")}, {gen.ttype((c, c, 3, 3), "f32")}) outs(%y{i}_z : {out}) -> {out}"""
        body += gen.elementwise_mlir(
            f"r{i}", [f"y{i}", f"b{i}"], [shape, (c,)], shape, """
    %s = arith.addf %a0, %a1 : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32""", maps=[[0, 1, 2, 3], [1]])
        prev = f"r{i}"
    return gen.func(args, gen.ttype(shape, "f32"), body, prev)


def matmul_stack(layers):
    # Each weight and bias serves a group of layers (as ALBERT shares them):
    # 3,000 distinct 768x768 f32 weights would not fit the 12 GiB of HBM,
    # which holds every intermediate tensor as well (HbmPlan.cpp).
    m, d, group = 512, 768, 8
    args = [("x", gen.ttype((m, d), "f32"))]
    body, prev = "", "x"
    for i in range(layers):
        w, b = f"w{i // group}", f"b{i // group}"
        if i % group == 0:
            args += [(w, gen.ttype((d, d), "f32")), (b, gen.ttype((d,), "f32"))]
        body += gen.matmul_mlir(f"h{i}", prev, w, m, d, d, "f32")
        body += gen.elementwise_mlir(f"g{i}", [f"h{i}", b],
                                     [(m, d), (d,)], (m, d), gen.GELU_BODY)
        prev = f"g{i}"
    return gen.func(args, gen.ttype((m, d), "f32"), body, prev)


FAMILIES = {"conv": conv_stack, "matmul": matmul_stack}

# An elementwise add of one 128 x 128 tile: nki-compile's start-up.
TINY = """func.func @main(%a: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = tosa.add %a, %a : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
"""


def compile_program(binpath, mlir, work, name, src=None):
    if src is None:
        src = os.path.join(work, name + ".mlir")
        with open(src, "w") as f:
            f.write(mlir)
    cmd = [os.path.join(binpath, "nki-compile"), src, "-o",
           os.path.join(work, name + ".nkb"), "--report"]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err,
                              text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"{name}: nki-compile failed: {err.readline()[:300]}")
    out = proc.stdout
    phases = {p: float(re.search(rf"^\s+{p}\s+([0-9.]+)", out, re.M)[1])
              for p in PHASES}
    insts = sum(int(n) for n in re.findall(r"^\s+instructions .*?(\d+)$",
                                           out, re.M))
    # nki-compile's own peak (VmHWM): a child's ru_maxrss would include
    # this Python process, which it was forked from.
    rss = float(re.search(r"peak memory: ([0-9.]+) MiB", out)[1]) * 2**20
    return wall, phases, insts, rss


def compile_models(binpath, work):
    sys.path.insert(0, os.path.join(HERE, "models"))
    import models  # noqa: E402
    import onnx  # noqa: E402
    print("| model | ONNX nodes | instructions | " + " | ".join(PHASES) +
          " | wall s | us / instruction | peak MiB |")
    print("|---|---:|---:|" + "---:|" * len(PHASES) + "---:|---:|---:|")
    for name in models.COMPILE_MODELS + models.BENCH_MODELS:
        d = os.path.join(work, "models", name)
        path = os.path.join(d, "model.onnx")
        if not os.path.exists(path):
            models.export(name, 1, d)
        nodes = len(onnx.load(path, load_external_data=False).graph.node)
        wall, phases, insts, rss = compile_program(binpath, None, d, "model",
                                                   src=path)
        print(f"| {name} | {nodes} | {insts} | " +
              " | ".join(f"{phases[p]:.2f}" for p in PHASES) +
              f" | {wall:.2f} | {1e6 * wall / insts:.0f} | "
              f"{rss / 2**20:.0f} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True, help="directory of nki-compile")
    p.add_argument("--sizes", default="10000,100000,1000000",
                   help="target instruction counts, comma separated")
    p.add_argument("--only", nargs="+", choices=sorted(FAMILIES),
                   help="program families to run (default: all)")
    p.add_argument("--work", default="/tmp/nki-compile-time",
                   help="directory for the generated programs")
    p.add_argument("--models", action="store_true",
                   help="compile the model zoo's models instead")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.models:
        return compile_models(args.bin, args.work)
    sizes = [int(s) for s in args.sizes.split(",")]

    # Start-up's share of the peak: a program of a few instructions (the
    # pages of libLLVM and libMLIR the loader touches, the context).
    _, _, tiny_insts, startup = compile_program(args.bin, TINY, args.work,
                                                "tiny")
    print(f"start-up peak (a {tiny_insts}-instruction program): "
          f"{startup / 2**20:.0f} MiB\n")
    print("| program | layers | instructions | " + " | ".join(PHASES) +
          " | wall s | us / instruction | peak MiB | KB / instruction |"
          " KB / instruction above start-up |")
    print("|---|---:|---:|" + "---:|" * len(PHASES) +
          "---:|---:|---:|---:|---:|")
    for family in args.only or sorted(FAMILIES):
        make = FAMILIES[family]
        # Instructions per layer from programs of two and six layers (the
        # difference leaves out the fixed part), then layers scaled.
        counts = [compile_program(args.bin, make(n), args.work,
                                  f"{family}-probe{n}")[2] for n in (2, 6)]
        per_layer = (counts[1] - counts[0]) / 4
        fixed = counts[0] - 2 * per_layer
        for size in sizes:
            layers = max(1, round((size - fixed) / per_layer))
            wall, phases, insts, rss = compile_program(
                args.bin, make(layers), args.work, f"{family}-{layers}")
            print(f"| {family} | {layers} | {insts} | " +
                  " | ".join(f"{phases[p]:.2f}" for p in PHASES) +
                  f" | {wall:.2f} | {1e6 * wall / insts:.0f} | "
                  f"{rss / 2**20:.0f} | {rss / 1024 / insts:.1f} | "
                  f"{(rss - startup) / 1024 / insts:.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
