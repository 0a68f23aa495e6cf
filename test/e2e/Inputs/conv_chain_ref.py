"""Inputs and numpy reference of conv-chain.mlir: relu(conv(relu(conv(x) + b1)) + b2)
with zero padding 1, in float64. Usage: conv_chain_ref.py PREFIX."""
import sys

import numpy as np

from np_conv import conv3x3


prefix = sys.argv[1]
r = np.random.default_rng(5)
x = r.uniform(-1, 1, (1, 16, 128, 128)).astype(np.float32)
w1 = r.uniform(-0.3, 0.3, (16, 16, 3, 3)).astype(np.float32)
w2 = r.uniform(-0.3, 0.3, (16, 16, 3, 3)).astype(np.float32)
b1 = r.uniform(-0.5, 0.5, (16,)).astype(np.float32)
b2 = r.uniform(-0.5, 0.5, (16,)).astype(np.float32)
bias = lambda b: b.astype(np.float64)[None, :, None, None]  # noqa: E731
h = np.maximum(conv3x3(x.astype(np.float64), w1) + bias(b1), 0)
y = np.maximum(conv3x3(h, w2) + bias(b2), 0)
for name, v in (("x", x), ("w1", w1), ("w2", w2), ("b1", b1), ("b2", b2),
                ("y", y.astype(np.float32))):
    np.save(f"{prefix}.{name}.npy", v)
