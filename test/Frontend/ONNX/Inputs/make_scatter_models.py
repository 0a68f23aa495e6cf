"""Writes the ONNX models of scatter.test (ScatterElements, Scatter,
ScatterND) and their numpy references into DIR (argv[1]). The references are plain loops over the updates in index order,
so for duplicate indices without a reduction the last update wins."""
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


COMBINE = {"none": lambda o, u: u, "add": lambda o, u: o + u,
           "mul": lambda o, u: o * u, "max": max, "min": min}


def scatter_elements(data, idx, upd, axis, reduction):
    y = data.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos] % data.shape[axis]
        tgt = tuple(tgt)
        y[tgt] = COMBINE[reduction](y[tgt], upd[pos])
    return y


# ScatterElements along the middle axis of a 3-D tensor: runtime indices
# with duplicates and negative values, every reduction.
data = rng.standard_normal((2, 5, 3)).astype(np.float32)
idx = rng.integers(-5, 5, (2, 4, 3)).astype(np.int64)
upd = rng.standard_normal((2, 4, 3)).astype(np.float32)
npy("se_data", data)
npy("se_idx", idx)
npy("se_upd", upd)
for red in ["none", "add", "mul", "max", "min"]:
    kw = {} if red == "none" else {"reduction": red}
    save("se_" + red, [helper.make_node("ScatterElements",
                                        ["data", "idx", "upd"], ["y"],
                                        axis=1, **kw)],
         [vi("data", [2, 5, 3]), vi("idx", [2, 4, 3], I64),
          vi("upd", [2, 4, 3])], [vi("y", [2, 5, 3])],
         opset=18 if red in ("max", "min") else 16)
    npy("se_" + red + "_y", scatter_elements(data, idx, upd, 1, red))

# Indices smaller than data outside the axis: only the leading block of
# data is scattered into, with add.
dp = rng.standard_normal((3, 4)).astype(np.float32)
ip = np.array([[2, -3], [2, 0]], np.int64)
up = rng.standard_normal((2, 2)).astype(np.float32)
save("se_partial", [helper.make_node("ScatterElements", ["d", "i", "u"],
                                     ["y"], axis=0, reduction="add")],
     [vi("d", [3, 4]), vi("i", [2, 2], I64), vi("u", [2, 2])],
     [vi("y", [3, 4])])
npy("se_partial_d", dp)
npy("se_partial_i", ip)
npy("se_partial_u", up)
npy("se_partial_y", scatter_elements(dp, ip, up, 0, "add"))

# Scatter (opset 10) with constant indices along the last axis, on INT32
# data.
di = rng.integers(-100, 100, (3, 4)).astype(np.int32)
ci = np.array([[3, 0], [1, 1], [-1, 2]], np.int64)
ui = rng.integers(-100, 100, (3, 2)).astype(np.int32)
save("scatter10", [helper.make_node("Scatter", ["d", "i", "u"], ["y"],
                                    axis=1)],
     [vi("d", [3, 4], I32), vi("u", [3, 2], I32)], [vi("y", [3, 4], I32)],
     [numpy_helper.from_array(ci, "i")], opset=10)
npy("scatter10_d", di)
npy("scatter10_u", ui)
npy("scatter10_y", scatter_elements(di, ci, ui, 1, "none"))


def scatter_nd(data, idx, upd, reduction):
    y = data.copy()
    for pos in np.ndindex(*idx.shape[:-1]):
        tgt = tuple(int(i) % data.shape[d] for d, i in enumerate(idx[pos]))
        y[tgt] = COMBINE[reduction](y[tgt], upd[pos])
    return y


# ScatterND: index pairs into a [4, 3, 2] tensor (slices of 2), with a
# duplicate and a negative component.
data = rng.standard_normal((4, 3, 2)).astype(np.float32)
idx = np.array([[[0, 1], [3, -1]], [[-4, 1], [2, 0]], [[1, 2], [3, 2]]],
               np.int64)
upd = rng.standard_normal((3, 2, 2)).astype(np.float32)
npy("snd_data", data)
npy("snd_idx", idx)
npy("snd_upd", upd)
for red in ["none", "add", "mul"]:
    kw = {} if red == "none" else {"reduction": red}
    save("snd_" + red, [helper.make_node("ScatterND", ["data", "idx", "upd"],
                                         ["y"], **kw)],
         [vi("data", [4, 3, 2]), vi("idx", [3, 2, 2], I64),
          vi("upd", [3, 2, 2])], [vi("y", [4, 3, 2])])
    npy("snd_" + red + "_y", scatter_nd(data, idx, upd, red))
# Full index tuples (single elements): indices [5, 2] into [3, 4].
d2 = rng.standard_normal((3, 4)).astype(np.float32)
i2 = np.array([[0, 0], [2, 3], [1, -1], [0, 0], [-1, 0]], np.int64)
u2 = rng.standard_normal((5,)).astype(np.float32)
save("snd_elem", [helper.make_node("ScatterND", ["data", "idx", "upd"],
                                   ["y"])],
     [vi("data", [3, 4]), vi("idx", [5, 2], I64), vi("upd", [5])],
     [vi("y", [3, 4])], opset=11)
npy("snd_elem_data", d2)
npy("snd_elem_idx", i2)
npy("snd_elem_upd", u2)
npy("snd_elem_y", scatter_nd(d2, i2, u2, "none"))

# Errors: indices that differ from data outside the axis; float indices.
save("se_bad_shape", [helper.make_node("ScatterElements", ["d", "i", "u"],
                                       ["y"], axis=0)],
     [vi("d", [3, 4]), vi("i", [2, 5], I64), vi("u", [2, 5])],
     [vi("y", [3, 4])])
save("snd_bad", [helper.make_node("ScatterND", ["d", "i", "u"], ["y"])],
     [vi("d", [3, 4]), vi("i", [2, 3], I64), vi("u", [2])],
     [vi("y", [3, 4])])
