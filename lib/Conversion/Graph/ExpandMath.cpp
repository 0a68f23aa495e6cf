//===- ExpandMath.cpp - Math functions the engines lack, in ones they have ===//
//
// The ACT engine has exp, log, sqrt, sin, cos, tanh, ... but no floor, tan,
// atan or hyperbolic functions; the DVE rounds to the nearest integer only
// as a side effect of storing into an int32 tile (math.roundeven, which the
// body lowering emits as that round trip). These patterns rewrite the
// missing functions, wherever they appear (in practice inside linalg
// bodies), into arith/math ops the body lowering covers:
//
//   floor(x)  = r - (r > x),  ceil(x) = r + (r < x),  r = roundeven(x)
//   trunc(x)  = x >= 0 ? floor(x) : ceil(x)
//   round(x)  = trunc(x) +- 1 where |x - trunc(x)| >= 0.5 (ties away)
//   fptosi(x) = fptosi(trunc(x)): MLIR's conversion truncates, the device's
//               rounds, so the operand is made integral first
//   tan = sin / cos;  sinh, cosh from exp;  asinh, acosh, atanh from log
//   atan: odd Taylor series after reducing |x| to [0, tan(pi/12)] (error
//         below 3e-10); asin(x) = atan(x / sqrt(1 - x^2)), acos = pi/2 - asin
//   exp2, log2, log10, log1p, expm1 from exp and log; remf = x - trunc(x/y)*y
//   cmpf with an unordered predicate (but UNE), ONE, ORD, UNO: from the
//        ordered comparisons the ALU has (see ExpandCmpF)
//
//===----------------------------------------------------------------------===//

#include "ExpandMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;

namespace {

/// Scalar arithmetic on values of one float type, for the patterns below.
struct Emitter {
  PatternRewriter &b;
  Location loc;
  Type type;

  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value pred, Value t, Value f) {
    return arith::SelectOp::create(b, loc, pred, t, f);
  }
  /// 1.0 where `pred` holds, else 0.0.
  Value indicator(Value pred) { return select(pred, c(1.0), c(0.0)); }
  /// `v` with the sign of `x` (v >= 0).
  Value withSignOf(Value x, Value v) {
    return select(cmp(arith::CmpFPredicate::OLT, x, c(0.0)), neg(v), v);
  }
  Value trunc(Value x) { return math::TruncOp::create(b, loc, x); }

  /// atan of |x| <= 1 after reducing to |z| <= tan(pi/12).
  Value atanUnit(Value a) {
    const double k = 1.0 / std::sqrt(3.0); // tan(pi/6)
    Value big = cmp(arith::CmpFPredicate::OGT, a, c(2.0 - std::sqrt(3.0)));
    // atan(a) = pi/6 + atan((a - k) / (1 + a k)) for a > tan(pi/12).
    Value shifted = div(sub(a, c(k)), add(c(1.0), mul(a, c(k))));
    Value z = select(big, shifted, a);
    Value z2 = mul(z, z);
    Value p = c(1.0 / 13);
    for (int n = 11; n >= 1; n -= 2)
      p = add(c((n % 4 == 1 ? 1.0 : -1.0) / n), mul(z2, p));
    Value r = mul(z, p);
    return select(big, add(r, c(M_PI / 6)), r);
  }
  Value atan(Value x) {
    Value a = abs(x);
    Value inv = cmp(arith::CmpFPredicate::OGT, a, c(1.0));
    Value u = atanUnit(select(inv, div(c(1.0), a), a));
    return withSignOf(x, select(inv, sub(c(M_PI / 2), u), u));
  }
};

/// A pattern for one float math op, written as a function of its operands.
template <typename Op> struct ExpandFloat : OpRewritePattern<Op> {
  using Fn = Value (*)(Emitter &, ValueRange);
  ExpandFloat(MLIRContext *ctx, Fn fn) : OpRewritePattern<Op>(ctx), fn(fn) {}

  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const final {
    Type type = op->getResult(0).getType();
    if (!isa<FloatType>(type))
      return rewriter.notifyMatchFailure(op, "only scalar float forms");
    Emitter e{rewriter, op->getLoc(), type};
    rewriter.replaceOp(op, fn(e, op->getOperands()));
    return success();
  }
  Fn fn;
};

