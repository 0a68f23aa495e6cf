//===- SetTarget.cpp - nki-set-target -------------------------------------===//
//
// The target is a fact of the module (nki.target), set once here and read
// by every pass through nki::tile::getTarget, which owns the one
// diagnostic for a name that is not a target.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/IR/Builders.h"

namespace nki {
#define GEN_PASS_DEF_NKISETTARGET
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {
struct NKISetTargetPass : nki::impl::NKISetTargetBase<NKISetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr(nki::tile::kTargetAttr,
                    StringAttr::get(&getContext(), target));
    if (failed(nki::tile::getTarget(module)))
      return signalPassFailure();
  }
};
} // namespace
