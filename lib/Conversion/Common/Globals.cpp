//===- Globals.cpp - Module-level constant bookkeeping --------------------===//

#include "Globals.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

void nki::eraseUnreferencedGlobals(
    ModuleOp module, llvm::function_ref<bool(memref::GlobalOp)> candidate) {
  llvm::DenseSet<StringAttr> referenced;
  if (auto uses = SymbolTable::getSymbolUses(&module.getBodyRegion()))
    for (const SymbolTable::SymbolUse &use : *uses)
      referenced.insert(use.getSymbolRef().getRootReference());
  else
    return; // an unknown symbol table: keep everything
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
    if (candidate(global) && !referenced.contains(global.getSymNameAttr()))
      global.erase();
}
