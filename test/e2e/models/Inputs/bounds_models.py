"""Writes the ONNX models of bounds.test into argv[1]: a 1x1 convolution
of 128 channels, a 3x3 depthwise one followed by a sigmoid, both on a
[1, 128, 64, 64] input, and the two one after the other (its nodes
named, for the per-layer table of a trace)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SHAPE = [1, 128, 64, 64]


def save(path, nodes, *weights):
    graph = helper.make_graph(
        nodes, os.path.basename(path),
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, SHAPE)],
        [numpy_helper.from_array(w, name) for name, w in weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


out = sys.argv[1]
save(os.path.join(out, "dense.onnx"),
     [helper.make_node("Conv", ["input", "w"], ["output"])],
     ("w", np.ones((128, 128, 1, 1), np.float32)))
save(os.path.join(out, "depthwise.onnx"),
     [helper.make_node("Conv", ["input", "w"], ["y"], group=128,
                       pads=[1, 1, 1, 1]),
      helper.make_node("Sigmoid", ["y"], ["output"])],
     ("w", np.ones((128, 1, 3, 3), np.float32)))
save(os.path.join(out, "chain.onnx"),
     [helper.make_node("Conv", ["input", "w1"], ["x"], name="dense"),
      helper.make_node("Conv", ["x", "w2"], ["y"], group=128,
                       pads=[1, 1, 1, 1], name="depthwise"),
      helper.make_node("Sigmoid", ["y"], ["output"], name="sigmoid")],
     ("w1", np.ones((128, 128, 1, 1), np.float32)),
     ("w2", np.ones((128, 1, 3, 3), np.float32)))
