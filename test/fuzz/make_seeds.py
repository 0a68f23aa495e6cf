#!/usr/bin/env python3
"""Writes the seed corpora of test/fuzz/corpus (committed; rerun when the
formats change):

    /usr/bin/python3 test/fuzz/make_seeds.py BUILD_DIR

onnx-import: small ONNX conformance models (libonnx-testdata), prefixed
with the target's pin count (0, or 1 pin on the first input);
nkb-decode, simulate: nki-sim-example's programs and small compiled ones,
each as a file and as a payload for the target to frame (first byte 1);
nisa-parse: the cases of test/Dialect/NISA and test/Dialect/NKI;
compile: fixed pseudo-random bytes (the generator reads any bytes).
"""

import hashlib
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

import onnx

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ONNX_DATA = pathlib.Path("/usr/share/libonnx-testdata/data/node")


def write(target, data):
    out = HERE / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    (out / name).write_bytes(data)


def onnx_seeds():
    models = sorted(ONNX_DATA.glob("*/model.onnx"),
                    key=lambda p: (p.stat().st_size, p.parent.name))
    ops = set()
    for path in models:  # the smallest model of each op, 60 ops
        op = path.parent.name.split("_")[1]
        if op in ops or len(ops) >= 60:
            continue
        ops.add(op)
        data = path.read_bytes()
        write("onnx-import", b"\x00" + data)
        graph_input = onnx.load_from_string(data).graph.input[0]
        dims = [d.dim_value or 1 for d in
                graph_input.type.tensor_type.shape.dim]
        pin = f"{graph_input.name}:{'x'.join(map(str, dims))}".encode()
        if len(ops) % 4 == 0:  # a quarter pin their first input
            write("onnx-import", b"\x01" + pin + b"\x00" + data)


def program_seeds(build):
    bin_dir = pathlib.Path(build) / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        examples = [["elementwise"], ["race"], ["deadlock"], ["uninit"],
                    ["oob"], ["accumulate"], ["simple", "16"],
                    ["matmul", "128", "64", "128", "bf16"],
                    ["matmul", "128", "128", "128", "f8e4m3", "trn3"]]
        for i, args in enumerate(examples):
            path = tmp / f"e{i}.nkb"
            subprocess.run([bin_dir / "nki-sim-example", *args, "-o", path],
                           check=True)
            data = path.read_bytes()
            framed = b"\x01" + data[20:]  # the payload, for the targets to frame
            for target in ["nkb-decode", "simulate"]:
                write(target, data)
                write(target, framed)
        for src in [ROOT / "test/install/Inputs/add.mlir",
                    ROOT / "examples/tosa-mlp.mlir"]:
            path = tmp / "c.nkb"
            subprocess.run([bin_dir / "nki-compile", src, "-o", path],
                           check=True)
            data = path.read_bytes()
            for target in ["nkb-decode", "simulate"]:
                write(target, data)
                write(target, b"\x01" + data[20:])


def nisa_seeds():
    for folder in ["test/Dialect/NISA", "test/Dialect/NKI"]:
        for path in sorted((ROOT / folder).glob("*.mlir")):
            for case in path.read_text().split("// -----"):
                lines = [l for l in case.splitlines()
                         if not l.lstrip().startswith("//")]
                text = "\n".join(lines).strip() + "\n"
                if len(text) > 1:
                    write("nisa-parse", text.encode())


def compile_seeds():
    rng = random.Random(15)
    for _ in range(16):
        write("compile", bytes(rng.randrange(256) for _ in range(64)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for target in ["onnx-import", "nkb-decode", "simulate", "nisa-parse",
                   "compile"]:
        shutil.rmtree(HERE / "corpus" / target, ignore_errors=True)
        crashes = HERE / "crashes" / target
        crashes.mkdir(parents=True, exist_ok=True)
        (crashes / ".gitkeep").touch()
    onnx_seeds()
    program_seeds(sys.argv[1])
    nisa_seeds()
    compile_seeds()


if __name__ == "__main__":
    main()
