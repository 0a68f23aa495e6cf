#!/usr/bin/python3
"""Builds the small models of the ONNX end-to-end tests, with fixed-seed
random weights, and their reference outputs computed here with numpy
(independently of the compiler).

    make_models.py [OUT_DIR]        (default: the directory of this script)

Each model is written as OUT_DIR/NAME/model.onnx with
OUT_DIR/NAME/test_data_set_0/{input_0,output_0}.pb, the layout of ONNX's
backend test cases. The files are committed as test data; rerunning the
script reproduces them byte for byte. Runs under /usr/bin/python3 with
Debian's python3-onnx and python3-numpy. One function per model.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def write(out_dir, name, graph, inputs, outputs, opset=13):
    """Saves model + test_data_set_0 under out_dir/name."""
    model = helper.make_model(
        graph, producer_name="nki make_models.py",
        opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    case = os.path.join(out_dir, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(case, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, (tensor_name, value) in enumerate(values):
            t = numpy_helper.from_array(
                np.ascontiguousarray(value, dtype=np.float32), tensor_name)
            with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                f.write(t.SerializeToString())


# --- numpy references (float64) ---------------------------------------------

def conv2d(x, w, b, pad):
    """NCHW x FCHW, stride 1, zero padding `pad` on every side."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,fc->nfhw", x[:, :, i:i + oh, j:j + ow],
                           w[:, :, i, j])
    return y + b.reshape(1, f, 1, 1)


def maxpool2x2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def cnn(out_dir):
    """Conv -> BatchNormalization -> Relu -> MaxPool -> Conv -> Relu ->
    GlobalAveragePool -> Flatten -> Gemm, on 2 images of 3 x 16 x 16."""
    rng = np.random.default_rng(1234)
    n, c, hw, c1, c2, classes = 2, 3, 16, 8, 16, 10

    def u(*shape, scale=1.0):
        return (rng.uniform(-1, 1, size=shape) * scale).astype(np.float32)

    w1, b1 = u(c1, c, 3, 3, scale=0.5), u(c1, scale=0.1)
    gamma, beta = (1 + u(c1, scale=0.2)), u(c1, scale=0.1)
    mean, var = u(c1, scale=0.2), (1 + u(c1, scale=0.5)).astype(np.float32)
    w2, b2 = u(c2, c1, 3, 3, scale=0.3), u(c2, scale=0.1)
    wfc, bfc = u(classes, c2, scale=0.5), u(classes, scale=0.1)
    x = u(n, c, hw, hw)
    eps = 1e-5

    inits = [numpy_helper.from_array(v, name) for name, v in [
        ("w1", w1), ("b1", b1), ("gamma", gamma), ("beta", beta),
        ("mean", mean), ("var", var), ("w2", w2), ("b2", b2), ("wfc", wfc),
        ("bfc", bfc)]]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["c1", "gamma", "beta", "mean", "var"], ["bn"],
                         name="bn1", epsilon=eps),
        helper.make_node("Relu", ["bn"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "wfc", "bfc"], ["y"], name="fc",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", F, [n, c, hw, hw])],
        [helper.make_tensor_value_info("y", F, [n, classes])], inits)

    d = lambda v: v.astype(np.float64)  # noqa: E731
    h = conv2d(d(x), d(w1), d(b1), 1)
    h = ((h - d(mean).reshape(1, -1, 1, 1))
         / np.sqrt(d(var).reshape(1, -1, 1, 1) + eps)
         * d(gamma).reshape(1, -1, 1, 1) + d(beta).reshape(1, -1, 1, 1))
    h = maxpool2x2(np.maximum(h, 0))
    h = np.maximum(conv2d(h, d(w2), d(b2), 1), 0)
    h = h.mean(axis=(2, 3))
    y = h @ d(wfc).T + d(bfc)
    write(out_dir, "cnn", graph, [("x", x)], [("y", y)])


