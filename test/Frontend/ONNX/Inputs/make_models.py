"""Writes the small ONNX models the importer tests read into DIR (argv[1])."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F = TensorProto.FLOAT


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


# Broadcasting elementwise ops.
save("bcast", [
    helper.make_node("Add", ["x", "b"], ["s"], name="add0"),
    helper.make_node("Mul", ["s", "c"], ["m"], name="mul0"),
    helper.make_node("Relu", ["m"], ["y"], name="relu0"),
], [vi("x", [2, 3]), vi("b", [3]), vi("c", [2, 1])], [vi("y", [2, 3])])

# An MLP: initializers, MatMul, Gemm (transB, alpha, beta), Softmax.
rng = np.random.default_rng(0)
w1 = numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "w1")
w2 = numpy_helper.from_array(rng.standard_normal((5, 8)).astype(np.float32), "w2")
b2 = numpy_helper.from_array(np.arange(5, dtype=np.float32), "b2")
save("mlp", [
    helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm"),
    helper.make_node("Tanh", ["h"], ["t"], name="tanh"),
    helper.make_node("Gemm", ["t", "w2", "b2"], ["g"], name="gemm",
                     transB=1, alpha=0.5, beta=2.0),
    helper.make_node("Softmax", ["g"], ["y"], name="sm"),
], [vi("x", [3, 4])], [vi("y", [3, 5])], [w1, w2, b2])

# Reshape by a constant shape (0 copies a dim, -1 is inferred), Transpose,
# batched MatMul, Pow by a constant.
shape = numpy_helper.from_array(np.array([0, -1, 4], dtype=np.int64), "shape")
two = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")
save("shapes", [
    helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
    helper.make_node("Transpose", ["r"], ["rt"], name="tr", perm=[0, 2, 1]),
    helper.make_node("MatMul", ["r", "rt"], ["mm"], name="bmm"),
    helper.make_node("Pow", ["mm", "two"], ["y"], name="pow"),
], [vi("x", [2, 12])], [vi("y", [2, 3, 3])], [shape, two])

# Two unsupported op types (one of them twice) and one unknown domain.
save("unsupported", [
    helper.make_node("Det", ["x"], ["d1"], name="det1"),
    helper.make_node("Det", ["d1"], ["d2"], name="det2"),
    helper.make_node("Unique", ["d2"], ["l"], name="uniq"),
    helper.make_node("Gelu", ["l"], ["y"], name="gelu", domain="com.example"),
], [vi("x", [4, 4])], [vi("y", [1])])

# Activations with attributes, Flatten and a variadic Mean.
save("acts", [
    helper.make_node("LeakyRelu", ["x"], ["l"], name="lrelu", alpha=0.25),
    helper.make_node("Flatten", ["l"], ["f"], name="flat", axis=2),
    helper.make_node("Mean", ["f", "f", "f"], ["y"], name="mean"),
], [vi("x", [2, 3, 4])], [vi("y", [6, 4])])

# A dynamic batch dimension.
save("dynamic", [helper.make_node("Exp", ["x"], ["y"], name="exp")],
     [vi("x", ["N", 4])], [vi("y", ["N", 4])])

# Truncated and garbage files.
data = open(os.path.join(out, "mlp.onnx"), "rb").read()
with open(os.path.join(out, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
with open(os.path.join(out, "garbage.onnx"), "wb") as f:
    f.write(b"\xff\xff\xff\xff not a protobuf")

# Inputs and numpy references for running the MLP end to end.
x = rng.standard_normal((3, 4)).astype(np.float32)
g = 0.5 * np.tanh(x @ numpy_helper.to_array(w1)) @ numpy_helper.to_array(w2).T \
    + 2.0 * numpy_helper.to_array(b2)
e = np.exp(g - g.max(axis=1, keepdims=True))
np.save(os.path.join(out, "mlp_x.npy"), x)
np.save(os.path.join(out, "mlp_y.npy"), e / e.sum(axis=1, keepdims=True))

# Models that parse but that ONNX's checker rejects: a node with too few
# inputs, and nodes out of topological order.
save("arity", [helper.make_node("Add", ["x"], ["y"], name="add1")],
     [vi("x", [2])], [vi("y", [2])])
save("unsorted", [
    helper.make_node("Relu", ["h"], ["y"], name="second"),
    helper.make_node("Relu", ["x"], ["h"], name="first"),
], [vi("x", [2])], [vi("y", [2])])

# A float initializer whose raw data is shorter than its shape says.
short = TensorProto(name="w", data_type=F, dims=[4],
                    raw_data=np.ones(3, np.float32).tobytes())
save("short_raw", [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
     [vi("x", [4])], [vi("y", [4])], inits=[short])
