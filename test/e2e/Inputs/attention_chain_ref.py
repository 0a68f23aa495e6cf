"""Inputs and numpy reference of attention-chain.mlir: two heads of
attention, the first one's output the second one's queries, with matmul
operands rounded to bf16 as --auto-cast=matmul rounds them (products and
sums in float64). Usage: attention_chain_ref.py PREFIX."""
import sys

import numpy as np


def bf16(x):
    """x rounded to float32, then to bfloat16 (to nearest even)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def attention(q, k, v):
    s = bf16(q) @ bf16(k).T
    e = np.exp(s - s.max(-1, keepdims=True))
    return bf16(e / e.sum(-1, keepdims=True)) @ bf16(v)


prefix = sys.argv[1]
r = np.random.default_rng(11)
ins = {n: r.uniform(-1, 1, s).astype(np.float32)
       for n, s in (("q", (16, 32)), ("k1", (8, 32)), ("v1", (8, 32)),
                    ("k2", (8, 32)), ("v2", (8, 32)))}
y = attention(attention(ins["q"], ins["k1"], ins["v1"]), ins["k2"], ins["v2"])
for name, v in list(ins.items()) + [("y", y.astype(np.float32))]:
    np.save(f"{prefix}.{name}.npy", v)
