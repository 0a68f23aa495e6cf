//===- nki-compile.cpp - The compiler driver
//-------------------------------===//
//
//   nki-compile IN.mlir|MODEL.onnx -o OUT.nkb [--target=trn1|trn2]
//               [--compile-to=graph|tiled|planned|scheduled|nisa]
//               [--auto-cast=none|matmul|fp8|mxfp8|mxfp4] [--entry=NAME]
//               [--report]
//               [--input-shape=NAME:AxBxC] [--mlir-print-ir-after-all]
//               [--mlir-timing]
//
// A thin main over nki/Pipeline: parse (or import an ONNX model), run the
// phases, write the binary or print the IR at the requested phase.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"
#include "nki/Frontend/ONNX/Importer.h"
#include "nki/InitAll.h"
#include "nki/Pipeline/Pipeline.h"
#include "nki/Target/NISABinary.h"
#include "nki/Version.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <map>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory nkiOptions("nki-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir or .onnx>"),
                                          cl::init("-"), cl::cat(nkiOptions));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::cat(nkiOptions));
static cl::opt<std::string> target("target", cl::desc("trn1 | trn2 | trn3"),
                                   cl::init("trn2"), cl::cat(nkiOptions));
static cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after a phase and print its IR: graph | tiled | "
                       "planned | scheduled | nisa"),
              cl::init("binary"), cl::cat(nkiOptions));
static cl::opt<std::string>
    autoCast("auto-cast",
             cl::desc("none | matmul (round matmul inputs to bf16) | fp8 "
                      "(matmuls of weights in fp8 e4m3 with scales, other "
                      "matmul inputs in bf16) | mxfp8 (trn3: those matmuls "
                      "in MXFP8 blocks of 32 with e8m0 scales) | mxfp4 (trn3: "
                      "in MXFP4 e2m1 blocks)"),
             cl::init("none"), cl::cat(nkiOptions));
static cl::opt<std::string> entry("entry", cl::desc("Entry function name"),
                                  cl::cat(nkiOptions));
static cl::opt<bool> sbufResident(
    "sbuf-resident",
    cl::desc("Keep tensors that convolutions and poolings exchange in SBUF "
             "when they fit (default true)"),
    cl::init(true), cl::cat(nkiOptions));
static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("MODEL.onnx: static shape of a graph input, "
                         "NAME:AxBxC (repeatable)"),
                cl::value_desc("NAME:AxBxC"), cl::cat(nkiOptions));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass (default: after every phase; "
             "the straight-line phases hold one op per instruction, and "
             "each verification walks all of them)"),
    cl::init(false), cl::cat(nkiOptions));
static cl::opt<bool> report("report",
                            cl::desc("Print time per phase, SBUF/PSUM peak "
                                     "use and instructions per engine"),
                            cl::cat(nkiOptions));

namespace {
struct Report {
  std::vector<std::pair<std::string, double>> phaseSeconds;
  int64_t sbufPeak = -1, psumPeak = -1;
  std::map<std::string, int64_t> instructions;
  /// --auto-cast=fp8: each quantised matmul's source and its weight's
  /// relative rounding error.
  std::vector<std::pair<std::string, double>> quantisedWeights;
};
} // namespace

/// The matmuls --auto-cast=fp8, mxfp8 or mxfp4 quantised (after the graph
/// phase).
static void recordFp8Weights(ModuleOp module, Report &r) {
  // The source op's name (an ONNX node's) or file:line:col.
  module.walk([&](Operation *op) {
    if (auto err = op->getAttrOfType<FloatAttr>(nki::tile::kFp8WeightErrorAttr))
      r.quantisedWeights.push_back(
          {nki::nisa::locationToString(op->getLoc()), err.getValueAsDouble()});
    // --auto-cast=mxfp8's and mxfp4's, kept on the function.
    if (auto list =
            op->getAttrOfType<ArrayAttr>(nki::tile::kMxWeightErrorsAttr))
      for (Attribute entry : list) {
        auto pair = dyn_cast<ArrayAttr>(entry);
        if (!pair || pair.size() != 2)
          continue;
        auto loc = dyn_cast<LocationAttr>(pair[0]);
        auto err = dyn_cast<FloatAttr>(pair[1]);
        if (loc && err)
          r.quantisedWeights.push_back(
              {nki::nisa::locationToString(Location(loc)),
               err.getValueAsDouble()});
      }
  });
}

