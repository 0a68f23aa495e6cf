//===- PlanMemoryPass.cpp - nki-plan-memory -------------------------------===//
//
// Gives every nki.alloc its `offset` in SBUF or PSUM and every HBM tensor
// its `nki.hbm_offset` (docs/memory-planning.md). Runs after nki-unroll on
// straight-line code; nki-schedule reads the attributes.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Conversion/Passes.h"

namespace nki {
#define GEN_PASS_DEF_NKIPLANMEMORY
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace nki::planning {

FailureOr<MemoryPlan> planMemory(func::FuncOp func) {
  FailureOr<const isa::TargetDesc *> chosen = tile::getTarget(func);
  if (failed(chosen))
    return failure();
  const isa::TargetDesc *target = *chosen;
  if (failed(checkStraightLine(func)))
    return failure();
  reuseDeadInputs(func);

  // Every step runs even when an earlier one failed, so that one run
  // reports every problem.
  MemoryPlan plan;
  bool ok = true;
  FailureOr<std::vector<HbmBuffer>> hbm = planHbm(func, *target);
  if (succeeded(hbm))
    plan.hbm = std::move(*hbm);
  else
    ok = false;

  FailureOr<std::vector<TileBuffer>> tiles = collectTiles(func, *target);
  if (failed(tiles))
    return failure();
  plan.tiles = std::move(*tiles);
  for (tile::MemorySpace space :
       {tile::MemorySpace::SBUF, tile::MemorySpace::PSUM}) {
    FailureOr<TilePlacement> placement =
        planTiles(func, *target, plan.tiles, space);
    if (succeeded(placement))
      plan.placements.push_back(std::move(*placement));
    else
      ok = false;
  }
  if (!ok)
    return failure();
  return plan;
}

} // namespace nki::planning

namespace {
struct NKIPlanMemoryPass : nki::impl::NKIPlanMemoryBase<NKIPlanMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(nki::planning::planMemory(func)))
      signalPassFailure();
  }
};
} // namespace
