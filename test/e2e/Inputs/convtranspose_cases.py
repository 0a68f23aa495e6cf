#!/usr/bin/python3
"""ONNX ConvTranspose cases end to end against numpy.

Each case is a one-node ONNX model (the weight a constant initializer or a
graph input), compiled with nki-compile and simulated with nki-run against
a float64 numpy scatter: every input pixel times the kernel, added at
stride x position + dilation x tap, then cut to the window the pads and
output_padding select. Usage: convtranspose_cases.py DIR (nki-compile and
nki-run on PATH). Prints `PASS name` or `FAIL name: reason` per case and
`N of M pass`; exits 1 on any failure.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from np_conv import conv3x3
from onnx_cases import run_cases, save_case

# name: (x shape, F, kernel, strides, pads (begin..., end...), output_padding,
#        group, weight constant, bias, extra attributes)
CASES = {
    # A U-Net's upsampling: kernel 2, stride 2, one tap per phase.
    "unet_k2s2": ([1, 16, 8, 8], 8, [2, 2], [2, 2], [0, 0, 0, 0], [0, 0], 1,
                  True, True, {}),
    # The common "same" upsampling: two phases of 1 and 2 taps per dim.
    "k3s2p1op1": ([2, 8, 7, 6], 12, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 1,
                  True, True, {}),
    # DCGAN's kernel 4, pad 1; the weight a graph input (flipped on chip).
    "k4s2p1_input_weight": ([1, 6, 5, 5], 5, [4, 4], [2, 2], [1, 1, 1, 1],
                            [0, 0], 1, False, False, {}),
    "k4s2p1_const": ([1, 6, 5, 5], 5, [4, 4], [2, 2], [1, 1, 1, 1], [0, 0],
                     1, True, True, {}),
    # Groups, stride equal to the kernel.
    "group2_k3s3": ([1, 4, 4, 5], 6, [3, 3], [3, 3], [0, 0, 0, 0], [0, 0], 2,
                    True, True, {}),
    # Asymmetric padding from auto_pad.
    "same_lower": ([1, 3, 5, 4], 4, [3, 3], [2, 2], None, None, 1, True,
                   True, {"auto_pad": "SAME_LOWER"}),
    # Rectangular kernel and strides.
    "rect": ([1, 5, 4, 6], 7, [2, 3], [2, 3], [0, 1, 0, 0], [1, 0], 1, True,
             True, {}),
    # A kernel smaller than the stride: some phases are the bias alone.
    "k1s2": ([1, 4, 5, 5], 3, [1, 1], [2, 2], [0, 0, 0, 0], [1, 1], 1, True,
             True, {}),
    # Stride 1: one phase, the plain convolution of the flipped kernel.
    "stride1": ([1, 6, 7, 7], 4, [3, 3], [1, 1], [1, 1, 1, 1], [0, 0], 1,
                True, True, {}),
    # More than 128 channels on both sides: channel blocks.
    "wide": ([1, 160, 6, 6], 136, [2, 2], [2, 2], [0, 0, 0, 0], [0, 0], 1,
             True, True, {}),
    # Large enough for chunks of output rows and a resident result.
    "big": ([1, 32, 24, 24], 16, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 1,
            True, True, {}),
    # Dilations: the convolution of the zero-inserted input.
    "dilated": ([1, 3, 5, 5], 4, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 1,
                True, True, {"dilations": [2, 2]}),
    # Read by a convolution: the result stays in SBUF.
    "chain_k2s2": ([1, 16, 16, 16], 8, [2, 2], [2, 2], [0, 0, 0, 0], [0, 0],
                   1, True, True, {}),
    "chain_k3s2": ([2, 8, 12, 12], 8, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1],
                   1, True, True, {}),
    # ... with pads past the dilated kernel (the zero-inserted input cut).
    "dilated_crop": ([1, 2, 5, 6], 3, [2, 2], [2, 2], [3, 4, 2, 3], [1, 0],
                     1, True, True, {"dilations": [2, 2]}),
    # 1-D.
    "conv1d": ([2, 3, 9], 4, [4], [2], [1, 1], [0], 1, True, True, {}),
    # Pads beyond the kernel crop the input's columns (zero insertion).
    "crop": ([1, 2, 5, 5], 3, [3, 3], [2, 2], [2, 3, 2, 3], [0, 0], 1, True,
             True, {}),
    # Results of 128 KiB a partition, more than half of it: the phases are
    # stacked in HBM and interleaved on chip (nki-interleave-phases).
    "interleaved_k2s2": ([2, 8, 64, 64], 8, [2, 2], [2, 2], [0, 0, 0, 0],
                         [0, 0], 1, True, True, {}),
    "interleaved_k3s2": ([2, 4, 64, 64], 6, [3, 3], [2, 2], [1, 1, 1, 1],
                         [1, 1], 1, True, True, {}),
    "chain_interleaved": ([2, 8, 64, 64], 8, [2, 2], [2, 2], [0, 0, 0, 0],
                          [0, 0], 1, True, True, {}),
}


# Cases whose result a 3x3 convolution reads (kept in SBUF, the phases
# written into it through stepped views; the last interleaved in HBM).
CHAINED = {"chain_k2s2", "chain_k3s2", "chain_interleaved"}


def reference(x, w, b, strides, dil, pads, out_pad, group, out_shape):
    """float64 scatter: full[n, f, s*i + dil*k] += x[n, c, i] * w[c, f, k]."""
    n, c = x.shape[:2]
    cg, fg = c // group, w.shape[1]
    sp = x.shape[2:]
    k = w.shape[2:]
    full = [strides[d] * (sp[d] - 1) + out_pad[d] + dil[d] * (k[d] - 1) + 1
            for d in range(len(sp))]
    y = np.zeros([n, fg * group] + full)
    for g in range(group):
        xg = x[:, g * cg:(g + 1) * cg]
        for tap in np.ndindex(*k):
            wk = w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap]
            prod = np.einsum("nc...,cf->nf...", xg, wk)
            idx = tuple(slice(dil[d] * tap[d],
                              dil[d] * tap[d] + strides[d] * (sp[d] - 1) + 1,
                              strides[d]) for d in range(len(sp)))
            y[(slice(None), slice(g * fg, (g + 1) * fg)) + idx] += prod
    if b is not None:
        y += b.reshape([1, -1] + [1] * len(sp))
    cut = tuple(slice(pads[d], pads[d] + out_shape[d]) for d in range(len(sp)))
    return y[(slice(None), slice(None)) + cut]


def geometry(xs, k, strides, pads, out_pad, attrs):
    sp = len(xs) - 2
    out_pad = out_pad or [0] * sp
    dil = attrs.get("dilations", [1] * sp)
    k = [dil[d] * (k[d] - 1) + 1 for d in range(sp)]
    if attrs.get("auto_pad", "NOTSET").startswith("SAME"):
        begin = []
        out = []
        for d in range(sp):
            target = xs[d + 2] * strides[d]
            total = strides[d] * (xs[d + 2] - 1) + out_pad[d] + k[d] - target
            half = total // 2
            begin.append(half if attrs["auto_pad"] == "SAME_UPPER"
                         else total - half)
            out.append(target)
        return begin, out, out_pad
    begin = pads[:sp]
    out = [strides[d] * (xs[d + 2] - 1) + out_pad[d] + k[d] - pads[d] -
           pads[d + sp] for d in range(sp)]
    return begin, out, out_pad


def build(name, case, rng, root):
    xs, f, k, strides, pads, out_pad, group, const_w, with_bias, attrs = case
    c = xs[1]
    w = rng.standard_normal([c, f // group] + k).astype(np.float32)
    x = rng.standard_normal(xs).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if with_bias else None
    begin, out, op = geometry(xs, k, strides, pads, out_pad, attrs)
    dil = attrs.get("dilations", [1] * len(k))
    expected = reference(x.astype(np.float64), w.astype(np.float64),
                         None if b is None else b.astype(np.float64),
                         strides, dil, begin, op, group,
                         out).astype(np.float32)
    node_attrs = dict(strides=strides, group=group, kernel_shape=k)
    if pads is not None:
        node_attrs["pads"] = pads
    if out_pad is not None:
        node_attrs["output_padding"] = out_pad
    node_attrs.update(attrs)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)]
    inits = []
    if const_w:
        inits.append(numpy_helper.from_array(w, "w"))
    else:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT,
                                                    list(w.shape)))
    names = ["x", "w"]
    if b is not None:
        inits.append(numpy_helper.from_array(b, "b"))
        names.append("b")
    nodes = [helper.make_node("ConvTranspose", names,
                              ["t" if name in CHAINED else "y"],
                              **node_attrs)]
    if name in CHAINED:
        # A 3x3 convolution (zero padding 1) reads the result from SBUF.
        f2 = 8
        w2 = rng.standard_normal([f2, f, 3, 3]).astype(np.float32)
        inits.append(numpy_helper.from_array(w2, "w2"))
        nodes.append(helper.make_node("Conv", ["t", "w2"], ["y"],
                                      pads=[1, 1, 1, 1]))
        expected = conv3x3(expected.astype(np.float64),
                           w2.astype(np.float64)).astype(np.float32)
    arrays = {"x": x} if const_w else {"x": x, "w": w}
    return save_case(root, name, nodes, inputs, inits, expected, arrays)


def main():
    # Taps per output at most 16 (fp32 products): rtol 1e-4.
    return run_cases(CASES, build, sys.argv[1], 7, "1e-4", "1e-4")


if __name__ == "__main__":
    sys.exit(main())
