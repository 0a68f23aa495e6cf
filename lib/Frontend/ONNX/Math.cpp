//===- Math.cpp - ONNX unary math, rounding and parametric activations ----===//
//
// One linalg.generic each, on the upstream math ops (math.floor, math.atan,
// ...); the compiler's nki-prepare-graph expands the ones the engines lack.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
using P = arith::CmpFPredicate;

/// Scalar helpers for the bodies below.
struct Body {
  OpBuilder &b;
  Location l;
  Value x;
  Value c(double v) { return constLike(b, l, x, v); }
  Value cmp(P p, Value u, Value v) {
    return arith::CmpFOp::create(b, l, p, u, v);
  }
  Value select(Value p, Value t, Value f) {
    return arith::SelectOp::create(b, l, p, t, f);
  }
  Value mul(Value u, Value v) { return arith::MulFOp::create(b, l, u, v); }
  Value add(Value u, Value v) { return arith::AddFOp::create(b, l, u, v); }
  Value sub(Value u, Value v) { return arith::SubFOp::create(b, l, u, v); }
  Value div(Value u, Value v) { return arith::DivFOp::create(b, l, u, v); }
  Value max(Value u, Value v) { return arith::MaximumFOp::create(b, l, u, v); }
  Value min(Value u, Value v) { return arith::MinimumFOp::create(b, l, u, v); }
  Value exp(Value u) { return math::ExpOp::create(b, l, u); }
  Value log(Value u) { return math::LogOp::create(b, l, u); }
  Value tanh(Value u) { return math::TanhOp::create(b, l, u); }
};

using BodyOf = Value (*)(Body &, const onnx::NodeProto &);

/// An op whose result is body(x) for each element of input 0, reading its
/// attributes from the node.
template <BodyOf fn>
LogicalResult unary(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " takes a float tensor, got " << x->getType();
  return imp.define(
      node, imp.elementwise(imp.nodeLoc(node), {*x},
                            [&](OpBuilder &b, Location l, ValueRange a) {
                              Body body{b, l, a[0]};
                              return fn(body, node);
                            }));
}

template <typename MathOp> Value mathOp(Body &e, const onnx::NodeProto &) {
  return MathOp::create(e.b, e.l, e.x);
}

Value sign(Body &e, const onnx::NodeProto &) {
  return e.select(e.cmp(P::OGT, e.x, e.c(0.0)), e.c(1.0),
                  e.select(e.cmp(P::OLT, e.x, e.c(0.0)), e.c(-1.0), e.c(0.0)));
}

Value thresholdedRelu(Body &e, const onnx::NodeProto &node) {
  double alpha = floatAttr(node, "alpha", 1.0f);
  return e.select(e.cmp(P::OGT, e.x, e.c(alpha)), e.x, e.c(0.0));
}

Value shrink(Body &e, const onnx::NodeProto &node) {
  double lambd = floatAttr(node, "lambd", 0.5f);
  double bias = floatAttr(node, "bias", 0.0f);
  return e.select(e.cmp(P::OLT, e.x, e.c(-lambd)), e.add(e.x, e.c(bias)),
                  e.select(e.cmp(P::OGT, e.x, e.c(lambd)),
                           e.sub(e.x, e.c(bias)), e.c(0.0)));
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
Value celu(Body &e, const onnx::NodeProto &node) {
  double alpha = floatAttr(node, "alpha", 1.0f);
  Value neg = e.mul(e.c(alpha), e.sub(e.exp(e.div(e.x, e.c(alpha))), e.c(1.0)));
  return e.add(e.max(e.x, e.c(0.0)), e.min(neg, e.c(0.0)));
}

/// x * max(0, min(1, x / 6 + 1 / 2))
Value hardSwish(Body &e, const onnx::NodeProto &) {
  Value h = e.add(e.mul(e.x, e.c(1.0 / 6)), e.c(0.5));
  return e.mul(e.x, e.min(e.max(h, e.c(0.0)), e.c(1.0)));
}

/// x * tanh(softplus(x)), softplus written as max(x, 0) + log(1 + exp(-|x|))
/// so that large |x| does not overflow.
Value mish(Body &e, const onnx::NodeProto &) {
  Value absx = math::AbsFOp::create(e.b, e.l, e.x);
  Value sp = e.add(
      e.max(e.x, e.c(0.0)),
      e.log(e.add(e.c(1.0), e.exp(arith::NegFOp::create(e.b, e.l, absx)))));
  return e.mul(e.x, e.tanh(sp));
}

LogicalResult gelu(Importer &imp, const onnx::NodeProto &node) {
  std::string approx = stringAttr(node, "approximate", "none");
  if (approx != "none" && approx != "tanh")
    return emitError(imp.nodeLoc(node))
           << "Gelu approximate must be 'none' or 'tanh', got '" << approx
           << "'";
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  bool tanhForm = approx == "tanh";
  return imp.define(
      node, imp.elementwise(
                imp.nodeLoc(node), {*x},
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  Body e{b, l, a[0]};
                  Value half = e.mul(e.x, e.c(0.5));
                  if (!tanhForm)
                    return e.mul(
                        half,
                        e.add(e.c(1.0), math::ErfOp::create(
                                            b, l, e.mul(e.x, e.c(M_SQRT1_2)))));
                  Value x3 = e.mul(e.mul(e.x, e.x), e.x);
                  Value inner = e.mul(e.c(std::sqrt(2.0 / M_PI)),
                                      e.add(e.x, e.mul(e.c(0.044715), x3)));
                  return e.mul(half, e.add(e.c(1.0), e.tanh(inner)));
                }));
}

