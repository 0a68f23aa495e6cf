//===- InitAll.h - Register everything nki provides -----------*- C++ -*-===//
//
// The one place that registers nki's dialects, passes, pass pipelines and
// translations together with the upstream dialects the compiler accepts.
// nki-opt, nki-translate and an embedding framework call these functions, so
// they all see the same things.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_INITALL_H
#define NKI_INITALL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nki {

/// Adds nki's dialects and the upstream input dialects (func, arith, math,
/// tensor, linalg, tosa, scf, memref, bufferization) with their interfaces.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers nki's passes and pipelines and the upstream passes the pipeline
/// uses, so nki-opt can run each of them on its own.
void registerAllPasses();

/// Registers nki's translations (binary emission, disassembly, import).
void registerAllTranslations();

/// Makes `--version` print nki's version before LLVM's.
void registerVersionPrinter();

/// Keeps `--help` to a tool's own options (those in `category`), LLVM's
/// generic ones (--help, --version) and the registered options named in
/// `shown` (moved to a category of their own, "MLIR options"); every other
/// registered option (LLVM's code generation internals and the like,
/// several hundred) is listed by `--help-hidden` only. Call after
/// registering the options and before parsing.
void showOnlyOptions(llvm::cl::OptionCategory &category,
                     llvm::ArrayRef<llvm::StringRef> shown);

} // namespace nki

#endif // NKI_INITALL_H
