"""Inputs and numpy reference of se-resident.mlir, in float64: a
squeeze-and-excitation block, p = mean over H, W of x; s = sigmoid(w2 @
silu(w1 @ p)); y = conv1x1(x * s, w3). Usage: se_resident_ref.py PREFIX
[HW F3 [conv]]: x of [2, 16, HW, HW] (8 by default), w3 of F3 filters (8),
with `conv` the block applied to conv1x1(x, w0) instead of x."""
import sys

import numpy as np

prefix = sys.argv[1]
hw = int(sys.argv[2]) if len(sys.argv) > 2 else 8
f3 = int(sys.argv[3]) if len(sys.argv) > 3 else 8
rng = np.random.default_rng(7)
x = rng.uniform(-1, 1, (2, 16, hw, hw)).astype(np.float32)
w1 = rng.uniform(-1, 1, (4, 16, 1, 1)).astype(np.float32)
w2 = rng.uniform(-1, 1, (16, 4, 1, 1)).astype(np.float32)
w3 = rng.uniform(-1, 1, (f3, 16, 1, 1)).astype(np.float32)
for name, v in (("x", x), ("w1", w1), ("w2", w2), ("w3", w3)):
    np.save(f"{prefix}.{name}.npy", v)
xd = x.astype(np.float64)
if len(sys.argv) > 4 and sys.argv[4] == "conv":
    w0 = rng.uniform(-1, 1, (16, 16, 1, 1)).astype(np.float32)
    np.save(f"{prefix}.w0.npy", w0)
    xd = np.einsum("nchw,fc->nfhw", xd, w0[:, :, 0, 0].astype(np.float64))
p = xd.mean(axis=(2, 3))                                   # [n, c]
f1 = p @ w1[:, :, 0, 0].T.astype(np.float64)                # [n, 4]
s1 = f1 / (1 + np.exp(-f1))
f2 = s1 @ w2[:, :, 0, 0].T.astype(np.float64)               # [n, 16]
g = 1 / (1 + np.exp(-f2))
y = np.einsum("nchw,fc->nfhw", xd * g[:, :, None, None],
              w3[:, :, 0, 0].astype(np.float64))
np.save(f"{prefix}.y.npy", y.astype(np.float32))
