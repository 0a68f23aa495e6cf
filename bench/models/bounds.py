#!/usr/bin/python3
"""Lower bounds on a model's run time from its ONNX graph, beside the
roofline floor of run.py: what the machine allows these shapes at best.

    bounds.py MODEL.onnx [MODEL.onnx ...] [--bf16] --report REPORT.json
              [--pe-ghz GHZ ...]

A matmul column contracts at most min(128, C x KH x KW) rows into at most
min(128, F) outputs and costs 4 PE cycles with fp32 inputs, so a dense
convolution (or Gemm/MatMul) of M MACs needs at least M / (K x F') such
columns, even with every kernel tap folded into the contraction. A
depthwise convolution's MACs (one input channel per output) are a
multiply-accumulate per partition lane each; the PE (one per 4 cycles with
the diagonal filter; one with --bf16, the matmul inputs of
--auto-cast=matmul), the DVE (a cycle at its clock accumulating in PSUM)
and the POOL (two cycles at its clock) share them at best, multiplies free
(on the ACT). The bound is the least T with dense PE time + the PE's share
of the depthwise work <= T and the DVE's and POOL's shares each <= T.
Clocks: the target's, from an nki-run JSON report (`--report`, its
`engine_clocks_hz`; run.py passes each row's); no latency, epilogue or DMA
is counted, so real kernels stay above it.

The second bound also counts the PE's per-instruction minimums: a matmul
moves at most 512 columns and at least 64 (max(N, 64) cycles), and each
stationary block is loaded (64 columns' time) once per group of four
matmuls, as nki-tile's kernels share it; a Gemm or MatMul takes the
cheaper of its two orientations (activations or weights moving). At 7x7
pixels or one image's classifier these minimums, not the MACs, are the
PE's work.

(The first two take a column's rows and outputs from one layer: bands of
pixels side by side, which nki-tile packs for few channels and filters,
fill more of the array, and the U-Net at batch 8 runs below them.)

The third bound (`engines`) counts every engine, with their rates alone:
the dense layers at the PE's peak (128 x 128 MACs a column, a valid bound
however the kernels pack them); a depthwise multiply-accumulate per lane
either on the PE or as a product (ACT, DVE or POOL, a cycle an element)
plus, but for each output's first tap, a sum (the DVE into PSUM, a cycle;
the POOL in SBUF, two); every convolution or matmul output read once out
of PSUM by the ACT or the DVE (the ACT alone where a sigmoid, tanh or
exponential follows), an instruction reading PSUM at most a bank (512
fp32 elements) and paying its 64 fixed cycles; a depthwise output summed
in SBUF may instead take its epilogue on the POOL, and an output the ACT
must process may be read out of PSUM by the DVE, the ACT then taking it
from SBUF. The bound is the least T at which some split of that work
puts at most T on every engine (exact: the PE takes as much depthwise
work as fits, and the rest is a small linear feasibility problem solved
at its vertices). Lanes are all used, no latency, clamp or DMA is
counted: the kernels stay above it.

The fourth (`layer by layer`) sums each convolution's or matmul's own
bound (the larger of the second and the third, over that layer and the
ops that read its output) over the layers: what a schedule that runs one
layer after another, none overlapping the next, allows at best by those
models. The difference from the whole-model bounds is what overlapping
layers could gain (the PE running one layer's matmuls while the vector
engines run another's depthwise taps). Like the second, it does not
credit bands of pixels side by side.

With `--trace` (an nki-run trace of the one model) it also prints each
layer's engine time against its own bound, and the whole trace's engine
time with the span it would take spread evenly over the four engines,
none idle: where that is above a target, the compiled program has too
much work for any schedule of it to reach the target.
"""
import argparse
import itertools
import json
import math
import os
import sys

import numpy

import onnx
from onnx import helper, shape_inference

PARTITIONS = 128


def min_columns(pixels, k, m):
    """Matmul columns (64-column LoadStationary included) of a [k, m]
    stationary operand over `pixels` moving columns, with the minimums.
    Its [128, 128] blocks are counted fractionally, as the MAC bound does
    (bands of pixels side by side fill a block's partial rows and
    columns)."""
    chunks = [min(512, pixels - i) for i in range(0, pixels, 512)]
    moving = sum(max(n, 64) for n in chunks)
    loads = math.ceil(len(chunks) / 4) * 64
    blocks = (max(k, PARTITIONS) / PARTITIONS) * (max(m, PARTITIONS) /
                                                  PARTITIONS)
    return blocks * (moving + loads)


