"""Writes the ONNX models of onehot.test (OneHot, IsInf, IsNaN) and their
numpy references into DIR (argv[1])."""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, I64, I32, B = (TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32,
                  TensorProto.BOOL)
rng = np.random.default_rng(11)


models = Models(out, opset=16, ir_version=8)
save, npy = models.save, models.npy


# OneHot: runtime INT64 indices (negative and out of range ones), constant
# depth, axis 1; float indices along the last axis.
ind = np.array([[0, -1, 4], [7, -6, 2]], np.int64)
vals = np.array([-1.5, 2.5], np.float32)


def one_hot(ind, depth, axis, vals):
    ind = np.trunc(ind).astype(np.int64)
    rank = ind.ndim
    axis = axis + rank + 1 if axis < 0 else axis
    hot = np.where(ind < 0, ind + depth, ind)
    y = np.full(ind.shape[:axis] + (depth,) + ind.shape[axis:], vals[0],
                np.float32)
    for pos in np.ndindex(*ind.shape):
        if 0 <= hot[pos] < depth:
            tgt = pos[:axis] + (hot[pos],) + pos[axis:]
            y[tgt] = vals[1]
    return y


save("onehot", [helper.make_node("OneHot", ["i", "depth", "v"], ["y"],
                                 axis=1)],
     [vi("i", [2, 3], I64), vi("v", [2])], [vi("y", [2, 5, 3])],
     [numpy_helper.from_array(np.array([5], np.int64), "depth")], opset=11)
npy("onehot_i", ind)
npy("onehot_v", vals)
npy("onehot_y", one_hot(ind, 5, 1, vals))
fi = np.array([1.7, -2.2, 3.0, 0.0], np.float32)
save("onehot_f", [helper.make_node("OneHot", ["i", "depth", "v"], ["y"])],
     [vi("i", [4]), vi("v", [2])], [vi("y", [4, 4])],
     [numpy_helper.from_array(np.array(4.0, np.float32), "depth")], opset=11)
npy("onehot_f_i", fi)
npy("onehot_f_y", one_hot(fi, 4, -1, vals))
save("onehot_rt", [helper.make_node("OneHot", ["i", "depth", "v"], ["y"])],
     [vi("i", [4]), vi("depth", []), vi("v", [2])], [vi("y", [4, 4])],
     opset=11)

# IsInf (every detect combination) and IsNaN.
x = np.array([[-1.5, np.inf, -np.inf, np.nan], [0.0, 3e38, -np.inf, 2.0]],
             np.float32)
save("isinf", [helper.make_node("IsInf", ["x"], ["both"]),
               helper.make_node("IsInf", ["x"], ["pos"], detect_negative=0),
               helper.make_node("IsInf", ["x"], ["neg"], detect_positive=0),
               helper.make_node("IsInf", ["x"], ["none"], detect_positive=0,
                                detect_negative=0),
               helper.make_node("IsNaN", ["x"], ["nan"])],
     [vi("x", [2, 4])], [vi(n, [2, 4], B) for n in
                         ["both", "pos", "neg", "none", "nan"]], opset=13)
npy("isinf_x", x)
npy("isinf_both", np.isinf(x))
npy("isinf_pos", np.isposinf(x))
npy("isinf_neg", np.isneginf(x))
npy("isinf_none", np.zeros(x.shape, bool))
npy("isinf_nan", np.isnan(x))
