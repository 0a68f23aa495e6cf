//===- Driver.h - What nki-compile does with a source ----------*- C++ -*-===//
//
// The compiler driver as a library, shared by nki-compile and the Python
// package: load a source (MLIR text or an ONNX model), run the phases one
// pass manager each, measure them, and produce the .nkb bytes or the IR text
// of the requested phase. Errors are MLIR diagnostics on the context;
// nothing here exits the process.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_PIPELINE_DRIVER_H
#define NKI_PIPELINE_DRIVER_H

#include "nki/Frontend/ONNX/Importer.h"
#include "nki/Pipeline/Pipeline.h"

#include "mlir/Support/Timing.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace nki {

/// What a compile measured (nki-compile --report).
struct CompileReport {
  std::string target, autoCast;
  /// Wall time of each phase that ran, in order ("binary": the encoding).
  std::vector<std::pair<std::string, double>> phaseSeconds;
  /// Highest planned offset + size per partition; -1 before planning.
  int64_t sbufPeak = -1, psumPeak = -1;
  /// Instructions per engine stream, DMA queues summed ("dma (all queues)");
  /// filled when the binary is produced.
  std::map<std::string, int64_t> instructions;
  /// --auto-cast=fp8, mxfp8 or mxfp4: each quantised matmul's source and
  /// its weight's relative rounding error.
  std::vector<std::pair<std::string, double>> quantisedWeights;
  /// nki-split-batch's decision on a batch: ops split (0: none), groups,
  /// HBM time saved and compute time, estimated (us), why nothing was
  /// split, and whether the traffic rule split them (packed to fit, the
  /// groups one after another).
  struct BatchGroups {
    int64_t ops = 0, groups = 1;
    double hbmUs = 0, computeUs = 0;
    std::string why;
    bool packed = false, traffic = false;
    /// Windows of layers split after the first ones: their first layer's
    /// index and source op, their last's, the same estimates, whether
    /// the traffic rule took it and whether other large results it computes
    /// go through HBM (BatchWindow::escapes).
    struct Window {
      int64_t first = 0, ops = 0, groups = 1;
      double hbmUs = 0, computeUs = 0;
      std::string from, to;
      bool traffic = false, escapes = false;
    };
    std::vector<Window> windows;
    /// The second candidate nki-split-batch named
    /// (BatchGroupSolution::alternative; 0: none), whether compileModule
    /// compiled it, its schedule's end and the first's (us; -1: none) and
    /// whether it was kept (the shorter).
    int64_t alternative = 0;
    /// Chains of images the whole network runs in, one after another, the
    /// rest of the choice each chain's (BatchGroupSolution::chains), and
    /// chains named as the second candidate instead of groups
    /// (BatchGroupSolution::alternativeChains; 0: none).
    int64_t chains = 1, alternativeChains = 0;
    bool alternativeCompiled = false;
    double alternativeUs = -1, defaultUs = -1;
    bool alternativeKept = false;
  };
  std::optional<BatchGroups> batchGroups;
  /// How often the graph was tiled again because the SBUF plan fragmented
  /// (or fit only without rotating its tiles),
  /// and the bytes a partition the tensors kept in SBUF then left free.
  int64_t planRetries = 0, residentMargin = 0;
  /// The process's peak resident memory (VmHWM), -1 where /proc does not
  /// say. In a long-lived process (Python) it covers more than this compile.
  int64_t peakResidentBytes = -1;
};

/// The table nki-compile --report prints.
std::string formatCompileReport(const CompileReport &report);

/// Parses `sourceMgr`'s main buffer as MLIR, or imports it as an ONNX model
/// when `onnx`. Returns null after emitting diagnostics on `context`.
mlir::OwningOpRef<mlir::ModuleOp>
loadSource(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context, bool onnx,
           const ONNXImportOptions &onnxOptions = {});

/// How often compileModule verifies the IR.
enum class VerifyLevel {
  /// The graph phase's result (what the frontend and graph passes made of
  /// the input) and the last phase's when it is printed. The tiled,
  /// planned and scheduled phases hold one op per tile or instruction and
  /// verifying them cost a sixth of a large compile; a binary's nisa
  /// program is checked whole against the ISA by the encoder instead (the
  /// checks the nisa ops' verifiers make).
  Ends,
  /// After every phase.
  Phases,
  /// After every pass.
  Each,
};

struct DriverOptions {
  VerifyLevel verify = VerifyLevel::Ends;
  /// When enabled, each phase (and its verification) is timed under it.
  mlir::TimingScope *timing = nullptr;
  /// Configures each phase's pass manager (nki-compile: MLIR's IR printing
  /// and statistics options); a failure stops the compile. A std::function,
  /// not a function_ref: a lambda assigned to a stored function_ref dangles.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configure;
};

/// Runs the phases up to options.compileTo on `module` (in place) and
/// returns what the last produces: the .nkb bytes for CompilePhase::Binary,
/// else the module's text (for CompilePhase::NISA checked as a whole by
/// isa::verifyProgram first). Fills `report` as it goes. With the batch
/// groups left to the compiler (options.batchGroups 0) and nki-split-batch
/// naming a second candidate its estimate cannot rule out
/// (BatchGroupSolution::alternative), that G is compiled too, up to the
/// scheduled phase, and the program whose schedule ends first is kept (for
/// phases from the scheduled one on; a failure of the second is dropped).
mlir::FailureOr<std::string> compileModule(mlir::ModuleOp module,
                                           const CompileOptions &options,
                                           CompileReport &report,
                                           const DriverOptions &driver = {});

} // namespace nki

#endif // NKI_PIPELINE_DRIVER_H