bool isIntegral(Value v) {
  Operation *def = v.getDefiningOp();
  return def && isa<math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp,
                    math::RoundEvenOp, arith::SIToFPOp, arith::UIToFPOp>(def);
}

/// The ALU compares like IEEE and C: is_eq, is_lt, is_le, is_gt and is_ge
/// are false when an operand is NaN (the ordered predicates) and is_ne is
/// true (UNE). The other float predicates are written with those:
///   ULT = !OGE, ULE = !OGT, UGT = !OLE, UGE = !OLT,
///   ORD = (a == a) & (b == b), UNO = !ORD, ONE = UNE & ORD, UEQ = !ONE,
///   and the constant predicates as constants.
struct ExpandCmpF : OpRewritePattern<arith::CmpFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpFOp op,
                                PatternRewriter &rewriter) const override {
    using P = arith::CmpFPredicate;
    if (!isa<FloatType>(op.getLhs().getType()))
      return rewriter.notifyMatchFailure(op, "only scalar float forms");
    Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    auto cmp = [&](P p, Value x, Value y) -> Value {
      return arith::CmpFOp::create(rewriter, loc, p, x, y);
    };
    auto constant = [&](bool v) -> Value {
      return arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(v));
    };
    auto negate = [&](Value v) -> Value {
      return arith::XOrIOp::create(rewriter, loc, v, constant(true));
    };
    auto ordered = [&]() -> Value {
      return arith::AndIOp::create(rewriter, loc, cmp(P::OEQ, a, a),
                                   cmp(P::OEQ, b, b));
    };
    auto notEqualOrdered = [&]() -> Value {
      return arith::AndIOp::create(rewriter, loc, cmp(P::UNE, a, b), ordered());
    };
    Value r;
    switch (op.getPredicate()) {
    case P::ULT:
      r = negate(cmp(P::OGE, a, b));
      break;
    case P::ULE:
      r = negate(cmp(P::OGT, a, b));
      break;
    case P::UGT:
      r = negate(cmp(P::OLE, a, b));
      break;
    case P::UGE:
      r = negate(cmp(P::OLT, a, b));
      break;
    case P::ORD:
      r = ordered();
      break;
    case P::UNO:
      r = negate(ordered());
      break;
    case P::ONE:
      r = notEqualOrdered();
      break;
    case P::UEQ:
      r = negate(notEqualOrdered());
      break;
    case P::AlwaysTrue:
      r = constant(true);
      break;
    case P::AlwaysFalse:
      r = constant(false);
      break;
    default:
      return rewriter.notifyMatchFailure(op, "the ALU has this predicate");
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

template <typename Op>
void add(RewritePatternSet &patterns, typename ExpandFloat<Op>::Fn fn) {
  patterns.add<ExpandFloat<Op>>(patterns.getContext(), fn);
}

} // namespace

