"""Writes the ONNX models of math.test into DIR (argv[1])."""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F = TensorProto.FLOAT


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


# Clip with a constant lower bound and a runtime upper bound.
lo = numpy_helper.from_array(np.array(-1.0, dtype=np.float32), "lo")
save("clip", [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
     [vi("x", [2, 3]), vi("hi", [])], [vi("y", [2, 3])], [lo])

# Clip of opset 6 reads attributes.
save("clip6", [helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0)],
     [vi("x", [4])], [vi("y", [4])], opset=6)

# Round (halves to even), Floor and Atan on the upstream math ops.
save("round", [helper.make_node("Round", ["x"], ["r"]),
               helper.make_node("Floor", ["r"], ["f"]),
               helper.make_node("Atan", ["f"], ["y"])],
     [vi("x", [6])], [vi("y", [6])])

# A Clip bound that is not a scalar.
save("clip_bad", [helper.make_node("Clip", ["x", "lo"], ["y"])],
     [vi("x", [4]), vi("lo", [2])], [vi("y", [4])])

# Gelu with an unknown approximation (opset 20 op in an opset 20 model).
save("gelu_bad", [helper.make_node("Gelu", ["x"], ["y"], approximate="fast")],
     [vi("x", [4])], [vi("y", [4])], opset=20)
