"""nki.compile and Program on MLIR and ONNX sources, checked against numpy."""

import json
import subprocess

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import nki

MATMUL_RELU = """
func.func @main(%a: tensor<4x32xf32> {nki.name = "a"},
                %b: tensor<32x16xf32> {nki.name = "b"}) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x32xf32>, tensor<32x16xf32>)
                     outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.max ins(%m, %z : tensor<4x16xf32>, tensor<4x16xf32>)
                  outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
"""


def gemm_model(batch="N"):
    """An ONNX Gemm + Relu with a dynamic batch and seeded weights."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 6)).astype(np.float32)
    bias = rng.standard_normal(6).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "bias"], ["h"], name="fc"),
         helper.make_node("Relu", ["h"], ["y"], name="relu")],
        "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 6])],
        [numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString(), w, bias


def test_mlir_text_runs_and_matches_numpy():
    program = nki.compile(MATMUL_RELU)
    assert isinstance(program, nki.Program)
    assert [t.name for t in program.inputs] == ["a", "b"]
    assert program.inputs[0] == nki.TensorInfo("a", (4, 32), "float32",
                                                "f32")
    assert program.outputs[0].shape == (4, 16)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 32)).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    outputs, report = program.run({"a": a, "b": b})
    (name, y), = outputs.items()
    assert y.dtype == np.float32 and y.shape == (4, 16)
    np.testing.assert_allclose(y, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    # A list binds in input order; the result is the same.
    again, _ = program.run([a, b])
    np.testing.assert_array_equal(again[name], y)
    assert report.total_us > 0 and report.instructions > 0
    assert report.matmul_flops == 2 * 4 * 32 * 16
    assert 0 < report.utilisation["pe"] <= 1
    assert report.ops and report.ops[0].attributed_us > 0
    assert str(report).startswith("target trn2, total ")


def test_compile_report():
    program = nki.compile(MATMUL_RELU, target="trn1")
    assert program.target == "trn1"
    r = program.compile_report
    assert r.target == "trn1" and r.auto_cast == "none"
    assert list(r.phase_seconds) == ["graph", "tiled", "planned",
                                     "scheduled", "nisa", "binary"]
    assert r.sbuf_peak > 0 and r.psum_peak > 0
    assert sum(r.instructions.values()) == program.instructions
    assert "nki-compile report (target trn1)" in str(r)


def test_mlir_path_and_bytes(tmp_path, examples_dir, tools_dir):
    path = examples_dir / "tosa-mlp.mlir"
    from_path = nki.compile(path)
    assert nki.compile(str(path)).binary == from_path.binary
    # The same program nki-compile writes, byte for byte.
    subprocess.run([tools_dir / "nki-compile", path, "-o", tmp_path / "t.nkb"],
                   check=True)
    assert (tmp_path / "t.nkb").read_bytes() == from_path.binary
    # From bytes, only the file name in the source locations differs.
    from_bytes = nki.compile(path.read_bytes())
    assert from_bytes.disassemble().replace('"<bytes>"', f'"{path}"') == \
        from_path.disassemble()
    assert [t.shape for t in from_path.inputs] == [(1, 16, 64), (1, 64, 128),
                                                   (1, 128, 32)]


def test_onnx_bytes_with_input_shapes_and_path(tmp_path):
    data, w, bias = gemm_model()
    program = nki.compile(data, input_shapes={"x": (3, 8)})
    assert program.inputs[0].shape == (3, 8)
    assert program.outputs[0].name == "y"
    x = np.random.default_rng(2).standard_normal((3, 8)).astype(np.float32)
    outputs, _ = program.run({"x": x})
    np.testing.assert_allclose(outputs["y"], np.maximum(x @ w + bias, 0),
                               rtol=1e-5, atol=1e-5)
    path = tmp_path / "gemm.onnx"
    path.write_bytes(data)
    from_path = nki.compile(path, input_shapes={"x": [3, 8]})
    np.testing.assert_array_equal(from_path.run([x])[0]["y"], outputs["y"])
    # The same program; the load of its constant table is named as such in
    # the locations (it carried the model file's before).
    text = from_path.disassemble()
    assert program.disassemble().replace('"<bytes>"', f'"{path}"') == text
    assert 'loc("constant table")' in text


def test_auto_cast_matmul_rounds_to_bf16():
    program = nki.compile(MATMUL_RELU, auto_cast="matmul")
    a = np.full((4, 32), 1 + 2**-10, np.float32)  # not a bf16 value
    b = np.ones((32, 16), np.float32)
    (y,) = program.run([a, b])[0].values()
    np.testing.assert_array_equal(y, np.full((4, 16), 32, np.float32))


def test_compile_to_phases():
    tiled = nki.compile(MATMUL_RELU, compile_to="tiled")
    assert isinstance(tiled, str) and "nki." in tiled
    nisa = nki.compile(MATMUL_RELU, compile_to="nisa")
    assert "nisa.program" in nisa
    graph = nki.compile(MATMUL_RELU, compile_to="graph")
    assert "linalg" in graph


def test_save_load_disassemble(tmp_path):
    program = nki.compile(MATMUL_RELU)
    path = tmp_path / "m.nkb"
    program.save(path)
    loaded = nki.Program.load(path)
    assert loaded.binary == program.binary and loaded.compile_report is None
    assert loaded.inputs == program.inputs
    text = loaded.disassemble()
    assert text.startswith("nisa.program") and "nisa.matmul" in text
    assert "nki.Program for trn2" in repr(loaded)


def test_trace_file(tmp_path):
    program = nki.compile(MATMUL_RELU)
    trace = tmp_path / "t.json"
    a, b = np.ones((4, 32), np.float32), np.ones((32, 16), np.float32)
    program.run({"a": a, "b": b}, trace=trace)
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name", "").startswith("matmul") for e in events)


def test_integer_outputs_keep_their_type():
    data = helper.make_model(helper.make_graph(
        [helper.make_node("Add", ["i", "j"], ["k"])], "add",
        [helper.make_tensor_value_info("i", TensorProto.INT64, [2, 3]),
         helper.make_tensor_value_info("j", TensorProto.INT64, [2, 3])],
        [helper.make_tensor_value_info("k", TensorProto.INT64, [2, 3])]),
        opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    program = nki.compile(data)
    assert program.inputs[0].dtype == "int64"
    assert program.inputs[0].device_dtype == "i32"
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    k = program.run({"i": i, "j": i * 1000})[0]["k"]
    assert k.dtype == np.int64
    np.testing.assert_array_equal(k, i * 1001)


def test_help_reads_well():
    doc = nki.__doc__
    assert "nki.compile" in doc and "Program" in doc
    for name in nki.__all__:
        if name != "__version__":
            assert getattr(nki, name).__doc__, name
    assert nki.__version__.count(".") == 2
