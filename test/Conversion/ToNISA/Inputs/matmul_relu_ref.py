"""Inputs and the exact answer of end-to-end.mlir, without numpy.

A[i, k] = (i + 2k) % 7 - 3 and B[k, j] = (3k + j) % 5 - 2 are small
integers, so A @ B and relu of it are exact in fp32 whatever the
accumulation order; the reference is computed here in Python integers.
"""
import struct
import sys


def save(path, shape, values):
    """A little-endian float32 .npy (format version 1.0)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


M, K, N = 160, 200, 96
a = [(i + 2 * k) % 7 - 3 for i in range(M) for k in range(K)]
b = [(3 * k + j) % 5 - 2 for k in range(K) for j in range(N)]
c = [max(0, sum(a[i * K + k] * b[k * N + j] for k in range(K)))
     for i in range(M) for j in range(N)]
out = sys.argv[1]
save(out + "/a.npy", (M, K), a)
save(out + "/b.npy", (K, N), b)
save(out + "/c.npy", (M, N), c)