/// PRelu: x < 0 ? slope * x : x, slope broadcast to x (unidirectionally).
LogicalResult prelu(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  Value x = (*ins)[0], slope = (*ins)[1];
  std::optional<SmallVector<int64_t>> s =
      broadcastShape({shapeOf(x), shapeOf(slope)});
  if (!s || *s != shapeOf(x))
    return emitError(loc) << "PRelu slope " << slope.getType()
                          << " does not broadcast to " << x.getType();
  if (tensorType(x).getElementType() != tensorType(slope).getElementType())
    return emitError(loc) << "PRelu operands have different element types";
  return imp.define(
      node, imp.elementwise(loc, {x, slope},
                            [](OpBuilder &b, Location l, ValueRange a) {
                              Body e{b, l, a[0]};
                              return e.select(e.cmp(P::OLT, a[0], e.c(0.0)),
                                              e.mul(a[0], a[1]), a[0]);
                            }));
}

/// Clip: max(x, min) then min(., max). Before opset 11 the bounds are
/// attributes; from 11 they are optional scalar inputs, immediates when
/// constant and broadcast rank-0 operands otherwise.
LogicalResult clip(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  Type elt = tensorType(*x).getElementType();
  bool isInt = elt.isSignlessInteger();
  if (!isa<FloatType>(elt) && !isInt)
    return emitError(loc) << "Clip of " << x->getType()
                          << " is not supported here";
  std::optional<double> bound[2];
  Value operand[2];
  for (int i = 0; i < 2; ++i) {
    StringRef attr = i ? "max" : "min";
    if (imp.opset < 11) {
      if (const onnx::AttributeProto *a = findAttr(node, attr))
        bound[i] = a->f();
      continue;
    }
    if (!imp.hasInput(node, i + 1))
      continue;
    FailureOr<Value> v = imp.input(node, i + 1);
    if (failed(v))
      return failure();
    if (tensorType(*v).getNumElements() != 1 ||
        tensorType(*v).getElementType() != tensorType(*x).getElementType())
      return emitError(loc)
             << "Clip " << attr << " must be a scalar of " << x->getType()
             << "'s element type, got " << v->getType();
    DenseElementsAttr dense;
    if (matchPattern(*v, m_Constant(&dense)))
      bound[i] =
          isInt ? double((*dense.getValues<APInt>().begin()).getSExtValue())
                : (*dense.getValues<APFloat>().begin()).convertToDouble();
    else
      operand[i] = imp.reshape(loc, *v, {});
  }
  SmallVector<Value> operands = {*x};
  for (Value v : operand)
    if (v)
      operands.push_back(v);
  return imp.define(
      node,
      imp.elementwise(
          loc, operands, [&](OpBuilder &b, Location l, ValueRange a) {
            Value r = a[0];
            int next = 1;
            for (int i = 0; i < 2; ++i) {
              Value v = operand[i] ? a[next++] : Value();
              if (!v && bound[i])
                v = arith::ConstantOp::create(
                    b, l,
                    isInt ? TypedAttr(b.getIntegerAttr(elt, int64_t(*bound[i])))
                          : b.getFloatAttr(elt, *bound[i]));
              if (!v)
                continue;
              if (isInt)
                r = i ? arith::MinSIOp::create(b, l, r, v).getResult()
                      : arith::MaxSIOp::create(b, l, r, v).getResult();
              else
                r = i ? arith::MinimumFOp::create(b, l, r, v).getResult()
                      : arith::MaximumFOp::create(b, l, r, v).getResult();
            }
            return r;
          }));
}
} // namespace

void nki::onnx_import::registerMathOps(OpTable &t) {
  t["Floor"] = unary<mathOp<math::FloorOp>>;
  t["Ceil"] = unary<mathOp<math::CeilOp>>;
  t["Round"] = unary<mathOp<math::RoundEvenOp>>;
  t["Tan"] = unary<mathOp<math::TanOp>>;
  t["Asin"] = unary<mathOp<math::AsinOp>>;
  t["Acos"] = unary<mathOp<math::AcosOp>>;
  t["Atan"] = unary<mathOp<math::AtanOp>>;
  t["Sinh"] = unary<mathOp<math::SinhOp>>;
  t["Cosh"] = unary<mathOp<math::CoshOp>>;
  t["Asinh"] = unary<mathOp<math::AsinhOp>>;
  t["Acosh"] = unary<mathOp<math::AcoshOp>>;
  t["Atanh"] = unary<mathOp<math::AtanhOp>>;
  t["Sign"] = unary<sign>;
  t["ThresholdedRelu"] = unary<thresholdedRelu>;
  t["Shrink"] = unary<shrink>;
  t["Celu"] = unary<celu>;
  t["HardSwish"] = unary<hardSwish>;
  t["Mish"] = unary<mish>;
  t["Gelu"] = gelu;
  t["PRelu"] = prelu;
  t["Clip"] = clip;
}
