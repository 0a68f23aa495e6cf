"""The Python package's error paths: each a precise exception, never a
crash."""

import subprocess

import numpy as np
import pytest

import nki
from test_compile import MATMUL_RELU


def test_syntax_error_carries_the_diagnostic():
    with pytest.raises(nki.CompileError) as err:
        nki.compile("func.func @main() {\n  %x = bogus.op\n}\n")
    assert "<string>:2" in str(err.value)


def test_unsupported_op_is_named():
    text = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
      affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = math.atan2 %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    with pytest.raises(nki.CompileError, match="math.atan2"):
        nki.compile(text)


def test_malformed_onnx():
    with pytest.raises(nki.CompileError,
                       match="not a valid ONNX model: the protobuf is malformed"):
        nki.compile(b"\x08\x07garbage-that-is-not-a-model", format="onnx")


@pytest.mark.parametrize("kwargs, message", [
    ({"target": "trn9"}, "unknown target 'trn9'"),
    ({"auto_cast": "int4"}, "unknown auto_cast 'int4'"),
    ({"compile_to": "llvm"}, "unknown compile_to 'llvm'"),
    ({"format": "tflite"}, "unknown format 'tflite'"),
    ({"input_shapes": {"a": (4, 32)}}, "input_shapes applies to ONNX"),
    ({"example_inputs": (1,)}, "example_inputs is for a torch.nn.Module"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nki.compile(MATMUL_RELU, **kwargs)


def test_bad_input_shape_spec():
    from test_compile import gemm_model
    with pytest.raises(ValueError, match="x:-3x8.*not a positive dimension"):
        nki.compile(gemm_model()[0], input_shapes={"x": (-3, 8)})


def test_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError):
        nki.compile(tmp_path / "missing.onnx")
    with pytest.raises(TypeError, match="source must be"):
        nki.compile(42)


def test_bad_binary():
    with pytest.raises(ValueError, match="not a valid .nkb binary"):
        nki.Program(b"NKB? no")


@pytest.fixture(scope="module")
def program():
    return nki.compile(MATMUL_RELU)


def test_bad_inputs(program):
    a, b = np.ones((4, 32), np.float32), np.ones((32, 16), np.float32)
    with pytest.raises(ValueError, match="no input named 'c'.*a, b"):
        program.run({"a": a, "b": b, "c": a})
    with pytest.raises(ValueError, match="input 'b' has no value"):
        program.run({"a": a})
    with pytest.raises(ValueError, match="takes 2 inputs"):
        program.run([a])
    with pytest.raises(ValueError, match="input 'a'"):
        program.run({"a": np.ones((5, 32), np.float32), "b": b})
    with pytest.raises(ValueError, match="numeric"):
        program.run({"a": np.array([object()] * 128).reshape(4, 32), "b": b})


@pytest.mark.parametrize("kind, message", [
    ("race", "race"), ("uninit", "uninitiali"), ("deadlock", "deadlock")])
def test_simulation_errors(tools_dir, tmp_path, kind, message):
    path = tmp_path / f"{kind}.nkb"
    subprocess.run([tools_dir / "nki-sim-example", kind, "-o", path],
                   check=True)
    program = nki.Program.load(path)
    x = np.ones(program.inputs[0].shape, np.float32)
    with pytest.raises(nki.SimulationError, match=message):
        program.run([x])
