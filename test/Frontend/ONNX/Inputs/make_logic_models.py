"""Writes the integer, boolean and comparison models of logic.test into DIR
(argv[1]), with inputs (.npy and ONNX .pb) and numpy references for the ones
run end to end."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, I64, I32, B = (TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32,
                  TensorProto.BOOL)


models = Models(out, opset=13, ir_version=8)
save, npy = models.save, models.npy


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


# Comparisons and Where: z = where(x < y, x, y), plus the mask itself.
save("where", [helper.make_node("Less", ["x", "y"], ["m"]),
               helper.make_node("Where", ["m", "x", "y"], ["z"])],
     [vi("x", [3, 4]), vi("y", [4])], [vi("z", [3, 4]), vi("m", [3, 4], B)])

# INT64 arithmetic carried as i32: Add, Mul, Div (truncating), Mod (fmod 0).
save("int_arith", [helper.make_node("Add", ["a", "b"], ["s"]),
                   helper.make_node("Mul", ["s", "b"], ["p"]),
                   helper.make_node("Div", ["p", "c"], ["q"]),
                   helper.make_node("Mod", ["q", "c"], ["r"])],
     [vi("a", [2, 5], I64), vi("b", [2, 5], I64), vi("c", [5], I64)],
     [vi("q", [2, 5], I64), vi("r", [2, 5], I64)])

# Logic on BOOL.
save("logic", [helper.make_node("And", ["p", "q"], ["a"]),
               helper.make_node("Or", ["a", "r"], ["o"]),
               helper.make_node("Xor", ["o", "q"], ["x"]),
               helper.make_node("Not", ["x"], ["n"])],
     [vi("p", [8], B), vi("q", [8], B), vi("r", [8], B)], [vi("n", [8], B)])

# Cast: float -> INT64 truncates, INT64 -> float, float -> BOOL.
save("cast", [helper.make_node("Cast", ["x"], ["i"], to=I64),
              helper.make_node("Cast", ["i"], ["f"], to=F),
              helper.make_node("Cast", ["x"], ["b"], to=B)],
     [vi("x", [6])], [vi("i", [6], I64), vi("f", [6]), vi("b", [6], B)])

# ArgMax over a middle axis, ties resolved to the last index.
save("argmax", [helper.make_node("ArgMax", ["x"], ["y"], axis=1, keepdims=0,
                                 select_last_index=1)],
     [vi("x", [2, 3, 4])], [vi("y", [2, 4], I64)])

# Errors.
save("and_float", [helper.make_node("And", ["x", "x"], ["y"])],
     [vi("x", [2])], [vi("y", [2], B)])
save("mod_float", [helper.make_node("Mod", ["x", "x"], ["y"])],
     [vi("x", [2])], [vi("y", [2])])
save("string_in", [helper.make_node("Identity", ["x"], ["y"])],
     [vi("x", [2], TensorProto.STRING)], [vi("y", [2], TensorProto.STRING)])

# Inputs and references.
rng = np.random.default_rng(0)
x = rng.standard_normal((3, 4)).astype(np.float32)
y = rng.standard_normal(4).astype(np.float32)
npy("where_x", x)
npy("where_y", y)
npy("where_z", np.where(x < y, x, y))
npy("where_m", x < y)

a = rng.integers(-1000, 1000, (2, 5)).astype(np.int64)
b = rng.integers(-1000, 1000, (2, 5)).astype(np.int64)
c = np.array([7, -7, 3, -3, 1000], dtype=np.int64)
pb("int_a", a)
pb("int_b", b)
pb("int_c", c)
p = (a + b) * b
q = np.trunc(p / c).astype(np.int64)
pb("int_q", q)
npy("int_r", np.mod(q, c))
big = a.copy()
big[1, 2] = 1 << 40
pb("int_big", big)

bp, bq, br = (rng.integers(0, 2, 8).astype(bool) for _ in range(3))
npy("logic_p", bp)
npy("logic_q", bq)
npy("logic_r", br)
npy("logic_n", ~(((bp & bq) | br) ^ bq))

xc = np.array([-2.5, -1.0, -0.5, 0.0, 0.75, 3.99], dtype=np.float32)
npy("cast_x", xc)
npy("cast_i", np.trunc(xc).astype(np.int64))
npy("cast_f", np.trunc(xc).astype(np.float32))
npy("cast_b", xc != 0)

xa = rng.integers(0, 3, (2, 3, 4)).astype(np.float32)  # many ties
npy("argmax_x", xa)
last = 2 - np.argmax(xa[:, ::-1, :], axis=1)
npy("argmax_y", last.astype(np.int64))
