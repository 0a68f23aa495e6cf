"""Writes the ONNX models of einsum.test and their numpy.einsum references
into DIR (argv[1]): model NAME.onnx takes NAME_x0.pb, NAME_x1.pb, ... and
gives NAME_y.pb."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F, I32 = TensorProto.FLOAT, TensorProto.INT32


def save(name, eq, shapes, out_shape, t=F):
    names = ["x%d" % i for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=eq)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, t, list(s))
         for n, s in zip(names, shapes)],
        [helper.make_tensor_value_info("y", t, list(out_shape))])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 7
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


rng = np.random.default_rng(11)
cases = [
    ("e_bmm", "bij, bjk -> bik", [(2, 3, 4), (2, 4, 5)]),
    # Implicit output ("...ik"); the second operand has no ellipsis dims.
    ("e_ellipsis", "...ij,jk", [(2, 3, 4, 5), (5, 6)]),
    ("e_diag", "...ii->...i", [(3, 4, 4)]),
    ("e_trace", "ii", [(5, 5)]),
    ("e_chain", "ij,jk,kl->li", [(2, 3), (3, 4), (4, 5)]),
    ("e_outer", "i,j", [(3,), (4,)]),
    # b is summed in the first operand alone; a is a batch label kept.
    ("e_sum_batch", "abc,acd->da", [(2, 3, 4), (2, 4, 5)]),
    ("e_implicit_transpose", "ba", [(3, 4)]),
    ("e_sum_all", "ijk->", [(2, 3, 4)]),
]
for name, eq, shapes in cases:
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    y = np.einsum(eq.replace(" ", ""), *[x.astype(np.float64) for x in xs])
    y = np.asarray(y, np.float32)
    save(name, eq, shapes, y.shape)
    for i, x in enumerate(xs):
        pb("%s_x%d" % (name, i), x)
    pb(name + "_y", y)

# Integers are summed in f32 and converted back.
a = rng.integers(-50, 50, size=(3, 4)).astype(np.int32)
b = rng.integers(-50, 50, size=(4, 2)).astype(np.int32)
save("e_int", "ij,jk->ik", [(3, 4), (4, 2)], (3, 2), I32)
pb("e_int_x0", a)
pb("e_int_x1", b)
pb("e_int_y", np.einsum("ij,jk->ik", a, b).astype(np.int32))

# Errors.
save("e_bad_char", "ij,j#k->ik", [(3, 4), (4, 2)], (3, 2))
save("e_bad_terms", "ij->ij", [(3, 4), (4, 2)], (3, 4))
save("e_bad_rank", "ijk->i", [(3, 4)], (3,))
save("e_bad_out", "ij->k", [(3, 4)], (3,))
save("e_bad_size", "ij,jk->ik", [(3, 4), (5, 2)], (3, 2))
save("e_bad_bcast", "ij,ij->ij", [(3, 4), (1, 4)], (3, 4))
