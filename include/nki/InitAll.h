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

} // namespace nki

#endif // NKI_INITALL_H
