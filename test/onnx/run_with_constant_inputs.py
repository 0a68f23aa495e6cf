#!/usr/bin/python3
"""Runs ONNX conformance cases whose shape-determining inputs are graph
inputs with those inputs turned into initializers holding the test's own
values, and compares with the test's expected outputs.

ONNX's Resize and Upsample cases feed scales, sizes and roi as graph
inputs (OneHot its depth, TopK its K), which a static-shape compiler cannot
take at run time (they fail in the status list for that reason); this
checks the lowering itself against ONNX's expected data (every output).
Usage: run_with_constant_inputs.py REGEX TMPDIR, with nki-compile and
nki-run on PATH; every graph input but the first becomes an initializer. Prints `PASS case` or `FAIL case: reason` per case and exits 1
on any failure."""
import glob
import os
import re
import shutil
import subprocess
import sys

import onnx

DATA = "/usr/share/libonnx-testdata/data/node"


def run(case_dir, tmp):
    name = os.path.basename(case_dir)
    m = onnx.load(os.path.join(case_dir, "model.onnx"))
    data = os.path.join(case_dir, "test_data_set_0")
    inputs = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                    key=lambda f: int(re.findall(r"\d+", f)[-1]))
    keep = m.graph.input[0]
    for vi, f in list(zip(m.graph.input, inputs))[1:]:
        t = onnx.load_tensor(f)
        t.name = vi.name
        m.graph.initializer.append(t)
    del m.graph.input[1:]
    model = os.path.join(tmp, name + ".onnx")
    onnx.save(m, model)
    nkb = os.path.join(tmp, name + ".nkb")
    p = subprocess.run(["nki-compile", model, "-o", nkb],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return "compile: " + p.stderr.strip().splitlines()[0]
    outputs = sorted(glob.glob(os.path.join(data, "output_*.pb")),
                     key=lambda f: int(re.findall(r"\d+", f)[-1]))
    args = ["nki-run", nkb, "--input", inputs[0]]
    for f in outputs:
        args += ["--expected", f]
    p = subprocess.run(args + ["--rtol", "1e-3", "--atol", "1e-5"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return "run: " + (p.stderr + p.stdout).strip().splitlines()[-1]
    return None


def main():
    pattern, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    failed = 0
    cases = sorted(d for d in glob.glob(os.path.join(DATA, "test_*"))
                   if re.search(pattern, os.path.basename(d)))
    for d in cases:
        err = run(d, tmp)
        failed += err is not None
        print("PASS " + os.path.basename(d) if err is None else
              "FAIL %s: %s" % (os.path.basename(d), err))
    print("%d of %d pass" % (len(cases) - failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
