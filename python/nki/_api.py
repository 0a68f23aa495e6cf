"""nki.compile, Program and the reports: the Python face of nki's C++ driver
(nki/Pipeline/Driver.h) and simulator (nki/Simulator/Simulator.h).

Arrays cross into C++ as .npy bytes, so inputs and outputs are converted
exactly as ``nki-run`` converts its files. numpy is imported when first
needed: ``import nki`` works on any Python 3.11, running a program needs
numpy.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _nki

if TYPE_CHECKING:  # only for the type hints
    import numpy as np

CompileError = _nki.CompileError
CompileError.__doc__ = (
    "The compiler rejected a model: str(error) is its MLIR diagnostics, "
    "each naming the file, line and column or the ONNX node.")
SimulationError = _nki.SimulationError
SimulationError.__doc__ = (
    "The simulator stopped a run: a data race, a read of uninitialised "
    "memory, an out-of-bounds access, a deadlock; the message names the "
    "engine stream, the instruction and its source op.")

#: Phases ``compile_to`` may stop after (``"binary"``: the default).
PHASES = ("graph", "tiled", "planned", "scheduled", "nisa", "binary")

# numpy dtype of an input or output, by the tensor's host type, else by its
# device dtype (float dtypes are read and written as float32; bf16 and fp8
# widen exactly).
_HOST_DTYPES = {"i64": "int64", "f64": "float64", "bool": "bool",
                "u8": "uint8", "i16": "int16", "u16": "uint16",
                "u32": "uint32", "u64": "uint64"}
_DEVICE_DTYPES = {"i32": "int32", "i8": "int8", "u8": "uint8",
                  "f4e2m1x2": "uint8"}

Source = Union[str, bytes, "os.PathLike[str]", Any]


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """An input or output of a program."""
    name: str
    shape: Tuple[int, ...]
    #: numpy dtype the run takes (input) or returns (output), e.g. "float32".
    dtype: str
    #: The dtype on the device, e.g. "bf16"; "f4e2m1x2" is packed e2m1
    #: pairs (an input of bytes, its last dimension halved).
    device_dtype: str


@dataclasses.dataclass(frozen=True)
class CompileReport:
    """What a compile measured (``nki-compile --report``)."""
    target: str
    auto_cast: str
    #: Wall time per phase that ran, in order ("binary": the encoding).
    phase_seconds: Dict[str, float]
    #: Highest planned SBUF/PSUM offset + size, bytes per partition
    #: (None when the compile stopped before planning).
    sbuf_peak: Optional[int]
    psum_peak: Optional[int]
    #: Instructions per engine stream ("dma (all queues)" sums the queues).
    instructions: Dict[str, int]
    #: auto_cast fp8/mxfp8/mxfp4: (source op, weight relative rounding
    #: error) of each quantised matmul.
    quantised_weights: List[Tuple[str, float]]
    #: The table nki-compile --report prints.
    text: str

    @property
    def total_seconds(self) -> float:
        return sum(self.phase_seconds.values())

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_native(cls, d: Mapping[str, Any]) -> "CompileReport":
        peak = lambda v: None if v < 0 else int(v)  # noqa: E731
        return cls(target=d["target"], auto_cast=d["auto_cast"],
                   phase_seconds=dict(d["phase_seconds"]),
                   sbuf_peak=peak(d["sbuf_peak"]),
                   psum_peak=peak(d["psum_peak"]),
                   instructions=dict(d["instructions"]),
                   quantised_weights=[tuple(w) for w in
                                      d["quantised_weights"]],
                   text=d["text"])


@dataclasses.dataclass(frozen=True)
class OpProfile:
    """Simulated time of one source op (an ONNX node or an MLIR location)."""
    source: str
    #: This op's share of the run (overlapping ops split each instant).
    attributed_us: float
    instructions: int
    #: Busy time per engine ("pe", "act", "dve", "pool", "dma"), in us.
    busy_us: Dict[str, float]
    matmul_flops: int
    dma_bytes: int
    dma_hbm_bytes: int
    #: The engine that bounds the op, and its utilisation over the op's span.
    bound: str
    bound_utilisation: float
    pe_utilisation: float


@dataclasses.dataclass(frozen=True)
class RunReport:
    """What a simulated run measured (``nki-run --report``)."""
    target: str
    #: Simulated time of the whole program, in microseconds.
    total_us: float
    instructions: int
    #: Busy fraction of each engine stream and DMA queue ("pe", "act",
    #: "dve", "pool", "dma0", ...).
    utilisation: Dict[str, float]
    #: Useful matmul FLOPs against the PE peak for their input types.
    pe_utilisation: float
    matmul_flops: int
    dma_bytes: int
    #: The part of dma_bytes that reads or writes HBM.
    dma_hbm_bytes: int
    #: Source ops, most simulated time first.
    ops: List[OpProfile]
    #: The target's peaks, for rooflines: PE FLOP/s by input type
    #: ("bf16", "fp32", "fp8", "mx"; 0 where the target has none) and DMA
    #: bytes/s.
    pe_peak_flops: Dict[str, float]
    dma_peak_bytes_per_second: float
    #: The table nki-run --report prints.
    text: str

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_native(cls, js: str, text: str) -> "RunReport":
        d = json.loads(js)
        us = 1e-6
        ops = [OpProfile(source=o["source"],
                         attributed_us=o["attributed_ps"] * us,
                         instructions=o["instructions"],
                         busy_us={k: v * us for k, v in o["busy_ps"].items()},
                         matmul_flops=o["matmul_flops"],
                         dma_bytes=o["dma_bytes"],
                         dma_hbm_bytes=o["dma_hbm_bytes"], bound=o["bound"],
                         bound_utilisation=o["bound_utilisation"],
                         pe_utilisation=o["pe_utilisation"])
               for o in d["ops"]]
        return cls(target=d["target"], total_us=d["total_ps"] * us,
                   instructions=d["instructions"],
                   utilisation={s["stream"]: s["utilisation"]
                                for s in d["streams"]},
                   pe_utilisation=d["pe_utilisation"],
                   matmul_flops=d["matmul_flops"], dma_bytes=d["dma_bytes"],
                   dma_hbm_bytes=d["dma_hbm_bytes"], ops=ops,
                   pe_peak_flops={
                       "bf16": d["pe_peak_flops_per_second"],
                       "fp32": d["pe_peak_flops_per_second_fp32"],
                       "fp8": d["pe_peak_flops_per_second_fp8"],
                       "mx": d["pe_peak_flops_per_second_mx"]},
                   dma_peak_bytes_per_second=d["dma_peak_bytes_per_second"],
                   text=text)


class Program:
    """A compiled ``.nkb`` program: its bytes, its inputs and outputs, and a
    way to run it on the bundled simulator."""

    def __init__(self, binary: bytes,
                 compile_report: Optional[CompileReport] = None) -> None:
        """Wraps ``.nkb`` bytes (checked: a malformed binary raises
        ValueError naming what is wrong)."""
        self.binary = bytes(binary)
        self._native = _nki.Binary(self.binary)
        #: What the compile measured; None for a loaded binary.
        self.compile_report = compile_report
        #: The inputs, in the order run() takes a list in.
        self.inputs: List[TensorInfo] = []
        #: The outputs, in the model's order.
        self.outputs: List[TensorInfo] = []
        for name, kind, shape, dtype, host in self._native.tensors():
            np_dtype = (_HOST_DTYPES[host] if host != "device"
                        else _DEVICE_DTYPES.get(dtype, "float32"))
            info = TensorInfo(name, tuple(shape), np_dtype, dtype)
            (self.inputs if kind == "input" else self.outputs).append(info)

    @property
    def target(self) -> str:
        """The machine the program was compiled for (trn1, trn2, trn3)."""
        return self._native.target

    @property
    def instructions(self) -> int:
        """Instructions over all engine streams and DMA queues."""
        return self._native.instructions

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Program":
        """Reads a ``.nkb`` file (written by save() or nki-compile)."""
        with open(path, "rb") as f:
            return cls(f.read())

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the ``.nkb`` bytes, for ``nki-run`` or Program.load()."""
        with open(path, "wb") as f:
            f.write(self.binary)

    def disassemble(self) -> str:
        """The program as ``nisa`` text (what ``nki-translate
        --binary-to-nisa`` prints), one op per instruction."""
        return self._native.disassemble()

    def run(self, inputs: Union[Mapping[str, Any], Sequence[Any]],
            trace: Optional[Union[str, "os.PathLike[str]"]] = None,
            check_races: bool = True, check_uninitialized: bool = True,
            ) -> Tuple[Dict[str, "np.ndarray"], RunReport]:
        """Simulates the program.

        ``inputs``: a dict of arrays by input name, or a list in the order
        of ``self.inputs``; numpy arrays, torch tensors or nested lists.
        Values are converted to each input's device dtype as nki-run does
        (rounding floats, refusing integers the dtype cannot hold).
        ``trace``: a path to write a Chrome/Perfetto trace of every
        instruction to.

        Returns ``(outputs, report)``: the outputs as numpy arrays by output
        name, and a RunReport. Raises ValueError for inputs that do not fit
        the program and SimulationError when the simulator stops the run.
        """
        import numpy as np

        if isinstance(inputs, Mapping):
            named = dict(inputs)
        else:
            inputs = list(inputs)
            if len(inputs) != len(self.inputs):
                raise ValueError(
                    f"the program takes {len(self.inputs)} inputs "
                    f"({', '.join(t.name for t in self.inputs)}), "
                    f"got {len(inputs)}")
            named = {t.name: v for t, v in zip(self.inputs, inputs)}
        npy = {}
        for name, value in named.items():
            buf = io.BytesIO()
            np.save(buf, np.ascontiguousarray(_to_numpy(value)),
                    allow_pickle=False)
            npy[str(name)] = buf.getvalue()
        outs, js, text, trace_json = self._native.simulate(
            npy, trace is not None, check_races, check_uninitialized)
        if trace is not None:
            with open(trace, "w") as f:
                f.write(trace_json)
        outputs = {name: np.load(io.BytesIO(data), allow_pickle=False)
                   for name, data in outs.items()}
        # In the model's order (the native dict is keyed by name).
        outputs = {t.name: outputs[t.name] for t in self.outputs}
        return outputs, RunReport._from_native(js, text)

    def __repr__(self) -> str:
        sig = lambda ts: ", ".join(  # noqa: E731
            f"{t.name}: {t.device_dtype}{list(t.shape)}" for t in ts)
        return (f"<nki.Program for {self.target}: ({sig(self.inputs)}) -> "
                f"({sig(self.outputs)}), {self.instructions} instructions>")


