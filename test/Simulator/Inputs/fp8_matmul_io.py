"""Inputs and the bit-exact expected output of the fp8 double-row example.

usage: fp8_matmul_io.py DIR M N K A_FORMAT B_FORMAT
  writes DIR/a_t.npy [K/2, M, 2] and DIR/b.npy [K/2, N, 2] (float32 holding
  fp8 values: every finite byte of the format, subnormals and the largest
  values included, and a few NaNs), and DIR/c.npy [M, N], the OCP fp8
  products summed in fp32 in ascending contraction order k = 2p + r.
usage: fp8_matmul_io.py --compare GOT EXPECTED
  exits non-zero unless the two arrays are equal bit for bit, NaN for NaN
  (a NaN's sign and payload are not compared).

The fp8 decoding (ocp_fp8.py) is written from the OCP 8-bit floating point
spec, not from the simulator's code.
"""
import sys

import numpy as np

from ocp_fp8 import decode_fp8


def values(rng, shape, fmt, nans):
    table = np.array([decode_fp8(b, fmt) for b in range(256)], dtype=np.float32)
    # Infinities stay out of the inputs: the host-to-device conversion
    # saturates them (the machine model's narrowing rule), so they would
    # not reach the matmul.
    finite = np.flatnonzero(np.isfinite(table))
    out = table[rng.choice(finite, size=shape)]
    if nans:
        flat = out.reshape(-1)
        flat[rng.choice(flat.size, size=nans, replace=False)] = np.nan
    return out


def main():
    if sys.argv[1] == "--compare":
        got, want = np.load(sys.argv[2]), np.load(sys.argv[3])
        nans = np.isnan(want)
        same = (got.shape == want.shape and np.array_equal(np.isnan(got), nans)
                and np.array_equal(got[~nans].view(np.uint32),
                                   want[~nans].view(np.uint32)))
        nan = np.isnan(want).sum()
        print(f"{'bit-exact' if same else 'DIFFERENT'}: {want.size} elements, "
              f"{nan} NaN")
        sys.exit(0 if same else 1)
    out, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
    afmt, bfmt = sys.argv[5], sys.argv[6]
    rng = np.random.default_rng(1)
    a_t = values(rng, (k // 2, m, 2), afmt, nans=2)
    b = values(rng, (k // 2, n, 2), bfmt, nans=0)
    np.save(f"{out}/a_t.npy", a_t)
    np.save(f"{out}/b.npy", b)
    a = a_t.transpose(0, 2, 1).reshape(k, m)  # row k = 2p + r
    bk = b.transpose(0, 2, 1).reshape(k, n)
    c = np.zeros((m, n), dtype=np.float32)
    with np.errstate(all="ignore"):
        for i in range(k):
            # The product of two fp8 values is exact in fp32.
            c = (c + np.outer(a[i], bk[i]).astype(np.float32)).astype(
                np.float32)
    np.save(f"{out}/c.npy", c)


main()
