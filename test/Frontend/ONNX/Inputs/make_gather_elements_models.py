"""Writes the ONNX models of gather-elements.test and their numpy references
into DIR (argv[1])."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, I64 = TensorProto.FLOAT, TensorProto.INT64


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


# Along a middle axis, fewer indices than the axis has, negative ones too.
rng = np.random.default_rng(3)
x = rng.standard_normal((3, 6, 4)).astype(np.float32)
i = rng.integers(-6, 6, size=(3, 2, 4)).astype(np.int64)
save("ge", helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1),
     [vi("x", [3, 6, 4]), vi("i", [3, 2, 4], I64)], [vi("y", [3, 2, 4])])
pb("x", x)
pb("i", i)
pb("y", np.take_along_axis(x, np.where(i < 0, i + 6, i), axis=1))
save("ge_bad", helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1),
     [vi("x", [3, 6, 4]), vi("i", [2, 2, 4], I64)], [vi("y", [2, 2, 4])])
