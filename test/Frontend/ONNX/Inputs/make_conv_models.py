"""Writes the convolution and pooling models of conv.test into DIR
(argv[1]), with inputs and numpy references for the ones run end to end."""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F = TensorProto.FLOAT
rng = np.random.default_rng(0)


models = Models(out, opset=13, ir_version=8)
save, npy = models.save, models.npy


def one(name, op, ins, out_shape, inits=(), outputs=("y",), **attrs):
    """One node over graph inputs `ins` ([(name, shape)]) and initializers."""
    names = [n for n, _ in ins] + [i.name for i in inits]
    save(name, [helper.make_node(op, names, list(outputs), name=name, **attrs)],
         [vi(n, s) for n, s in ins], [vi(o, out_shape) for o in outputs],
         inits)


def const(name, shape):
    return numpy_helper.from_array(
        rng.uniform(-1, 1, size=shape).astype(np.float32), name)


# Conv with bias, pads, strides: pad, linalg.conv_2d_nchw_fchw, bias add.
one("conv", "Conv", [("x", [1, 2, 5, 5])], [1, 3, 3, 3],
    [const("w", [3, 2, 3, 3]), const("b", [3])], pads=[1, 1, 1, 1],
    strides=[2, 2])
# Grouped 2-D and grouped 1-D (lifted to 2-D).
one("conv_group", "Conv", [("x", [1, 4, 5, 5]), ("w", [6, 2, 3, 3])],
    [1, 6, 3, 3], group=2)
one("conv1d_group", "Conv", [("x", [2, 4, 7]), ("w", [4, 2, 3])],
    [2, 4, 5], group=2)
# SAME_LOWER puts the odd padding first.
one("conv_same", "Conv", [("x", [1, 1, 5, 5]), ("w", [1, 1, 2, 2])],
    [1, 1, 5, 5], auto_pad="SAME_LOWER")
# ConvTranspose: zero-inserted input, flipped kernel.
one("convt", "ConvTranspose", [("x", [1, 1, 3, 3]), ("w", [1, 2, 3, 3])],
    [1, 2, 8, 6], strides=[3, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
# Pooling.
one("maxpool", "MaxPool", [("x", [1, 2, 6, 6])], [1, 2, 3, 3],
    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
one("maxpool_ceil", "MaxPool", [("x", [1, 1, 4, 4])], [1, 1, 2, 2],
    kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
one("avgpool", "AveragePool", [("x", [1, 1, 4, 4])], [1, 1, 4, 4],
    kernel_shape=[3, 3], pads=[1, 1, 1, 1])
one("avgpool_incl", "AveragePool", [("x", [1, 1, 4, 4])], [1, 1, 4, 4],
    kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)
one("maxpool3d", "MaxPool", [("x", [1, 1, 4, 4, 4])], [1, 1, 2, 2, 2],
    kernel_shape=[2, 2, 2], strides=[2, 2, 2])

# Errors.
one("maxpool_indices", "MaxPool", [("x", [1, 1, 4, 4])], [1, 1, 2, 2],
    outputs=("y", "i"), kernel_shape=[2, 2], strides=[2, 2])
one("conv_bad_group", "Conv", [("x", [1, 4, 5, 5]), ("w", [6, 3, 3, 3])],
    [1, 6, 3, 3], group=2)
one("conv_bad_strides", "Conv", [("x", [1, 1, 5, 5]), ("w", [1, 1, 3, 3])],
    [1, 1, 3, 3], strides=[1, 0])
one("conv_bad_autopad", "Conv", [("x", [1, 1, 5, 5]), ("w", [1, 1, 3, 3])],
    [1, 1, 3, 3], auto_pad="SAME")
one("pool_too_big", "MaxPool", [("x", [1, 1, 2, 2])], [1, 1, 1, 1],
    kernel_shape=[3, 3])
one("conv_rank2", "Conv", [("x", [4, 5]), ("w", [1, 1])], [4, 5])
