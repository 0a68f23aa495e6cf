"""Inputs and numpy reference of conv-resident.mlir, in float64:
h = relu(conv3x3(x, w1) + b1), p = maxpool3x3s2(h) (padding 1),
y = relu(conv1x1(p, w2) + conv3x3(p, w3)). Usage: conv_resident_ref.py
PREFIX [--bf16]; with --bf16 the convolutions' inputs and filters are
rounded to bf16 first (what --auto-cast=matmul computes)."""
import sys

import numpy as np


def conv(x, w, pad):
    n, c, h, wd = x.shape
    k = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, wd + 2 * pad - k + 1
    y = np.zeros((n, w.shape[0], oh, ow))
    for kh in range(k):
        for kw in range(k):
            y += np.einsum("nchw,fc->nfhw", xp[:, :, kh:kh + oh, kw:kw + ow],
                           w[:, :, kh, kw])
    return y


def maxpool(x):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    oh = (x.shape[2] - 1) // 2 + 1
    ow = (x.shape[3] - 1) // 2 + 1
    y = np.full(x.shape[:2] + (oh, ow), -np.inf)
    for kh in range(3):
        for kw in range(3):
            y = np.maximum(y, xp[:, :, kh:kh + 2 * oh:2, kw:kw + 2 * ow:2])
    return y


def bf16(a):
    """Round to the nearest bf16 (ties to even), as float64."""
    b = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


prefix = sys.argv[1]
cast = bf16 if "--bf16" in sys.argv[2:] else (lambda a: a)
r = np.random.default_rng(11)
x = r.uniform(-1, 1, (2, 8, 16, 16)).astype(np.float32)
w1 = r.uniform(-0.3, 0.3, (160, 8, 3, 3)).astype(np.float32)
b1 = r.uniform(-0.5, 0.5, (160,)).astype(np.float32)
w2 = r.uniform(-0.1, 0.1, (160, 160, 1, 1)).astype(np.float32)
w3 = r.uniform(-0.05, 0.05, (160, 160, 3, 3)).astype(np.float32)
f = lambda a: a.astype(np.float64)  # noqa: E731
h = np.maximum(conv(cast(f(x)), cast(f(w1)), 1) + f(b1)[None, :, None, None],
               0)
p = cast(maxpool(h))
y = np.maximum(conv(p, cast(f(w2)), 0) + conv(p, cast(f(w3)), 1), 0)
for name, v in (("x", x), ("w1", w1), ("b1", b1), ("w2", w2), ("w3", w3),
                ("y", y.astype(np.float32))):
    np.save(f"{prefix}.{name}.npy", v)
