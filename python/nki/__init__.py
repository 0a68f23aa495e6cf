"""nki: an MLIR compiler for a Trainium-style accelerator, and its simulator.

Compile an ONNX model, MLIR on tensors or a torch.nn.Module, then run the
program on the bundled simulator, which executes it exactly and times it
with the machine model:

    import nki
    program = nki.compile("model.onnx", target="trn2")
    outputs, report = program.run({"x": x})      # numpy arrays by name
    print(report.total_us, report.pe_utilisation)

    import nki.torch
    print(nki.torch.compare(torch_module, (x,)))  # error vs eager, time

Contents:
    compile            a model to a Program (or to one phase's IR text)
    Program            .nkb bytes: inputs, outputs, run(), save(), disassemble()
    TensorInfo         an input or output: name, shape, dtype
    CompileReport      time per phase, SBUF/PSUM peaks, instructions
    RunReport          simulated time, engine utilisation, per-op profile
    CompileError       the compiler's diagnostics
    SimulationError    a race, uninitialised read, bad access or deadlock
    nki.torch          export, compile and compare PyTorch modules

docs/python.md in the source tree is the guide.
"""

from ._api import (PHASES, CompileError, CompileReport, OpProfile, Program,
                   RunReport, SimulationError, TensorInfo, compile)
from ._nki import version as __version__

__all__ = ["PHASES", "CompileError", "CompileReport", "OpProfile", "Program",
           "RunReport", "SimulationError", "TensorInfo", "compile",
           "__version__"]
