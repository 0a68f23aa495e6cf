"""Prints shape, dtype and a checksum of a .npy file, for FileCheck."""
import sys

import numpy as np

a = np.load(sys.argv[1])
print(f"shape={a.shape} dtype={a.dtype} sum={float(a.astype(np.float64).sum()):.1f}")
