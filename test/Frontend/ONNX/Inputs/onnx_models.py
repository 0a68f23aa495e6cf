"""What the make_*_models.py scripts share: writing one-graph ONNX models
and numpy arrays into the output directory.

    models = Models(sys.argv[1], opset=13, ir_version=7)
    save, npy = models.save, models.npy
    save("add", helper.make_node("Add", ["a", "b"], ["y"]),
         [vi("a", [2]), vi("b", [2])], [vi("y", [2])])
"""
import os

import numpy as np
from onnx import TensorProto, helper


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, list(shape))


class Models:
    def __init__(self, out, opset=13, ir_version=7):
        os.makedirs(out, exist_ok=True)
        self.out, self.opset, self.ir_version = out, opset, ir_version

    def save(self, name, nodes, inputs, outputs, inits=(), opset=None):
        """Writes NAME.onnx: one graph of `nodes` (a node or a list)."""
        if not isinstance(nodes, (list, tuple)):
            nodes = [nodes]
        graph = helper.make_graph(list(nodes), name, inputs, outputs,
                                  initializer=list(inits))
        model = helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", opset or self.opset)])
        model.ir_version = self.ir_version
        with open(os.path.join(self.out, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
        return model

    def npy(self, name, a):
        np.save(os.path.join(self.out, name + ".npy"), a)
