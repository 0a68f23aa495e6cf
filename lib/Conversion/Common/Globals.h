//===- Globals.h - Module-level constant bookkeeping ------------*- C++ -*-===//
//
// Passes that rewrite a kernel's reads of constants leave globals nobody
// reads. SymbolTable::symbolKnownUseEmpty walks the whole module per
// symbol, which made dropping N globals from a program of M ops cost
// O(N * M) (half of EfficientNet-B0's compile time); this collects the
// referenced names in one walk instead.
//
//===----------------------------------------------------------------------===//

#ifndef NKI_CONVERSION_COMMON_GLOBALS_H
#define NKI_CONVERSION_COMMON_GLOBALS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::memref {
class GlobalOp;
} // namespace mlir::memref

namespace nki {

/// Erases the memref.globals of `module` that `candidate` accepts and that
/// no operation in the module refers to; one walk of the module.
void eraseUnreferencedGlobals(
    mlir::ModuleOp module,
    llvm::function_ref<bool(mlir::memref::GlobalOp)> candidate);

} // namespace nki

#endif // NKI_CONVERSION_COMMON_GLOBALS_H