/// Highest offset + bytes per partition over the planned tiles of a space.
static void recordMemoryPeaks(ModuleOp module, Report &r) {
  module.walk([&](nki::tile::AllocOp alloc) {
    if (!alloc.getOffset())
      return;
    MemRefType type = alloc.getTile().getType();
    int64_t bytes = type.getNumElements() / type.getDimSize(0) *
                    type.getElementTypeBitWidth() / 8;
    int64_t end = int64_t(*alloc.getOffset()) + bytes;
    if (nki::tile::isPsum(type))
      r.psumPeak = std::max(r.psumPeak, end);
    else
      r.sbufPeak = std::max(r.sbufPeak, end);
  });
}

static void recordInstructions(ModuleOp module, Report &r) {
  module.walk([&](nki::nisa::StreamOp stream) {
    std::string name = stream.getSymName().str();
    int64_t n = 0;
    for (Operation &op : stream.getBody().front())
      (void)op, ++n;
    r.instructions[name.rfind("dma", 0) == 0 ? "dma (all queues)" : name] += n;
  });
}

/// The process's peak resident memory in bytes (VmHWM: since exec, unlike
/// getrusage's ru_maxrss, which keeps a forking parent's), or -1 where
/// /proc does not say.
static int64_t peakResidentBytes() {
  // Streamed: /proc files report a size of 0.
  auto status = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
  if (!status)
    return -1;
  for (llvm::StringRef line : llvm::split((*status)->getBuffer(), '\n')) {
    if (!line.consume_front("VmHWM:"))
      continue;
    llvm::StringRef value = line.trim(); // "123456 kB"
    int64_t kib;
    if (!value.consume_back("kB") || value.trim().getAsInteger(10, kib))
      return -1;
    return kib * 1024;
  }
  return -1;
}