def _fold_shapes(model):
    """`model` with the int64 shape computations onnx's shape inference
    leaves open folded into constants (a Reshape to Concat(Slice(Shape(x)),
    c), as torch exports `flatten(2)`): Shape of a tensor inference sized,
    and Constant, Slice, Concat, Gather, Unsqueeze, Squeeze and Cast over
    such values, evaluated with numpy. Each Reshape whose target folds
    takes it as an initializer; inference then sizes what follows."""
    import numpy as np
    from onnx import numpy_helper
    for _ in range(4):
        model = shape_inference.infer_shapes(model)
        g = model.graph
        dims = {vi.name: [d.dim_value if d.HasField("dim_value") else None
                          for d in vi.type.tensor_type.shape.dim]
                for vi in list(g.input) + list(g.value_info)}
        known = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        inits = set(known)

        def attr(n, name, default=None):
            return next((helper.get_attribute_value(a) for a in n.attribute
                         if a.name == name), default)

        for n in g.node:
            ins = [known.get(i) if i else None for i in n.input]
            out = None
            try:
                if n.op_type == "Constant" and attr(n, "value") is not None:
                    out = numpy_helper.to_array(attr(n, "value"))
                elif n.op_type == "Shape":
                    d = dims.get(n.input[0])
                    if d and None not in d and all(x > 0 for x in d):
                        out = np.array(d, np.int64)[
                            attr(n, "start", 0):attr(n, "end", len(d))]
                elif any(i and known.get(i) is None for i in n.input):
                    out = None  # an input not folded (yet)
                elif n.op_type == "Slice":
                    data, starts, ends = ins[:3]
                    axes = ins[3] if len(ins) > 3 and ins[3] is not None \
                        else range(len(starts))
                    steps = ins[4] if len(ins) > 4 and ins[4] is not None \
                        else [1] * len(starts)
                    index = [slice(None)] * data.ndim
                    for a, b, e, st in zip(axes, starts, ends, steps):
                        index[a] = slice(int(b), int(e), int(st))
                    out = data[tuple(index)]
                elif n.op_type == "Concat":
                    out = np.concatenate(ins, axis=attr(n, "axis"))
                elif n.op_type == "Gather":
                    out = np.take(ins[0], ins[1], axis=attr(n, "axis", 0))
                elif n.op_type in ("Unsqueeze", "Squeeze"):
                    axes = attr(n, "axes")
                    axes = list(ins[1]) if axes is None and len(ins) > 1 \
                        else axes
                    out = (np.expand_dims(ins[0], tuple(axes))
                           if n.op_type == "Unsqueeze"
                           else np.squeeze(ins[0], tuple(axes)
                                           if axes else None))
                elif n.op_type == "Cast":
                    out = ins[0].astype(helper.tensor_dtype_to_np_dtype(
                        attr(n, "to")))
            except (TypeError, ValueError, IndexError):
                out = None
            if out is not None:
                known[n.output[0]] = np.asarray(out)
        folded = False
        for n in g.node:
            if n.op_type == "Reshape" and n.input[1] not in inits and \
                    n.input[1] in known:
                name = n.input[1] + "_folded"
                g.initializer.append(numpy_helper.from_array(
                    known[n.input[1]].astype(np.int64), name))
                inits.add(name)
                n.input[1] = name
                folded = True
        if not folded:
            return model
    return model


def load(path):
    """The model's graph, with every tensor's shape by name."""
    g = _fold_shapes(onnx.load(path)).graph
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
              for vi in list(g.input) + list(g.output) + list(g.value_info)}
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    return g, shapes


