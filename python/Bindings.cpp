//===- Bindings.cpp - nki._nki: the compiler and simulator for Python -----===//
//
// The native half of the Python package, over the C++ Pipeline (Driver.h)
// and Simulator APIs: bytes and strings in, bytes and strings out. The
// Python half (nki/_api.py) turns arrays into .npy bytes and back, so this
// file needs no numpy headers and converts tensors exactly as nki-run does
// (TensorFile.h). The GIL is released while compiling and simulating.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/ISA/Binary.h"
#include "nki/InitAll.h"
#include "nki/Pipeline/Driver.h"
#include "nki/Simulator/Simulator.h"
#include "nki/Simulator/TensorFile.h"
#include "nki/Target/NISABinary.h"
#include "nki/Version.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

namespace py = pybind11;
using namespace nki;

namespace {

/// Raised as nki.CompileError / nki.SimulationError (messages: the MLIR
/// diagnostics, or the simulator's error naming the instruction).
struct CompileFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct SimulationFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string joinNames(const isa::Program &program, isa::TensorKind kind) {
  std::string names;
  for (const isa::TensorDecl &t : program.tensors)
    if (t.kind == kind)
      names += (names.empty() ? "" : ", ") + t.name;
  return names.empty() ? "none" : names;
}

py::dict reportDict(const CompileReport &r) {
  py::dict d;
  d["target"] = r.target;
  d["auto_cast"] = r.autoCast;
  d["phase_seconds"] = r.phaseSeconds;
  d["sbuf_peak"] = r.sbufPeak;
  d["psum_peak"] = r.psumPeak;
  d["instructions"] = r.instructions;
  d["quantised_weights"] = r.quantisedWeights;
  d["peak_resident_bytes"] = r.peakResidentBytes;
  d["text"] = formatCompileReport(r);
  return d;
}

/// Compiles `source` (MLIR text or ONNX model bytes); returns the output
/// (.nkb bytes or IR text), the report as a dict and the warnings printed.
py::tuple compile(py::bytes sourceBytes, const std::string &name, bool onnx,
                  const std::string &target, const std::string &autoCast,
                  const std::string &compileTo,
                  const std::vector<std::string> &inputShapes,
                  const std::string &entry) {
  std::optional<CompilePhase> phase = parseCompilePhase(compileTo);
  if (!phase)
    throw py::value_error("unknown compile_to '" + compileTo +
                          "' (expected graph, tiled, planned, scheduled, nisa "
                          "or binary)");
  if (!isa::lookupTarget(target))
    throw py::value_error("unknown target '" + target + "' (expected " +
                          isa::knownTargetNames() + ")");
  if (!isAutoCastMode(autoCast))
    throw py::value_error("unknown auto_cast '" + autoCast + "' (expected " +
                          kAutoCastModes.str() + ")");
  ONNXImportOptions onnxOptions;
  for (const std::string &spec : inputShapes) {
    std::string error;
    if (!parseONNXInputShape(spec, onnxOptions, error))
      throw py::value_error(error);
  }
  CompileOptions options;
  options.target = target;
  options.entry = entry;
  options.autoCast = autoCast;
  options.compileTo = *phase;

  std::string source = sourceBytes; // copied while holding the GIL
  std::string diagnostics, output;
  CompileReport report;
  bool ok;
  {
    py::gil_scoped_release release;
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        // std::string ends in a NUL, which MLIR's lexer reads.
        llvm::MemoryBuffer::getMemBuffer(source, name,
                                         /*RequiresNullTerminator=*/true),
        llvm::SMLoc());
    llvm::raw_string_ostream os(diagnostics);
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        loadSource(sourceMgr, &context, onnx, onnxOptions);
    mlir::FailureOr<std::string> result = mlir::failure();
    if (module)
      result = compileModule(*module, options, report);
    ok = succeeded(result);
    if (ok)
      output = std::move(*result);
  }
  if (!ok)
    throw CompileFailure(diagnostics.empty() ? name + ": compilation failed"
                                             : diagnostics);
  py::object out = *phase == CompilePhase::Binary
                       ? py::object(py::bytes(output))
                       : py::object(py::str(output));
  return py::make_tuple(out, reportDict(report), diagnostics);
}

/// A decoded, verified .nkb program.
class Binary {
public:
  explicit Binary(py::bytes bytes) {
    std::string_view view = bytes;
    absl::StatusOr<isa::Program> program = isa::decodeProgram(view);
    if (!program.ok())
      throw py::value_error("not a valid .nkb binary: " +
                            std::string(program.status().message()));
    program_ = std::move(*program);
  }

  const std::string &target() const { return program_.target; }

  /// (name, kind, shape, dtype, host type) of each input and output, in
  /// table order.
  py::list tensors() const {
    py::list out;
    for (const isa::TensorDecl &t : program_.tensors) {
      if (t.kind != isa::TensorKind::Input && t.kind != isa::TensorKind::Output)
        continue;
      out.append(py::make_tuple(t.name,
                                std::string(isa::tensorKindName(t.kind)),
                                t.shape, std::string(isa::dtypeName(t.dtype)),
                                std::string(isa::hostTypeName(t.host))));
    }
    return out;
  }