def layernorm(x, gamma, beta, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def transformer(out_dir):
    """One post-norm transformer encoder layer on 2 sequences of 16 tokens
    of width 32: multi-head self-attention (2 heads; MatMul projections,
    Reshape/Transpose into heads, Q K^T scaled, Softmax, . V, output
    projection), residual + LayerNormalization, a Relu feed-forward block of
    width 64, residual + LayerNormalization."""
    rng = np.random.default_rng(4321)
    b, s, d, heads, ff = 2, 16, 32, 2, 64
    dh = d // heads
    eps = 1e-5

    def u(*shape, scale=1.0):
        return (rng.uniform(-1, 1, size=shape) * scale).astype(np.float32)

    p = {
        "wq": u(d, d, scale=0.3), "bq": u(d, scale=0.1),
        "wk": u(d, d, scale=0.3), "bk": u(d, scale=0.1),
        "wv": u(d, d, scale=0.3), "bv": u(d, scale=0.1),
        "wo": u(d, d, scale=0.3), "bo": u(d, scale=0.1),
        "g1": 1 + u(d, scale=0.2), "be1": u(d, scale=0.1),
        "w1": u(d, ff, scale=0.3), "b1": u(ff, scale=0.1),
        "w2": u(ff, d, scale=0.2), "b2": u(d, scale=0.1),
        "g2": 1 + u(d, scale=0.2), "be2": u(d, scale=0.1),
        "scale": np.array(1 / np.sqrt(dh), dtype=np.float32),
    }
    x = u(b, s, d)
    inits = [numpy_helper.from_array(v.astype(np.float32), k)
             for k, v in p.items()]
    inits += [numpy_helper.from_array(np.array(v, dtype=np.int64), k)
              for k, v in [("heads_shape", [b, s, heads, dh]),
                           ("model_shape", [b, s, d])]]

    def n(op, ins, outs, **attrs):
        return helper.make_node(op, ins, outs, name=outs[0], **attrs)

    nodes = []
    for t in "qkv":
        nodes += [n("MatMul", ["x", "w" + t], [t + "_mm"]),
                  n("Add", [t + "_mm", "b" + t], [t + "_proj"]),
                  n("Reshape", [t + "_proj", "heads_shape"], [t + "_split"])]
    nodes += [
        n("Transpose", ["q_split"], ["q"], perm=[0, 2, 1, 3]),
        n("Transpose", ["k_split"], ["kt"], perm=[0, 2, 3, 1]),
        n("Transpose", ["v_split"], ["v"], perm=[0, 2, 1, 3]),
        n("MatMul", ["q", "kt"], ["scores"]),
        n("Mul", ["scores", "scale"], ["scaled"]),
        n("Softmax", ["scaled"], ["attn"], axis=-1),
        n("MatMul", ["attn", "v"], ["ctx"]),
        n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "model_shape"], ["ctx_m"]),
        n("MatMul", ["ctx_m", "wo"], ["o_mm"]),
        n("Add", ["o_mm", "bo"], ["o"]),
        n("Add", ["x", "o"], ["res1"]),
        n("LayerNormalization", ["res1", "g1", "be1"], ["ln1"], axis=-1,
          epsilon=eps),
        n("MatMul", ["ln1", "w1"], ["f1_mm"]),
        n("Add", ["f1_mm", "b1"], ["f1"]),
        n("Relu", ["f1"], ["f1_relu"]),
        n("MatMul", ["f1_relu", "w2"], ["f2_mm"]),
        n("Add", ["f2_mm", "b2"], ["f2"]),
        n("Add", ["ln1", "f2"], ["res2"]),
        n("LayerNormalization", ["res2", "g2", "be2"], ["y"], axis=-1,
          epsilon=eps),
    ]
    graph = helper.make_graph(
        nodes, "transformer",
        [helper.make_tensor_value_info("x", F, [b, s, d])],
        [helper.make_tensor_value_info("y", F, [b, s, d])], inits)

    q = {k: v.astype(np.float64) for k, v in p.items()}
    xd = x.astype(np.float64)

    def heads_of(t):
        return t.reshape(b, s, heads, dh).transpose(0, 2, 1, 3)

    qh, kh, vh = (heads_of(xd @ q["w" + t] + q["b" + t]) for t in "qkv")
    attn = softmax(qh @ kh.transpose(0, 1, 3, 2) * q["scale"])
    ctx = (attn @ vh).transpose(0, 2, 1, 3).reshape(b, s, d)
    h1 = layernorm(xd + ctx @ q["wo"] + q["bo"], q["g1"], q["be1"], eps)
    f = np.maximum(h1 @ q["w1"] + q["b1"], 0) @ q["w2"] + q["b2"]
    y = layernorm(h1 + f, q["g2"], q["be2"], eps)
    write(out_dir, "transformer", graph, [("x", x)], [("y", y)], opset=17)


MODELS = [cnn, transformer]


def main():
    out_dir = (sys.argv[1] if len(sys.argv) > 1
               else os.path.dirname(os.path.abspath(__file__)))
    for make in MODELS:
        make(out_dir)


if __name__ == "__main__":
    main()
