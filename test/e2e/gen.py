#!/usr/bin/python3
"""End-to-end test cases: an MLIR program, its inputs and numpy's answer.

    gen.py CASE [--dims a,b,c] [--dtype f32|bf16|f8E4M3FN|f8E5M2] [--seed N]
           --dir DIR

writes DIR/prog.mlir, DIR/<input>.npy for each input (in argument order) and
DIR/expected.npy (the reference for out0), and prints the nki-run arguments
that feed them (``--input a=DIR/a.npy ... --expected out0=DIR/expected.npy``).

The reference is computed here, in float64 with numpy, from the same inputs,
independently of the compiler. bf16 tensors are stored as float32 .npy that
nki-run rounds to bf16 (round to nearest even); the reference rounds them the
same way before computing; fp8 inputs (matmul cases) are drawn from the
format's values in [-1, 1] (subnormals included), which nki-run stores
exactly. Runs under /usr/bin/python3 (Debian's numpy).
"""
import argparse
import math
import os

import numpy as np


def bf16_round(x):
    """Round float32 values to the nearest bf16 (ties to even), as float32."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)


def fp8_grid(dtype):
    """Every value of an OCP fp8 format in [-1, 1]: e4m3 (3 mantissa bits,
    normal exponents from -6) or e5m2 (2 bits, from -14), subnormals
    included."""
    mbits, emin = (3, -6) if dtype == "f8E4M3FN" else (2, -14)
    steps = np.arange(2 ** mbits) / 2 ** mbits
    mags = [steps * 2.0 ** emin]  # subnormals and zero
    mags += [(1 + steps) * 2.0 ** e for e in range(emin, 0)]
    mags = np.concatenate(mags + [np.array([1.0])])
    return np.concatenate([-mags[1:], mags]).astype(np.float32)


def e2m1_decode(codes):
    """OCP e2m1 codes (0..15: sign, 2 exponent bits, 1 mantissa bit) to
    their values (0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives)."""
    codes = np.asarray(codes)
    e, m = (codes >> 1) & 3, codes & 1
    mag = np.where(e == 0, m * 0.5, (1 + m / 2) * 2.0 ** (e - 1))
    return np.where(codes & 8, -mag, mag).astype(np.float32)


def e2m1_pack(codes):
    """e2m1 codes [..., 2n] as the bytes of an f4E2M1FN tensor: two a byte
    along the innermost dim, low nibble first."""
    codes = np.asarray(codes, np.uint8)
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def grid_round(x, grid):
    """float32 values rounded to the format whose non-negative values are
    `grid` (its codes in increasing order), as the machine stores them:
    nearest, ties to the even code (an even mantissa), saturating at the
    largest."""
    mag = np.minimum(np.abs(np.asarray(x, np.float64)), grid[-1])
    hi = np.clip(np.searchsorted(grid, mag), 1, len(grid) - 1)
    lo = hi - 1
    dlo, dhi = mag - grid[lo], grid[hi] - mag
    pick = np.where((dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0)), hi, lo)
    return (np.sign(x) * grid[pick]).astype(np.float32)


def e2m1_round(x):
    """float32 values rounded to e2m1 (saturating at +-6)."""
    return grid_round(x, e2m1_decode(np.arange(8)).astype(np.float64))


def e4m3_round(x):
    """float32 values rounded to fp8 e4m3 (saturating at +-448; codes
    0..126, 127 being NaN)."""
    codes = np.arange(127)
    e, m = codes >> 3, codes & 7
    return grid_round(x, np.where(e == 0, m / 8 * 2.0 ** -6,
                                  (1 + m / 8) * 2.0 ** (e - 7)))


def e8m0_round(y):
    """Non-negative float32 values to the machine's e8m0 scales: the nearest
    power of two, a tie (1.5 x 2^e) to the even code e + 127, clamped to
    [2^-127, 2^127]."""
    y = np.asarray(y, np.float64)
    out = np.full(y.shape, 2.0 ** -127)
    big = y >= 2.0 ** -127
    m, ex = np.frexp(y[big])  # y = (2m) 2^(ex - 1), 2m in [1, 2)
    e = ex - 1
    up = (2 * m > 1.5) | ((2 * m == 1.5) & ((e + 127) % 2 == 1))
    out[big] = 2.0 ** np.minimum(e + up, 127)
    return out.astype(np.float32)


def mx_quantise(x, axis, fp4=False):
    """x (float32) in OCP MX blocks of 32 along `axis` as --auto-cast=mxfp8
    (mxfp4) makes them: scale = e8m0(max |block| x (1.5 / 448 in float32))
    (1.5 / 6), values e4m3(x / scale) (e2m1); returns the dequantised
    values (exact in float64)."""
    f32 = np.float32
    x = np.moveaxis(np.asarray(x, f32), axis, -1)
    blocks = x.reshape(*x.shape[:-1], -1, 32)
    amax = np.abs(blocks).max(axis=-1, keepdims=True)
    scale = e8m0_round(amax * (f32(1.5) / f32(6 if fp4 else 448)))
    rounded = (e2m1_round if fp4 else e4m3_round)(blocks / scale)
    q = rounded.astype(np.float64) * scale
    return np.moveaxis(q.reshape(x.shape), -1, axis)


def rand(rng, shape, dtype):
    if dtype.startswith("f8"):
        return rng.choice(fp8_grid(dtype), size=shape)
    x = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
    return bf16_round(x) if dtype == "bf16" else x


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{s}x" for s in shape) + dtype + ">"


_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --- MLIR building blocks ----------------------------------------------------

def matmul_mlir(name, a, b, m, k, n, dt, out_dt="f32", transpose_b=False):
    """%name = A[m,k] @ B[k,n] (B given as [n,k] when transpose_b)."""
    bshape = (n, k) if transpose_b else (k, n)
    maps = ""
    if transpose_b:
        maps = (" indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,"
                " affine_map<(d0, d1, d2) -> (d1, d2)>,"
                " affine_map<(d0, d1, d2) -> (d0, d1)>]")
    return f"""
  %{name}_e = tensor.empty() : {ttype((m, n), out_dt)}
  %{name}_z = linalg.fill ins(%zero_{out_dt} : {out_dt}) outs(%{name}_e : {ttype((m, n), out_dt)}) -> {ttype((m, n), out_dt)}
  %{name} = linalg.matmul{maps} ins(%{a}, %{b} : {ttype((m, k), dt)}, {ttype(bshape, dt)}) outs(%{name}_z : {ttype((m, n), out_dt)}) -> {ttype((m, n), out_dt)}"""


def elementwise_mlir(name, ins, shapes, out_shape, body, dt="f32", maps=None):
    """A linalg.generic over out_shape. Input i reads dims maps[i] (default:
    the trailing len(shapes[i]) dims, i.e. broadcast along leading dims)."""
    rank = len(out_shape)
    dims = [f"d{i}" for i in range(rank)]
    if maps is None:
        maps = [list(range(rank - len(s), rank)) for s in shapes]
    maps = [f"affine_map<({', '.join(dims)}) -> "
            f"({', '.join(dims[d] for d in m)})>" for m in maps]
    maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>")
    args = ", ".join(f"%{i}" for i in ins)
    types = ", ".join(ttype(s, dt) for s in shapes)
    bbargs = ", ".join(f"%a{i}: {dt}" for i in range(len(ins)))
    iters = ", ".join(['"parallel"'] * rank)
    return f"""
  %{name}_e = tensor.empty() : {ttype(out_shape, dt)}
  %{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}} ins({args} : {types}) outs(%{name}_e : {ttype(out_shape, dt)}) {{
  ^bb0({bbargs}, %o: {dt}):{body}
  }} -> {ttype(out_shape, dt)}"""


def reduce_rows_mlir(name, x, shape, init, combine, pre="", dt="f32"):
    """%name[r] = combine over c of pre(x[r, c])."""
    r, c = shape
    value = "%p" if pre else "%a0"
    return f"""
  %{name}_e = tensor.empty() : {ttype((r,), dt)}
  %{name}_i = linalg.fill ins(%{init} : {dt}) outs(%{name}_e : {ttype((r,), dt)}) -> {ttype((r,), dt)}
  %{name} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%{x} : {ttype(shape, dt)}) outs(%{name}_i : {ttype((r,), dt)}) {{
  ^bb0(%a0: {dt}, %o: {dt}):{pre}
    %y = {combine} {value}, %o : {dt}
    linalg.yield %y : {dt}
  }} -> {ttype((r,), dt)}"""


CONSTS = """
  %zero_f32 = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %ninf_f32 = arith.constant 0xFF800000 : f32
  %ninf_bf16 = arith.constant 0xFF80 : bf16"""


def func(args, result_type, body, result):
    sig = ", ".join(f'%{n}: {t} {{nki.name = "{n}"}}' for n, t in args)
    return (f"func.func @main({sig}) -> {result_type} {{{CONSTS}{body}\n"
            f"  return %{result} : {result_type}\n}}\n")


GELU_BODY = """
    %s = arith.addf %a0, %a1 : f32
    %h = arith.constant 0.5 : f32
    %r2 = arith.constant 0.70710678118654752 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.mulf %s, %r2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %q = arith.mulf %s, %p : f32
    %g = arith.mulf %q, %h : f32
    linalg.yield %g : f32"""


# --- Cases ------------------------------------------------------------------

def case_matmul(rng, dims, dt):
    m, k, n = dims
    a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
    mlir = func([("a", ttype((m, k), dt)), ("b", ttype((k, n), dt))],
                ttype((m, n), "f32"), matmul_mlir("c", "a", "b", m, k, n, dt),
                "c")
    return mlir, {"a": a, "b": b}, lambda mm: mm(a, b)


def case_matmul_bt(rng, dims, dt):
    m, k, n = dims
    a, b = rand(rng, (m, k), dt), rand(rng, (n, k), dt)
    mlir = func([("a", ttype((m, k), dt)), ("b", ttype((n, k), dt))],
                ttype((m, n), "f32"),
                matmul_mlir("c", "a", "b", m, k, n, dt, transpose_b=True), "c")
    return mlir, {"a": a, "b": b}, lambda mm: mm(a, b.T)


MX_MAPS = ("affine_map<(m, n, k) -> (m, k)>, "
           "affine_map<(m, n, k) -> (m, k floordiv 32)>, "
           "affine_map<(m, n, k) -> (k, n)>, "
           "affine_map<(m, n, k) -> (k floordiv 32, n)>, "
           "affine_map<(m, n, k) -> (m, n)>")


def case_matmul_mx(rng, dims, dt, const_b=False):
    """An MX matmul (OCP microscaling): fp8 A [m, k] and B [k, n] with e8m0
    scales, one per 32 contraction elements (A's [m, k/32], B's [k/32, n]),
    the generic nki-tile lowers to matmul_mx (trn3); for f4E2M1FN (MXFP4,
    two values a byte along K) B and its scales are stored [n, k] and
    [n, k/32] and the inputs are the packed bytes. The reference follows
    the ISA's arithmetic (docs/isa.md): each product times both scales
    rounded once to float32, summed in float32 in contraction order, so the
    comparison can be exact. With const_b, B is a constant of the program
    (a weight)."""
    m, k, n = dims
    e8 = "f8E8M0FNU"
    fp4 = dt == "f4E2M1FN"
    if fp4:
        # MXFP4 packs along K: A [m, k] and B stored as [n, k] (with its
        # scales [n, k/32]), every code drawn, -0 included.
        ca, cb = rng.integers(0, 16, (m, k)), rng.integers(0, 16, (n, k))
        a, b = e2m1_decode(ca), e2m1_decode(cb).T
    else:
        a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
    ea = rng.integers(-10, 11, size=(m, k // 32)).astype(np.float64)
    eb = rng.integers(-10, 11, size=(k // 32, n)).astype(np.float64)
    out = ttype((m, n), "f32")
    maps, b_type, sb_type = MX_MAPS, ttype((k, n), dt), ttype((k // 32, n), e8)
    if fp4:
        maps = MX_MAPS.replace("(k, n)", "(n, k)").replace(
            "(k floordiv 32, n)", "(n, k floordiv 32)")
        b_type, sb_type = ttype((n, k), dt), ttype((n, k // 32), e8)
    body = ""
    if const_b:
        stored = b.T if fp4 else b
        body = f"""
  %b = arith.constant dense<{dense_literal(stored)}> : {b_type}"""
    body += f"""
  %c_e = tensor.empty() : {out}
  %c_z = linalg.fill ins(%zero_f32 : f32) outs(%c_e : {out}) -> {out}
  %c = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %sa, %b, %sb : {ttype((m, k), dt)}, {ttype((m, k // 32), e8)}, {b_type}, {sb_type}) outs(%c_z : {out}) {{
  ^bb0(%x: {dt}, %xs: {e8}, %y: {dt}, %ys: {e8}, %acc: f32):
    %xf = arith.extf %x : {dt} to f32
    %xsf = arith.extf %xs : {e8} to f32
    %yf = arith.extf %y : {dt} to f32
    %ysf = arith.extf %ys : {e8} to f32
    %p = arith.mulf %xf, %xsf : f32
    %q = arith.mulf %yf, %ysf : f32
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  }} -> {out}"""
    args = [("a", ttype((m, k), dt)), ("sa", ttype((m, k // 32), e8)),
            ("b", b_type), ("sb", sb_type)]
    if const_b:
        del args[2]
    mlir = func(args, out, body, "c")

    def ref(mm):
        c = np.zeros((m, n), np.float32)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        for i in range(k):
            p = np.outer(a64[:, i], b64[i]) * 2.0 ** (ea[:, i // 32][:, None]
                                                       + eb[i // 32][None, :])
            c = (c + p.astype(np.float32)).astype(np.float32)
        return c
    if fp4:
        inputs = {"a": e2m1_pack(ca), "sa": 2.0 ** ea, "b": e2m1_pack(cb),
                  "sb": np.ascontiguousarray(2.0 ** eb.T)}
    else:
        inputs = {"a": a, "sa": 2.0 ** ea, "b": b, "sb": 2.0 ** eb}
    if const_b:
        del inputs["b"]
    return mlir, inputs, ref


def dense_literal(v):
    """An MLIR dense attribute body for a float32 array."""
    if v.ndim == 0:
        return repr(float(v))
    return "[" + ", ".join(dense_literal(r) for r in v) + "]"


def case_linear(rng, dims, dt, batch1=False):
    """relu(x W + b) with W and b constants (a Linear layer's weights).
    With batch1, x is [1, m, k] and collapsed to [m, k] (an ONNX MatMul of
    a batch of one, as a transformer layer's)."""
    m, k, n = dims
    x = rand(rng, (m, k), dt)
    w = rand(rng, (k, n), "f32")
    bias = rand(rng, (n,), "f32")
    wt, bt, out = ttype((k, n), "f32"), ttype((n,), "f32"), ttype((m, n), "f32")
    body = ""
    if batch1:
        body = f"""
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : {ttype((1, m, k), dt)} into {ttype((m, k), dt)}"""
    body += f"""
  %w = arith.constant dense<{dense_literal(w)}> : {wt}
  %bias = arith.constant dense<{dense_literal(bias)}> : {bt}""" + matmul_mlir(
        "c", "x", "w", m, k, n, dt) + f"""
  %y_e = tensor.empty() : {out}
  %y = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%c, %bias : {out}, {bt}) outs(%y_e : {out}) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32
  }} -> {out}"""
    if batch1:
        mlir = func([("x3", ttype((1, m, k), dt))], out, body, "y")
        inputs = {"x3": x.reshape(1, m, k)}
    else:
        mlir = func([("x", ttype((m, k), dt))], out, body, "y")
        inputs = {"x": x}
    return mlir, inputs, lambda mm: np.maximum(mm(x, w, weight=True) + bias,
                                               0)


def case_shared_linear(rng, dims, dt):
    """x W1 + x W2 + x W3 with constant weights: three matmuls of one
    activation (a transformer's q, k and v projections)."""
    m, k, n = dims
    x = rand(rng, (m, k), dt)
    ws = [rand(rng, (k, n), "f32") for _ in range(3)]
    wt, out = ttype((k, n), "f32"), ttype((m, n), "f32")
    body = "".join(f"""
  %w{i} = arith.constant dense<{dense_literal(w)}> : {wt}""" + matmul_mlir(
        f"p{i}", "x", f"w{i}", m, k, n, dt) for i, w in enumerate(ws))
    body += f"""
  %s_e = tensor.empty() : {out}
  %s = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%p0, %p1, %p2 : {out}, {out}, {out}) outs(%s_e : {out}) {{
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %ab = arith.addf %a, %b : f32
    %abc = arith.addf %ab, %c : f32
    linalg.yield %abc : f32
  }} -> {out}"""
    mlir = func([("x", ttype((m, k), dt))], out, body, "s")
    return mlir, {"x": x}, lambda mm: sum(mm(x, w, weight=True) for w in ws)


def case_batch_matmul(rng, dims, dt):
    bs, m, k, n = dims
    a, b = rand(rng, (bs, m, k), dt), rand(rng, (bs, k, n), dt)
    out = ttype((bs, m, n), "f32")
    body = f"""
  %c_e = tensor.empty() : {out}
  %c_z = linalg.fill ins(%zero_f32 : f32) outs(%c_e : {out}) -> {out}
  %c = linalg.batch_matmul ins(%a, %b : {ttype((bs, m, k), dt)}, {ttype((bs, k, n), dt)}) outs(%c_z : {out}) -> {out}"""
    mlir = func([("a", ttype((bs, m, k), dt)), ("b", ttype((bs, k, n), dt))],
                out, body, "c")
    return mlir, {"a": a, "b": b}, lambda mm: mm(a, b)


def case_matmul_bias_gelu(rng, dims, dt):
    m, k, n = dims
    a, b = rand(rng, (m, k), "f32"), rand(rng, (k, n), "f32")
    bias = rand(rng, (n,), "f32")
    body = matmul_mlir("c", "a", "b", m, k, n, "f32")
    body += elementwise_mlir("g", ["c", "bias"], [(m, n), (n,)], (m, n),
                             GELU_BODY)
    mlir = func([("a", ttype((m, k), "f32")), ("b", ttype((k, n), "f32")),
                 ("bias", ttype((n,), "f32"))], ttype((m, n), "f32"), body,
                "g")
    return mlir, {"a": a, "b": b, "bias": bias}, lambda mm: gelu(
        mm(a, b) + bias)


def case_softmax(rng, dims, dt):
    r, c = dims
    x = rand(rng, (r, c), dt) * 4
    t = ttype((r, c), dt)
    body = f"""
  %e = tensor.empty() : {t}
  %s = linalg.softmax dimension(1) ins(%x : {t}) outs(%e : {t}) -> {t}"""
    return func([("x", t)], t, body, "s"), {"x": x}, lambda mm: softmax(
        x.astype(np.float64))


def layernorm_mlir(r, c):
    """%y = layernorm over the rows of %x [r, c] with %gamma and %beta [c],
    as its decomposed generics."""
    body = reduce_rows_mlir("sum", "x", (r, c), "zero_f32", "arith.addf")
    body += elementwise_mlir("xc", ["x", "sum"], [(r, c), (r,)], (r, c), f"""
    %n = arith.constant {float(c)!r} : f32
    %mean = arith.divf %a1, %n : f32
    %d = arith.subf %a0, %mean : f32
    linalg.yield %d : f32""", maps=[[0, 1], [0]])
    body += reduce_rows_mlir("var", "xc", (r, c), "zero_f32", "arith.addf",
                             pre="\n    %p = arith.mulf %a0, %a0 : f32")
    norm = elementwise_mlir("y", ["xc", "var", "gamma", "beta"],
                            [(r, c), (r,), (c,), (c,)], (r, c), f"""
    %n = arith.constant {float(c)!r} : f32
    %eps = arith.constant 1.0e-5 : f32
    %v = arith.divf %a1, %n : f32
    %ve = arith.addf %v, %eps : f32
    %rs = math.rsqrt %ve : f32
    %z = arith.mulf %a0, %rs : f32
    %g = arith.mulf %z, %a2 : f32
    %b = arith.addf %g, %a3 : f32
    linalg.yield %b : f32""", maps=[[0, 1], [0], [1], [1]])
    return body + norm


def layernorm_ref(x, gamma, beta):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return (x64 - mean) / np.sqrt(var + 1e-5) * gamma + beta


def case_layernorm(rng, dims, dt):
    r, c = dims
    x = rand(rng, (r, c), "f32") * 3
    gamma, beta = rand(rng, (c,), "f32"), rand(rng, (c,), "f32")
    t = ttype((r, c), "f32")
    body = layernorm_mlir(r, c)
    mlir = func([("x", t), ("gamma", ttype((c,), "f32")),
                 ("beta", ttype((c,), "f32"))], t, body, "y")
    if dt == "bf16":
        # The same program on bf16 tensors (benchmarks; no reference).
        mlir = (mlir.replace("0xFF800000", "0xFF80").replace("f32", "bf16")
                .replace("  %zero_bf16 = arith.constant 0.0 : bf16\n", "", 1)
                .replace("  %ninf_bf16 = arith.constant 0xFF80 : bf16\n", "", 1))
    return mlir, {"x": x, "gamma": gamma, "beta": beta}, (
        lambda mm: layernorm_ref(x, gamma, beta))


def case_ln_linear(rng, dims, dt):
    """layernorm(x) W: the layernorm's row blocks go to HBM scratch and the
    matmul loads them back in K blocks (docs/compiler.md, "Stores read in
    place")."""
    r, c, n = dims
    x = rand(rng, (r, c), "f32") * 3
    gamma, beta = rand(rng, (c,), "f32"), rand(rng, (c,), "f32")
    w = rand(rng, (c, n), "f32") / math.sqrt(c)
    body = layernorm_mlir(r, c) + matmul_mlir("out", "y", "w", r, c, n, "f32")
    mlir = func([("x", ttype((r, c), "f32")), ("gamma", ttype((c,), "f32")),
                 ("beta", ttype((c,), "f32")), ("w", ttype((c, n), "f32"))],
                ttype((r, n), "f32"), body, "out")
    return mlir, {"x": x, "gamma": gamma, "beta": beta, "w": w}, (
        lambda mm: mm(layernorm_ref(x, gamma, beta), w))


def case_mlp(rng, dims, dt):
    m, k, h, n = dims
    x = rand(rng, (m, k), "f32")
    w1, b1 = rand(rng, (k, h), "f32"), rand(rng, (h,), "f32")
    w2, b2 = rand(rng, (h, n), "f32"), rand(rng, (n,), "f32")
    relu = """
    %s = arith.addf %a0, %a1 : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32"""
    body = matmul_mlir("h1", "x", "w1", m, k, h, "f32")
    body += elementwise_mlir("r1", ["h1", "b1"], [(m, h), (h,)], (m, h), relu)
    body += matmul_mlir("h2", "r1", "w2", m, h, n, "f32")
    body += elementwise_mlir("y", ["h2", "b2"], [(m, n), (n,)], (m, n), """
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32""")
    mlir = func([("x", ttype((m, k), "f32")), ("w1", ttype((k, h), "f32")),
                 ("b1", ttype((h,), "f32")), ("w2", ttype((h, n), "f32")),
                 ("b2", ttype((n,), "f32"))], ttype((m, n), "f32"), body, "y")
    ref = lambda mm: mm(np.maximum(mm(x, w1) + b1, 0), w2) + b2  # noqa
    return mlir, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2}, ref


def case_attention(rng, dims, dt):
    s, d = dims
    q, k, v = (rand(rng, (s, d), "f32") for _ in range(3))
    t_sd, t_ss = ttype((s, d), "f32"), ttype((s, s), "f32")
    scale = 1.0 / math.sqrt(d)
    body = matmul_mlir("qk", "q", "k", s, d, s, "f32", transpose_b=True)
    body += elementwise_mlir("sc", ["qk"], [(s, s)], (s, s), f"""
    %c = arith.constant {scale!r} : f32
    %m = arith.mulf %a0, %c : f32
    linalg.yield %m : f32""")
    body += f"""
  %pe = tensor.empty() : {t_ss}
  %p = linalg.softmax dimension(1) ins(%sc : {t_ss}) outs(%pe : {t_ss}) -> {t_ss}"""
    body += matmul_mlir("o", "p", "v", s, s, d, "f32")
    mlir = func([("q", t_sd), ("k", t_sd), ("v", t_sd)], t_sd, body, "o")
    ref = lambda mm: mm(softmax(mm(q, k.T) * scale), v)  # noqa
    return mlir, {"q": q, "k": k, "v": v}, ref


def permuted(rng, shape, dt, perm):
    """linalg.transpose of a random x of `shape` by `perm`."""
    x = rand(rng, shape, dt)
    out = tuple(shape[p] for p in perm)
    body = f"""
  %e = tensor.empty() : {ttype(out, dt)}
  %t = linalg.transpose ins(%x : {ttype(shape, dt)}) outs(%e : {ttype(out, dt)}) permutation = {perm}"""
    mlir = func([("x", ttype(shape, dt))], ttype(out, dt), body, "t")
    return mlir, {"x": x}, lambda mm: np.ascontiguousarray(np.transpose(x, perm))


def case_transpose(rng, dims, dt):
    """Swap the last two dims of a 2-D or 3-D tensor."""
    n = len(dims)
    return permuted(rng, tuple(dims), dt, list(range(n - 2)) + [n - 1, n - 2])


def case_departition(rng, dims, dt):
    """MaxViT's windows back to NCHW: [N, h, w, p, p, C] -> [N, C, h, p, w,
    p] (permutation [0, 5, 1, 3, 2, 4]: the input's innermost dim moves)."""
    return permuted(rng, tuple(dims), dt, [0, 5, 1, 3, 2, 4])


def case_add(rng, dims, dt):
    shape = tuple(dims)
    a, b = rand(rng, shape, dt), rand(rng, shape, dt)
    body = elementwise_mlir("c", ["a", "b"], [shape, shape], shape, f"""
    %s = arith.addf %a0, %a1 : {dt}
    linalg.yield %s : {dt}""", dt)
    mlir = func([("a", ttype(shape, dt)), ("b", ttype(shape, dt))],
                ttype(shape, dt), body, "c")
    def ref(mm):
        r = a.astype(np.float64) + b
        return bf16_round(r.astype(np.float32)) if dt == "bf16" else r
    return mlir, {"a": a, "b": b}, ref


def case_int_arith(rng, dims, dt):
    """i32: q = (a * b + a) / c (truncating), r = q mod 7 with Python's sign
    (remsi and a select), out = r where a < b else -q; exact below 2^24."""
    shape = tuple(dims)
    a = rng.integers(-2000, 2000, shape).astype(np.int32)
    b = rng.integers(-2000, 2000, shape).astype(np.int32)
    c = rng.integers(1, 50, shape[-1:]).astype(np.int32)
    c[::2] *= -1
    body = elementwise_mlir("o", ["a", "b", "c"], [shape, shape, shape[-1:]],
                            shape, """
    %seven = arith.constant 7 : i32
    %zero = arith.constant 0 : i32
    %p = arith.muli %a0, %a1 : i32
    %s = arith.addi %p, %a0 : i32
    %q = arith.divsi %s, %a2 : i32
    %r = arith.remsi %q, %seven : i32
    %neg = arith.cmpi slt, %r, %zero : i32
    %r7 = arith.addi %r, %seven : i32
    %m = arith.select %neg, %r7, %r : i32
    %lt = arith.cmpi slt, %a0, %a1 : i32
    %nq = arith.subi %zero, %q : i32
    %y = arith.select %lt, %m, %nq : i32
    linalg.yield %y : i32""", "i32")
    mlir = func([("a", ttype(shape, "i32")), ("b", ttype(shape, "i32")),
                 ("c", ttype(shape[-1:], "i32"))], ttype(shape, "i32"), body,
                "o")
    def ref(mm):
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        q = np.trunc((a64 * b64 + a64) / c).astype(np.int64)
        return np.where(a64 < b64, np.mod(q, 7), -q).astype(np.int32)
    return mlir, {"a": a, "b": b, "c": c}, ref


def case_bool_mask(rng, dims, dt):
    """An i1 tensor between two generics (fusion may merge them):
    m = (x > y) xor (x > 0), then out = m ? x : y."""
    shape = tuple(dims)
    x, y = rand(rng, shape, "f32"), rand(rng, shape, "f32")
    mask = elementwise_mlir("m", ["x", "y"], [shape, shape], shape, """
    %z = arith.constant 0.0 : f32
    %g = arith.cmpf ogt, %a0, %a1 : f32
    %p = arith.cmpf ogt, %a0, %z : f32
    %r = arith.xori %g, %p : i1
    linalg.yield %r : i1""", "f32").replace(
        "%m_e = tensor.empty() : " + ttype(shape, "f32"),
        "%m_e = tensor.empty() : " + ttype(shape, "i1")).replace(
        "%o: f32", "%o: i1").replace(
        "outs(%m_e : " + ttype(shape, "f32") + ")",
        "outs(%m_e : " + ttype(shape, "i1") + ")").replace(
        "} -> " + ttype(shape, "f32"), "} -> " + ttype(shape, "i1"))
    sel = f"""
  %o_e = tensor.empty() : {ttype(shape, "f32")}
  %o = linalg.generic {{indexing_maps = [{", ".join(["affine_map<(d0, d1) -> (d0, d1)>"] * 4)}], iterator_types = ["parallel", "parallel"]}} ins(%m, %x, %y : {ttype(shape, "i1")}, {ttype(shape, "f32")}, {ttype(shape, "f32")}) outs(%o_e : {ttype(shape, "f32")}) {{
  ^bb0(%c: i1, %a: f32, %b: f32, %out: f32):
    %v = arith.select %c, %a, %b : f32
    linalg.yield %v : f32
  }} -> {ttype(shape, "f32")}"""
    mlir = func([("x", ttype(shape, "f32")), ("y", ttype(shape, "f32"))],
                ttype(shape, "f32"), mask + sel, "o")
    def ref(mm):
        return np.where((x > y) ^ (x > 0), x, y)
    return mlir, {"x": x, "y": y}, ref


def case_chain(rng, dims, dt):
    """`layers` matmul + bias + relu layers of width w (compile-time tests)."""
    layers, m, w = dims
    x = rand(rng, (m, w), "f32")
    args = [("x", ttype((m, w), "f32"))]
    inputs = {"x": x}
    body, prev = "", "x"
    for i in range(layers):
        inputs[f"w{i}"] = rand(rng, (w, w), "f32") / math.sqrt(w)
        inputs[f"b{i}"] = rand(rng, (w,), "f32")
        args += [(f"w{i}", ttype((w, w), "f32")), (f"b{i}", ttype((w,), "f32"))]
        body += matmul_mlir(f"h{i}", prev, f"w{i}", m, w, w, "f32")
        body += elementwise_mlir(f"r{i}", [f"h{i}", f"b{i}"], [(m, w), (w,)],
                                 (m, w), """
    %s = arith.addf %a0, %a1 : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32""")
        prev = f"r{i}"
    mlir = func(args, ttype((m, w), "f32"), body, prev)

    def ref(mm):
        y = x
        for i in range(layers):
            y = np.maximum(mm(y, inputs[f"w{i}"]) + inputs[f"b{i}"], 0)
        return y
    return mlir, inputs, ref


def conv_ref(x, w, stride, dilation=1, mm=None):
    """NCHW x FCHW convolution (no padding) in float64; with `mm` (gen's
    matmul, which rounds its operands under auto-cast) the products of each
    tap go through it."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = x[:, :, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                    j * dilation:j * dilation + (ow - 1) * stride + 1:stride]
            if mm is None:
                y += np.einsum("nchw,fc->nfhw", win.astype(np.float64),
                               w[:, :, i, j].astype(np.float64))
                continue
            cols = np.moveaxis(win, 1, 0).reshape(c, -1)  # [c, n*oh*ow]
            y += np.moveaxis(mm(w[:, :, i, j], cols).reshape(f, n, oh, ow),
                             0, 1)
    return y


def depthwise3x3_ref(a, wk, stride):
    """A 3x3 depthwise convolution of `a` [N, C, H, W] zero-padded by one,
    weights wk [C, 3, 3], stride `stride`, in float64."""
    ap = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh = (ap.shape[2] - 3) // stride + 1
    ow = (ap.shape[3] - 3) // stride + 1
    y = np.zeros(a.shape[:2] + (oh, ow))
    for i in range(3):
        for j in range(3):
            y += ap[:, :, i:i + (oh - 1) * stride + 1:stride,
                    j:j + (ow - 1) * stride + 1:stride] * \
                wk[None, :, i, j, None, None].astype(np.float64)
    return y


def pad_mlir(name, x, shape, pad, value, dt="f32"):
    """%name = x zero- (or value-) padded by `pad` on both spatial sides."""
    out = shape[:2] + tuple(s + 2 * pad for s in shape[2:])
    lo = ", ".join(["0", "0"] + [str(pad)] * (len(shape) - 2))
    idx = ", ".join(f"%i{i}: index" for i in range(len(shape)))
    return f"""
  %{name} = tensor.pad %{x} low[{lo}] high[{lo}] {{
  ^bb0({idx}):
    tensor.yield %{value} : {dt}
  }} : {ttype(shape, dt)} to {ttype(out, dt)}""", out


def case_conv2d(rng, dims, dt):
    """N x C x H x W input, F filters of K x K, stride, zero padding, and
    an optional dilation."""
    n, c, h, w, f, k, stride, pad = dims[:8]
    dil = dims[8] if len(dims) > 8 else 1
    x, wt = rand(rng, (n, c, h, w), dt), rand(rng, (f, c, k, k), dt)
    body, padded = pad_mlir("xp", "x", (n, c, h, w), pad, f"zero_{dt}", dt)
    oh = (padded[2] - dil * (k - 1) - 1) // stride + 1
    ow = (padded[3] - dil * (k - 1) - 1) // stride + 1
    out = ttype((n, f, oh, ow), "f32")
    body += f"""
  %ye = tensor.empty() : {out}
  %yz = linalg.fill ins(%zero_f32 : f32) outs(%ye : {out}) -> {out}
  %y = linalg.conv_2d_nchw_fchw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<{dil}> : tensor<2xi64>}} ins(%xp, %w : {ttype(padded, dt)}, {ttype((f, c, k, k), dt)}) outs(%yz : {out}) -> {out}"""
    mlir = func([("x", ttype((n, c, h, w), dt)), ("w", ttype((f, c, k, k), dt))],
                out, body, "y")
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    return mlir, {"x": x, "w": wt}, lambda mm: conv_ref(xp, wt, stride, dil,
                                                       mm=mm)


# Batch norm (scale, shift per channel) then an activation, written as the
# ONNX importer writes them (sigmoid as 1 / (1 + exp(-y))).
BN_ACTS = {
    "relu": ("""
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %z : f32""", lambda y: np.maximum(y, 0)),
    "relu6": ("""
    %z = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %m = arith.maximumf %v, %z : f32
    %r = arith.minimumf %m, %six : f32""", lambda y: np.clip(y, 0, 6)),
    "sigmoid": ("""
    %one = arith.constant 1.0 : f32
    %ny = arith.negf %v : f32
    %e = math.exp %ny : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32""", lambda y: 1 / (1 + np.exp(-y))),
    "silu": ("""
    %one = arith.constant 1.0 : f32
    %ny = arith.negf %v : f32
    %e = math.exp %ny : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %one, %d : f32
    %r = arith.mulf %v, %s : f32""", lambda y: y / (1 + np.exp(-y))),
}


def case_conv_bn_act(rng, dims, dt):
    """conv2d (N, C, H, W, F, K, stride, pad as there), then y * scale[f] +
    shift[f] and the activation BN_ACTS[act] (dims[8]: its index in
    sorted order: relu, relu6, sigmoid, silu): the convolution's epilogue."""
    act = sorted(BN_ACTS)[dims[8]]
    mlir, inputs, conv = case_conv2d(rng, dims[:8], dt)
    f = dims[4]
    scale = rng.uniform(0.5, 2.0, (f,)).astype(np.float32)
    shift = rng.uniform(-1.0, 1.0, (f,)).astype(np.float32)
    # The convolution's result type and name: func() wrote `return %y : T`.
    out = mlir.rsplit("return %y : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    body_ops, ref_act = BN_ACTS[act]
    ew = elementwise_mlir("a", ["y", "scale", "shift"], [shape, (f,), (f,)],
                          shape, f"""
    %sc = arith.mulf %a0, %a1 : f32
    %v = arith.addf %sc, %a2 : f32{body_ops}
    linalg.yield %r : f32""", maps=[[0, 1, 2, 3], [1], [1]])
    mlir = mlir.replace(
        f"  return %y : {out}",
        f"{ew}\n  return %a : {out}").replace(
        f'%w: {ttype((f, dims[1], dims[5], dims[5]), dt)} {{nki.name = "w"}}',
        f'%w: {ttype((f, dims[1], dims[5], dims[5]), dt)} {{nki.name = "w"}}, '
        f'%scale: {ttype((f,), dt)} {{nki.name = "scale"}}, '
        f'%shift: {ttype((f,), dt)} {{nki.name = "shift"}}')

    def ref(mm):
        y = conv(mm) * scale[None, :, None, None].astype(np.float64) + \
            shift[None, :, None, None].astype(np.float64)
        return ref_act(y)
    return mlir, {**inputs, "scale": scale, "shift": shift}, ref


def case_conv_act_conv(rng, dims, dt):
    """conv_bn_act (dims as there) whose result a second, 1x1 convolution of
    F filters reads: the first result stays in SBUF between them (bf16
    under auto-cast, where both convolutions round their input)."""
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims, dt)
    f = dims[4]
    w2 = rand(rng, (f, f, 1, 1), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    mlir = mlir.replace(
        f"  return %a : {out}",
        f"""  %ze = tensor.empty() : {out}
  %zz = linalg.fill ins(%zero_f32 : f32) outs(%ze : {out}) -> {out}
  %y2 = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%a, %w2 : {out}, {ttype((f, f, 1, 1), dt)}) outs(%zz : {out}) -> {out}
  return %y2 : {out}""").replace(
        '%scale: ', f'%w2: {ttype((f, f, 1, 1), dt)} {{nki.name = "w2"}}, '
        '%scale: ', 1)

    def ref(mm):
        a = ref1(mm)
        cols = np.moveaxis(a, 1, 0).reshape(f, -1)
        y = mm(w2[:, :, 0, 0], cols).reshape(f, shape[0], shape[2], shape[3])
        return np.moveaxis(y, 0, 1)
    return mlir, {**inputs, "w2": w2}, ref


def case_conv_pool_conv(rng, dims, dt):
    """conv_bn_act (dims[:9] as there), a stride-2 max pool of its result
    and a 1x1 convolution of F filters of the pooled tensor: both tensors
    between the kernels stay in SBUF. The pool's windows are 2x2, or with
    dims[9] = 3 3x3 over the result padded by one -inf row and column on
    each side (a ResNet stem's pool)."""
    window = dims[9] if len(dims) > 9 else 2
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims[:9], dt)
    f = dims[4]
    w2 = rand(rng, (f, f, 1, 1), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    pooled = (shape[0], f, shape[2] // 2, shape[3] // 2)
    pt = ttype(pooled, "f32")
    wt = ttype((window, window), "f32")
    src, st, padding = "%a", out, ""
    if window == 3:
        src = "%padded"
        st = ttype((shape[0], f, shape[2] + 2, shape[3] + 2), "f32")
        padding = f"""
  %padded = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  }} : {out} to {st}"""
    mlir = mlir.replace(
        f"  return %a : {out}",
        f"""  %ninf = arith.constant 0xFF800000 : f32{padding}
  %pe = tensor.empty() : {pt}
  %pi = linalg.fill ins(%ninf : f32) outs(%pe : {pt}) -> {pt}
  %win = tensor.empty() : {wt}
  %p = linalg.pooling_nchw_max {{strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins({src}, %win : {st}, {wt}) outs(%pi : {pt}) -> {pt}
  %ze = tensor.empty() : {pt}
  %zz = linalg.fill ins(%zero_f32 : f32) outs(%ze : {pt}) -> {pt}
  %y2 = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%p, %w2 : {pt}, {ttype((f, f, 1, 1), dt)}) outs(%zz : {pt}) -> {pt}
  return %y2 : {pt}""").replace(
        f") -> {out} {{", f") -> {pt} {{", 1).replace(
        '%scale: ', f'%w2: {ttype((f, f, 1, 1), dt)} {{nki.name = "w2"}}, '
        '%scale: ', 1)

    def ref(mm):
        a = ref1(mm)
        n, _, h, w = a.shape
        if window == 2:
            p = a.reshape(n, f, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        else:
            x = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)),
                       constant_values=-np.inf)
            p = np.full((n, f, h // 2, w // 2), -np.inf)
            for kh in range(3):
                for kw in range(3):
                    p = np.maximum(p, x[:, :, kh:kh + h - 1:2, kw:kw + w - 1:2])
        cols = np.moveaxis(p, 1, 0).reshape(f, -1)
        y = mm(w2[:, :, 0, 0], cols).reshape(f, n, h // 2, w // 2)
        return np.moveaxis(y, 0, 1)
    return mlir, {**inputs, "w2": w2}, ref


def case_conv_conv(rng, dims, dt):
    """conv_bn_act (dims[:9] as there), optionally a 2x2 stride-2 max pool
    of its result (dims[9] = 2), then a 3x3 convolution of F2 filters
    (dims[10], else F) of that tensor zero-padded by one, optionally a 2x2
    stride-2 max pool of that (dims[11] = 2), optionally a 1x1 convolution
    of F3 filters (dims[12]) of the second's result instead: a U-Net
    block's two convolutions, or a level's last and the next level's first,
    the tensor between them kept in SBUF (in the second's packed band tile
    when the first moves its rows by DMA: docs/compiler.md, "Packed
    residents"); with the 1x1, a ResNet bottleneck's three convolutions
    (without its residual), the second's result kept in SBUF too."""
    pool = len(dims) > 9 and dims[9] == 2
    pool2 = len(dims) > 11 and dims[11] == 2
    f3 = dims[12] if len(dims) > 12 else 0
    assert not (pool2 and f3), "a pooling or a 1x1 after the second"
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims[:9], dt)
    f = dims[4]
    f2 = dims[10] if len(dims) > 10 else f
    w2 = rand(rng, (f2, f, 3, 3), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    mid, mt, body = "a", shape, ""
    if pool:
        mt = (shape[0], f, shape[2] // 2, shape[3] // 2)
        pt = ttype(mt, "f32")
        wt = ttype((2, 2), "f32")
        body = f"""
  %ninf = arith.constant 0xFF800000 : f32
  %pe = tensor.empty() : {pt}
  %pi = linalg.fill ins(%ninf : f32) outs(%pe : {pt}) -> {pt}
  %win = tensor.empty() : {wt}
  %p = linalg.pooling_nchw_max {{strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%a, %win : {out}, {wt}) outs(%pi : {pt}) -> {pt}"""
        mid = "p"
    padding, padded = pad_mlir("mp", mid, mt, 1, "zero_f32")
    yt = ttype((mt[0], f2) + mt[2:], "f32")
    body += padding + f"""
  %ze = tensor.empty() : {yt}
  %zz = linalg.fill ins(%zero_f32 : f32) outs(%ze : {yt}) -> {yt}
  %y2 = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%mp, %w2 : {ttype(padded, "f32")}, {ttype((f2, f, 3, 3), dt)}) outs(%zz : {yt}) -> {yt}"""
    result = "y2"
    if pool2:
        yshape = (mt[0], f2) + mt[2:]
        qt = ttype((yshape[0], f2, yshape[2] // 2, yshape[3] // 2), "f32")
        wt2 = ttype((2, 2), "f32")
        body += f"""
  %ninf2 = arith.constant 0xFF800000 : f32
  %qe = tensor.empty() : {qt}
  %qi = linalg.fill ins(%ninf2 : f32) outs(%qe : {qt}) -> {qt}
  %win2 = tensor.empty() : {wt2}
  %q = linalg.pooling_nchw_max {{strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%y2, %win2 : {yt}, {wt2}) outs(%qi : {qt}) -> {qt}"""
        yt, result = qt, "q"
    w3 = rand(rng, (f3, f2, 1, 1), dt) if f3 else None
    if f3:
        y3t = ttype((mt[0], f3) + mt[2:], "f32")
        body += f"""
  %ve = tensor.empty() : {y3t}
  %vz = linalg.fill ins(%zero_f32 : f32) outs(%ve : {y3t}) -> {y3t}
  %y3 = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%y2, %w3 : {yt}, {ttype((f3, f2, 1, 1), dt)}) outs(%vz : {y3t}) -> {y3t}"""
        yt, result = y3t, "y3"
    body += f"""
  return %{result} : {yt}"""
    mlir = mlir.replace(f"  return %a : {out}", body).replace(
        f") -> {out} {{", f") -> {yt} {{", 1).replace(
        '%scale: ', f'%w2: {ttype((f2, f, 3, 3), dt)} {{nki.name = "w2"}}, '
        + (f'%w3: {ttype((f3, f2, 1, 1), dt)} {{nki.name = "w3"}}, '
           if f3 else '') + '%scale: ', 1)

    def ref(mm):
        a = ref1(mm)
        if pool:
            n, _, h, w = a.shape
            a = a.reshape(n, f, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        ap = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
        y = conv_ref(ap, w2, 1, mm=mm)
        if pool2:
            n, c2, h, w = y.shape
            y = y.reshape(n, c2, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        if f3:
            y = conv_ref(y, w3, 1, mm=mm)
        return y
    extra = {"w3": w3} if f3 else {}
    return mlir, {**inputs, "w2": w2, **extra}, ref


def case_conv_project(rng, dims, dt):
    """conv_bn_act (dims[:9] as there) gives `a`, kept in SBUF; a 1x1
    projection of it to F2 filters (dims[9]) plus a residual input `res`
    [N, F2, H', W'] is the result (an inverted bottleneck's end). With few
    filters and several images the projection may compute bands of rows
    side by side on the partitions (docs/compiler.md, "Result bands")."""
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims[:9], dt)
    f, f2 = dims[4], dims[9]
    w2 = rand(rng, (f2, f, 1, 1), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    yshape = (shape[0], f2) + shape[2:]
    yt = ttype(yshape, "f32")
    r = rand(rng, yshape, "f32")
    body = f"""
  %pe = tensor.empty() : {yt}
  %pz = linalg.fill ins(%zero_f32 : f32) outs(%pe : {yt}) -> {yt}
  %p = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%a, %w2 : {out}, {ttype((f2, f, 1, 1), dt)}) outs(%pz : {yt}) -> {yt}"""
    body += elementwise_mlir("s", ["p", "res"], [yshape, yshape], yshape, """
    %v = arith.addf %a0, %a1 : f32
    linalg.yield %v : f32""")
    mlir = mlir.replace(f"  return %a : {out}", f"{body}\n  return %s : {yt}").replace(
        f") -> {out} {{", f") -> {yt} {{", 1).replace(
        '%scale: ', f'%w2: {ttype((f2, f, 1, 1), dt)} {{nki.name = "w2"}}, '
        f'%res: {yt} {{nki.name = "res"}}, %scale: ', 1)

    def ref(mm):
        a = ref1(mm)
        return conv_ref(a, w2, 1, mm=mm) + r
    return mlir, {**inputs, "w2": w2, "res": r}, ref


def case_conv_skip(rng, dims, dt):
    """A U-Net level's skip: conv_bn_act (dims[:9] as there) gives `a`; a
    2x2 stride-2 max pool of `a` and a 3x3 convolution of F2 filters
    (dims[9]) of the pooled tensor zero-padded by one give `b`; a 3x3
    convolution of F2 filters of `a` zero-padded by one, 2x2 max pooled,
    plus `b` is the result. `a` is read twice, by the pooling its writer
    computes and by the second 3x3 convolution after `b`: too large for SBUF
    channel-major it may stay in that reader's packed tile (docs/compiler.md,
    "Packed residents too large channel-major")."""
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims[:9], dt)
    f, f2 = dims[4], dims[9]
    wb = rand(rng, (f2, f, 3, 3), dt)
    wy = rand(rng, (f2, f, 3, 3), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    half = (shape[0], f, shape[2] // 2, shape[3] // 2)
    half2 = (shape[0], f2) + half[2:]
    full2 = (shape[0], f2) + shape[2:]
    wt = ttype((2, 2), "f32")
    pool = lambda name, src, st, pt: f"""
  %{name}e = tensor.empty() : {pt}
  %{name}i = linalg.fill ins(%ninf : f32) outs(%{name}e : {pt}) -> {pt}
  %{name} = linalg.pooling_nchw_max {{strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%{src}, %win : {st}, {wt}) outs(%{name}i : {pt}) -> {pt}"""
    conv = lambda name, src, st, w, yt: f"""
  %{name}e = tensor.empty() : {yt}
  %{name}z = linalg.fill ins(%zero_f32 : f32) outs(%{name}e : {yt}) -> {yt}
  %{name} = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%{src}, %{w} : {st}, {ttype((f2, f, 3, 3), dt)}) outs(%{name}z : {yt}) -> {yt}"""
    pp, ppt = pad_mlir("pp", "p", half, 1, "zero_f32")
    ap, apt = pad_mlir("ap", "a", shape, 1, "zero_f32")
    body = f"""
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : {wt}"""
    body += pool("p", "a", out, ttype(half, "f32")) + pp
    body += conv("b", "pp", ttype(ppt, "f32"), "wb", ttype(half2, "f32"))
    body += ap + conv("c", "ap", ttype(apt, "f32"), "wy", ttype(full2, "f32"))
    body += pool("q", "c", ttype(full2, "f32"), ttype(half2, "f32"))
    body += elementwise_mlir("s", ["q", "b"], [half2, half2], half2, """
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32""")
    ht = ttype(half2, "f32")
    mlir = mlir.replace(
        f"  return %a : {out}", f"{body}\n  return %s : {ht}").replace(
        f") -> {out} {{", f") -> {ht} {{", 1).replace(
        '%scale: ', f'%wb: {ttype((f2, f, 3, 3), dt)} {{nki.name = "wb"}}, '
        f'%wy: {ttype((f2, f, 3, 3), dt)} {{nki.name = "wy"}}, %scale: ', 1)

    def ref(mm):
        a = ref1(mm)
        n, _, h, w = a.shape
        pool2 = lambda t: t.reshape(t.shape[0], t.shape[1], h // 2, 2, w // 2,
                                    2).max(axis=(3, 5))
        pad1 = lambda t: np.pad(t, ((0, 0), (0, 0), (1, 1), (1, 1)))
        b = conv_ref(pad1(pool2(a)), wb, 1, mm=mm)
        return pool2(conv_ref(pad1(a), wy, 1, mm=mm)) + b
    return mlir, {**inputs, "wb": wb, "wy": wy}, ref


def case_conv_shortcut(rng, dims, dt):
    """A ResNet projection block's end: relu((conv(y, w3) + b3) +
    (conv(x, wd, stride S) + bd)), both 1x1 with per-channel shifts; dims
    N, C (y's channels), C2 (x's), H, W (y's and the result's), F, S (x
    is H * S x W * S). The two convolutions accumulate in one PSUM tile
    (nki-accumulate-convs, docs/compiler.md "Accumulated convolutions").
    With dims[7] = 1, y is first scaled per image and channel by an input
    `se` [N, C] (squeeze-and-excitation), which the 1x1's kernel
    absorbs: it then keeps a kernel of its own."""
    n, c, c2, h, w, f, st = dims[:7]
    se = len(dims) > 7 and dims[7] == 1
    y, x = rand(rng, (n, c, h, w), dt), rand(rng, (n, c2, h * st, w * st), dt)
    w3, wd = rand(rng, (f, c, 1, 1), dt), rand(rng, (f, c2, 1, 1), dt)
    b3 = rng.uniform(-1.0, 1.0, (f,)).astype(np.float32)
    bd = rng.uniform(-1.0, 1.0, (f,)).astype(np.float32)
    out = ttype((n, f, h, w), "f32")
    conv = lambda name, src, st_, wt, stride: f"""
  %{name}e = tensor.empty() : {out}
  %{name}z = linalg.fill ins(%zero_f32 : f32) outs(%{name}e : {out}) -> {out}
  %{name} = linalg.conv_2d_nchw_fchw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%{src}, %{wt} : {st_}, {ttype((f, c if wt == "w3" else c2, 1, 1), dt)}) outs(%{name}z : {out}) -> {out}"""
    body = ""
    src = "y"
    if se:
        body += elementwise_mlir("ys", ["y", "se"], [(n, c, h, w), (n, c)],
                                 (n, c, h, w), """
    %v = arith.mulf %a0, %a1 : f32
    linalg.yield %v : f32""", maps=[[0, 1, 2, 3], [0, 1]])
        src = "ys"
    body += conv("p", src, ttype((n, c, h, w), "f32" if se else dt), "w3", 1)
    body += conv("d", "x", ttype((n, c2, h * st, w * st), dt), "wd", st)
    shape = (n, f, h, w)
    body += elementwise_mlir("r", ["p", "b3", "d", "bd"],
                             [shape, (f,), shape, (f,)], shape, """
    %s0 = arith.addf %a0, %a1 : f32
    %s1 = arith.addf %a2, %a3 : f32
    %s = arith.addf %s0, %s1 : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32""", maps=[[0, 1, 2, 3], [1], [0, 1, 2, 3], [1]])
    sev = rng.uniform(0.5, 1.5, (n, c)).astype(np.float32)
    mlir = func([("y", ttype((n, c, h, w), dt))] +
                ([("se", ttype((n, c), "f32"))] if se else []) + [
                 ("x", ttype((n, c2, h * st, w * st), dt)),
                 ("w3", ttype((f, c, 1, 1), dt)),
                 ("wd", ttype((f, c2, 1, 1), dt)),
                 ("b3", ttype((f,), "f32")), ("bd", ttype((f,), "f32"))],
                out, body, "r")

    def ref(mm):
        col = lambda v: v[None, :, None, None].astype(np.float64)
        ys = y.astype(np.float64) * sev[:, :, None, None] if se else y
        p = conv_ref(ys, w3, 1, mm=mm) + col(b3)
        d = conv_ref(x, wd, st, mm=mm) + col(bd)
        return np.maximum(p + d, 0)
    inputs = {"y": y, "x": x, "w3": w3, "wd": wd, "b3": b3, "bd": bd}
    if se:
        inputs["se"] = sev
    return mlir, inputs, ref


def case_projection_block(rng, dims, dt):
    """A ResNet stage's first bottleneck after a 1x1 layer: x = relu(conv(
    in, w0)) (C0 -> C channels, H x W), y = relu(conv3x3 stride 2 pad 1 of
    relu(conv(x, w1))) (C -> M -> M), and relu(conv(y, w3) + conv(x, wd,
    stride 2)) (M -> F and C -> F); dims N, C0, C, M, F, H (= W). The
    last two convolutions accumulate in one PSUM tile
    (nki-accumulate-convs)."""
    n, c0, c, m, f, h = dims
    x = rand(rng, (n, c0, h, h), dt)
    ws = {k: rand(rng, s, dt) for k, s in (("w0", (c, c0, 1, 1)),
                                          ("w1", (m, c, 1, 1)),
                                          ("w2", (m, m, 3, 3)),
                                          ("w3", (f, m, 1, 1)),
                                          ("wd", (f, c, 1, 1)))}
    h2 = h // 2
    def conv(name, src, st, w, wshape, out_shape, stride):
        ot = ttype(out_shape, "f32")
        return f"""
  %{name}e = tensor.empty() : {ot}
  %{name}z = linalg.fill ins(%zero_f32 : f32) outs(%{name}e : {ot}) -> {ot}
  %{name} = linalg.conv_2d_nchw_fchw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%{src}, %{w} : {st}, {ttype(wshape, dt)}) outs(%{name}z : {ot}) -> {ot}"""
    relu = lambda name, src, shape: elementwise_mlir(name, [src], [shape], shape, """
    %r = arith.maximumf %a0, %zero_f32 : f32
    linalg.yield %r : f32""")
    s0, s1, s2 = (n, c, h, h), (n, m, h, h), (n, m, h2, h2)
    so = (n, f, h2, h2)
    body = conv("c0", "x", ttype((n, c0, h, h), dt), "w0", (c, c0, 1, 1), s0, 1)
    body += relu("t0", "c0", s0)
    body += conv("c1", "t0", ttype(s0, "f32"), "w1", (m, c, 1, 1), s1, 1)
    body += relu("t1", "c1", s1)
    padding, padded = pad_mlir("p1", "t1", s1, 1, "zero_f32")
    body += padding + conv("c2", "p1", ttype(padded, "f32"), "w2", (m, m, 3, 3), s2, 2)
    body += relu("t2", "c2", s2)
    body += conv("c3", "t2", ttype(s2, "f32"), "w3", (f, m, 1, 1), so, 1)
    body += conv("cd", "t0", ttype(s0, "f32"), "wd", (f, c, 1, 1), so, 2)
    body += elementwise_mlir("r", ["c3", "cd"], [so, so], so, """
    %s = arith.addf %a0, %a1 : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32""")
    args = [("x", ttype((n, c0, h, h), dt))] + [
        (k, ttype(v.shape, dt)) for k, v in ws.items()]
    mlir = func(args, ttype(so, "f32"), body, "r")

    def ref(mm):
        a0 = np.maximum(conv_ref(x, ws["w0"], 1, mm=mm), 0)
        a1 = np.maximum(conv_ref(a0, ws["w1"], 1, mm=mm), 0)
        a1p = np.pad(a1, ((0, 0), (0, 0), (1, 1), (1, 1)))
        a2 = np.maximum(conv_ref(a1p, ws["w2"], 2, mm=mm)[:, :, :h2, :h2], 0)
        return np.maximum(conv_ref(a2, ws["w3"], 1, mm=mm) +
                          conv_ref(a0, ws["wd"], 2, mm=mm), 0)
    return mlir, {"x": x, **ws}, ref


def case_conv_depthwise(rng, dims, dt):
    """conv_bn_act (dims[:9] as there), then a constant 3x3 depthwise
    convolution of its result zero-padded by one (MobileNetV2's stem and
    first depthwise layer), stride dims[9] (default 1): the tensor between
    them kept in SBUF, in the depthwise kernel's packed bands when the
    first convolution moves its rows by DMA."""
    stride = dims[9] if len(dims) > 9 else 1
    mlir, inputs, ref1 = case_conv_bn_act(rng, dims[:9], dt)
    f = dims[4]
    wt = rand(rng, (f, 3, 3), dt)
    out = mlir.rsplit("return %a : ", 1)[1].split("\n", 1)[0]
    shape = tuple(int(d) for d in out[len("tensor<"):].split("x")[:4])
    padding, padded = pad_mlir("ap", "a", shape, 1, "zero_f32")
    oh = (padded[2] - 3) // stride + 1
    ow = (padded[3] - 3) // stride + 1
    yt = ttype((shape[0], f, oh, ow), "f32")
    body = padding + f"""
  %wk = arith.constant dense<{dense_literal(wt)}> : {ttype((f, 3, 3), "f32")}
  %de = tensor.empty() : {yt}
  %dz = linalg.fill ins(%zero_f32 : f32) outs(%de : {yt}) -> {yt}
  %d = linalg.depthwise_conv_2d_nchw_chw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%ap, %wk : {ttype(padded, "f32")}, {ttype((f, 3, 3), "f32")}) outs(%dz : {yt}) -> {yt}
  return %d : {yt}"""
    mlir = mlir.replace(f"  return %a : {out}", body).replace(
        f") -> {out} {{", f") -> {yt} {{", 1)

    return mlir, inputs, lambda mm: depthwise3x3_ref(ref1(mm), wt, stride)


def case_expand_depthwise(rng, dims, dt):
    """An inverted bottleneck's first half: a 1x1 expansion with a constant
    filter and bias, ReLU6, then a constant 3x3 depthwise convolution (zero
    padding 1, stride S); dims N, C, H, W, F, S. With F past a multiple of
    128 by at most 32 (MobileNetV2's 24 -> 144) the expansion is split per
    depthwise block (nki-split-conv-slices)."""
    n, c, h, w, f, stride = dims
    x = rand(rng, (n, c, h, w), dt)
    w1 = rand(rng, (f, c, 1, 1), "f32")
    b1 = rng.uniform(-1.0, 1.0, (f,)).astype(np.float32)
    wk = rand(rng, (f, 3, 3), "f32")
    if dt == "bf16":
        w1, wk = bf16_round(w1), bf16_round(wk)
    yt = ttype((n, f, h, w), "f32")
    oh, ow = (h - 1) // stride + 1, (w - 1) // stride + 1
    dt_ = ttype((n, f, oh, ow), "f32")
    body = f"""
  %w1 = arith.constant dense<{dense_literal(w1)}> : {ttype((f, c, 1, 1), "f32")}
  %b1 = arith.constant dense<{dense_literal(b1)}> : {ttype((f,), "f32")}
  %ye = tensor.empty() : {yt}
  %yz = linalg.fill ins(%zero_f32 : f32) outs(%ye : {yt}) -> {yt}
  %y = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%x, %w1 : {ttype((n, c, h, w), dt)}, {ttype((f, c, 1, 1), "f32")}) outs(%yz : {yt}) -> {yt}"""
    body += elementwise_mlir("a", ["y", "b1"], [(n, f, h, w), (f,)],
                             (n, f, h, w), """
    %v = arith.addf %a0, %a1 : f32
    %six = arith.constant 6.0 : f32
    %m = arith.maximumf %v, %zero_f32 : f32
    %r = arith.minimumf %m, %six : f32
    linalg.yield %r : f32""", maps=[[0, 1, 2, 3], [1]])
    padding, padded = pad_mlir("ap", "a", (n, f, h, w), 1, "zero_f32")
    body += padding + f"""
  %wk = arith.constant dense<{dense_literal(wk)}> : {ttype((f, 3, 3), "f32")}
  %de = tensor.empty() : {dt_}
  %dz = linalg.fill ins(%zero_f32 : f32) outs(%de : {dt_}) -> {dt_}
  %d = linalg.depthwise_conv_2d_nchw_chw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%ap, %wk : {ttype(padded, "f32")}, {ttype((f, 3, 3), "f32")}) outs(%dz : {dt_}) -> {dt_}"""
    mlir = func([("x", ttype((n, c, h, w), dt))], dt_, body, "d")

    def ref(mm):
        a = np.clip(conv_ref(x, w1, 1, mm=mm) +
                    b1[None, :, None, None].astype(np.float64), 0, 6)
        return depthwise3x3_ref(a, wk, stride)
    return mlir, {"x": x}, ref


def case_depthwise(rng, dims, dt, box=False):
    """N x C x H x W input, a constant K x K filter per channel (what the
    ONNX importer writes for Conv with group = C), stride, zero padding.
    `box`: every weight 1 / K^2 (a splat constant, a box filter)."""
    n, c, h, w, k, stride, pad = dims
    x = rand(rng, (n, c, h, w), dt)
    wt = rand(rng, (c, k, k), dt)
    if box:
        wt = np.full((c, k, k), 1.0 / (k * k), np.float32)
        wt = bf16_round(wt) if dt == "bf16" else wt
    body, padded = pad_mlir("xp", "x", (n, c, h, w), pad, f"zero_{dt}", dt)
    oh = (padded[2] - k) // stride + 1
    ow = (padded[3] - k) // stride + 1
    out = ttype((n, c, oh, ow), "f32")
    def nested(a):
        if a.ndim == 0:
            return f"{float(a):.9e}"
        return "[" + ", ".join(nested(e) for e in a) + "]"
    body += f"""
  %wk = arith.constant dense<{nested(wt.astype(np.float64))}> : {ttype((c, k, k), dt)}
  %ye = tensor.empty() : {out}
  %yz = linalg.fill ins(%zero_f32 : f32) outs(%ye : {out}) -> {out}
  %y = linalg.depthwise_conv_2d_nchw_chw {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%xp, %wk : {ttype(padded, dt)}, {ttype((c, k, k), dt)}) outs(%yz : {out}) -> {out}"""
    mlir = func([("x", ttype((n, c, h, w), dt))], out, body, "y")
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))).astype(np.float64)

    def ref(mm):
        y = np.zeros((n, c, oh, ow))
        for i in range(k):
            for j in range(k):
                y += xp[:, :, i:i + (oh - 1) * stride + 1:stride,
                        j:j + (ow - 1) * stride + 1:stride] * \
                    wt[None, :, i, j, None, None].astype(np.float64)
        return y
    return mlir, {"x": x}, ref


def case_maxpool(rng, dims, dt):
    """N x C x H x W input, K x K windows, stride, -inf padding."""
    n, c, h, w, k, stride, pad = dims
    x = rand(rng, (n, c, h, w), dt)
    body, padded = pad_mlir("xp", "x", (n, c, h, w), pad, f"ninf_{dt}", dt)
    oh = (padded[2] - k) // stride + 1
    ow = (padded[3] - k) // stride + 1
    out = ttype((n, c, oh, ow), dt)
    body += f"""
  %ye = tensor.empty() : {out}
  %yi = linalg.fill ins(%ninf_{dt} : {dt}) outs(%ye : {out}) -> {out}
  %win = tensor.empty() : {ttype((k, k), dt)}
  %y = linalg.pooling_nchw_max {{strides = dense<{stride}> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}} ins(%xp, %win : {ttype(padded, dt)}, {ttype((k, k), dt)}) outs(%yi : {out}) -> {out}"""
    mlir = func([("x", ttype((n, c, h, w), dt))], out, body, "y")

    def ref(mm):
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)),
                    constant_values=-np.inf)
        y = np.full((n, c, oh, ow), -np.inf)
        for i in range(k):
            for j in range(k):
                y = np.maximum(y, xp[:, :, i:i + (oh - 1) * stride + 1:stride,
                                     j:j + (ow - 1) * stride + 1:stride])
        return y
    return mlir, {"x": x}, ref


def reduce_dims_mlir(name, x, shape, out_dims, init, combine, pre, dt):
    """%name[out_dims] = combine over the other dims of pre(x)."""
    rank = len(shape)
    dims = [f"d{i}" for i in range(rank)]
    out_shape = tuple(shape[d] for d in out_dims)
    iters = ", ".join('"parallel"' if d in out_dims else '"reduction"'
                      for d in range(rank))
    in_map = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>"
    out_map = (f"affine_map<({', '.join(dims)}) -> "
               f"({', '.join(dims[d] for d in out_dims)})>")
    value = "%p" if pre else "%a0"
    return f"""
  %{name}_e = tensor.empty() : {ttype(out_shape, dt)}
  %{name}_i = linalg.fill ins(%{init} : {dt}) outs(%{name}_e : {ttype(out_shape, dt)}) -> {ttype(out_shape, dt)}
  %{name} = linalg.generic {{indexing_maps = [{in_map}, {out_map}], iterator_types = [{iters}]}} ins(%{x} : {ttype(shape, dt)}) outs(%{name}_i : {ttype(out_shape, dt)}) {{
  ^bb0(%a0: {dt}, %o: {dt}):{pre}
    %y = {combine} {value}, %o : {dt}
    linalg.yield %y : {dt}
  }} -> {ttype(out_shape, dt)}"""


def round_to(dt, r):
    r = np.asarray(r, dtype=np.float64)
    return bf16_round(r.astype(np.float32)) if dt == "bf16" else r


def case_colsum(rng, dims, dt):
    """Sum over dim 0 of a 2-D tensor (the partition dim on the machine)."""
    r, c = dims
    x = rand(rng, (r, c), dt)
    body = reduce_dims_mlir("s", "x", (r, c), [1], f"zero_{dt}", "arith.addf",
                            "", dt)
    mlir = func([("x", ttype((r, c), dt))], ttype((c,), dt), body, "s")
    return mlir, {"x": x}, lambda mm: round_to(dt, x.astype(np.float64).sum(0))


def case_colmax(rng, dims, dt):
    """Max over dim 0 of a 2-D tensor."""
    r, c = dims
    x = rand(rng, (r, c), dt)
    body = reduce_dims_mlir("s", "x", (r, c), [1], f"ninf_{dt}",
                            "arith.maximumf", "", dt)
    mlir = func([("x", ttype((r, c), dt))], ttype((c,), dt), body, "s")
    return mlir, {"x": x}, lambda mm: x.max(0)


def case_mean_all(rng, dims, dt):
    """The mean of every element (a rank-0 result), as sum(x / n)."""
    x = rand(rng, tuple(dims), dt)
    n = float(np.prod(dims))
    body = reduce_dims_mlir("s", "x", tuple(dims), [], f"zero_{dt}",
                            "arith.addf", f"""
    %n = arith.constant {n!r} : {dt}
    %p = arith.divf %a0, %n : {dt}""", dt)
    mlir = func([("x", ttype(tuple(dims), dt))], ttype((), dt), body, "s")
    return mlir, {"x": x}, lambda mm: round_to(dt, x.astype(np.float64).mean())


CASES = {
    "chain": case_chain,
    "colmax": case_colmax,
    "colsum": case_colsum,
    "matmul": case_matmul,
    "matmul_bt": case_matmul_bt,
    "linear_batch1": lambda rng, dims, dt: case_linear(rng, dims, dt,
                                                       batch1=True),
    "matmul_mx": case_matmul_mx,
    "matmul_mx_const": lambda rng, dims, dt: case_matmul_mx(rng, dims, dt,
                                                            const_b=True),
    "batch_matmul": case_batch_matmul,
    "matmul_bias_gelu": case_matmul_bias_gelu,
    "softmax": case_softmax,
    "layernorm": case_layernorm,
    "ln_linear": case_ln_linear,
    "mean_all": case_mean_all,
    "mlp": case_mlp,
    "attention": case_attention,
    "add": case_add,
    "transpose": case_transpose,
    "departition": case_departition,
    "conv2d": case_conv2d,
    "conv_bn_act": case_conv_bn_act,
    "conv_act_conv": case_conv_act_conv,
    "conv_pool_conv": case_conv_pool_conv,
    "conv_conv": case_conv_conv,
    "conv_skip": case_conv_skip,
    "conv_project": case_conv_project,
    "conv_shortcut": case_conv_shortcut,
    "projection_block": case_projection_block,
    "conv_depthwise": case_conv_depthwise,
    "expand_depthwise": case_expand_depthwise,
    "depthwise": case_depthwise,
    "depthwise_box": lambda rng, dims, dt: case_depthwise(rng, dims, dt,
                                                          box=True),
    "maxpool": case_maxpool,
    "int_arith": case_int_arith,
    "bool_mask": case_bool_mask,
    "linear": case_linear,
    "shared_linear": case_shared_linear,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("--dims", required=True,
                   help="comma-separated sizes, e.g. 129,300,7")
    p.add_argument("--dtype", default="f32",
                   choices=["f32", "bf16", "f8E4M3FN", "f8E5M2", "f4E2M1FN"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--auto-cast", default="none",
                   choices=["none", "matmul", "fp8", "mxfp8", "mxfp4"],
                   help="matmul: the reference rounds matmul inputs to bf16; "
                   "fp8, mxfp8, mxfp4: it quantises x W (W a weight) as the "
                   "compiler does (docs/compiler.md), the other matmuls as "
                   "matmul")
    p.add_argument("--mlir-only", action="store_true",
                   help="write prog.mlir only (benchmarks use random inputs)")
    p.add_argument("--dir", required=True)
    args = p.parse_args()
    dims = [int(d) for d in args.dims.split(",")]
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    mlir, inputs, ref = CASES[args.case](rng, dims, args.dtype)
    if args.mlir_only:
        with open(os.path.join(args.dir, "prog.mlir"), "w") as f:
            f.write(mlir)
        return
    def mm_bf16(x, y):
        # The compiler rounds both matmul operands to bf16 (intermediate
        # ones too) and accumulates in fp32.
        r = lambda v: bf16_round(np.asarray(v, np.float32))  # noqa
        return r(x).astype(np.float64) @ r(y).astype(np.float64)

    def mm_fp8(x, y):
        # Each row of x scaled to e4m3's largest value 448 (its max |x|, at
        # least 1e-12), the weight by one scale; both undone after the
        # matmul. float32 steps as the machine computes them.
        f32 = np.float32
        x, y = np.asarray(x, f32), np.asarray(y, f32)
        amax = np.maximum(np.abs(x).max(axis=-1, keepdims=True), f32(1e-12))
        x8 = e4m3_round(x * (f32(448) / amax))
        wmax = f32(np.abs(y).max())
        ws = wmax / f32(448) if wmax > 0 else f32(1)
        y8 = e4m3_round(y / ws)
        p = (x8.astype(np.float64) @ y8.astype(np.float64)).astype(f32)
        return p * (amax * (ws / f32(448)))

    def mm_mx(x, y, fp4=False):
        # x's blocks of 32 along K per row, W's per column (QuantizeMx.h);
        # the PE sums exact scaled products. K not a multiple of 32 stays
        # bf16.
        if np.shape(x)[-1] % 32:
            return mm_bf16(x, y)
        return mx_quantise(x, -1, fp4) @ mx_quantise(y, 0, fp4)

    if args.auto_cast == "matmul":
        def mm(x, y, weight=False):
            return mm_bf16(x, y)
    elif args.auto_cast == "fp8":
        def mm(x, y, weight=False):
            return mm_fp8(x, y) if weight else mm_bf16(x, y)
    elif args.auto_cast in ("mxfp8", "mxfp4"):
        def mm(x, y, weight=False):
            fp4 = args.auto_cast == "mxfp4"
            return mm_mx(x, y, fp4) if weight else mm_bf16(x, y)
    else:
        def mm(x, y, weight=False):
            return np.asarray(x, np.float64) @ np.asarray(y, np.float64)
    ref = ref(mm)
    with open(os.path.join(args.dir, "prog.mlir"), "w") as f:
        f.write(mlir)
    flags = []
    for name, value in inputs.items():
        path = os.path.join(args.dir, name + ".npy")
        # Integer inputs keep their type (nki-run checks that they fit).
        np.save(path, value if value.dtype.kind in "iub"
                else value.astype(np.float32))
        flags.append(f"--input {name}={path}")
    path = os.path.join(args.dir, "expected.npy")
    ref = np.asarray(ref)
    np.save(path, np.ascontiguousarray(
        ref, dtype=ref.dtype if ref.dtype.kind in "iub" else np.float32))
    flags.append(f"--expected out0={path}")
    print(" ".join(flags))


if __name__ == "__main__":
    main()