static void printReport(const Report &r, llvm::raw_ostream &os) {
  os << "nki-compile report (target " << target << ")\n";
  os << llvm::format("  %-22s %10s\n", "phase", "seconds");
  double total = 0;
  for (auto &[phase, s] : r.phaseSeconds) {
    os << llvm::format("  %-22s %10.3f\n", phase.c_str(), s);
    total += s;
  }
  os << llvm::format("  %-22s %10.3f\n", "total", total);
  if (r.sbufPeak >= 0)
    os << "  SBUF peak: " << r.sbufPeak << " bytes per partition\n";
  if (r.psumPeak >= 0)
    os << "  PSUM peak: " << r.psumPeak << " bytes per partition\n";
  for (auto &[engine, n] : r.instructions)
    os << llvm::format("  instructions %-16s %8lld\n", engine.c_str(),
                       (long long)n);
  if (int64_t peak = peakResidentBytes(); peak >= 0)
    os << llvm::format("  peak memory: %.1f MiB\n", double(peak) / (1 << 20));
  if (!r.quantisedWeights.empty()) {
    os << "  " << autoCast << " matmuls: " << r.quantisedWeights.size()
       << " (weight relative rounding error, largest first)\n";
    auto sorted = r.quantisedWeights;
    llvm::stable_sort(sorted,
                      [](auto &a, auto &b) { return a.second > b.second; });
    for (auto &[where, err] : sorted)
      os << llvm::format("    %.3e  ", err) << where << "\n";
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  nki::registerVersionPrinter();
  nki::showOnlyOptions(nkiOptions,
                       {"mlir-timing", "mlir-timing-display",
                        "mlir-print-ir-after-all", "mlir-print-ir-before-all",
                        "mlir-print-ir-after-failure", "mlir-print-debuginfo",
                        "mlir-pass-statistics", "mlir-disable-threading"});
  cl::ParseCommandLineOptions(argc, argv, "nki compiler driver\n");

  std::optional<nki::CompilePhase> phase = nki::parseCompilePhase(compileTo);
  if (!phase) {
    llvm::errs() << "nki-compile: unknown --compile-to=" << compileTo
                 << " (expected graph, tiled, planned, scheduled or nisa)\n";
    return 1;
  }
  if (!nki::isa::lookupTarget(target)) {
    llvm::errs() << "nki-compile: unknown --target=" << target
                 << " (expected " << nki::isa::knownTargetNames() << ")\n";
    return 1;
  }
  if (!nki::isAutoCastMode(autoCast)) {
    llvm::errs() << "nki-compile: unknown --auto-cast=" << autoCast
                 << " (expected " << nki::kAutoCastModes << ")\n";
    return 1;
  }
  if (*phase == nki::CompilePhase::Binary && outputFilename.empty()) {
    llvm::errs() << "nki-compile: missing -o OUT.nkb\n";
    return 1;
  }
  nki::ONNXImportOptions onnxOptions;
  for (const std::string &spec : inputShapes) {
    std::string error;
    if (!nki::parseONNXInputShape(spec, onnxOptions, error)) {
      llvm::errs() << "nki-compile: " << error << "\n";
      return 1;
    }
  }

  DialectRegistry registry;
  nki::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the user's source; dumping the (possibly huge)
  // operation in generic form under each one helps nobody.
  context.printOpOnDiagnostic(false);

  std::string error;
  auto input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "nki-compile: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (StringRef(inputFilename).ends_with(".onnx")) {
    const llvm::MemoryBuffer *buffer =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
    module = nki::importONNX(buffer->getBuffer(), inputFilename, &context,
                             onnxOptions);
  } else {
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;

  nki::CompileOptions options;
  options.target = target;
  options.entry = entry;
  options.autoCast = autoCast;
  options.sbufResident = sbufResident;
  options.compileTo = *phase;

  // One pass manager per phase, so --report can time each of them.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  Report rep;
  nki::CompilePhase last = std::min(*phase, nki::CompilePhase::NISA);
  for (nki::CompilePhase p :
       {nki::CompilePhase::Graph, nki::CompilePhase::Tiled,
        nki::CompilePhase::Planned, nki::CompilePhase::Scheduled,
        nki::CompilePhase::NISA}) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return 1;
    TimingScope phaseScope = root.nest(nki::compilePhaseName(p).str());
    if (timing.isEnabled())
      pm.enableTiming(phaseScope);
    pm.enableVerifier(verifyEach);
    nki::addPhasePasses(pm, options, p);
    auto start = std::chrono::steady_clock::now();
    if (failed(pm.run(*module)))
      return 1;
    if (!verifyEach) {
      TimingScope verifyScope = phaseScope.nest("verify");
      if (failed(verify(*module)))
        return 1;
    }
    rep.phaseSeconds.push_back(
        {nki::compilePhaseName(p).str(),
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count()});
    if (p == nki::CompilePhase::Graph)
      recordFp8Weights(*module, rep);
    if (p == nki::CompilePhase::Planned)
      recordMemoryPeaks(*module, rep);
    if (p == last)
      break;
  }

  std::string outName =
      outputFilename.empty() ? "-" : outputFilename.getValue();
  auto output = openOutputFile(outName, &error);
  if (!output) {
    llvm::errs() << "nki-compile: " << error << "\n";
    return 1;
  }
  if (*phase == nki::CompilePhase::NISA) {
    // The nisa phase is the program as it will be encoded: checked as a
    // whole (tensor table, streams, every instruction) by the ISA library.
    for (auto program : module->getOps<nki::nisa::ProgramOp>())
      if (failed(nki::programFromNISA(program)))
        return 1;
  }
  if (*phase != nki::CompilePhase::Binary) {
    module->print(output->os());
  } else {
    recordInstructions(*module, rep);
    auto start = std::chrono::steady_clock::now();
    FailureOr<std::string> bytes = nki::encodeNISA(*module);
    if (failed(bytes))
      return 1;
    output->os() << *bytes;
    rep.phaseSeconds.push_back(
        {"binary",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count()});
  }
  output->keep();
  if (report)
    printReport(rep, outName == "-" ? llvm::errs() : llvm::outs());
  return 0;
}
