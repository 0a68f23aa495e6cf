"""PyTorch modules through nki: export, compile, run, compare with eager.

    import torch, nki.torch
    result = nki.torch.compare(model, (x,))
    print(result)           # error against torch eager, simulated time
    outputs = result.outputs

A module is exported with ``torch.onnx.export`` (opset 13, constants
folded, eval mode) and compiled from ONNX; its inputs are named after
``forward``'s parameters and its outputs ``output`` (one) or ``output0``,
``output1``, ... (a tuple, flattened in order).
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from . import _api

if TYPE_CHECKING:
    import numpy as np
    import torch

#: The ONNX opset modules are exported with.
OPSET = 13


def _as_tuple(example_inputs: Any) -> Tuple[Any, ...]:
    return tuple(example_inputs) if isinstance(example_inputs,
                                               (tuple, list)) else (
        example_inputs,)


def _flatten(value: Any) -> List[Any]:
    """The tensors of a (nested) tuple, list or dict output, in the order
    torch.onnx.export gives the graph's outputs."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _flatten(v)]
    return [value]


@contextlib.contextmanager
def _eval_mode(module: "torch.nn.Module"):
    """Eval mode for the export and the reference, restored after."""
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        yield
    finally:
        for m, training in modes:
            m.train(training)


def _input_names(module: "torch.nn.Module", n: int) -> List[str]:
    try:
        params = [p.name for p in
                  inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params[:n] if len(params) >= n else [f"input{i}" for i in range(n)]


def export_onnx(module: "torch.nn.Module", example_inputs: Any,
                opset: int = OPSET) -> bytes:
    """The ONNX model bytes of ``module`` traced on ``example_inputs`` (a
    tensor or a tuple of tensors), in eval mode."""
    import torch
    args = _as_tuple(example_inputs)
    with _eval_mode(module), torch.no_grad():
        n_out = len(_flatten(module(*args)))
        out_names = (["output"] if n_out == 1
                     else [f"output{i}" for i in range(n_out)])
        buf = io.BytesIO()
        torch.onnx.export(module, args, buf, opset_version=opset,
                          do_constant_folding=True,
                          input_names=_input_names(module, len(args)),
                          output_names=out_names,
                          training=torch.onnx.TrainingMode.EVAL)
    return buf.getvalue()


def compile(module: "torch.nn.Module", example_inputs: Any,
            **options: Any) -> _api.Program:
    """nki.compile(module, example_inputs, **options) for a module."""
    return _api.compile(module, _as_tuple(example_inputs), **options)


@dataclasses.dataclass
class Comparison:
    """A module run on the simulator against torch eager."""
    program: _api.Program
    #: nki's outputs by name, and torch's in the same order.
    outputs: Dict[str, "np.ndarray"]
    reference: List["np.ndarray"]
    #: Per output: max |nki - torch| and ||nki - torch|| / ||torch||.
    max_abs_error: List[float]
    rel_l2_error: List[float]
    #: Whether every element satisfies |nki - torch| <= atol + rtol*|torch|.
    matches: bool
    rtol: float
    atol: float
    report: _api.RunReport
    compile_seconds: float

    @property
    def simulated_us(self) -> float:
        return self.report.total_us

    def __str__(self) -> str:
        lines = [f"nki.torch.compare on {self.program.target}: "
                 f"{'matches' if self.matches else 'DIFFERS'} "
                 f"(rtol {self.rtol:g}, atol {self.atol:g}); "
                 f"simulated {self.simulated_us:.1f} us, "
                 f"PE utilisation {100 * self.report.pe_utilisation:.1f} %, "
                 f"compiled in {self.compile_seconds:.1f} s"]
        for (name, out), mae, rel in zip(self.outputs.items(),
                                         self.max_abs_error,
                                         self.rel_l2_error):
            lines.append(f"  {name} {list(out.shape)}: max |diff| {mae:.3e},"
                         f" relative L2 error {rel:.3e}")
        return "\n".join(lines)


def compare(module: "torch.nn.Module", example_inputs: Any,
            target: str = "trn2", auto_cast: Optional[str] = None,
            rtol: float = 1e-3, atol: float = 1e-4,
            trace: Optional[str] = None, **options: Any) -> Comparison:
    """Compiles ``module``, runs it on the simulator with
    ``example_inputs`` and compares with torch eager (eval mode, no grad).

    Returns a Comparison (str() is a one-paragraph summary): the outputs,
    the errors, whether they are within ``rtol``/``atol``, the simulated
    time and the run's report. Other keyword arguments go to nki.compile;
    ``trace`` writes a Perfetto trace.
    """
    import numpy as np
    import torch
    args = _as_tuple(example_inputs)
    with _eval_mode(module), torch.no_grad():
        reference = [_api._to_numpy(t) for t in _flatten(module(*args))]
    start = time.perf_counter()
    program = _api.compile(module, args, target=target, auto_cast=auto_cast,
                           **options)
    seconds = time.perf_counter() - start
    outputs, report = program.run(list(args), trace=trace)
    if len(outputs) != len(reference):
        raise RuntimeError(f"the program has {len(outputs)} outputs, torch "
                           f"returned {len(reference)}")
    mae, rel, ok = [], [], True
    for got, exp in zip(outputs.values(), reference):
        got = got.astype(np.float64).reshape(exp.shape)
        exp = exp.astype(np.float64)
        diff = np.abs(got - exp)
        mae.append(float(diff.max()) if diff.size else 0.0)
        norm = float(np.linalg.norm(exp))
        rel.append(float(np.linalg.norm(got - exp)) / norm if norm else
                   float(np.linalg.norm(got - exp)))
        ok &= bool(np.all(diff <= atol + rtol * np.abs(exp)))
    return Comparison(program=program, outputs=outputs, reference=reference,
                      max_abs_error=mae, rel_l2_error=rel, matches=ok,
                      rtol=rtol, atol=atol, report=report,
                      compile_seconds=seconds)
