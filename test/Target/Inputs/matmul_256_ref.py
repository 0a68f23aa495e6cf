"""Inputs and the expected output of matmul-256-bf16.mlir, without numpy.

A and B hold small multiples of 1/2, exact in bf16, so every product and
partial sum of C = A x B is exact in fp32 whatever the accumulation order:
the expected output is computed here in Python integers and compared exactly.
Usage: matmul_256_ref.py OUT_DIR (writes a.npy, b.npy, c.npy as float32).
"""
import os
import struct
import sys

N = 256


def a(i, j):
    return ((i * 7 + j * 3) % 9 - 4) / 2


def b(i, j):
    return (i * 5 + j * 11) % 7 - 3


def write_npy(path, rows):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (
        len(rows), len(rows[0]))
    # Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        for row in rows:
            f.write(struct.pack("<%df" % len(row), *row))


def main():
    out = sys.argv[1]
    A = [[a(i, j) for j in range(N)] for i in range(N)]
    B = [[b(i, j) for j in range(N)] for i in range(N)]
    # Work in halves so that the sums are integers.
    A2 = [[int(2 * x) for x in row] for row in A]
    BT = list(zip(*B))
    C = [[sum(x * y for x, y in zip(A2[i], BT[j])) / 2 for j in range(N)]
         for i in range(N)]
    write_npy(os.path.join(out, "a.npy"), A)
    write_npy(os.path.join(out, "b.npy"), B)
    write_npy(os.path.join(out, "c.npy"), C)


if __name__ == "__main__":
    main()
