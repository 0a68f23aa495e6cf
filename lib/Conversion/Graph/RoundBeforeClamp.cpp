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

/// `c` in `narrow` if it holds it exactly.
std::optional<APFloat> exactIn(FloatAttr c, FloatType narrow) {
  APFloat rounded = c.getValue();
  bool lost = false;
  rounded.convert(narrow.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lost);
  if (lost || rounded.isNaN())
    return std::nullopt;
  return rounded;
}

/// `like`'s min or max of `x` and the constant `bound`, in `narrow`.
Value clampSide(PatternRewriter &rewriter, Operation *like, Value x,
                const APFloat &bound, FloatType narrow) {
  Location loc = like->getLoc();
  Value k = arith::ConstantOp::create(rewriter, loc, narrow,
                                      rewriter.getFloatAttr(narrow, bound));
  OperationState state(loc, like->getName());
  state.addOperands({x, k});
  state.addTypes(narrow);
  state.addAttributes(like->getAttrs());
  return rewriter.create(state)->getResult(0);
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
      std::optional<APFloat> k = exactIn(c, narrow);
      if (!k)
        continue;
      // The inner side's bound too, when the narrow type holds it: the
      // whole clamp then runs in the narrow type (one DVE or POOL pass at
      // the 2-byte rate), and what is rounded is the value before it (a
      // batch norm's x * s + b, which the ACT or the DVE evacuates).
      Value y = inner;
      std::optional<APFloat> innerBound;
      for (unsigned j : {0u, 1u}) {
        FloatAttr ci;
        if (!matchPattern(innerOp->getOperand(1 - j), m_Constant(&ci)) ||
            !(innerBound = exactIn(ci, narrow)))
          continue;
        y = innerOp->getOperand(j);
        break;
      }
      Value r = arith::TruncFOp::create(rewriter, trunc.getLoc(), narrow, y);
      if (innerBound)
        r = clampSide(rewriter, innerOp, r, *innerBound, narrow);
      r = clampSide(rewriter, outer, r, *k, narrow);
      rewriter.replaceOp(trunc, r);
      rewriter.eraseOp(outer);
      if (innerBound)
        rewriter.eraseOp(innerOp);
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
