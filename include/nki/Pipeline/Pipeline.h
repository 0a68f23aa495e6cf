//===- Pipeline.h - The compiler as a library ------------------*- C++ -*-===//
//
// What nki-compile does, for frameworks that embed the compiler: options,
// the pass pipeline built into an OpPassManager, and a compile function that
// turns a module into a .nkb binary in memory. Errors are MLIR diagnostics on
// the module's context; nothing here exits the process.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_PIPELINE_PIPELINE_H
#define NKI_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>

namespace nki {

/// The phases a user can stop after (--compile-to=).
enum class CompilePhase {
  Graph,     // prepared, fused linalg on tensors
  Tiled,     // nki tile loops on HBM memrefs
  Planned,   // straight-line tile code with SBUF/PSUM/HBM addresses
  Scheduled, // a nisa.program: engines and stream order, each instruction
             // with its place in the program order, no semaphores yet
  NISA,      // the same program with its semaphores, checked as a whole
             // by isa::verifyProgram: exactly what is encoded
  Binary,
};
std::optional<CompilePhase> parseCompilePhase(llvm::StringRef name);
llvm::StringRef compilePhaseName(CompilePhase phase);

struct CompileOptions {
  std::string target = "trn2"; // trn1 | trn2 | trn3
  std::string entry;           // empty: main, or the only public function
  /// "none" keeps fp32 faithful; "matmul" rounds matmul inputs to bf16 as
  /// production Trainium compilers do by default; "fp8" quantises matmuls
  /// of an activation and a weight to fp8 e4m3 (docs/compiler.md).
  std::string autoCast = "none";
  CompilePhase compileTo = CompilePhase::Binary;
  int64_t freeChunk = 2048; // elements per partition of elementwise tiles
  /// Tensors convolutions and poolings exchange stay in SBUF when they fit.
  bool sbufResident = true;
  /// Bytes a partition the tensors kept in SBUF leave free beyond the
  /// kernels' estimates (compileModule raises it when a plan fragments).
  int64_t residentMargin = 0;
  /// Groups of images the first layers run in (nki-split-batch): 0
  /// chooses, 1 never splits.
  int64_t batchGroups = 0;
  /// Chains of images the whole network runs in, one after another
  /// (nki-split-batch's `chains`): 0 chooses, 1 none.
  int64_t batchChains = 0;
};

/// Adds the passes that take a module of tensor functions to `phase`
/// (at most CompilePhase::NISA).
void buildPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                   CompilePhase phase = CompilePhase::NISA);

/// Adds the passes of one phase (those after the previous phase).
void addPhasePasses(mlir::OpPassManager &pm, const CompileOptions &options,
                    CompilePhase phase);

/// The .nkb bytes of the module's nisa.program.
mlir::FailureOr<std::string> encodeNISA(mlir::ModuleOp module);

/// Compiles `module` in place and returns the .nkb bytes. Diagnostics go to
/// the context's handler. `configure` may add instrumentation (timing,
/// IR printing) to the pass manager before it runs.
mlir::FailureOr<std::string>
compileToBinary(mlir::ModuleOp module, const CompileOptions &options,
                llvm::function_ref<void(mlir::PassManager &)> configure = {});

/// Registers the `nki-pipeline` pass pipeline (options target, entry,
/// auto-cast, compile-to) with the same stages as buildPipeline.
void registerPipelines();

} // namespace nki

#endif // NKI_PIPELINE_PIPELINE_H
