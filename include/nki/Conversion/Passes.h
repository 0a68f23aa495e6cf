//===- Passes.h - The compiler's passes ------------------------*- C++ -*-===//
#ifndef NKI_CONVERSION_PASSES_H
#define NKI_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace nki {

#define GEN_PASS_DECL
#include "nki/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nki/Conversion/Passes.h.inc"

/// The auto-cast modes (nki-prepare-graph's option, nki-compile's flag),
/// and their names for diagnostics.
inline bool isAutoCastMode(llvm::StringRef mode) {
  return mode == "none" || mode == "matmul" || mode == "fp8" ||
         mode == "mxfp8" || mode == "mxfp4";
}
inline constexpr llvm::StringLiteral kAutoCastModes =
    "none, matmul, fp8, mxfp8 or mxfp4";

} // namespace nki

#endif // NKI_CONVERSION_PASSES_H