LogicalResult nki::expandMathFunctions(Operation *root) {
  // fptosi/fptoui of a value that may have a fraction: truncate it first.
  // This runs before the expansions, which hide that an operand is integral.
  root->walk([](Operation *op) {
    if (!isa<arith::FPToSIOp, arith::FPToUIOp>(op) ||
        !isa<FloatType>(op->getOperand(0).getType()) ||
        isIntegral(op->getOperand(0)))
      return;
    OpBuilder b(op);
    op->setOperand(0,
                   math::TruncOp::create(b, op->getLoc(), op->getOperand(0)));
  });

  RewritePatternSet patterns(root->getContext());
  patterns.add<ExpandCmpF>(root->getContext());
  using P = arith::CmpFPredicate;
  add<math::FloorOp>(patterns, [](Emitter &e, ValueRange a) {
    Value r = math::RoundEvenOp::create(e.b, e.loc, a[0]);
    return e.sub(r, e.indicator(e.cmp(P::OGT, r, a[0])));
  });
  add<math::CeilOp>(patterns, [](Emitter &e, ValueRange a) {
    Value r = math::RoundEvenOp::create(e.b, e.loc, a[0]);
    return e.add(r, e.indicator(e.cmp(P::OLT, r, a[0])));
  });
  add<math::TruncOp>(patterns, [](Emitter &e, ValueRange a) {
    // Toward zero: floor for x >= 0, ceil below.
    Value r = math::RoundEvenOp::create(e.b, e.loc, a[0]);
    Value down = e.neg(e.indicator(e.cmp(P::OGT, r, a[0])));
    Value up = e.indicator(e.cmp(P::OLT, r, a[0]));
    return e.add(r, e.select(e.cmp(P::OGE, a[0], e.c(0.0)), down, up));
  });
  add<math::RoundOp>(patterns, [](Emitter &e, ValueRange a) {
    Value t = e.trunc(a[0]);
    Value d = e.sub(a[0], t);
    return e.sub(e.add(t, e.indicator(e.cmp(P::OGE, d, e.c(0.5)))),
                 e.indicator(e.cmp(P::OLE, d, e.c(-0.5))));
  });
  add<math::TanOp>(patterns, [](Emitter &e, ValueRange a) {
    return e.div(math::SinOp::create(e.b, e.loc, a[0]).getResult(),
                 math::CosOp::create(e.b, e.loc, a[0]).getResult());
  });
  add<math::SinhOp>(patterns, [](Emitter &e, ValueRange a) {
    return e.mul(e.sub(e.exp(a[0]), e.exp(e.neg(a[0]))), e.c(0.5));
  });
  add<math::CoshOp>(patterns, [](Emitter &e, ValueRange a) {
    return e.mul(e.add(e.exp(a[0]), e.exp(e.neg(a[0]))), e.c(0.5));
  });
  add<math::AsinhOp>(patterns, [](Emitter &e, ValueRange a) {
    Value x = e.abs(a[0]);
    Value r = e.log(e.add(x, e.sqrt(e.add(e.mul(x, x), e.c(1.0)))));
    return e.withSignOf(a[0], r);
  });
  add<math::AcoshOp>(patterns, [](Emitter &e, ValueRange a) {
    Value x = a[0];
    return e.log(e.add(x, e.sqrt(e.sub(e.mul(x, x), e.c(1.0)))));
  });
  add<math::AtanhOp>(patterns, [](Emitter &e, ValueRange a) {
    Value x = a[0];
    return e.mul(e.log(e.div(e.add(e.c(1.0), x), e.sub(e.c(1.0), x))),
                 e.c(0.5));
  });
  add<math::AtanOp>(patterns,
                    [](Emitter &e, ValueRange a) { return e.atan(a[0]); });
  add<math::AsinOp>(patterns, [](Emitter &e, ValueRange a) {
    Value x = a[0];
    return e.atan(e.div(x, e.sqrt(e.sub(e.c(1.0), e.mul(x, x)))));
  });
  add<math::AcosOp>(patterns, [](Emitter &e, ValueRange a) {
    Value x = a[0];
    return e.sub(e.c(M_PI / 2),
                 e.atan(e.div(x, e.sqrt(e.sub(e.c(1.0), e.mul(x, x))))));
  });
  add<math::Exp2Op>(patterns, [](Emitter &e, ValueRange a) {
    return e.exp(e.mul(a[0], e.c(M_LN2)));
  });
  add<math::Log2Op>(patterns, [](Emitter &e, ValueRange a) {
    return e.mul(e.log(a[0]), e.c(1.0 / M_LN2));
  });
  add<math::Log10Op>(patterns, [](Emitter &e, ValueRange a) {
    return e.mul(e.log(a[0]), e.c(1.0 / M_LN10));
  });
  add<math::Log1pOp>(patterns, [](Emitter &e, ValueRange a) {
    return e.log(e.add(e.c(1.0), a[0]));
  });
  add<math::ExpM1Op>(patterns, [](Emitter &e, ValueRange a) {
    return e.sub(e.exp(a[0]), e.c(1.0));
  });
  add<arith::RemFOp>(patterns, [](Emitter &e, ValueRange a) {
    return e.sub(a[0], e.mul(e.trunc(e.div(a[0], a[1])), a[1]));
  });
  return applyPatternsGreedily(root, std::move(patterns));
}
