"""Writes inputs and the expected output of the example matmul program.

usage: matmul_io.py DIR M N K
a_t.npy [K, M] and b.npy [K, N] hold small integers, exact in bf16, so the
fp32 product is exact and the comparison needs no tolerance; a_t.pb is the
same tensor as an ONNX TensorProto.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

out, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
rng = np.random.default_rng(0)
a_t = rng.integers(-8, 8, size=(k, m)).astype(np.float32)
b = rng.integers(-8, 8, size=(k, n)).astype(np.float32)
np.save(f"{out}/a_t.npy", a_t)
np.save(f"{out}/b.npy", b)
np.save(f"{out}/c.npy", (a_t.T.astype(np.float64) @ b).astype(np.float32))
np.save(f"{out}/c_wrong.npy", (a_t.T.astype(np.float64) @ b + 1).astype(np.float32))
with open(f"{out}/a_t.pb", "wb") as f:
    f.write(numpy_helper.from_array(a_t, name="a_t").SerializeToString())
