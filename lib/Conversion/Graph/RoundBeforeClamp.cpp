//===- RoundBeforeClamp.cpp - A narrowing cast moved inside a clamp -------===//

#include "RoundBeforeClamp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace nki {
namespace {

bool isMin(Operation *op) {
  return isa<arith::MinimumFOp, arith::MinNumFOp>(op);
}
bool isMax(Operation *op) {
  return isa<arith::MaximumFOp, arith::MaxNumFOp>(op);
}

struct RoundBeforeClamp : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp trunc,
                                PatternRewriter &rewriter) const override {
    Operation *outer = trunc.getIn().getDefiningOp();
    if (!outer || !(isMin(outer) || isMax(outer)) || !outer->hasOneUse() ||
        trunc.getRoundingmodeAttr() ||
        trunc.getFastmathAttr() != arith::FastMathFlagsAttr())
      return failure();
    auto narrow = dyn_cast<FloatType>(trunc.getType());
    if (!narrow)
      return failure();
    for (unsigned i : {0u, 1u}) {
      Value inner = outer->getOperand(i), bound = outer->getOperand(1 - i);
      Operation *innerOp = inner.getDefiningOp();
      FloatAttr c;
      // The inner op is the clamp's other side (max under a min, min under
      // a max): it is computed anyway, and now stores the narrow type.
      if (!innerOp || !inner.hasOneUse() ||
          !(isMin(outer) ? isMax(innerOp) : isMin(innerOp)) ||
          !matchPattern(bound, m_Constant(&c)))
        continue;
      APFloat rounded = c.getValue();
      bool lost = false;
      rounded.convert(narrow.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                      &lost);
      if (lost || rounded.isNaN())
        continue;
      Location loc = outer->getLoc();
      Value r =
          arith::TruncFOp::create(rewriter, trunc.getLoc(), narrow, inner);
      Value k = arith::ConstantOp::create(
          rewriter, loc, narrow, rewriter.getFloatAttr(narrow, rounded));
      OperationState state(loc, outer->getName());
      state.addOperands({r, k});
      state.addTypes(narrow);
      state.addAttributes(outer->getAttrs());
      rewriter.replaceOp(trunc, rewriter.create(state)->getResults());
      rewriter.eraseOp(outer);
      return success();
    }
    return failure();
  }
};

} // namespace

void populateRoundBeforeClampPatterns(RewritePatternSet &patterns) {
  patterns.add<RoundBeforeClamp>(patterns.getContext());
}

} // namespace nki