  int64_t instructions() const {
    int64_t n = 0;
    for (const isa::Stream &s : program_.streams)
      n += int64_t(s.instructions.size());
    return n;
  }

  /// The nisa text nki-translate --binary-to-nisa prints.
  std::string disassemble() const {
    mlir::MLIRContext context;
    context.getOrLoadDialect<nisa::NISADialect>();
    std::string diagnostics, text;
    llvm::raw_string_ostream diagOs(diagnostics), os(text);
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagOs << d << "\n";
      return mlir::success();
    });
    mlir::Location loc = mlir::UnknownLoc::get(&context);
    mlir::OwningOpRef<nisa::ProgramOp> op =
        programToNISA(program_, &context, loc);
    if (!op || failed(mlir::verify(*op)))
      throw CompileFailure(diagnostics);
    op->print(os, mlir::OpPrintingFlags().enableDebugInfo(true, false));
    return text;
  }

  /// Simulates with `inputs` (name -> .npy bytes); returns the outputs
  /// (name -> .npy bytes), the report as JSON and as a table, and the
  /// Chrome trace JSON when `trace`.
  py::tuple simulate(const std::map<std::string, py::bytes> &inputs, bool trace,
                     bool checkRaces, bool checkUninitialized) {
    std::string hbm = sim::makeHbmImage(program_);
    for (auto &[name, npy] : inputs) {
      const isa::TensorDecl *t = program_.findTensor(name);
      if (!t || t->kind != isa::TensorKind::Input)
        throw py::value_error(
            "the program has no input named '" + name + "' (its inputs: " +
            joinNames(program_, isa::TensorKind::Input) + ")");
      absl::StatusOr<sim::HostTensor> host =
          sim::parseNpy(std::string_view(npy));
      absl::StatusOr<std::string> bytes =
          host.ok() ? sim::toTensorBytes(*host, t->dtype, t->shape)
                    : absl::StatusOr<std::string>(host.status());
      absl::Status st = bytes.ok()
                            ? sim::setTensorBytes(program_, hbm, name, *bytes)
                            : bytes.status();
      if (!st.ok())
        throw py::value_error("input '" + name +
                              "': " + std::string(st.message()));
    }
    for (const isa::TensorDecl &t : program_.tensors)
      if (t.kind == isa::TensorKind::Input && !inputs.count(t.name))
        throw py::value_error("input '" + t.name + "' has no value");

    sim::SimOptions opts;
    opts.verifyInstructions = false; // decodeProgram ran isa::verifyProgram
    opts.checkRaces = checkRaces;
    opts.checkUninitialized = checkUninitialized;
    opts.collectTrace = trace;
    opts.collectProfile = true;
    absl::StatusOr<sim::SimResult> result = absl::UnknownError("");
    {
      py::gil_scoped_release release;
      result = sim::simulate(program_, std::move(hbm), opts);
    }
    if (!result.ok())
      throw SimulationFailure(std::string(result.status().message()));

    py::dict outputs;
    for (const isa::TensorDecl &t : program_.tensors) {
      if (t.kind != isa::TensorKind::Output)
        continue;
      absl::StatusOr<std::string> bytes =
          sim::getTensorBytes(program_, result->hbm, t.name);
      if (!bytes.ok())
        throw SimulationFailure(std::string(bytes.status().message()));
      sim::HostTensor host =
          sim::fromTensorBytes(*bytes, t.dtype, t.shape, t.host);
      outputs[py::str(t.name)] =
          py::bytes(sim::formatNpy(host, t.dtype, t.host));
    }
    py::object traceJson = py::none();
    if (trace)
      traceJson = py::str(sim::formatChromeTrace(program_, result->trace,
                                                 &result->report.criticalPath));
    return py::make_tuple(outputs, sim::formatReportJson(result->report),
                          sim::formatReportTable(result->report), traceJson);
  }

private:
  isa::Program program_;
};

} // namespace

PYBIND11_MODULE(_nki, m) {
  m.doc() = "The native half of the nki package (use `nki`, not `nki._nki`).";
  m.attr("version") = NKI_VERSION_STRING;
  py::register_exception<CompileFailure>(m, "CompileError", PyExc_RuntimeError);
  py::register_exception<SimulationFailure>(m, "SimulationError",
                                            PyExc_RuntimeError);
  m.def("compile", &compile, py::arg("source"), py::arg("name"),
        py::arg("onnx"), py::arg("target"), py::arg("auto_cast"),
        py::arg("compile_to"), py::arg("input_shapes"), py::arg("entry"));
  py::class_<Binary>(m, "Binary")
      .def(py::init<py::bytes>(), py::arg("data"))
      .def_property_readonly("target", &Binary::target)
      .def_property_readonly("instructions", &Binary::instructions)
      .def("tensors", &Binary::tensors)
      .def("disassemble", &Binary::disassemble)
      .def("simulate", &Binary::simulate, py::arg("inputs"), py::arg("trace"),
           py::arg("check_races"), py::arg("check_uninitialized"));
}
