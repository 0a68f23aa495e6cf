"""Writes the ONNX models of quantize.test and their numpy references into
DIR (argv[1]). The references follow the ONNX operator spec with numpy
integer arithmetic (independent of the compiler): round half to even
(np.rint), saturation to the zero point's type."""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi

out = sys.argv[1]
F, U8, I8, I32 = (TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8,
                  TensorProto.INT32)
rng = np.random.default_rng(7)


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


def quant(v, lo, hi, dtype):
    return np.clip(np.rint(v), lo, hi).astype(dtype)


# QuantizeLinear per tensor (UINT8): halves round to even, both ends
# saturate; scale and zero point are initializers.
x = np.array([[0.25, 0.75, 1.25, -0.25, -0.75, 300.0],
              [-300.0, 1.75, 2.25, 0.0, 10.5, -10.5]], np.float32)
s, z = np.float32(0.5), np.uint8(10)
save("q_tensor", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
     [vi("x", [2, 6])], [vi("y", [2, 6], U8)],
     [numpy_helper.from_array(np.array(s), "s"),
      numpy_helper.from_array(np.array(z), "z")])
npy("q_tensor_x", x)
npy("q_tensor_y", quant(x / s + np.float32(z), 0, 255, np.uint8))

# QuantizeLinear per axis (INT8, axis 1), scale and zero point as inputs.
x = (rng.standard_normal((2, 3, 4)) * 100).astype(np.float32)
s = np.array([0.5, 1.0, 2.0], np.float32)
z = np.array([-3, 0, 5], np.int8)
save("q_axis", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"],
                                 axis=1)],
     [vi("x", [2, 3, 4]), vi("s", [3]), vi("z", [3], I8)],
     [vi("y", [2, 3, 4], I8)])
npy("q_axis_x", x)
npy("q_axis_s", s)
npy("q_axis_z", z)
npy("q_axis_y", quant(np.rint(x / s.reshape(1, 3, 1)) +
                      z.reshape(1, 3, 1).astype(np.float32), -128, 127,
                      np.int8))

# DequantizeLinear per axis 0 (UINT8) and per tensor (INT8).
xu = rng.integers(0, 256, (3, 4)).astype(np.uint8)
su = np.array([0.1, 0.2, 0.3], np.float32)
zu = np.array([128, 0, 255], np.uint8)
xi = rng.integers(-128, 128, (3, 4)).astype(np.int8)
save("dq", [helper.make_node("DequantizeLinear", ["xu", "su", "zu"], ["yu"],
                             axis=0),
            helper.make_node("DequantizeLinear", ["xi", "si", "zi"], ["yi"])],
     [vi("xu", [3, 4], U8), vi("su", [3]), vi("zu", [3], U8),
      vi("xi", [3, 4], I8), vi("si", []), vi("zi", [], I8)],
     [vi("yu", [3, 4]), vi("yi", [3, 4])])
for n, a in [("xu", xu), ("su", su), ("zu", zu), ("xi", xi),
             ("si", np.array(0.25, np.float32)), ("zi", np.array(-7, np.int8))]:
    npy("dq_" + n, a)
npy("dq_yu", ((xu.astype(np.int32) - zu.reshape(3, 1)).astype(np.float32) *
              su.reshape(3, 1)))
npy("dq_yi", (xi.astype(np.int32) + 7).astype(np.float32) * np.float32(0.25))

# DynamicQuantizeLinear.
x = rng.standard_normal((3, 5)).astype(np.float32) * 3
save("dyn", [helper.make_node("DynamicQuantizeLinear", ["x"],
                              ["y", "ys", "yz"])],
     [vi("x", [3, 5])], [vi("y", [3, 5], U8), vi("ys", []), vi("yz", [], U8)],
     opset=11)
lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
ys = np.float32((np.float32(hi) - np.float32(lo)) / np.float32(255))
yz = quant(np.float32(-np.float32(lo)) / ys, 0, 255, np.uint8)
npy("dyn_x", x)
npy("dyn_y", quant(np.rint(x / ys) + np.float32(yz), 0, 255, np.uint8))
npy("dyn_ys", np.array(ys, np.float32))
npy("dyn_yz", np.array(yz, np.uint8))

# MatMulInteger: UINT8 A with a per-row zero point, INT8 B with a per-column
# one; the INT32 result is exact.
a = rng.integers(0, 256, (4, 6)).astype(np.uint8)
b = rng.integers(-128, 128, (6, 3)).astype(np.int8)
az = rng.integers(0, 256, (4,)).astype(np.uint8)
bz = rng.integers(-128, 128, (3,)).astype(np.int8)
save("mmi", [helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])],
     [vi("a", [4, 6], U8), vi("b", [6, 3], I8), vi("az", [4], U8),
      vi("bz", [3], I8)], [vi("y", [4, 3], I32)], opset=10)
