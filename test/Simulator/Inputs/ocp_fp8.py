"""OCP 8-bit floating point, as the simulator tests' numpy references read
it (fp8_matmul_io.py, mx_matmul_io.py). Written from the OCP 8-bit floating
point specification, not from the simulator's code.
"""


def decode_fp8(byte, fmt):
    """The value of an fp8 byte: e4m3 (bias 7, no infinities, S.1111.111 is
    NaN) or e5m2 (bias 15, IEEE-like infinities and NaNs)."""
    ebits, mbits, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    sign = -1.0 if byte & 0x80 else 1.0
    e = (byte >> mbits) & ((1 << ebits) - 1)
    m = byte & ((1 << mbits) - 1)
    if fmt == "e4m3" and e == 15 and m == 7:
        return float("nan")
    if fmt == "e5m2" and e == 31:
        return sign * float("inf") if m == 0 else float("nan")
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mbits)
    return sign * (1 + m / 2 ** mbits) * 2.0 ** (e - bias)
