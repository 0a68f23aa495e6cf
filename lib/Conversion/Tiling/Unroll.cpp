//===- Unroll.cpp - nki-unroll: straight-line tile code --------------------===//
//
// The machine has no branches. Tile loops are unrolled innermost first and
// the index arithmetic folded by canonicalization, leaving every HBM view and
// tile slice with static offsets.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace nki {
#define GEN_PASS_DEF_NKIUNROLL
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {
struct NKIUnrollPass : nki::impl::NKIUnrollBase<NKIUnrollPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); }); // post-order
    for (scf::ForOp loop : loops) {
      if (failed(loopUnrollFull(loop))) {
        loop.emitOpError("cannot be unrolled: tile loops need constant "
                         "bounds");
        return signalPassFailure();
      }
    }
    RewritePatternSet patterns(&getContext());
    for (Dialect *dialect : getContext().getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op :
         getContext().getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, &getContext());
    // One top-down sweep: its worklist folds each unrolled index chain as
    // far as it goes (an op that changes queues its users). A second sweep
    // would only confirm that nothing is left, at the cost of the first
    // (a tenth of a large compile), so convergence is not asked for:
    // canonicalization here is an optimisation, and whatever it leaves is
    // still valid tile code. The body is one block, so there is no region
    // to simplify (that walk cost a fifth of the pass on programs of 100 k
    // instructions).
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.setMaxIterations(1);
    (void)applyPatternsGreedily(func, std::move(patterns), config);
  }
};
} // namespace