for n, v in [("a", a), ("b", b), ("az", az), ("bz", bz)]:
    npy("mmi_" + n, v)
npy("mmi_y", (a.astype(np.int32) - az.astype(np.int32).reshape(4, 1)) @
    (b.astype(np.int32) - bz.astype(np.int32)))


def conv2d(x, w, pads, strides):
    """Plain numpy NCHW convolution of int32 arrays (group 1)."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h - kh) // strides[0] + 1, (wd - kw) // strides[1] + 1
    y = np.zeros((n, f, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * strides[0]:i * strides[0] + kh,
                      j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.einsum("nchw,fchw->nf", patch, w)
    return y


# ConvInteger: pads and strides, a per-output-channel weight zero point.
x = rng.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8)
w = rng.integers(-128, 128, (3, 2, 3, 3)).astype(np.int8)
xz = np.uint8(100)
wz = np.array([-2, 0, 3], np.int8)
save("convi", [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"],
                                pads=[1, 1, 1, 1], strides=[2, 2])],
     [vi("x", [1, 2, 5, 5], U8), vi("w", [3, 2, 3, 3], I8)],
     [vi("y", [1, 3, 3, 3], I32)],
     [numpy_helper.from_array(np.array(xz), "xz"),
      numpy_helper.from_array(wz, "wz")], opset=10)
npy("convi_x", x)
npy("convi_w", w)
npy("convi_y", conv2d(x.astype(np.int64) - 100,
                      w.astype(np.int64) - wz.reshape(3, 1, 1, 1),
                      [1, 1, 1, 1], [2, 2]).astype(np.int32))


def requant(acc, mult, zp, lo, hi, dtype):
    return quant(np.rint(acc.astype(np.float32) * mult) + np.float32(zp), lo,
                 hi, dtype)


# QLinearMatMul (UINT8, per tensor), batched.
a = rng.integers(0, 256, (2, 3, 5)).astype(np.uint8)
b = rng.integers(0, 256, (2, 5, 4)).astype(np.uint8)
sa, sb, sy = np.float32(0.02), np.float32(0.015), np.float32(0.3)
za, zb, zy = np.uint8(120), np.uint8(130), np.uint8(128)
save("qmm", [helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb",
                                                "zb", "sy", "zy"], ["y"])],
     [vi("a", [2, 3, 5], U8), vi("b", [2, 5, 4], U8)],
     [vi("y", [2, 3, 4], U8)],
     [numpy_helper.from_array(np.array(v), n) for n, v in
      [("sa", sa), ("za", za), ("sb", sb), ("zb", zb), ("sy", sy),
       ("zy", zy)]], opset=10)
npy("qmm_a", a)
npy("qmm_b", b)
acc = (a.astype(np.int32) - 120) @ (b.astype(np.int32) - 130)
npy("qmm_y", requant(acc, np.float32(sa * sb / sy), zy, 0, 255, np.uint8))

# QLinearConv (INT8 output): per-channel weight scale and zero point, INT32
# bias.
x = rng.integers(0, 256, (1, 2, 4, 4)).astype(np.uint8)
w = rng.integers(-128, 128, (2, 2, 2, 2)).astype(np.int8)
sx, sy = np.float32(0.05), np.float32(0.5)
sw = np.array([0.01, 0.02], np.float32)
zx, zy = np.uint8(128), np.int8(-5)
zw = np.array([0, 1], np.int8)
bias = np.array([100, -2000], np.int32)
save("qconv", [helper.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw",
                                                "zw", "sy", "zy", "bias"],
                                ["y"])],
     [vi("x", [1, 2, 4, 4], U8), vi("w", [2, 2, 2, 2], I8)],
     [vi("y", [1, 2, 3, 3], I8)],
     [numpy_helper.from_array(np.array(v), n) for n, v in
      [("sx", sx), ("zx", zx), ("sw", sw), ("zw", zw), ("sy", sy), ("zy", zy),
       ("bias", bias)]], opset=10)
npy("qconv_x", x)
npy("qconv_w", w)
acc = conv2d(x.astype(np.int64) - 128,
             w.astype(np.int64) - zw.reshape(2, 1, 1, 1), [0] * 4, [1, 1])
acc = acc + bias.reshape(1, 2, 1, 1)
mult = (sx * sw / sy).astype(np.float32).reshape(1, 2, 1, 1)
npy("qconv_y", requant(acc, mult, zy, -128, 127, np.int8))

# Errors: a per-axis scale of the wrong length; a float MatMulInteger.
save("q_bad_axis", [helper.make_node("QuantizeLinear", ["x", "s"], ["y"],
                                     axis=0)],
     [vi("x", [2, 3]), vi("s", [3])], [vi("y", [2, 3], U8)])
save("mmi_float", [helper.make_node("MatMulInteger", ["a", "b"], ["y"])],
     [vi("a", [2, 3]), vi("b", [3, 2], U8)],
     [vi("y", [2, 2], I32)], opset=10)