def bound(model, pe_ghz, dve_ghz, pool_ghz, column_cycles, minimums=False,
          nodes=None):
    g, shapes = model
    column_ns = column_cycles / pe_ghz  # a matmul column
    dense_ns = 0.0
    lane_macs = 0.0  # depthwise multiply-accumulates per partition lane
    for n in g.node if nodes is None else nodes:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            group = next((helper.get_attribute_value(a) for a in n.attribute
                          if a.name == "group"), 1)
            f, cg, taps = w[0], w[1], math.prod(w[2:])
            macs = math.prod(y) * cg * taps
            if group > 1 and cg == 1:
                lane_macs += macs / PARTITIONS
                continue
            k, m = min(PARTITIONS, cg * taps), min(PARTITIONS, f)
            if minimums:
                dense_ns += min_columns(math.prod(y) // f, cg * taps,
                                        f) * column_ns
                continue
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            trans = next((helper.get_attribute_value(x) for x in n.attribute
                          if x.name == "transA"), 0)
            kd = a[0] if trans else a[-1]
            macs = math.prod(y) * kd
            k, m = min(PARTITIONS, kd), min(PARTITIONS, y[-1])
            if minimums:
                rows = math.prod(y) // y[-1]
                dense_ns += min(min_columns(rows, kd, y[-1]),
                                min_columns(y[-1], kd, rows)) * column_ns
                continue
        else:
            continue
        dense_ns += macs / (k * m) * column_ns
    rates = {"pe": 1 / column_ns, "dve": dve_ghz, "pool": pool_ghz / 2}
    lo, hi = dense_ns, dense_ns + lane_macs * column_ns
    for _ in range(100):  # the least T whose engines hold the depthwise work
        t = (lo + hi) / 2
        held = (t - dense_ns) * rates["pe"] + t * (rates["dve"] + rates["pool"])
        lo, hi = (lo, t) if held >= lane_macs else (t, hi)
    return dense_ns / 1000, lane_macs, hi / 1000


ACT_ONLY = ("Sigmoid", "Tanh", "Exp", "Log", "Erf", "Softplus", "Gelu")


def layers(model, pe_ghz, act_ghz, dve_ghz, pool_ghz, column_cycles):
    """Each convolution or matmul, the names of the nodes of its layer (it
    and the other ops that read its output: its epilogue, where an
    activation only the ACT computes reads it out of PSUM) and the layer's
    own bound: the larger of the bound with minimums and the engines bound,
    over that layer alone."""
    g, shapes = model
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        sub = type(g)()
        sub.node.extend([n] + [
            r for r in g.node if n.output[0] in r.input and
            r.op_type not in ("Conv", "Gemm", "MatMul")])
        one = (sub, shapes)
        own = max(
            bound(one, pe_ghz, dve_ghz, pool_ghz, column_cycles,
                  minimums=True)[2],
            engines_bound(one, pe_ghz, act_ghz, dve_ghz, pool_ghz,
                          column_cycles))
        yield n, [m.name for m in sub.node], own


def layer_bound(model, pe_ghz, act_ghz, dve_ghz, pool_ghz, column_cycles):
    """Each layer's own bound summed: what running one layer after
    another, none overlapping the next, allows at best."""
    return sum(own for _, _, own in layers(model, pe_ghz, act_ghz, dve_ghz,
                                            pool_ghz, column_cycles))


ENGINES = ("pe", "act", "dve", "pool")


def engine_time(trace_path):
    """Busy us per engine of each source op (an ONNX node's name) in an
    `nki-run --trace` file."""
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    busy = {}
    for e in events:
        engine = names.get(e.get("tid")) if e.get("ph") == "X" else None
        if engine in ENGINES:
            op = busy.setdefault(e.get("args", {}).get("source", ""),
                                 dict.fromkeys(ENGINES, 0.0))
            op[engine] += e["dur"]
    return busy


