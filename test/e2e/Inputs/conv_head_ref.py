"""Inputs and numpy reference of conv-head.mlir: a segmentation head,
conv1x1(relu(conv3x3(x) + b1), w2) + b2 with zero padding 1, in float64;
with --bf16, as --auto-cast=matmul computes it: the convolutions' inputs
and filters rounded to bf16 (the 3x3's result rounded before the 1x1
reads it), products summed in float64.
Usage: conv_head_ref.py PREFIX BATCH [--bf16]."""
import sys

import numpy as np

from np_conv import conv3x3


def bf16(x):
    """Rounds float32 values to the nearest bf16 (ties to even)."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


prefix, batch = sys.argv[1], int(sys.argv[2])
rounded = "--bf16" in sys.argv[3:]
r = np.random.default_rng(9)
x = r.uniform(-1, 1, (batch, 16, 64, 64)).astype(np.float32)
w1 = r.uniform(-0.3, 0.3, (16, 16, 3, 3)).astype(np.float32)
b1 = r.uniform(-0.5, 0.5, (16,)).astype(np.float32)
# The constant filter of conv-head.mlir.
w2 = np.array([[[[((f * 16 + c) % 7 - 3) / 8.0]] for c in range(16)]
               for f in range(3)], dtype=np.float32)
b2 = r.uniform(-0.5, 0.5, (3,)).astype(np.float32)
mul = bf16 if rounded else (lambda v: v)
bias = lambda b: b.astype(np.float64)[None, :, None, None]  # noqa: E731
h = np.maximum(conv3x3(mul(x).astype(np.float64), mul(w1)) + bias(b1), 0)
if rounded:
    h = bf16(h.astype(np.float32)).astype(np.float64)
y = np.einsum("nchw,fc->nfhw", h, mul(w2)[:, :, 0, 0].astype(np.float64))
y += bias(b2)
for name, v in (("x", x), ("w1", w1), ("b1", b1), ("b2", b2),
                ("y", y.astype(np.float32))):
    np.save(f"{prefix}.{name}.npy", v)
