//===- LowerFunction.cpp - The entry function's tile ops as instructions --===//
//
// Finding the entry function of planned, straight-line tile code and
// lowering its tile ops in program order (nki-schedule).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace nki::tonisa {

func::FuncOp findEntryFunction(ModuleOp module, StringRef pass) {
  func::FuncOp entry;
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    if (!main.isExternal())
      entry = main;
  if (!entry) {
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (entry) {
        entry = nullptr;
        break;
      }
      entry = func;
    }
  }
  if (!entry) {
    module.emitError() << "no entry function: expected 'main' or exactly "
                          "one public function with a body";
    return nullptr;
  }
  if (!entry.getBody().hasOneBlock()) {
    entry.emitOpError() << "has control flow; run nki-unroll before " << pass;
    return nullptr;
  }
  return entry;
}

bool isStructural(Operation *op) {
  return llvm::isa<tile::AllocOp, tile::BitcastOp, memref::SubViewOp,
                   memref::ReinterpretCastOp, memref::CastOp,
                   memref::CollapseShapeOp, memref::ExpandShapeOp,
                   memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
                   arith::ConstantOp, func::ReturnOp>(op);
}

FailureOr<std::vector<LoweredInst>> lowerFunction(const isa::TargetDesc &target,
                                                  func::FuncOp func,
                                                  StringRef pass) {
  std::vector<LoweredInst> ops;
  // About one instruction per op (structural ops have none, a large DMA
  // several): the list then grows at most once; reserved pages that stay
  // unused are never touched.
  ops.reserve(func.getBody().front().getOperations().size());
  bool ok = true;
  for (Operation &op : func.getBody().front()) {
    if (isStructural(&op))
      continue;
    if (!llvm::isa<tile::NKIDialect>(op.getDialect())) {
      op.emitOpError() << "is not a tile op; " << pass
                       << " expects straight-line tile code (run nki-tile "
                          "and nki-unroll first)";
      ok = false;
      continue;
    }
    if (failed(lowerTileOp(target, &op, ops)))
      ok = false;
  }
  if (!ok)
    return failure();
  return ops;
}

} // namespace nki::tonisa
