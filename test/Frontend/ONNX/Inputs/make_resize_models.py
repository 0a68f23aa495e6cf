"""Writes the ONNX models of resize.test and their references into DIR
(argv[1]). The references come from ONNX's own numpy implementation of
Resize (onnx.backend.test.case.node.resize.interpolate_nd), which evaluates
every output element on its own, not per axis as the importer does."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models, vi
from onnx.backend.test.case.node.resize import (cubic_coeffs, interpolate_nd,
                                                linear_coeffs, nearest_coeffs)

out = sys.argv[1]
F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64


models = Models(out, opset=13, ir_version=7)
save, npy = models.save, models.npy


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


def f32(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def i64(name, v):
    return numpy_helper.from_array(np.array(v, np.int64), name)


rng = np.random.default_rng(7)


def case(name, shape, attrs, coeffs, scales=None, sizes=None, roi=None,
         ref_kwargs=None, t=F, dtype=np.float32):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    inits, ins = [], ["x"]
    ins.append("roi" if roi is not None else "")
    if roi is not None:
        inits.append(f32("roi", roi))
    ins.append("scales" if scales is not None else "")
    if scales is not None:
        inits.append(f32("scales", scales))
    if sizes is not None:
        ins.append("sizes")
        inits.append(i64("sizes", sizes))
    while ins[-1] == "":
        ins.pop()
    y = interpolate_nd(x.astype(np.float64), coeffs,
                       output_size=sizes,
                       scale_factors=None if scales is None
                       else np.array(scales, np.float32),
                       roi=None if roi is None else np.array(roi, np.float32),
                       **(ref_kwargs or {})).astype(dtype)
    save(name, helper.make_node("Resize", ins, ["y"], **attrs),
         [vi("x", shape, t)], [vi("y", y.shape, t)], inits)
    pb(name + "_x", x)
    pb(name + "_y", y)


# Linear, half_pixel, one axis up and one down (by scales).
case("r_linear", (1, 2, 4, 5), dict(mode="linear"), linear_coeffs,
     scales=[1, 1, 1.5, 0.6])
# Linear, H up and W down to rows of 100 (at least 96 columns after the
# resized axis): H by one batch matmul that shares its A.
case("r_linear_rows", (1, 3, 4, 150), dict(mode="linear"), linear_coeffs,
     sizes=[1, 3, 6, 100])
# Cubic, align_corners, by sizes.
case("r_cubic_ac", (1, 1, 4, 5),
     dict(mode="cubic", coordinate_transformation_mode="align_corners"),
     cubic_coeffs, sizes=[1, 1, 7, 3],
     ref_kwargs=dict(coordinate_transformation_mode="align_corners"))
# Cubic with A = -0.5 and exclude_outside, upsampling.
case("r_cubic_excl", (1, 1, 3, 4),
     dict(mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1),
     lambda r: cubic_coeffs(r, A=-0.5), scales=[1, 1, 2.0, 1.5],
     ref_kwargs=dict(exclude_outside=True))
# Nearest, ceil, asymmetric, the middle axis of a rank-3 tensor.
case("r_nearest_ceil", (2, 3, 4),
     dict(mode="nearest", coordinate_transformation_mode="asymmetric",
          nearest_mode="ceil"),
     lambda r: nearest_coeffs(r, mode="ceil"), sizes=[2, 7, 4],
     ref_kwargs=dict(coordinate_transformation_mode="asymmetric"))
# Nearest, round_prefer_ceil, pytorch_half_pixel down to one column.
case("r_nearest_pt", (1, 1, 4, 6),
     dict(mode="nearest", coordinate_transformation_mode="pytorch_half_pixel",
          nearest_mode="round_prefer_ceil"),
     lambda r: nearest_coeffs(r, mode="round_prefer_ceil"), sizes=[1, 1, 3, 1],
     ref_kwargs=dict(coordinate_transformation_mode="pytorch_half_pixel"))
# tf_crop_and_resize with an extrapolation value: out = W x + b.
case("r_crop", (1, 1, 4, 4),
     dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
          extrapolation_value=10.0),
     linear_coeffs, sizes=[1, 1, 3, 3],
     roi=[0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7],
     ref_kwargs=dict(coordinate_transformation_mode="tf_crop_and_resize",
                     extrapolation_value=10.0))
# Integers: nearest only, in f32 and back.
case("r_int", (1, 1, 3, 3), dict(mode="nearest"), nearest_coeffs,
     scales=[1, 1, 2, 1.5], t=I32, dtype=np.int32)

def half_pixel_symmetric_linear(v, m, s):
    """1-D linear resize of `v` to `m` by scale `s` with the opset-19
    half_pixel_symmetric transformation, straight from the spec."""
    n = len(v)
    adjustment = m / (s * n)
    offset = n / 2 * (1 - adjustment)
    y = np.zeros(m)
    for o in range(m):
        xo = offset + (o + 0.5) / s - 0.5
        x0 = int(np.floor(xo))
        r = xo - x0
        y[o] = (1 - r) * v[min(max(x0, 0), n - 1)] + \
            r * v[min(max(x0 + 1, 0), n - 1)]
    return y


# half_pixel_symmetric (opset 19), one axis by a scale that does not divide.
x = rng.standard_normal((2, 5)).astype(np.float32)
save("r_symmetric", helper.make_node(
    "Resize", ["x", "", "scales"], ["y"], mode="linear",
    coordinate_transformation_mode="half_pixel_symmetric"),
    [vi("x", x.shape)], [vi("y", (2, 7))], [f32("scales", [1, 1.5])],
    opset=19)
pb("r_symmetric_x", x)
pb("r_symmetric_y", np.stack([half_pixel_symmetric_linear(
    r.astype(np.float64), 7, np.float64(np.float32(1.5))) for r in x])
   .astype(np.float32))

# Sizes from a shape computation folded at import, as exporters write it.
x = rng.standard_normal((1, 1, 2, 3)).astype(np.float32)
save("r_shape_sizes", [
    helper.make_node("Shape", ["x"], ["s"]),
    helper.make_node("Mul", ["s", "two"], ["sizes"]),
    helper.make_node("Resize", ["x", "", "", "sizes"], ["y"])],
    [vi("x", x.shape)], [vi("y", (1, 1, 4, 6))], [i64("two", [1, 1, 2, 2])])# Integer-factor nearest upsamples of H and W (one copying generic): two
# images and two blocks of channels by 2 x 2, as torch's nn.Upsample
# exports it; integers by 3 x 1 with half_pixel and round_prefer_floor,
# which map the same way. (Their references repeat elements: ONNX's
# evaluates each output element in Python, too slow for this size.)
def upsample(name, shape, attrs, scales, t=F, dtype=np.float32):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    y = x.repeat(scales[2], axis=2).repeat(scales[3], axis=3)
    save(name, helper.make_node("Resize", ["x", "", "scales"], ["y"], **attrs),
         [vi("x", shape, t)], [vi("y", y.shape, t)],
         [f32("scales", scales)])
    pb(name + "_x", x)
    pb(name + "_y", y)


upsample("r_up2", (2, 130, 6, 8),
         dict(mode="nearest", coordinate_transformation_mode="asymmetric",
              nearest_mode="floor"), [1, 1, 2, 2])
upsample("r_up_int", (1, 3, 5, 4), dict(mode="nearest"), [1, 1, 3, 1],
         t=I32, dtype=np.int32)
# Few channels, several images: the kernel puts the images side by side
# on the partitions (Upsample.cpp).
upsample("r_up_images", (5, 24, 6, 8), dict(mode="nearest"), [1, 1, 2, 2])
# A pooled 1 x 1 map resized bilinearly (DeepLabV3's image pooling): every
# output element is the one input element, an upsample by the output size.
upsample("r_pooled", (1, 200, 1, 1), dict(mode="linear"), [1, 1, 28, 28])

pb("r_shape_sizes_x", x)
pb("r_shape_sizes_y", interpolate_nd(x.astype(np.float64), nearest_coeffs,
                                     output_size=[1, 1, 4, 6])
   .astype(np.float32))

# Upsample (opset 9): nearest with the asymmetric transformation and floor.
x = rng.standard_normal((1, 2, 2, 3)).astype(np.float32)
save("u_nearest", helper.make_node("Upsample", ["x", "scales"], ["y"],
                                   mode="nearest"),
     [vi("x", x.shape)], [vi("y", (1, 2, 4, 9))],
     [f32("scales", [1, 1, 2, 3])], opset=9)
pb("u_nearest_x", x)
pb("u_nearest_y", x.repeat(2, axis=2).repeat(3, axis=3))

# Errors.
save("r_runtime_scales", helper.make_node("Resize", ["x", "", "scales"], ["y"]),
     [vi("x", (1, 1, 2, 2)), vi("scales", (4,))], [vi("y", (1, 1, 4, 4))])
save("r_runtime_roi", helper.make_node(
    "Resize", ["x", "roi", "", "sizes"], ["y"], mode="linear",
    coordinate_transformation_mode="tf_crop_and_resize"),
    [vi("x", (1, 1, 2, 2)), vi("roi", (8,))], [vi("y", (1, 1, 3, 3))],
    [i64("sizes", [1, 1, 3, 3])])
save("r_bad_mode", helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                    mode="area"),
     [vi("x", (1, 1, 2, 2))], [vi("y", (1, 1, 4, 4))],
     [f32("scales", [1, 1, 2, 2])])
save("r_both", helper.make_node("Resize", ["x", "", "scales", "sizes"], ["y"]),
     [vi("x", (1, 1, 2, 2))], [vi("y", (1, 1, 4, 4))],
     [f32("scales", [1, 1, 2, 2]), i64("sizes", [1, 1, 4, 4])])
save("r_int_linear", helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                      mode="linear"),
     [vi("x", (1, 1, 2, 2), I32)], [vi("y", (1, 1, 4, 4), I32)],
     [f32("scales", [1, 1, 2, 2])])