def print_layers(model, trace_path, rates):
    """The layers against their own bounds: the engine time the trace
    gives each layer's nodes (an op the compiler composed into another is
    counted under the other's name), most engine time beyond four times
    the bound first. A layer alone ends no earlier than its bound; beside
    others, its engines' time is what the whole model's balance pays."""
    try:
        busy = engine_time(trace_path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"bounds.py: cannot read the trace {trace_path}: {e}")
    rows = []
    for n, nodes, own in layers(model, *rates):
        t = dict.fromkeys(ENGINES, 0.0)
        for name in nodes:
            for e, us in busy.get(name, {}).items():
                t[e] += us
        total = sum(t.values())
        rows.append((total - 4 * own, n.name or n.output[0], own, t, total))
    print()
    print("| layer | own bound us | PE us | ACT us | DVE us | POOL us | "
          "engine us | beyond 4 x bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for beyond, name, own, t, total in sorted(rows, key=lambda r: -r[0]):
        print(f"| {name} | {own:.1f} | "
              + " | ".join(f"{t[e]:.1f}" for e in ENGINES)
              + f" | {total:.1f} | {beyond:.1f} |")
    # The whole trace's engine time (every source, layers or not), and the
    # span that work would take spread evenly over the four engines, none
    # idle: a model whose even spread is above its target needs less work,
    # not a better schedule.
    whole = dict.fromkeys(ENGINES, 0.0)
    for op in busy.values():
        for e, us in op.items():
            whole[e] += us
    total = sum(whole.values())
    print()
    print("| whole trace | PE us | ACT us | DVE us | POOL us | engine us | "
          "spread evenly us |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| {os.path.basename(trace_path)} | "
          + " | ".join(f"{whole[e]:.1f}" for e in ENGINES)
          + f" | {total:.1f} | {total / len(ENGINES):.1f} |")


def engine_work(model):
    """(dense MACs, depthwise lane-MACs, depthwise outputs, outputs that may
    take the POOL, PSUM outputs, PSUM outputs the ACT must read), per
    partition lane but the dense MACs."""
    g, shapes = model
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)

    def act_only(out):
        # A function only the ACT computes reads it, or its batch norm.
        for r in readers.get(out, []):
            if r.op_type in ACT_ONLY:
                return True
            if r.op_type == "BatchNormalization" and act_only(r.output[0]):
                return True
        return False

    dense = lanes = dw_out = pool_ok = psum = psum_act = 0.0
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            group = next((helper.get_attribute_value(a) for a in n.attribute
                          if a.name == "group"), 1)
            macs = math.prod(y) * w[1] * math.prod(w[2:])
            out = math.prod(y) / PARTITIONS
        elif n.op_type == "ConvTranspose":
            # x [N, C, *in], w [C, M/g, *k]: each input element spreads over
            # M/g x prod(k) outputs (the floor counts it so too, run.py).
            x, w, y = (shapes[n.input[0]], shapes[n.input[1]],
                       shapes[n.output[0]])
            group, macs = 1, math.prod(x) * math.prod(w[1:])
            out = math.prod(y) / PARTITIONS
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            trans = next((helper.get_attribute_value(x) for x in n.attribute
                          if x.name == "transA"), 0)
            group, macs = 1, math.prod(y) * (a[0] if trans else a[-1])
            out = math.prod(y) / PARTITIONS
        else:
            continue
        psum += out
        if act_only(n.output[0]):
            psum_act += out
        if n.op_type == "Conv" and group > 1 and w[1] == 1:
            lanes += macs / PARTITIONS
            dw_out += out
            if not act_only(n.output[0]):
                pool_ok += out
        else:
            dense += macs
    return dense, lanes, dw_out, pool_ok, psum, psum_act


def feasible(rows, dims):
    """Whether some point satisfies every row (a_1 .. a_dims, c), meaning
    a . x <= c: a nonempty bounded polyhedron has a vertex where `dims` of
    its planes meet."""
    a = numpy.array([r[:dims] for r in rows], dtype=float)
    c = numpy.array([r[dims] for r in rows], dtype=float)
    for picked in itertools.combinations(range(len(rows)), dims):
        m = a[list(picked)]
        if abs(numpy.linalg.det(m)) < 1e-12:
            continue
        x = numpy.linalg.solve(m, c[list(picked)])
        if numpy.all(a @ x <= c + 1e-6 * (1 + numpy.abs(c))):
            return True
    return False


