"""Inputs and numpy reference of conv-resident.mlir, in float64:
h = relu(conv3x3(x, w1) + b1), p = maxpool3x3s2(h) (padding 1),
y = relu(conv1x1(p, w2) + conv3x3(p, w3)). Usage: conv_resident_ref.py PREFIX."""
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


prefix = sys.argv[1]
r = np.random.default_rng(11)
x = r.uniform(-1, 1, (2, 8, 16, 16)).astype(np.float32)
w1 = r.uniform(-0.3, 0.3, (160, 8, 3, 3)).astype(np.float32)
b1 = r.uniform(-0.5, 0.5, (160,)).astype(np.float32)
w2 = r.uniform(-0.1, 0.1, (160, 160, 1, 1)).astype(np.float32)
w3 = r.uniform(-0.05, 0.05, (160, 160, 3, 3)).astype(np.float32)
f = lambda a: a.astype(np.float64)  # noqa: E731
h = np.maximum(conv(f(x), f(w1), 1) + f(b1)[None, :, None, None], 0)
p = maxpool(h)
y = np.maximum(conv(p, f(w2), 0) + conv(p, f(w3), 1), 0)
for name, v in (("x", x), ("w1", w1), ("b1", b1), ("w2", w2), ("w3", w3),
                ("y", y.astype(np.float32))):
    np.save(f"{prefix}.{name}.npy", v)
