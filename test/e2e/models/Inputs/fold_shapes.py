"""Writes a graph whose MatMul input onnx's shape inference cannot size (a
Reshape to Concat(Slice(Shape(x)), [-1]), as torch exports flatten(2)) and
prints the shapes bench/models' folding finds and the FLOPs run.py counts.
x [1, 4, 2, 6] -> [1, 4, 12] -> transposed [1, 12, 4] -> times B [4, 8]:
12 x 8 x 4 = 384 multiply-accumulates, 768 FLOPs."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
sys.path.insert(0, os.path.join(root, "bench", "models"))
import bounds  # noqa: E402
import run  # noqa: E402

nodes = [
    helper.make_node("Shape", ["x"], ["s"]),
    helper.make_node("Constant", [], ["zero"],
                     value=numpy_helper.from_array(np.array([0], np.int64))),
    helper.make_node("Constant", [], ["two"],
                     value=numpy_helper.from_array(np.array([2], np.int64))),
    helper.make_node("Slice", ["s", "zero", "two"], ["head"]),
    helper.make_node("Constant", [], ["rest"],
                     value=numpy_helper.from_array(np.array([-1], np.int64))),
    helper.make_node("Concat", ["head", "rest"], ["shape"], axis=0),
    helper.make_node("Reshape", ["x", "shape"], ["flat"]),
    helper.make_node("Transpose", ["flat"], ["seq"], perm=[0, 2, 1]),
    helper.make_node("MatMul", ["seq", "b"], ["y"]),
]
graph = helper.make_graph(
    nodes, "fold",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [numpy_helper.from_array(np.ones((4, 8), np.float32), "b")])
path = os.path.join(sys.argv[1], "fold.onnx")
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          path)
plain = onnx.shape_inference.infer_shapes(onnx.load(path)).graph
print("inferred seq:", [[d.dim_value for d in vi.type.tensor_type.shape.dim]
                        for vi in plain.value_info if vi.name == "seq"])
_, shapes = bounds.load(path)
print("folded seq:", shapes["seq"], "y:", shapes["y"])
print("flops:", run.graph_costs(path)[0])
