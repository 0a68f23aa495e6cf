//===- Pipeline.cpp - The compiler as a library ----------------------------===//

#include "nki/Pipeline/Pipeline.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/ISA/Binary.h"
#include "nki/Target/NISABinary.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using nki::CompilePhase;
using nki::CompileOptions;

static constexpr std::pair<CompilePhase, const char *> kPhaseNames[] = {
    {CompilePhase::Graph, "graph"},         {CompilePhase::Tiled, "tiled"},
    {CompilePhase::Planned, "planned"},     {CompilePhase::Scheduled, "scheduled"},
    {CompilePhase::NISA, "nisa"},           {CompilePhase::Binary, "binary"}};

std::optional<nki::CompilePhase> nki::parseCompilePhase(StringRef name) {
  for (auto [phase, spelling] : kPhaseNames)
    if (name == spelling)
      return phase;
  return std::nullopt;
}

StringRef nki::compilePhaseName(CompilePhase phase) {
  for (auto [p, spelling] : kPhaseNames)
    if (p == phase)
      return spelling;
  return "";
}

void nki::addPhasePasses(OpPassManager &pm, const CompileOptions &options,
                         CompilePhase phase) {
  switch (phase) {
  case CompilePhase::Graph: {
    // The target, named once on the module for every later pass.
    NKISetTargetOptions setTarget;
    setTarget.target = options.target;
    pm.addPass(createNKISetTarget(setTarget));
    // TOSA to linalg, checks and decompositions, elementwise fusion.
    pm.addPass(createInlinerPass());
    tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                                TosaToLinalgNamedOptions());
    // What tosa-to-linalg leaves: constants, reshapes and slices.
    pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
    pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
    NKIPrepareGraphOptions prepare;
    prepare.entry = options.entry;
    prepare.autoCast = options.autoCast;
    pm.addPass(createNKIPrepareGraph(prepare));
    pm.addPass(createNKIFuseElementwise());
    // Biases constant and next to their convolutions.
    pm.addNestedPass<func::FuncOp>(createNKIComposeConvs());
    // An expansion's remainder block of filters, a kernel of its own.
    pm.addNestedPass<func::FuncOp>(createNKISplitConvSlices());
    NKISplitBatchOptions split;
    split.groups = options.batchGroups;
    split.chains = options.batchChains;
    pm.addNestedPass<func::FuncOp>(createNKISplitBatch(split));
    // Upsampled phases that fill the PE's columns together, sized for a
    // group's images.
    pm.addNestedPass<func::FuncOp>(createNKIGroupPhases());
    // After fusion: nothing elementwise fuses into an interleave.
    pm.addNestedPass<func::FuncOp>(createNKIInterleavePhases());
    // A 1x1 convolution and another that an op only adds, in one PSUM
    // (after the split: a group's ops are what a kernel sees).
    pm.addNestedPass<func::FuncOp>(createNKIAccumulateConvs());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
  case CompilePhase::Tiled: {
    // Tensors become HBM buffers; ops become loops over tiles.
    pm.addNestedPass<func::FuncOp>(createNKIUnsharePartialTensors());
    // An op whose result is inserted into a larger tensor (a channel block
    // of a depthwise convolution, a part of a concat, a phase of a
    // transposed convolution) computes it in place there instead of in a
    // buffer of its own that is then copied.
    pm.addNestedPass<func::FuncOp>(createNKIEliminateEmptyTensors());
    bufferization::OneShotBufferizePassOptions bufferize;
    bufferize.bufferizeFunctionBoundaries = true;
    bufferize.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
    // CSE merges the two subviews of an insert_slice computed in place, so
    // that its copy (of the slice onto itself) folds away.
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
    NKITileOptions tile;
    tile.freeChunk = options.freeChunk;
    tile.sbufResident = options.sbufResident;
    tile.residentMargin = options.residentMargin;
    pm.addNestedPass<func::FuncOp>(createNKITile(tile));
    return;
  }
  case CompilePhase::Planned: {
    pm.addNestedPass<func::FuncOp>(createNKIUnroll());
    NKIForwardStoresOptions forward;
    forward.margin = options.residentMargin;
    pm.addNestedPass<func::FuncOp>(createNKIForwardStores(forward));
    pm.addPass(createNKIGatherConstants());
    pm.addNestedPass<func::FuncOp>(createNKIPlanMemory());
    return;
  }
  case CompilePhase::Scheduled: {
    pm.addPass(createNKISchedule());
    return;
  }
  case CompilePhase::NISA: {
    // Semaphores from the scheduled instructions' own accesses; the
    // nisa.program then verifies itself against the ISA (op verifiers).
    pm.addPass(createNKISynchronize());
    return;
  }
  case CompilePhase::Binary:
    return;
  }
}

void nki::buildPipeline(OpPassManager &pm, const CompileOptions &options,
                        CompilePhase phase) {
  for (CompilePhase p : {CompilePhase::Graph, CompilePhase::Tiled,
                         CompilePhase::Planned, CompilePhase::Scheduled,
                         CompilePhase::NISA}) {
    addPhasePasses(pm, options, p);
    if (p == phase)
      return;
  }
}

FailureOr<std::string> nki::encodeNISA(ModuleOp module) {
  auto programs = llvm::to_vector(module.getOps<nisa::ProgramOp>());
  if (programs.size() != 1)
    return module.emitError("expected one nisa.program after compilation, "
                            "found ")
           << programs.size();
  return binaryFromNISA(programs.front());
}

FailureOr<std::string>
nki::compileToBinary(ModuleOp module, const CompileOptions &options,
                     function_ref<void(PassManager &)> configure) {
  PassManager pm(module.getContext());
  buildPipeline(pm, options, CompilePhase::NISA);
  if (configure)
    configure(pm);
  if (failed(pm.run(module)))
    return failure();
  return encodeNISA(module);
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("trn1 | trn2 | trn3"),
                             llvm::cl::init("trn2")};
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("Entry function name")};
  Option<std::string> autoCast{*this, "auto-cast",
                               llvm::cl::desc(nki::kAutoCastModes.data()),
                               llvm::cl::init("none")};
  Option<std::string> compileTo{
      *this, "compile-to",
      llvm::cl::desc("graph | tiled | planned | scheduled | nisa"),
      llvm::cl::init("nisa")};
};
} // namespace

void nki::registerPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "nki-pipeline",
      "Compile tensor programs to a nisa.program (the whole nki pipeline)",
      [](OpPassManager &pm, const PipelineOptions &o) {
        CompileOptions options;
        options.target = o.target;
        options.entry = o.entry;
        options.autoCast = o.autoCast;
        std::optional<CompilePhase> phase = parseCompilePhase(o.compileTo);
        // Unknown phases are reported by nki-compile; here fall back to the
        // whole pipeline so a typo does not silently stop early.
        buildPipeline(pm, options,
                      phase && *phase != CompilePhase::Binary
                          ? *phase
                          : CompilePhase::NISA);
      });
}
