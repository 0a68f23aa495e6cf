"""Writes DIR/model.onnx, DIR/x.npy and DIR/expected.npy for
shared-filter.test: a 3x3 convolution (128 -> 16 channels, zero padding 1,
a constant filter as an initializer) and a ReLU over four 96 x 96 images,
with numpy's float64 reference."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from np_conv import conv3x3  # noqa: E402

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(61)
x = rng.uniform(-1, 1, (4, 128, 96, 96)).astype(np.float32)
w = rng.uniform(-0.1, 0.1, (16, 128, 3, 3)).astype(np.float32)
y = np.maximum(conv3x3(x.astype(np.float64), w.astype(np.float64)), 0)
nodes = [
    helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3],
                     pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["y"]),
]
graph = helper.make_graph(
    nodes, "shared_filter",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
    [numpy_helper.from_array(w, "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(model, os.path.join(d, "model.onnx"))
np.save(os.path.join(d, "x.npy"), x)
np.save(os.path.join(d, "expected.npy"), y.astype(np.float32))
