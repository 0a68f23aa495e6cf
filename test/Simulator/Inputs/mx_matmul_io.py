"""Inputs and the bit-exact expected output of the matmul_mx example.

usage: mx_matmul_io.py DIR M N K A_FORMAT B_FORMAT SCALES
  formats: e4m3, e5m2 (MXFP8) or e2m1 (MXFP4, two values a byte).
  SCALES: "near" (scales within 2^+-12 of 1), "all-a" or "all-b" (that
  operand's scales take every e8m0 code, 0..254 and the NaN code 255, each
  column a run of consecutive codes; the other's stay near 1). Every 16th
  column has codes 0..3 ("all") or 2^-24 ("near"): subnormal results.
  writes DIR/a_t.npy [K/4, M, 4] and DIR/b.npy [K/4, N, 4] (float32 holding
  fp8 values: every finite value, subnormals and the largest included, and
  a few NaNs; e2m1: uint8 [K/4, cols, 2], two codes a byte, low nibble
  first), DIR/a_scale.npy [K/32, M] and DIR/b_scale.npy [K/32, N] (float32
  holding 2^(code - 127), NaN for 255), and DIR/c.npy [M, N]: each product
  of two elements times both scales rounded once to fp32, summed in fp32 in
  ascending contraction order k = 4p + r.
usage: mx_matmul_io.py --compare GOT EXPECTED
  exits non-zero unless the two arrays are equal bit for bit, NaN for NaN.

Written from the OCP Microscaling (MX) v1.0 and OCP 8-bit floating point
specifications, not from the simulator's code.
"""
import sys

import numpy as np

from ocp_fp8 import decode_fp8


def decode_e2m1(code):
    """OCP FP4 E2M1: bias 1, one mantissa bit, no infinities or NaN."""
    sign = -1.0 if code & 0x8 else 1.0
    e, m = (code >> 1) & 0x3, code & 0x1
    if e == 0:
        return sign * m * 0.5
    return sign * (1 + m / 2) * 2.0 ** (e - 1)


def operand(rng, k, cols, fmt, nans):
    """Returns what the program reads and the [K, cols] values (row k =
    4p + r)."""
    if fmt == "e2m1":
        codes = rng.integers(0, 16, size=(k // 4, cols, 4))
        table = np.array([decode_e2m1(c) for c in range(16)])
        packed = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)
        vals = table[codes]
        return packed, vals.transpose(0, 2, 1).reshape(k, cols)
    table = np.array([decode_fp8(b, fmt) for b in range(256)])
    # Infinities stay out: the host-to-device conversion saturates them.
    finite = np.flatnonzero(np.isfinite(table))
    vals = table[rng.choice(finite, size=(k // 4, cols, 4))]
    if nans:
        flat = vals.reshape(-1)
        flat[rng.choice(flat.size, size=nans, replace=False)] = np.nan
    return (vals.astype(np.float32),
            vals.transpose(0, 2, 1).reshape(k, cols))


def scales(rng, blocks, cols, every):
    if every:
        # Column c, block g: code (16 c + g) mod 256, so every code appears
        # and each column runs through 16 neighbouring exponents; every
        # 16th column keeps codes 0..3, whose sums stay subnormal.
        g, c = np.meshgrid(np.arange(blocks), np.arange(cols), indexing="ij")
        codes = np.where(c % 16 == 5, g % 4, (16 * c + g) % 256)
    else:
        codes = rng.integers(127 - 12, 127 + 13, size=(blocks, cols))
        # Every 16th column at 2^-24: times the other operand's codes 0..3
        # its products and sums fall among fp32's subnormals.
        codes[:, 5::16] = 127 - 24
    exps = np.where(codes == 255, np.nan, codes - 127.0)
    return (2.0 ** exps).astype(np.float32), exps


def main():
    if sys.argv[1] == "--compare":
        got, want = np.load(sys.argv[2]), np.load(sys.argv[3])
        nans = np.isnan(want)
        same = (got.shape == want.shape and np.array_equal(np.isnan(got), nans)
                and np.array_equal(got[~nans].view(np.uint32),
                                   want[~nans].view(np.uint32)))
        inf = np.isinf(want).sum()
        sub = ((want != 0) & (np.abs(want) < 2.0 ** -126)).sum()
        print(f"{'bit-exact' if same else 'DIFFERENT'}: {want.size} elements, "
              f"{nans.sum()} NaN, {inf} inf, {sub} subnormal")
        sys.exit(0 if same else 1)
    out, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
    afmt, bfmt, which = sys.argv[5], sys.argv[6], sys.argv[7]
    rng = np.random.default_rng(7)
    a_t, a = operand(rng, k, m, afmt, nans=2)
    b_in, b = operand(rng, k, n, bfmt, nans=0)
    a_s, ea = scales(rng, k // 32, m, which == "all-a")
    b_s, eb = scales(rng, k // 32, n, which == "all-b")
    for name, arr in [("a_t", a_t), ("b", b_in), ("a_scale", a_s),
                      ("b_scale", b_s)]:
        np.save(f"{out}/{name}.npy", arr)
    c = np.zeros((m, n), dtype=np.float32)
    with np.errstate(all="ignore"):
        for i in range(k):
            # Exact in float64 (at most 8 significant bits, exponents within
            # +-300), then one rounding to fp32 (overflow gives infinity).
            p = np.outer(a[i], b[i]) * 2.0 ** (ea[i // 32][:, None] +
                                                eb[i // 32][None, :])
            c = (c + p.astype(np.float32)).astype(np.float32)
    np.save(f"{out}/c.npy", c)


main()
