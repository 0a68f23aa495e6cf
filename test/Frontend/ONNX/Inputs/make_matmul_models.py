"""Writes the ONNX models of matmul.test and their numpy references into DIR
(argv[1]): model NAME.onnx takes NAME_a.pb (unless A is an initializer) and
NAME_b.pb and gives NAME_y.pb."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F = TensorProto.FLOAT


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


def save(name, a_shape, b_shape, a_constant=False):
    rng = np.random.default_rng(len(name))
    a = rng.uniform(-1, 1, a_shape).astype(np.float32)
    b = rng.uniform(-1, 1, b_shape).astype(np.float32)
    y = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(
        np.float32)
    inputs = [] if a_constant else [
        helper.make_tensor_value_info("a", F, list(a_shape))]
    inputs.append(helper.make_tensor_value_info("b", F, list(b_shape)))
    inits = [numpy_helper.from_array(a, "a")] if a_constant else []
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])], name, inputs,
        [helper.make_tensor_value_info("y", F, list(y.shape))], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())
    if not a_constant:
        pb(name + "_a", a)
    pb(name + "_b", b)
    pb(name + "_y", y)


# A 2-D A times a batch of Bs (numpy broadcasts A over the batch dims).
save("mm_shared_a", (5, 6), (2, 3, 6, 4))
# A constant A of 200 rows (two M blocks) over 140 columns (two K blocks)
# times four Bs of 96 columns.
save("mm_shared_const", (200, 140), (4, 140, 96), a_constant=True)
