"""Writes the ONNX models of loss.test and their numpy references into DIR
(argv[1])."""
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


# NLL over [N, C, D] with class weights and an ignored class, mean-reduced;
# SCE of the same scores without weights, per element, with log_prob.
rng = np.random.default_rng(7)
n, c, d, ignore = 3, 5, 4, 2
x = rng.standard_normal((n, c, d)).astype(np.float32)
t = rng.integers(0, c, size=(n, d)).astype(np.int64)
t[0, 0] = ignore
w = rng.uniform(0.5, 2, size=c).astype(np.float32)
save("nll", [helper.make_node("NegativeLogLikelihoodLoss", ["x", "t", "w"],
                              ["loss"], ignore_index=ignore)],
     [vi("x", [n, c, d]), vi("t", [n, d], I64)], [vi("loss", [])],
     [numpy_helper.from_array(w, "w")])
save("sce", [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"],
                              ["loss", "logp"], reduction="none")],
     [vi("x", [n, c, d]), vi("t", [n, d], I64)],
     [vi("loss", [n, d]), vi("logp", [n, c, d])])
save("bad_reduction", [helper.make_node("NegativeLogLikelihoodLoss",
                                        ["x", "t"], ["loss"],
                                        reduction="max")],
     [vi("x", [n, c, d]), vi("t", [n, d], I64)], [vi("loss", [])])
save("bad_target", [helper.make_node("NegativeLogLikelihoodLoss",
                                     ["x", "t"], ["loss"])],
     [vi("x", [n, c, d]), vi("t", [n, c], I64)], [vi("loss", [])])

xd = x.astype(np.float64)
picked = np.take_along_axis(xd, t[:, None, :], axis=1)[:, 0, :]
keep = t != ignore
wt = np.where(keep, w[t], 0.0)
pb("x", x)
pb("t", t)
pb("nll_loss", np.array((-picked * wt).sum() / wt.sum(), dtype=np.float32))
logp = xd - xd.max(axis=1, keepdims=True)
logp = logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))
pb("sce_loss",
   (-np.take_along_axis(logp, t[:, None, :], axis=1)[:, 0, :]).astype(
       np.float32))
pb("sce_logp", logp.astype(np.float32))
