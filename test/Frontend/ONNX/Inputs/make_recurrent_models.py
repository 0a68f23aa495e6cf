"""Writes the ONNX models of recurrent.test (RNN, GRU, LSTM) and their
numpy references into DIR (argv[1]). The reference below follows the ONNX
operator spec step by step (onnx/defs/rnn/defs.cc), independently of the
compiler: directions, sequence_lens (state held and Y zero past an entry's
length, a reverse direction starting at the entry's own last step),
activations with alpha/beta, clip, linear_before_reset, input_forget,
peepholes and layout."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_models import Models

out = sys.argv[1]
F, I32 = TensorProto.FLOAT, TensorProto.INT32

# name: (fn(x, alpha, beta), default alpha, default beta, takes alpha, beta)
ACTS = {
    "relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "tanh": (lambda x, a, b: np.tanh(x), None, None),
    "sigmoid": (lambda x, a, b: 1 / (1 + np.exp(-x)), None, None),
    "affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: np.where(x < 0, a * x, x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: np.where(x >= a, x, 0), 1.0, None),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "elu": (lambda x, a, b: np.where(x < 0, a * (np.exp(x) - 1), x), 1.0,
            None),
    "softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "softplus": (lambda x, a, b: np.log(1 + np.exp(x)), None, None),
}


def bind_activations(names, alphas, betas):
    """alpha/beta lists consumed in order by the activations taking them."""
    alphas, betas = list(alphas), list(betas)
    fns = []
    for n in names:
        fn, da, db = ACTS[n.lower()]
        a = alphas.pop(0) if da is not None and alphas else da
        b = betas.pop(0) if db is not None and betas else db
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return fns


def reference(kind, X, W, R, B=None, lens=None, h0=None, c0=None, P=None,
              direction="forward", activations=None, alpha=(), beta=(),
              clip=None, lbr=0, input_forget=0, layout=0):
    """Y [T, D, B, H], Y_h [D, B, H], Y_c (layout 0; transposed for 1)."""
    X = X.astype(np.float64)
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    T, Bn, _ = X.shape
    D = 2 if direction == "bidirectional" else 1
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    H = R.shape[-1]
    per = {"RNN": 1, "GRU": 2, "LSTM": 3}[kind]
    if activations is None:
        activations = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                       "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind] * D
    fns = bind_activations(activations, alpha, beta)
    lens = np.full(Bn, T) if lens is None else lens
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (
        lambda v: v)
    Y = np.zeros((T, D, Bn, H))
    Yh = np.zeros((D, Bn, H))
    Yc = np.zeros((D, Bn, H))
    for d in range(D):
        f, g, h = (fns[d * per:(d + 1) * per] + [None, None])[:3]
        rev = direction == "reverse" or d == 1
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        bias = np.zeros(2 * G * H) if B is None else B[d].astype(np.float64)
        wb, rb = bias[:G * H], bias[G * H:]
        p = np.zeros(3 * H) if P is None else P[d].astype(np.float64)
        for b in range(Bn):
            Ht = np.zeros(H) if h0 is None else h0[d, b].astype(np.float64)
            Ct = np.zeros(H) if c0 is None else c0[d, b].astype(np.float64)
            n = lens[b]
            steps = range(n - 1, -1, -1) if rev else range(n)
            for t in steps:
                x = X[t, b]
                if kind == "RNN":
                    Ht = f(cl(x @ w.T + Ht @ r.T + wb + rb))
                elif kind == "GRU":
                    wz, wr, wh = np.split(w, 3)
                    rz, rr, rh = np.split(r, 3)
                    wbz, wbr, wbh = np.split(wb, 3)
                    rbz, rbr, rbh = np.split(rb, 3)
                    z = f(cl(x @ wz.T + Ht @ rz.T + wbz + rbz))
                    rg = f(cl(x @ wr.T + Ht @ rr.T + wbr + rbr))
                    if lbr:
                        hh = g(cl(x @ wh.T + rg * (Ht @ rh.T + rbh) + wbh))
                    else:
                        hh = g(cl(x @ wh.T + (rg * Ht) @ rh.T + rbh + wbh))
                    Ht = (1 - z) * hh + z * Ht
                else:
                    gates = x @ w.T + Ht @ r.T + wb + rb
                    gi, go, gf, gc = np.split(gates, 4)
                    pi, po, pf = np.split(p, 3)
                    i = f(cl(gi + pi * Ct))
                    fg = 1 - i if input_forget else f(cl(gf + pf * Ct))
                    Ct = fg * Ct + i * g(cl(gc))
                    o = f(cl(go + po * Ct))
                    Ht = o * h(cl(Ct))
                Y[t, d, b] = Ht
            Yh[d, b] = Ht
            Yc[d, b] = Ct
    if layout:
        Y = Y.transpose(2, 0, 1, 3)
        Yh = Yh.transpose(1, 0, 2)
        Yc = Yc.transpose(1, 0, 2)
    f32 = lambda a: a.astype(np.float32)
    return f32(Y), f32(Yh), f32(Yc)


models = Models(out, opset=14, ir_version=7)
save, npy = models.save, models.npy


def pb(name, a):
    with open(os.path.join(out, name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())


rng = np.random.default_rng(11)
INPUT_NAMES = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c",
               "P"]


def case(name, kind, T, Bn, I, H, direction="forward", layout=0,
         optional=(), lens=None, outputs=("Y", "Y_h"), const=(), opset=14,
         attrs=None, ref=True):
    """A one-node model: X, W, R and `optional` inputs (B, sequence_lens,
    initial_h, initial_c, P) are graph inputs unless named in `const`
    (then initializers); writes NAME_<input>.pb and, with `ref`, the
    reference NAME_<output>.pb."""
    D = 2 if direction == "bidirectional" else 1
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    xs = (Bn, T, I) if layout else (T, Bn, I)
    st = (Bn, D, H) if layout else (D, Bn, H)
    vals = {
        "X": rng.standard_normal(xs),
        "W": 0.5 * rng.standard_normal((D, G * H, I)),
        "R": 0.5 * rng.standard_normal((D, G * H, H)),
        "B": 0.3 * rng.standard_normal((D, 2 * G * H)),
        "initial_h": 0.5 * rng.standard_normal(st),
        "initial_c": 0.5 * rng.standard_normal(st),
        "P": 0.3 * rng.standard_normal((D, 3 * H)),
    }
    vals = {k: v.astype(np.float32) for k, v in vals.items()}
    if lens is not None:
        vals["sequence_lens"] = np.array(lens, np.int32)
    used = ["X", "W", "R"] + list(optional)
    node_inputs = [n if n in used else "" for n in INPUT_NAMES]
    while node_inputs[-1] == "":
        node_inputs.pop()
    kw = dict(attrs or {})
    kw.setdefault("hidden_size", H)
    if direction != "forward":
        kw["direction"] = direction
    if layout:
        kw["layout"] = layout
    outs_all = ["Y", "Y_h", "Y_c"]
    node_outputs = [n if n in outputs else "" for n in outs_all]
    while node_outputs[-1] == "":
        node_outputs.pop()
    node = helper.make_node(kind, node_inputs, node_outputs, **kw)
    graph_inputs, inits = [], []
    for n in used:
        t = I32 if n == "sequence_lens" else F
        if n in const:
            inits.append(numpy_helper.from_array(vals[n], n))
        else:
            graph_inputs.append(
                helper.make_tensor_value_info(n, t, list(vals[n].shape)))
            pb(name + "_" + n, vals[n])
    shapes = {"Y": [Bn, T, D, H] if layout else [T, D, Bn, H],
              "Y_h": list(st), "Y_c": list(st)}
    if not ref:
        save(name, [node], graph_inputs,
             [helper.make_tensor_value_info(n, F, shapes[n])
              for n in outputs], inits, opset)
        return
    Y, Yh, Yc = reference(
        kind, vals["X"], vals["W"], vals["R"],
        B=vals["B"] if "B" in used else None,
        lens=vals.get("sequence_lens") if "sequence_lens" in used else None,
        h0=vals["initial_h"] if "initial_h" in used else None,
        c0=vals["initial_c"] if "initial_c" in used else None,
        P=vals["P"] if "P" in used else None, direction=direction,
        activations=kw.get("activations"), alpha=kw.get("activation_alpha", ()),
        beta=kw.get("activation_beta", ()), clip=kw.get("clip"),
        lbr=kw.get("linear_before_reset", 0),
        input_forget=kw.get("input_forget", 0), layout=layout)
    res = {"Y": Y, "Y_h": Yh, "Y_c": Yc}
    graph_outputs = []
    for n in outputs:
        graph_outputs.append(
            helper.make_tensor_value_info(n, F, list(res[n].shape)))
        pb(name + "_" + n, res[n])
    save(name, [node], graph_inputs, graph_outputs, inits, opset)


# RNN: both directions with their own activations (alpha/beta consumed in
# order), bias, initial state, clip; weights as initializers.
case("rnn_bidir", "RNN", 4, 3, 5, 6, direction="bidirectional",
     optional=("B", "initial_h"), const=("W", "R", "B"),
     attrs=dict(activations=["LeakyRelu", "ScaledTanh"],
                activation_alpha=[0.2, 0.7], activation_beta=[1.5],
                clip=2.5))
# GRU, reverse, batch-major, linear_before_reset, every output.
case("gru_lbr", "GRU", 3, 2, 4, 5, direction="reverse", layout=1,
     optional=("B", "initial_h"), attrs=dict(linear_before_reset=1))
# GRU, both directions, HardSigmoid / Softsign / Affine / Softplus, default
# alpha and beta for the second direction's HardSigmoid; opset 7 layout.
case("gru_acts", "GRU", 3, 2, 3, 4, direction="bidirectional",
     optional=("B",), opset=7, outputs=("Y",),
     attrs=dict(activations=["HardSigmoid", "Softsign", "HardSigmoid",
                             "Softplus"],
                activation_alpha=[0.3], activation_beta=[0.4]))
# LSTM, both directions, peepholes, initial h and c, runtime lengths that
# differ per batch entry: every output.
case("lstm_lens", "LSTM", 4, 3, 3, 5, direction="bidirectional",
     optional=("B", "sequence_lens", "initial_h", "initial_c", "P"),
     lens=[4, 1, 3], outputs=("Y", "Y_h", "Y_c"))
# LSTM, input_forget, a clip small enough to bound the cell state h sees,
# batch-major, the other activations.
case("lstm_forget", "LSTM", 3, 2, 4, 3, layout=1,
     optional=("B", "initial_c"), outputs=("Y", "Y_c"),
     attrs=dict(input_forget=1, clip=0.4,
                activations=["HardSigmoid", "Elu", "Affine"],
                activation_alpha=[0.25, 0.9, 0.5],
                activation_beta=[0.45, 0.1]))
# RNN with ThresholdedRelu / Relu / Tanh / Sigmoid and constant lengths
# in one direction (reverse), Y_h only.
case("rnn_lens_const", "RNN", 5, 2, 3, 4, direction="reverse",
     optional=("sequence_lens",), lens=[2, 5], const=("sequence_lens",),
     outputs=("Y", "Y_h"), attrs=dict(activations=["ThresholdedRelu"],
                                      activation_alpha=[0.1]))
# Constant lengths all equal to seq_length: no masking.
case("rnn_lens_full", "RNN", 3, 2, 3, 4,
     optional=("sequence_lens",), lens=[3, 3], const=("sequence_lens",),
     outputs=("Y_h",), attrs=dict(activations=["Sigmoid"]))

# Errors.
case("err_act", "RNN", 2, 1, 2, 3, outputs=("Y",), ref=False,
     attrs=dict(activations=["Gelu"]))
case("err_act_count", "GRU", 2, 1, 2, 3, outputs=("Y",), ref=False,
     direction="bidirectional", attrs=dict(activations=["Sigmoid", "Tanh"]))
case("err_lens", "LSTM", 2, 1, 2, 3, optional=("sequence_lens",), lens=[3],
     const=("sequence_lens",), outputs=("Y_h",), ref=False)
case("err_hidden", "RNN", 2, 1, 2, 3, outputs=("Y",), ref=False,
     attrs=dict(hidden_size=4))
case("err_direction", "GRU", 2, 1, 2, 3, outputs=("Y",), ref=False,
     attrs=dict(direction="sideways"))
