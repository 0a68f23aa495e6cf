"""Writes the ONNX models of cumsum.test and their numpy references into DIR
(argv[1])."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


models = Models(out, opset=14, ir_version=7)
save, npy = models.save, models.npy


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


def axis_init(v, shape=()):
    return numpy_helper.from_array(np.array(v, np.int64).reshape(shape), "axis")


def cumsum(x, axis, exclusive=False, reverse=False):
    """ONNX CumSum by numpy: flip, cumulative sum, shift, flip back."""
    y = np.flip(x, axis) if reverse else x
    s = np.cumsum(y, axis=axis, dtype=np.float64)
    if exclusive:
        s = s - y
    s = np.flip(s, axis) if reverse else s
    return s.astype(x.dtype)


rng = np.random.default_rng(5)
cases = [
    # name, shape, axis, exclusive, reverse
    ("cs_mid", (3, 5, 4), 1, 1, 0),      # a middle axis: moved last and back
    ("cs_first", (6, 4), 0, 0, 1),       # nothing before the axis
    ("cs_last", (2, 3, 7), -1, 1, 1),    # nothing after the axis
]
for name, shape, axis, excl, rev in cases:
    x = rng.standard_normal(shape).astype(np.float32)
    save(name, helper.make_node("CumSum", ["x", "axis"], ["y"],
                                exclusive=excl, reverse=rev),
         [vi("x", list(shape))], [vi("y", list(shape))], [axis_init(axis)])
    pb(name + "_x", x)
    pb(name + "_y", cumsum(x, axis, excl, rev))

# A runtime axis (a graph input, as in ONNX's tests): every axis is summed
# and the one named is selected.
x = rng.standard_normal((4, 5)).astype(np.float32)
save("cs_runtime", helper.make_node("CumSum", ["x", "axis"], ["y"], reverse=1),
     [vi("x", [4, 5]), vi("axis", [], I32)], [vi("y", [4, 5])])
pb("cs_runtime_x", x)
for a in (1, -2):
    pb("cs_runtime_axis%d" % (a + 2), np.array(a, np.int32))
    pb("cs_runtime_y%d" % (a + 2), cumsum(x, a, reverse=True))

# Integers are summed in f32 and converted back.
xi = rng.integers(-1000, 1000, size=(3, 4)).astype(np.int32)
save("cs_int", helper.make_node("CumSum", ["x", "axis"], ["y"]),
     [vi("x", [3, 4], I32)], [vi("y", [3, 4], I32)], [axis_init(1)])
pb("cs_int_x", xi)
pb("cs_int_y", np.cumsum(xi, axis=1).astype(np.int32))

# Errors.
save("cs_bad_axis", helper.make_node("CumSum", ["x", "axis"], ["y"]),
     [vi("x", [3, 4])], [vi("y", [3, 4])], [axis_init(2)])
save("cs_axis_vector", helper.make_node("CumSum", ["x", "axis"], ["y"]),
     [vi("x", [3, 4])], [vi("y", [3, 4])], [axis_init([0, 1], (2,))])
