"""Writes the ONNX models of topk.test and their numpy references (a stable
argsort, so equal values keep index order) into DIR (argv[1])."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, I64 = TensorProto.FLOAT, TensorProto.INT64
rng = np.random.default_rng(5)


models = Models(out, opset=11, ir_version=7)
save, npy = models.save, models.npy


def topk(x, k, axis, largest):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


# Small integers so that ties occur; the middle axis, largest and smallest.
x = rng.integers(-4, 4, (2, 6, 3)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
for name, largest, axis in [("largest", 1, 1), ("smallest", 0, -2)]:
    save("topk_" + name,
         helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis,
                          largest=largest),
         [vi("x", [2, 6, 3])], [vi("v", [2, 4, 3]), vi("i", [2, 4, 3], I64)],
         [numpy_helper.from_array(np.array([4], np.int64), "k")])
    v, i = topk(x, 4, axis, largest)
    np.save(os.path.join(out, name + "_v.npy"), v)
    np.save(os.path.join(out, name + "_i.npy"), i)
# K as a graph input: an error.
save("topk_runtime_k", helper.make_node("TopK", ["x", "k"], ["v", "i"]),
     [vi("x", [2, 6]), vi("k", [1], I64)], [vi("v", [2, 3]),
                                            vi("i", [2, 3], I64)])
