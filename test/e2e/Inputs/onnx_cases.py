"""The driver of the ONNX case scripts here (convtranspose_cases.py,
upsampled_conv_cases.py): each case is built into DIR/NAME (model.onnx,
expected.npy and its inputs) by the script's `build`, compiled with
nki-compile and simulated with nki-run against expected.npy (output `y`).
Prints `PASS name` or `FAIL name: reason` per case and `N of M pass`."""
import os
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper


def save_case(root, name, nodes, inputs, inits, expected, arrays):
    """Writes ROOT/NAME/model.onnx (one graph of `nodes`, output `y` of
    expected's shape, opset 17), expected.npy and one NAME.npy per entry
    of `arrays` ({input name: array}); returns (case dir, nki-run input
    options)."""
    graph = helper.make_graph(
        nodes, name, inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       list(expected.shape))], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    np.save(os.path.join(d, "expected.npy"), expected)
    run = []
    for key, a in arrays.items():
        np.save(os.path.join(d, f"{key}.npy"), a)
        run += ["--input", f"{key}=" + os.path.join(d, f"{key}.npy")]
    return d, run


def run_cases(cases, build, root, seed, rtol, atol):
    """build(name, case, rng, root) -> (case dir, nki-run input options);
    returns the exit status (1 on any failure)."""
    rng = np.random.default_rng(seed)
    passed = 0
    for name, case in cases.items():
        d, run = build(name, case, rng, root)
        nkb = os.path.join(d, "model.nkb")
        p = subprocess.run(["nki-compile", os.path.join(d, "model.onnx"),
                            "-o", nkb], capture_output=True, text=True)
        if p.returncode:
            print(f"FAIL {name}: compile: {p.stderr.strip()}")
            continue
        p = subprocess.run(["nki-run", nkb] + run +
                           ["--expected", "y=" + os.path.join(d,
                                                              "expected.npy"),
                            "--rtol", rtol, "--atol", atol],
                           capture_output=True, text=True)
        if p.returncode:
            print(f"FAIL {name}: run: {(p.stdout + p.stderr).strip()}")
            continue
        print(f"PASS {name}")
        passed += 1
    print(f"{passed} of {len(cases)} pass")
    return 0 if passed == len(cases) else 1
