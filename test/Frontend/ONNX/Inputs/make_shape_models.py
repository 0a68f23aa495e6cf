"""Writes the ONNX models of the shape-folding and data-movement tests into
DIR (argv[1])."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F = TensorProto.FLOAT
I64 = TensorProto.INT64


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0], **attrs)


# A dynamic-batch export pinned by --input-shape: Shape -> Gather -> Mul ->
# Unsqueeze -> Concat -> Reshape, plus Size, Range, ConstantOfShape, Cast,
# Equal/Where, ReduceProd and Expand all on constant integers; nothing but
# the reshape of x survives.
save("shape_chain", [
    node("Shape", ["x"], ["s"]),
    node("Gather", ["s", "zero"], ["n"], axis=0),
    node("Shape", ["x"], ["hw"], start=1),
    node("ReduceProd", ["hw"], ["feat"], keepdims=1),
    node("Unsqueeze", ["n", "axes0"], ["n1"]),
    node("Concat", ["n1", "feat"], ["target"], axis=0),
    node("Size", ["x"], ["size"]),
    node("Cast", ["size"], ["size32"], to=TensorProto.INT32),
    node("Cast", ["size32"], ["size64"], to=I64),
    node("Div", ["size64", "n"], ["per"]),
    node("Equal", ["per", "feat_scalar"], ["eq"]),
    node("Where", ["eq", "target", "bad"], ["target2"]),
    node("Range", ["zero", "two", "one"], ["r"]),
    node("ConstantOfShape", ["r_len"], ["ones"],
         value=numpy_helper.from_array(np.array([1], dtype=np.int64))),
    node("Expand", ["target2", "ones"], ["target3"]),
    node("Slice", ["target3", "zero1", "two1"], ["target4"]),
    node("Reshape", ["x", "target4"], ["y"]),
], [vi("x", ["N", 3, 4])], [vi("y", ["N", 12])],
    [ints("zero", 0), ints("axes0", [0]), ints("feat_scalar", 12),
     ints("bad", [7, 7]), ints("two", 2), ints("one", 1), ints("r_len", [1]),
     ints("zero1", [0]), ints("two1", [2])], opset=15)

# Float shape arithmetic, as resize exports write it: Shape -> Cast(float)
# -> Mul by scales -> Floor -> Cast(int64) -> Concat -> Reshape folds too.
save("float_chain", [
    node("Shape", ["x"], ["s"]),
    node("Cast", ["s"], ["sf"], to=F),
    node("Mul", ["sf", "scales"], ["m"]),
    node("Floor", ["m"], ["fl"]),
    node("Cast", ["fl"], ["si"], to=I64),
    node("Concat", ["si", "minus1"], ["target"], axis=0),
    node("Reshape", ["x", "target"], ["y"]),
], [vi("x", [4, 6])], [vi("y", [4, 3, 2])],
    [numpy_helper.from_array(np.array([1.0, 0.6], dtype=np.float32),
                             "scales"), ints("minus1", [-1])])

# Pads computed as torch's F.pad exports them (a Swin Transformer's window
# padding): (w - size % w) % w per dim, as [begin, end] rows reversed,
# transposed and flattened, then cast to int64.
save("pad_chain", [
    node("Shape", ["x"], ["s"]),
    node("Gather", ["s", "last"], ["size"], axis=0),
    node("Mod", ["size", "win"], ["m"]),
    node("Sub", ["win", "m"], ["r"]),
    node("Mod", ["r", "win"], ["right"]),
    node("Unsqueeze", ["right", "axes0"], ["right1"]),
    node("Concat", ["zero1", "right1", "zeros2"], ["flat"], axis=0),
    node("Reshape", ["flat", "two_by_two"], ["rows"]),
    node("Slice", ["rows", "end0", "neg_big", "axes0", "neg1"], ["rev"]),
    node("Transpose", ["rev"], ["cols"], perm=[1, 0]),
    node("Reshape", ["cols", "minus1"], ["pads"]),
    node("Cast", ["pads"], ["pads64"], to=I64),
    node("Pad", ["x", "pads64"], ["y"]),
], [vi("x", [2, 5])], [vi("y", [2, 8])],
    [ints("last", 1), ints("win", 4), ints("axes0", [0]),
     ints("zero1", [0]), ints("zeros2", [0, 0]), ints("two_by_two", [2, 2]),
     ints("end0", [-1]), ints("neg_big", [-(2 ** 62)]), ints("neg1", [-1]),
     ints("minus1", [-1])])
save("transpose_bad_perm", [
    node("Transpose", ["p"], ["q"], perm=[0, 0]),
    node("Reshape", ["q", "minus1"], ["r"]),
    node("Pad", ["x", "r"], ["y"]),
], [vi("x", [2, 5])], [vi("y", [2, 8])],
    [ints("p", [[0, 0], [0, 3]]), ints("minus1", [-1])])

# Dropout whose training_mode is a BOOL Constant node, as torch writes it
# (a Swin Transformer's attention dropout): true with ratio 0 is the
# identity; true with ratio 0.5 is random.
def bool_const(name, value):
    return helper.make_node("Constant", [], [name], name=name,
                            value=helper.make_tensor(name, TensorProto.BOOL,
                                                     [], [value]))


def ratio_const(name, value):
    return helper.make_node("Constant", [], [name], name=name,
                            value=helper.make_tensor(name, F, [], [value]))


save("dropout_bool_training", [
    ratio_const("r", 0.0), bool_const("train", True),
    node("Dropout", ["x", "r", "train"], ["y"]),
], [vi("x", [2, 5])], [vi("y", [2, 5])])
save("dropout_bool_random", [
    ratio_const("r", 0.5), bool_const("train", True),
    node("Dropout", ["x", "r", "train"], ["y"]),
], [vi("x", [2, 5])], [vi("y", [2, 5])])

# Data movement on float tensors.
save("data_movement", [
    node("Concat", ["a", "a"], ["cat"], axis=-1),
    node("Split", ["cat", "split"], ["s0", "s1"], axis=1),
    node("Slice", ["s1", "starts", "ends", "axes", "steps"], ["sl"]),
    node("Gather", ["a", "idx"], ["g"], axis=1),
    node("Squeeze", ["g", "sq_axes"], ["gs"]),
    node("Unsqueeze", ["gs", "un_axes"], ["gu"]),
    node("Expand", ["gu", "eshape"], ["e"]),
    node("Tile", ["a", "reps"], ["t"]),
    node("Pad", ["a", "pads"], ["pc"], mode="constant"),
    node("Pad", ["a", "pads"], ["pr"], mode="reflect"),
    node("Pad", ["a", "pads"], ["pe"], mode="edge"),
    node("Trilu", ["a"], ["tri"], upper=0),
    node("Cast", ["a"], ["bf"], to=TensorProto.BFLOAT16),
    node("Dropout", ["a"], ["d"]),
], [vi("a", [2, 4])],
    [vi("s0", [2, 4]), vi("sl", [2, 2]), vi("e", [3, 2, 2]), vi("t", [4, 4]),
     vi("pc", [2, 7]), vi("pr", [2, 7]), vi("pe", [2, 7]), vi("tri", [2, 4]),
     vi("bf", [2, 4], TensorProto.BFLOAT16), vi("d", [2, 4])],
    [ints("split", [4, 4]), ints("starts", [-1]), ints("ends", [-100]),
     ints("axes", [1]), ints("steps", [-3]), ints("idx", [[1, 3]]),
     ints("sq_axes", [1]), ints("un_axes", [0]), ints("eshape", [3, 1, 1]), ints("reps", [2, 1]),
     ints("pads", [0, 1, 0, 2])], opset=14)

# DepthToSpace and SpaceToDepth are reshape, transpose, reshape.
save("depth_space", [
    node("DepthToSpace", ["x"], ["d"], blocksize=2, mode="CRD"),
    node("SpaceToDepth", ["d"], ["y"], blocksize=2),
], [vi("x", [1, 8, 2, 3])], [vi("y", [1, 8, 2, 3])])

# Opset 6 forms: Split, Slice, Squeeze and Pad take attributes.
save("old_opset", [
    node("Split", ["x"], ["a", "b"], axis=0, split=[1, 3]),
    node("Slice", ["b"], ["s"], starts=[1], ends=[3], axes=[0]),
    node("Squeeze", ["a"], ["q"], axes=[0]),
    node("Pad", ["s"], ["y"], pads=[0, 1, 0, 1], value=2.5),
], [vi("x", [4, 5])], [vi("q", [5]), vi("y", [2, 7])], opset=6)

# Errors.
save("slice_runtime_starts", [node("Slice", ["x", "st", "en"], ["y"])],
     [vi("x", [4]), vi("st", [1], I64)], [vi("y", [2])], [ints("en", [3])])
save("gather_out_of_range", [node("Gather", ["x", "i"], ["y"])],
     [vi("x", [4, 2])], [vi("y", [1, 2])], [ints("i", [4])])
save("split_mismatch", [node("Split", ["x", "sp"], ["a", "b"])],
     [vi("x", [4])], [vi("a", [1]), vi("b", [2])], [ints("sp", [1, 2])])
save("pad_wrap", [node("Pad", ["x", "p"], ["y"], mode="wrap")],
     [vi("x", [4])], [vi("y", [6])], [ints("p", [1, 1])], opset=19)
save("range_runtime", [node("Range", ["a", "b", "c"], ["y"])],
     [vi("a", []), vi("b", []), vi("c", [])], [vi("y", [3])])
save("fold_div_zero", [
    node("Div", ["p", "z"], ["q"]),
    node("Reshape", ["x", "q"], ["y"]),
], [vi("x", [4])], [vi("y", [4])], [ints("p", [4]), ints("z", [0])])
save("squeeze_not_one", [node("Squeeze", ["x", "ax"], ["y"])],
     [vi("x", [2, 3])], [vi("y", [3])], [ints("ax", [0])])
save("concat_mismatch", [node("Concat", ["x", "w"], ["y"], axis=0)],
     [vi("x", [2, 3]), vi("w", [2, 4])], [vi("y", [4, 3])])

# Inputs and numpy references for running data_movement, depth_space and
# old_opset end to end.
rng = np.random.default_rng(1)
a = rng.standard_normal((2, 4)).astype(np.float32)
np.save(os.path.join(out, "a.npy"), a)
cat = np.concatenate([a, a], axis=1)
s1 = cat[:, 4:]
g = a[:, [[1, 3]]]
bf = ((a.view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1))
      & 0xFFFF0000).view(np.float32)
refs = {
    "s0": cat[:, :4], "sl": s1[:, -1::-3], "e": np.broadcast_to(
        g.reshape(2, 2)[None], (3, 2, 2)),
    "t": np.tile(a, (2, 1)),
    "pc": np.pad(a, ((0, 0), (1, 2))),
    "pr": np.pad(a, ((0, 0), (1, 2)), mode="reflect"),
    "pe": np.pad(a, ((0, 0), (1, 2)), mode="edge"),
    "tri": np.tril(a), "bf": bf, "d": a,
}
for i, name in enumerate(["s0", "sl", "e", "t", "pc", "pr", "pe", "tri", "bf",
                          "d"]):
    np.save(os.path.join(out, "data_movement_out%d.npy" % i),
            np.ascontiguousarray(refs[name]))

x = rng.standard_normal((1, 8, 2, 3)).astype(np.float32)
np.save(os.path.join(out, "x8.npy"), x)
# CRD DepthToSpace, then SpaceToDepth (which is DCR's inverse).
d = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
y = d.reshape(1, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3)
np.save(os.path.join(out, "depth_space_out0.npy"), y)

x = rng.standard_normal((4, 5)).astype(np.float32)
np.save(os.path.join(out, "x45.npy"), x)
np.save(os.path.join(out, "old_opset_out0.npy"), x[0])
np.save(os.path.join(out, "old_opset_out1.npy"),
        np.pad(x[2:4], ((0, 0), (1, 1)), constant_values=2.5))

x = rng.standard_normal((2, 3, 4)).astype(np.float32)
np.save(os.path.join(out, "x234.npy"), x)
np.save(os.path.join(out, "shape_chain_out0.npy"), x.reshape(2, 12))

# Gather with runtime indices (negative ones wrap).
save("gather_runtime", [node("Gather", ["x", "i"], ["y"], axis=1)],
     [vi("x", [3, 4]), vi("i", [2], I64)], [vi("y", [3, 2])])
x = rng.standard_normal((3, 4)).astype(np.float32)
i = np.array([-1, 1], dtype=np.int64)
np.save(os.path.join(out, "gx.npy"), x)
np.save(os.path.join(out, "gi.npy"), i)
np.save(os.path.join(out, "gather_runtime_out0.npy"), np.ascontiguousarray(x[:, i]))

x = np.arange(10, dtype=np.float32).reshape(2, 5)
np.save(os.path.join(out, "x25.npy"), x)
np.save(os.path.join(out, "pad_chain_out0.npy"), np.pad(x, [(0, 0), (0, 3)]))