def _to_numpy(value: Any) -> "np.ndarray":
    import numpy as np
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:  # numpy has no bf16
            value = value.float()
        return value.numpy()
    array = np.asarray(value)
    if array.dtype == object:
        raise ValueError("an input must be numeric, got an object array")
    return array


def _is_torch_module(source: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(source, torch.nn.Module)


def _read_source(source: Source, format: Optional[str]
                 ) -> Tuple[bytes, str, bool]:
    """(bytes, name for diagnostics, is ONNX) of a path, bytes or text."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), "<bytes>"
    elif isinstance(source, str) and ("\n" in source or "{" in source):
        data, name = source.encode(), "<string>"  # MLIR text, not a path
    elif isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open(name, "rb") as f:
            data = f.read()
    else:
        raise TypeError(
            "source must be a path, the bytes of an ONNX model or MLIR "
            f"text, MLIR text, or a torch.nn.Module; got {type(source)}")
    if format is None:
        if name.endswith(".onnx"):
            format = "onnx"
        elif name.endswith(".mlir"):
            format = "mlir"
        else:
            # A ModelProto starts with a field tag (0x08: ir_version); MLIR
            # text never starts with a control character.
            try:
                data.decode("utf-8")
                format = "onnx" if data[:1] in (b"\x08", b"\x12") else "mlir"
            except UnicodeDecodeError:
                format = "onnx"
    if format not in ("onnx", "mlir"):
        raise ValueError(f"unknown format '{format}' (expected onnx or mlir)")
    return data, name, format == "onnx"


def compile(source: Source, example_inputs: Optional[Sequence[Any]] = None,
            target: str = "trn2", auto_cast: Optional[str] = None,
            input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
            compile_to: Optional[str] = None, *, entry: Optional[str] = None,
            format: Optional[str] = None) -> Union[Program, str]:
    """Compiles a model for the accelerator.

    ``source``: a path to an ``.onnx`` model or ``.mlir`` file; the bytes
    of an ONNX model or of MLIR text; MLIR text itself; or a
    ``torch.nn.Module``, then exported with ``torch.onnx.export`` on
    ``example_inputs`` (a tensor or a tuple of tensors) and compiled from
    ONNX (see nki.torch).

    ``target``: "trn1", "trn2" or "trn3". ``auto_cast``: None (fp32 stays
    fp32), "matmul" (matmul inputs in bf16), "fp8", "mxfp8" or "mxfp4" (trn3)
    as nki-compile's --auto-cast. ``input_shapes``: static shapes for an
    ONNX model's dynamic inputs, ``{"x": (1, 3, 224, 224)}``. ``entry``:
    the MLIR function to compile (default: main, or the only public one).
    ``format``: "onnx" or "mlir" when the name or bytes do not tell.

    Returns a Program; with ``compile_to`` one of "graph", "tiled",
    "planned", "scheduled", "nisa", the IR text of that phase instead.
    Raises CompileError carrying the diagnostics when the compiler rejects
    the model, ValueError for an unknown option.
    """
    if _is_torch_module(source):
        from . import torch as nki_torch
        if example_inputs is None:
            raise ValueError("compiling a torch.nn.Module needs "
                             "example_inputs to export it with")
        source, format = nki_torch.export_onnx(source, example_inputs), "onnx"
    elif example_inputs is not None:
        raise ValueError("example_inputs is for a torch.nn.Module source")
    data, name, onnx = _read_source(source, format)
    if input_shapes and not onnx:
        raise ValueError("input_shapes applies to ONNX models; an MLIR "
                         "function's shapes are static")
    specs = [f"{n}:{'x'.join(str(int(d)) for d in shape)}"
             for n, shape in (input_shapes or {}).items()]
    phase = compile_to or "binary"
    out, report, diagnostics = _nki.compile(
        data, name, onnx, target, auto_cast or "none", phase, specs,
        entry or "")
    if diagnostics:
        warnings.warn(diagnostics.rstrip(), stacklevel=2)
    if phase != "binary":
        return out
    return Program(out, CompileReport._from_native(report))
