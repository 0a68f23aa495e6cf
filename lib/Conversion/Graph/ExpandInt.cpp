//===- ExpandInt.cpp - Integer ops the engines lack, in ones they have ----===//
//
// ACT, DVE and POOL compute in fp32 internally and round when they store
// into an integer tile, so integer add, sub, mul, min, max, comparisons and
// selects are single instructions, exact while every value is below 2^24
// in magnitude. Division and remainder have no instruction; they become
//
//   divsi(a, b) = fptosi(sitofp(a) / sitofp(b))   (fptosi truncates: see
//                 ExpandMath.cpp, which makes its operand integral first)
//   remsi(a, b) = a - b * divsi(a, b)
//   absi(x)     = maxsi(x, 0 - x)
//
// For |a|, |b| < 2^24 the fp32 quotient of a non-multiple is never rounded
// onto an integer (its distance to one is at least 1/|b|, more than half
// an ulp), so the truncation is exact. Division by zero is not trapped: the
// fp32 quotient is +-inf or NaN and the store saturates.
//
//===----------------------------------------------------------------------===//

#include "ExpandInt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// a / b truncated toward zero, through f32.
Value divideThroughF32(PatternRewriter &b, Location loc, Value x, Value y,
                       bool isUnsigned) {
  Type f32 = b.getF32Type();
  Type type = x.getType();
  auto toF = [&](Value v) -> Value {
    if (isUnsigned)
      return arith::UIToFPOp::create(b, loc, f32, v);
    return arith::SIToFPOp::create(b, loc, f32, v);
  };
  Value q = arith::DivFOp::create(b, loc, toF(x), toF(y));
  if (isUnsigned)
    return arith::FPToUIOp::create(b, loc, type, q);
  return arith::FPToSIOp::create(b, loc, type, q);
}

template <typename Op, bool isUnsigned, bool isRem>
struct ExpandDivRem : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &b) const final {
    if (!isa<IntegerType>(op.getType()))
      return b.notifyMatchFailure(op, "only scalar forms");
    Location loc = op.getLoc();
    Value x = op.getLhs(), y = op.getRhs();
    Value q = divideThroughF32(b, loc, x, y, isUnsigned);
    if (isRem)
      q = arith::SubIOp::create(b, loc, x, arith::MulIOp::create(b, loc, y, q));
    b.replaceOp(op, q);
    return success();
  }
};

struct ExpandAbsI : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &b) const final {
    if (!isa<IntegerType>(op.getType()))
      return b.notifyMatchFailure(op, "only scalar forms");
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
    Value neg = arith::SubIOp::create(b, loc, zero, x);
    b.replaceOpWithNewOp<arith::MaxSIOp>(op, x, neg);
    return success();
  }
};

} // namespace

void nki::populateExpandIntPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandDivRem<arith::DivSIOp, false, false>,
               ExpandDivRem<arith::DivUIOp, true, false>,
               ExpandDivRem<arith::RemSIOp, false, true>,
               ExpandDivRem<arith::RemUIOp, true, true>, ExpandAbsI>(
      patterns.getContext());
}