def engines_bound(model, pe_ghz, act_ghz, dve_ghz, pool_ghz, column_cycles,
                  bank=512, fixed=64):
    dense, lanes, dw_out, pool_ok, psum, psum_act = engine_work(model)
    column_ns = column_cycles / pe_ghz
    dense_ns = dense / (PARTITIONS * PARTITIONS) * column_ns
    k = 1 + fixed / bank  # an element read out of PSUM, in cycles
    sums = (lanes - dw_out) / lanes if lanes else 0.0

    def fits(t):
        if t < dense_ns:
            return False
        pe = min(lanes, (t - dense_ns) / column_ns)  # the PE takes its most
        products = lanes - pe
        s0 = products * sums
        act, dve, pool = t * act_ghz, t * dve_ghz, t * pool_ghz
        evac = psum - psum_act
        # x: sums on the DVE (k cycles each, the rest two on the POOL);
        # y: epilogues on the POOL (one cycle, in place of k on ACT or DVE);
        # z: outputs the ACT must process that the DVE reads out of PSUM
        # (k cycles), the ACT then taking one instead of k.
        rows = [
            (-1, 0, 0, 0), (1, 0, 0, s0), (0, -1, 0, 0),
            (0, 1, 0, min(pool_ok, evac)), (0, 0, -1, 0), (0, 0, 1, psum_act),
            # everything, the products anywhere
            (k - 2, 1 - k, 1, act + dve + pool - k * psum_act - 2 * s0 -
             k * evac - products),
            # the ACT's and DVE's own work and the evacuations between them
            (k, -k, 1, act + dve - k * psum_act - k * evac),
            (-2, 1, 0, pool - 2 * s0),        # the POOL's own work
            (k, 0, k, dve),                   # the DVE's
            (0, 0, 1 - k, act - k * psum_act),  # the ACT's
        ]
        return feasible(rows, 3)

    lo, hi = dense_ns, dense_ns + lanes * column_ns + psum * k / act_ghz
    for _ in range(60):
        t = (lo + hi) / 2
        lo, hi = (lo, t) if fits(t) else (t, hi)
    return hi / 1000


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--report", metavar="REPORT.json",
                   help="an nki-run --report=json of any program for the "
                   "target: its engine_clocks_hz (the target table's "
                   "clocks, which this script does not re-type)")
    for engine in ("pe", "act", "dve", "pool"):
        p.add_argument(f"--{engine}-ghz", type=float,
                       help=f"the {engine.upper()} clock (instead of the "
                       "report's)")
    p.add_argument("--bf16", action="store_true",
                   help="bf16 matmul inputs: a column costs one PE cycle")
    p.add_argument("--trace", metavar="TRACE.json",
                   help="an nki-run --trace of the (one) model: also each "
                   "layer's engine time against its own bound, and the "
                   "whole trace's engine time spread evenly")
    args = p.parse_args()
    if args.trace and len(args.models) != 1:
        p.error("--trace takes one model")
    if args.report:
        try:
            with open(args.report) as f:
                clocks = json.load(f)["engine_clocks_hz"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            p.error(f"--report {args.report}: no engine_clocks_hz "
                    f"({type(e).__name__}: {e}); an nki-run --report=json "
                    "file has them")
        for engine in ("pe", "act", "dve", "pool"):
            if getattr(args, f"{engine}_ghz") is None:
                setattr(args, f"{engine}_ghz", clocks[engine] / 1e9)
    missing = [e for e in ("pe", "act", "dve", "pool")
               if getattr(args, f"{e}_ghz") is None]
    if missing:
        p.error("the engine clocks come from --report REPORT.json (an "
                "nki-run --report=json of a program for the target) or "
                "--{pe,act,dve,pool}-ghz; missing: " + ", ".join(missing))
    print("| model | dense PE us | depthwise MACs per lane | bound us | "
          "dense PE us with minimums | bound us with minimums | "
          "engines bound us | layer by layer us |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.models:
        model = load(path)
        cycles = 1 if args.bf16 else 4
        dense, lanes, t = bound(model, args.pe_ghz, args.dve_ghz,
                                args.pool_ghz, cycles)
        dense_min, _, t_min = bound(model, args.pe_ghz, args.dve_ghz,
                                    args.pool_ghz, cycles, minimums=True)
        engines = engines_bound(model, args.pe_ghz, args.act_ghz,
                                args.dve_ghz, args.pool_ghz, cycles)
        by_layer = layer_bound(model, args.pe_ghz, args.act_ghz,
                               args.dve_ghz, args.pool_ghz, cycles)
        print(f"| {path} | {dense:.1f} | {lanes:,.0f} | {t:.1f} | "
              f"{dense_min:.1f} | {t_min:.1f} | {engines:.1f} | "
              f"{by_layer:.1f} |")
        if args.trace:
            print_layers(model, args.trace,
                         (args.pe_ghz, args.act_ghz, args.dve_ghz,
                          args.pool_ghz, cycles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
