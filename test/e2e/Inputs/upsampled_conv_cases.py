#!/usr/bin/python3
"""Convolutions of nearest upsamples end to end against numpy.

Each case is an ONNX model Resize (nearest, integer scales) -> optionally
Concat with other inputs along the channels -> Conv, compiled with
nki-compile (nki-prepare-graph writes the upsampled part as one convolution
of the small tensor per output phase) and simulated with nki-run against a
float64 numpy reference that upsamples with np.repeat and convolves
directly. Usage: upsampled_conv_cases.py DIR (nki-compile and nki-run on
PATH). Prints `PASS name` or `FAIL name: reason` per case and `N of M
pass`; exits 1 on any failure.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_cases import run_cases, save_case

# name: (parts, F, kernel, pads (begin..., end...), dilations, bias[,
# activation after the convolution])
# A part is ("up", [N, C, H, W], (fh, fw)), ("up_conv", ...: a 1x1
# convolution of the input upsampled, so that the upsample's source is
# computed on chip), ("convt", [N, C, H, W], (fh, fw), F: a ConvTranspose
# with bias, kernel and stride (fh, fw), to F channels), ("skip", [N, C,
# H, W]) or ("skip_conv", [N, C, H, W]: a 1x1 convolution of the input,
# computed on chip).
CASES = {
    # A U-Net decoder: the upsample concatenated with the skip.
    "unet": ([("up", [1, 8, 6, 6], (2, 2)), ("skip", [1, 4, 12, 12])], 6,
             [3, 3], [1, 1, 1, 1], [1, 1], False),
    # The skip first, a bias.
    "skip_first": ([("skip", [1, 3, 10, 8]), ("up", [1, 5, 5, 4], (2, 2))],
                   7, [3, 3], [1, 1, 1, 1], [1, 1], True),
    # No concat: every channel upsampled, the phases start from the init.
    "up_only": ([("up", [2, 6, 5, 7], (2, 2))], 5, [3, 3], [1, 1, 1, 1],
                [1, 1], True),
    # Factor 3 and a 5x5 kernel.
    "f3_k5": ([("up", [1, 4, 4, 5], (3, 3))], 3, [5, 5], [2, 2, 2, 2],
              [1, 1], False),
    # H only (W's factor 1: one phase of all its taps).
    "rows_only": ([("up", [1, 4, 5, 9], (2, 1)), ("skip", [1, 2, 10, 9])], 4,
                  [3, 3], [1, 1, 1, 1], [1, 1], False),
    # Dilation 2.
    "dilated": ([("up", [1, 4, 6, 6], (2, 2))], 5, [3, 3], [2, 2, 2, 2],
                [2, 2], False),
    # Asymmetric pads (all at the end).
    "pads_end": ([("up", [1, 3, 6, 5], (2, 2)), ("skip", [1, 2, 12, 10])], 4,
                 [3, 3], [0, 0, 2, 2], [1, 1], False),
    # Two upsampled parts around a skip.
    "two_ups": ([("up", [1, 4, 4, 4], (2, 2)), ("skip", [1, 3, 8, 8]),
                 ("up", [1, 2, 2, 2], (4, 4))], 6, [3, 3], [1, 1, 1, 1],
                [1, 1], True),
    # Channel blocks: 144 input and 136 output channels.
    "wide": ([("up", [1, 144, 4, 4], (2, 2))], 136, [3, 3], [1, 1, 1, 1],
             [1, 1], False),
    # A U-Net's top decoder at 64x64 (chunks of rows, bands of the skip).
    "big": ([("up", [1, 32, 32, 32], (2, 2)), ("skip", [1, 16, 64, 64])], 16,
            [3, 3], [1, 1, 1, 1], [1, 1], False),
    # The same with the upsample's source computed (a 1x1 convolution), so
    # kept in SBUF with a border: each folded kernel column's shifted copy
    # of its rows is one run a partition.
    "big_computed": ([("up_conv", [1, 32, 32, 32], (2, 2)),
                      ("skip", [1, 16, 64, 64])], 16, [3, 3], [1, 1, 1, 1],
                     [1, 1], False),
    # The same with 48 filters: grouped in pairs the phases would take as
    # many matmuls (two kernel columns fold beside two rows either way), so
    # they stay four convolutions, each folding two kernel columns from
    # shifted copies of the source's resident rows.
    "big_computed_wide": ([("up_conv", [1, 32, 32, 32], (2, 2)),
                           ("skip", [1, 16, 64, 64])], 48, [3, 3],
                          [1, 1, 1, 1], [1, 1], False),
    # A result of 128 KiB a partition, more than half of it: the phases
    # are stacked in HBM and interleaved on chip (nki-interleave-phases),
    # the skip's convolution adding to the interleaved result.
    "interleaved": ([("up", [2, 8, 64, 64], (2, 2)),
                     ("skip", [2, 4, 128, 128])], 8, [3, 3], [1, 1, 1, 1],
                    [1, 1], True),
    # The same with the upsample's source computed (kept in SBUF): under
    # auto-cast the skip's convolution takes the phases from its rows there.
    "interleaved_computed": ([("up_conv", [2, 8, 64, 64], (2, 2)),
                              ("skip", [2, 4, 128, 128])], 8, [3, 3],
                             [1, 1, 1, 1], [1, 1], True),
    # A U-Net's middle decoder at batch 8 (32 skip and 64 upsampled
    # channels to 32, 128 KiB a partition), its skip a function input in
    # HBM: under auto-cast the skip's rows stack two output rows in one
    # window, not four in two (each two-window block would load every row).
    "windows_hbm": ([("up", [8, 64, 32, 32], (2, 2)),
                     ("skip", [8, 32, 64, 64])], 32, [3, 3], [1, 1, 1, 1],
                    [1, 1], True),
    # The same with its skip computed by a 1x1 convolution that only the
    # decoder reads: kept in the decoder's packed tile, one window of two
    # rows, which a two-window stack could not read.
    "windows_packed": ([("up", [8, 64, 32, 32], (2, 2)),
                        ("skip_conv", [8, 32, 64, 64])], 32, [3, 3],
                       [1, 1, 1, 1], [1, 1], True),
    # The same at 96 x 96 for four images (144 KiB a partition): five rows
    # a chunk, so the skip's convolution reads some of its chunks' phases
    # a row at a time.
    "interleaved_rows": ([("up", [4, 136, 48, 48], (2, 2)),
                          ("skip", [4, 4, 96, 96])], 8, [3, 3], [1, 1, 1, 1],
                         [1, 1], True),
    # Six phases (2 x 3) of a 48 x 600 result (115 KiB a partition): rows
    # wider than a PSUM bank, so a chunk of 512 columns and one of 88 that
    # starts inside a column phase (512 is no multiple of 3).
    "interleaved_wide": ([("up", [1, 4, 24, 200], (2, 3)),
                          ("skip", [1, 2, 48, 600])], 4, [3, 3], [1, 1, 1, 1],
                         [1, 1], True),
    # A U-Net decoder that upsamples by ConvTranspose (unet_convt's):
    # composed into phases of its input and a channel of ones for its bias.
    "convt": ([("convt", [1, 4, 6, 6], (2, 2), 3), ("skip", [1, 2, 12, 12])],
              5, [3, 3], [1, 1, 1, 1], [1, 1], True),
    # The same at 128 x 128 for two images: under auto-cast the skip's
    # convolution sums the phases in its accumulator.
    "convt_interleaved": ([("convt", [2, 8, 64, 64], (2, 2), 8),
                           ("skip", [2, 4, 128, 128])], 8, [3, 3],
                          [1, 1, 1, 1], [1, 1], True),
    # A 1x1 kernel multiplies no less per phase: left as it is.
    "k1": ([("up", [1, 6, 4, 4], (2, 2)), ("skip", [1, 2, 8, 8])], 3, [1, 1],
           [0, 0, 0, 0], [1, 1], False),
    # A DB text detector's head: its FPN levels upsampled 1x, 2x, 4x and
    # 8x and concatenated. Each part is a chain of phases of its own; the
    # 4x and 8x parts use their inner phases' results again (engine copies
    # into the resident part, Tiling/Copy.cpp).
    "fpn_head": ([("skip", [1, 4, 16, 16]), ("up", [1, 4, 8, 8], (2, 2)),
                  ("up", [1, 4, 4, 4], (4, 4)), ("up", [1, 4, 2, 2], (8, 8))],
                 4, [3, 3], [1, 1, 1, 1], [1, 1], False),
    # The same head's 8x level at batch 8 (a 128 KiB result a partition,
    # its phases stacked in HBM): rows of 8 elements a phase, too short to
    # read where they are, so the interleave kernel assembles the part
    # first and the skip's convolution reads it whole.
    "fpn_head_hbm": ([("skip", [8, 4, 64, 64]), ("up", [8, 4, 8, 8], (8, 8))],
                     4, [3, 3], [1, 1, 1, 1], [1, 1], False),
    # The detector's output: one channel at 4x, its bias and sigmoid
    # computed per phase (the phases' convolutions' epilogues) and the
    # phases interleaved on chip, bands of rows side by side.
    "prob_map": ([("up", [1, 8, 64, 64], (2, 2))], 1, [3, 3], [1, 1, 1, 1],
                 [1, 1], True, "Sigmoid"),
}


def reference(parts, w, b, pads, dil):
    """float64: np.repeat upsampling, concat, zero padding, direct conv."""
    xs = [np.repeat(np.repeat(x, f[0], axis=2), f[1], axis=3) if f else x
          for x, f in parts]
    u = np.concatenate(xs, axis=1)
    u = np.pad(u, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    k = w.shape[2:]
    oh = u.shape[2] - dil[0] * (k[0] - 1)
    ow = u.shape[3] - dil[1] * (k[1] - 1)
    y = np.zeros((u.shape[0], w.shape[0], oh, ow))
    for kh in range(k[0]):
        for kw in range(k[1]):
            win = u[:, :, dil[0] * kh:dil[0] * kh + oh,
                    dil[1] * kw:dil[1] * kw + ow]
            y += np.einsum("nchw,fc->nfhw", win, w[:, :, kh, kw])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def build(name, case, rng, root):
    parts, f, k, pads, dil, with_bias = case[:6]
    act = case[6] if len(case) > 6 else None
    inputs, nodes, inits, arrays, cat, feeds = [], [], [], [], [], {}
    for i, part in enumerate(parts):
        x = rng.standard_normal(part[1]).astype(np.float32)
        up = part[0] in ("up", "up_conv")
        source = x
        if part[0] in ("up_conv", "skip_conv"):
            cs = part[1][1]
            w0 = rng.standard_normal([cs, cs, 1, 1]).astype(np.float32)
            inits.append(numpy_helper.from_array(w0, f"w{i}"))
            source = np.einsum("nchw,fc->nfhw", x.astype(np.float64),
                               w0[:, :, 0, 0].astype(np.float64))
        if part[0] == "convt":
            fh, fw = part[2]
            wt = rng.standard_normal([part[1][1], part[3], fh, fw]).astype(
                np.float32)
            bt = rng.standard_normal([part[3]]).astype(np.float32)
            inits += [numpy_helper.from_array(wt, f"wt{i}"),
                      numpy_helper.from_array(bt, f"bt{i}")]
            n, _, h, w_ = part[1]
            source = np.zeros([n, part[3], h * fh, w_ * fw])
            for s in range(fh):
                for t in range(fw):
                    source[:, :, s::fh, t::fw] = np.einsum(
                        "nchw,cf->nfhw", x.astype(np.float64),
                        wt[:, :, s, t].astype(np.float64))
            source += bt.astype(np.float64).reshape(1, -1, 1, 1)
        arrays.append((source, part[2] if up else None))
        xn = f"x{i}"
        feeds[xn] = x
        inputs.append(helper.make_tensor_value_info(xn, TensorProto.FLOAT,
                                                    part[1]))
        if part[0] in ("up_conv", "skip_conv"):
            nodes.append(helper.make_node("Conv", [xn, f"w{i}"], [f"c{i}"],
                                          kernel_shape=[1, 1]))
            xn = f"c{i}"
        if part[0] == "convt":
            nodes.append(helper.make_node(
                "ConvTranspose", [xn, f"wt{i}", f"bt{i}"], [f"t{i}"],
                kernel_shape=list(part[2]), strides=list(part[2])))
            xn = f"t{i}"
        if up:
            scales = np.array([1, 1, *part[2]], dtype=np.float32)
            inits.append(numpy_helper.from_array(scales, f"s{i}"))
            nodes.append(helper.make_node("Resize", [xn, "", f"s{i}"],
                                          [f"u{i}"], mode="nearest"))
            cat.append(f"u{i}")
        else:
            cat.append(xn)
    c = sum(p[3] if p[0] == "convt" else p[1][1] for p in parts)
    w = rng.standard_normal([f, c] + k).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if with_bias else None
    inits.append(numpy_helper.from_array(w, "w"))
    if len(cat) > 1:
        nodes.append(helper.make_node("Concat", cat, ["cat"], axis=1))
        conv_in = "cat"
    else:
        conv_in = cat[0]
    names = [conv_in, "w"]
    if b is not None:
        inits.append(numpy_helper.from_array(b, "b"))
        names.append("b")
    nodes.append(helper.make_node("Conv", names, ["conv" if act else "y"],
                                  kernel_shape=k, pads=pads, dilations=dil))
    if act:
        nodes.append(helper.make_node(act, ["conv"], ["y"]))
    expected = reference([(x.astype(np.float64), up) for x, up in arrays],
                         w.astype(np.float64),
                         None if b is None else b.astype(np.float64), pads,
                         dil)
    if act == "Sigmoid":
        expected = 1 / (1 + np.exp(-expected))
    expected = expected.astype(np.float32)
    return save_case(root, name, nodes, inputs, inits, expected, feeds)


def main():
    # At most 144 x 9 fp32 products per output, the phase filters'
    # sums rounded once: rtol 1e-4 and atol 1e-4.
    return run_cases(CASES, build, sys.argv[1], 11, "1e-4", "1e-4")


if __name__ == "__main__":
    sys.exit(main())
