"""Writes the reduction, softmax and normalization models of reduce.test and
norm.test into DIR (argv[1]), with inputs and numpy references for the ones
run end to end."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F = TensorProto.FLOAT


models = Models(out, opset=13, ir_version=8)
save, npy = models.save, models.npy


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def one(name, op, shape, out_shape, inits=(), opset=13, extra_inputs=(),
        **attrs):
    ins = ["x"] + [i.name for i in inits] + [i.name for i in extra_inputs]
    save(name, [helper.make_node(op, ins, ["y"], name=name, **attrs)],
         [vi("x", shape)] + list(extra_inputs), [vi("y", out_shape)], inits,
         opset)


# ReduceSum from opset 13 takes its axes as an input; non-trailing axes are
# transposed last.
one("sum_axes", "ReduceSum", [2, 3, 4], [3], [ints("axes", [0, 2])],
    keepdims=0)
one("mean_last", "ReduceMean", [2, 3, 4], [2, 3, 1], axes=[-1])
one("prod", "ReduceProd", [2, 5], [2, 1], axes=[1])
one("lse", "ReduceLogSumExp", [3, 4], [3], axes=[1], keepdims=0)
one("l2_all", "ReduceL2", [3, 4], [1, 1])
one("noop", "ReduceSum", [3, 4], [3, 4], [ints("axes", [])],
    noop_with_empty_axes=1)
one("gap", "GlobalAveragePool", [1, 2, 3, 3], [1, 2, 1, 1])
# Errors.
one("bad_axis", "ReduceMax", [3, 4], [3], axes=[2])
one("dup_axis", "ReduceMin", [3, 4], [3], axes=[1, -1])
one("float_axes", "ReduceSum", [3, 4], [3], extra_inputs=[vi("a", [1])])

# Softmax family on a middle axis (opset 13: that axis alone).
one("logsoftmax", "LogSoftmax", [2, 3, 4], [2, 3, 4], axis=1)
one("hardmax", "Hardmax", [3, 4], [3, 4])
one("softmax_11", "Softmax", [2, 3, 4], [2, 3, 4], opset=11, axis=1)

# Normalizations. The LayerNormalization outputs are named as nki-run names
# unnamed results, so --expected NAME=FILE finds them either way.
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "w")
bias = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
save("layernorm", [helper.make_node(
    "LayerNormalization", ["x", "w", "b"], ["out0", "out1", "out2"],
    name="ln", axis=-1, epsilon=1e-3)],
    [vi("x", [2, 3, 4])],
    [vi("out0", [2, 3, 4]), vi("out1", [2, 3, 1]), vi("out2", [2, 3, 1])],
    [w, bias], opset=17)
one("ln_axis", "LayerNormalization", [2, 3, 4], [2, 3, 4], [w], opset=17,
    axis=3)
one("ln_stash", "LayerNormalization", [2, 3, 4], [2, 3, 4], [w], opset=17,
    stash_type=11)
one("ln_scale", "LayerNormalization", [2, 3, 4], [2, 3, 4],
    [numpy_helper.from_array(np.ones(3, np.float32), "w3")], opset=17)
c = [numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), n)
     for n in ("s", "bb", "m")]
v = numpy_helper.from_array(rng.random(3).astype(np.float32) + 0.5, "v")
one("batchnorm", "BatchNormalization", [2, 3, 4, 5], [2, 3, 4, 5], c + [v],
    opset=15, epsilon=1e-3)
save("bn_train", [helper.make_node(
    "BatchNormalization", ["x", "s", "bb", "m", "v"], ["y", "rm", "rv"],
    name="bn", training_mode=1, momentum=0.8)],
    [vi("x", [2, 3, 4, 5])],
    [vi("y", [2, 3, 4, 5]), vi("rm", [3]), vi("rv", [3])], c + [v], opset=15)
one("bn_shape", "BatchNormalization", [2, 4, 5], [2, 4, 5], c + [v], opset=15)
one("instnorm", "InstanceNormalization", [2, 3, 4, 5], [2, 3, 4, 5], c[:2],
    epsilon=1e-3)
one("mvn", "MeanVarianceNormalization", [2, 3, 4, 5], [2, 3, 4, 5])
one("lrn", "LRN", [2, 5, 3, 3], [2, 5, 3, 3], size=3, alpha=1e-2, beta=0.75,
    bias=2.0)

# Inputs and numpy references for the models run end to end.
x = rng.standard_normal((2, 3, 4)).astype(np.float32)
np.save(os.path.join(out, "x234.npy"), x)
np.save(os.path.join(out, "sum_axes_y.npy"), x.sum(axis=(0, 2)))
s = x - x.max(axis=1, keepdims=True)
np.save(os.path.join(out, "logsoftmax_y.npy"),
        s - np.log(np.exp(s).sum(axis=1, keepdims=True)))
mean = x.mean(axis=-1, keepdims=True)
inv = 1 / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-3)
np.save(os.path.join(out, "layernorm_y.npy"),
        (x - mean) * inv * numpy_helper.to_array(w) + numpy_helper.to_array(bias))
np.save(os.path.join(out, "layernorm_mean.npy"), mean)
np.save(os.path.join(out, "layernorm_inv.npy"), inv)
