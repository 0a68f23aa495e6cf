//===- nki-compile.cpp - The compiler driver ------------------------------===//
//
//   nki-compile IN.mlir|MODEL.onnx -o OUT.nkb [--target=trn1|trn2|trn3]
//               [--compile-to=graph|tiled|planned|scheduled|nisa]
//               [--auto-cast=none|matmul|fp8|mxfp8|mxfp4] [--entry=NAME]
//               [--report]
//               [--input-shape=NAME:AxBxC] [--mlir-print-ir-after-all]
//               [--mlir-timing]
//
// A thin main over nki/Pipeline/Driver.h (which the Python package shares):
// options in, then load the source, compile it phase by phase, write the
// binary or print the IR at the requested phase, and the --report table.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"
#include "nki/Frontend/ONNX/Importer.h"
#include "nki/InitAll.h"
#include "nki/Pipeline/Driver.h"
#include "nki/Target/NISABinary.h"
#include "nki/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

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
static cl::opt<int64_t> residentMargin(
    "resident-margin",
    cl::desc("Bytes per partition that tensors kept in SBUF leave free "
             "beyond the kernels' estimates (default 0; raised by itself "
             "when the SBUF plan fragments; negative overcommits, to test "
             "that)"),
    cl::init(0), cl::cat(nkiOptions));
static cl::opt<int64_t> batchGroups(
    "batch-groups",
    cl::desc("Groups of images the first layers of a batch run in, so that "
             "their tensors stay in SBUF (0: chosen by the compiler, the "
             "default, which may also split windows of later layers, and "
             "where its estimate cannot tell, compiles a second split too "
             "and keeps the shorter schedule; 1: never; G > 1: G groups for "
             "the first layers, no windows, one group after another where "
             "their tensors fit only packed)"),
    cl::init(0), cl::cat(nkiOptions));
static cl::opt<int64_t> batchChains(
    "batch-chains",
    cl::desc("Chains of images the whole network runs in, one after another, "
             "each split as a batch of its size would be (0: chosen by the "
             "compiler, the default: above 8 images where a result does not "
             "fit in SBUF, chains of 8 in place of a split of the first "
             "layers that holds most of the network, else compiled too and "
             "the shorter schedule kept; 1: never; K > 1: K chains of N / K "
             "images)"),
    cl::init(0), cl::cat(nkiOptions));
static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("MODEL.onnx: static shape of a graph input, "
                         "NAME:AxBxC (repeatable)"),
                cl::value_desc("NAME:AxBxC"), cl::cat(nkiOptions));
static cl::opt<nki::VerifyLevel> verifyLevel(
    "verify", cl::desc("When to verify the IR (default: ends)"),
    cl::values(clEnumValN(nki::VerifyLevel::Ends, "ends",
                          "after the graph phase and the last one"),
               clEnumValN(nki::VerifyLevel::Phases, "phases",
                          "after every phase"),
               clEnumValN(nki::VerifyLevel::Each, "each", "after every pass")),
    cl::init(nki::VerifyLevel::Ends), cl::cat(nkiOptions));
static cl::opt<bool> verifyEach("verify-each",
                                cl::desc("Same as --verify=each"),
                                cl::init(false), cl::cat(nkiOptions));
static cl::opt<bool> report("report",
                            cl::desc("Print time per phase, SBUF/PSUM peak "
                                     "use and instructions per engine"),
                            cl::cat(nkiOptions));

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
  OwningOpRef<ModuleOp> module =
      nki::loadSource(sourceMgr, &context,
                      StringRef(inputFilename).ends_with(".onnx"), onnxOptions);
  if (!module)
    return 1;

  nki::CompileOptions options;
  options.target = target;
  options.entry = entry;
  options.autoCast = autoCast;
  options.sbufResident = sbufResident;
  options.residentMargin = residentMargin;
  options.batchGroups = batchGroups;
  options.batchChains = batchChains;
  options.compileTo = *phase;

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  nki::DriverOptions driver;
  driver.verify = verifyEach ? nki::VerifyLevel::Each : verifyLevel;
  if (timing.isEnabled())
    driver.timing = &root;
  driver.configure = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  nki::CompileReport rep;
  FailureOr<std::string> result =
      nki::compileModule(*module, options, rep, driver);
  if (failed(result))
    return 1;

  std::string outName =
      outputFilename.empty() ? "-" : outputFilename.getValue();
  auto output = openOutputFile(outName, &error);
  if (!output) {
    llvm::errs() << "nki-compile: " << error << "\n";
    return 1;
  }
  output->os() << *result;
  output->keep();
  if (report)
    (outName == "-" ? llvm::errs() : llvm::outs())
        << nki::formatCompileReport(rep);
  return 0;
}
