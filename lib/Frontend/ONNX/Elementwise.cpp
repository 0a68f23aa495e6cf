//===- Elementwise.cpp - ONNX arithmetic, unary math and activations ------===//
//
// Each op is one linalg.generic over the numpy broadcast of its operands;
// activations are written with the arith/math ops the compiler's body
// lowering covers (exp, select, min/max, ...).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
using Fn2 = Value (*)(OpBuilder &, Location, Value, Value);
using Fn1 = Value (*)(OpBuilder &, Location, Value);

/// The operands of an n-ary elementwise op: same element type, broadcastable.
LogicalResult checkOperands(Importer &imp, const onnx::NodeProto &node,
                            ArrayRef<Value> ins) {
  Location loc = imp.nodeLoc(node);
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : ins) {
    if (!v)
      return emitError(loc) << node.op_type() << " has an empty input";
    shapes.push_back(shapeOf(v));
    if (tensorType(v).getElementType() != tensorType(ins[0]).getElementType())
      return emitError(loc)
             << node.op_type() << " operands have different element types";
  }
  if (!broadcastShape(shapes))
    return emitError(loc) << node.op_type() << " operands do not broadcast";
  return success();
}

/// Ops written with float arithmetic only reject integer tensors.
LogicalResult requireFloat(Importer &imp, const onnx::NodeProto &node,
                           Value v) {
  if (isa<FloatType>(tensorType(v).getElementType()))
    return success();
  return emitError(imp.nodeLoc(node))
         << node.op_type() << " of " << v.getType()
         << " is not supported (floating-point tensors only)";
}

/// Folds `fn` over all inputs (Add, Max, Sum, ...); Mean divides at the end.
template <Fn2 fn, bool variadic, bool mean = false>
LogicalResult naryOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, variadic ? 1 : 2);
  if (failed(ins))
    return failure();
  if (!variadic)
    ins->resize(2);
  if (failed(checkOperands(imp, node, *ins)) ||
      (mean && failed(requireFloat(imp, node, (*ins)[0]))))
    return failure();
  return imp.define(
      node, imp.elementwise(imp.nodeLoc(node), *ins,
                            [](OpBuilder &b, Location l, ValueRange a) {
                              Value r = a[0];
                              for (Value v : a.drop_front())
                                r = fn(b, l, r, v);
                              if (mean)
                                r = arith::DivFOp::create(
                                    b, l, r,
                                    constLike(b, l, r, double(a.size())));
                              return r;
                            }));
}

template <Fn1 fn, bool intsToo = false>
LogicalResult unaryOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 1);
  if (failed(ins) || (!intsToo && failed(requireFloat(imp, node, (*ins)[0]))))
    return failure();
  return imp.define(node,
                    imp.elementwise(imp.nodeLoc(node), {(*ins)[0]},
                                    [](OpBuilder &b, Location l, ValueRange a) {
                                      return fn(b, l, a[0]);
                                    }));
}

// Integer tensors (Logic.cpp lists the carried types) take the integer ops;
// integer Div truncates toward zero, as the ONNX runtimes do.
template <typename FOp, typename IOp>
Value fOrI(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<IntegerType>(x.getType()))
    return IOp::create(b, l, x, y);
  return FOp::create(b, l, x, y);
}
Value add(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::AddFOp, arith::AddIOp>(b, l, x, y);
}
Value sub(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::SubFOp, arith::SubIOp>(b, l, x, y);
}
Value mul(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::MulFOp, arith::MulIOp>(b, l, x, y);
}
Value div(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::DivFOp, arith::DivSIOp>(b, l, x, y);
}
Value max(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::MaximumFOp, arith::MaxSIOp>(b, l, x, y);
}
Value min(OpBuilder &b, Location l, Value x, Value y) {
  return fOrI<arith::MinimumFOp, arith::MinSIOp>(b, l, x, y);
}

Value relu(OpBuilder &b, Location l, Value x) {
  return arith::MaximumFOp::create(b, l, x, constLike(b, l, x, 0.0));
}
Value sigmoid(OpBuilder &b, Location l, Value x) {
  Value one = constLike(b, l, x, 1.0);
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
Value tanh(OpBuilder &b, Location l, Value x) {
  return math::TanhOp::create(b, l, x);
}
Value exp(OpBuilder &b, Location l, Value x) {
  return math::ExpOp::create(b, l, x);
}
Value log(OpBuilder &b, Location l, Value x) {
  return math::LogOp::create(b, l, x);
}
Value sqrt(OpBuilder &b, Location l, Value x) {
  return math::SqrtOp::create(b, l, x);
}
Value abs(OpBuilder &b, Location l, Value x) {
  if (isa<IntegerType>(x.getType()))
    return math::AbsIOp::create(b, l, x);
  return math::AbsFOp::create(b, l, x);
}
Value neg(OpBuilder &b, Location l, Value x) {
  if (isa<IntegerType>(x.getType()))
    return arith::SubIOp::create(
        b, l, arith::ConstantOp::create(b, l, b.getZeroAttr(x.getType())), x);
  return arith::NegFOp::create(b, l, x);
}
Value erf(OpBuilder &b, Location l, Value x) {
  return math::ErfOp::create(b, l, x);
}
Value reciprocal(OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(b, l, constLike(b, l, x, 1.0), x);
}
Value sin(OpBuilder &b, Location l, Value x) {
  return math::SinOp::create(b, l, x);
}
Value cos(OpBuilder &b, Location l, Value x) {
  return math::CosOp::create(b, l, x);
}
Value softsign(OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(
      b, l, x,
      arith::AddFOp::create(b, l, constLike(b, l, x, 1.0),
                            math::AbsFOp::create(b, l, x)));
}
Value softplus(OpBuilder &b, Location l, Value x) {
  return math::LogOp::create(
      b, l,
      arith::AddFOp::create(b, l, constLike(b, l, x, 1.0),
                            math::ExpOp::create(b, l, x)));
}

/// Activations with alpha/beta/gamma attributes: LeakyRelu, Elu, Selu,
/// HardSigmoid.
LogicalResult activation(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 1);
  if (failed(ins) || failed(requireFloat(imp, node, (*ins)[0])))
    return failure();
  StringRef op = node.op_type();
  double alpha = floatAttr(node, "alpha",
                           op == "LeakyRelu"     ? 0.01f
                           : op == "Selu"        ? 1.67326319217681884765625f
                           : op == "HardSigmoid" ? 0.2f
                                                 : 1.0f);
  double gamma = floatAttr(node, "gamma", 1.05070102214813232421875f);
  double beta = floatAttr(node, "beta", 0.5f);
  return imp.define(
      node,
      imp.elementwise(
          imp.nodeLoc(node), {(*ins)[0]},
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value x = a[0];
            auto c = [&](double v) { return constLike(nb, l, x, v); };
            if (op == "HardSigmoid") {
              Value y = arith::AddFOp::create(
                  nb, l, arith::MulFOp::create(nb, l, x, c(alpha)), c(beta));
              return arith::MinimumFOp::create(
                  nb, l, arith::MaximumFOp::create(nb, l, y, c(0.0)), c(1.0));
            }
            Value negPart;
            if (op == "LeakyRelu")
              negPart = arith::MulFOp::create(nb, l, x, c(alpha));
            else // Elu, Selu: alpha * (exp(x) - 1)
              negPart = arith::MulFOp::create(
                  nb, l,
                  arith::SubFOp::create(nb, l, math::ExpOp::create(nb, l, x),
                                        c(1.0)),
                  c(alpha));
            Value pos = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                              x, c(0.0));
            Value r = arith::SelectOp::create(nb, l, pos, x, negPart);
            if (op == "Selu")
              r = arith::MulFOp::create(nb, l, r, c(gamma));
            return r;
          }));
}

/// Pow: a scalar constant exponent becomes multiplies, sqrt or reciprocal
/// where it can; otherwise math.powf of the broadcast operands.
LogicalResult pow(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  std::optional<double> e;
  if (!imp.hasInput(node, 1))
    return emitError(loc) << "Pow node is missing input 1";
  Type xElt = tensorType(*x).getElementType();
  auto it = imp.values.find(node.input(1));
  if (isa<IntegerType>(xElt) ||
      (it != imp.values.end() &&
       tensorType(it->second).getElementType() != xElt)) {
    // Integer or mixed-type Pow: powf in f32, the result in x's type.
    FailureOr<Value> y = imp.input(node, 1);
    if (failed(y))
      return failure();
    if (!broadcastShape({shapeOf(*x), shapeOf(*y)}))
      return emitError(loc) << "Pow operands do not broadcast";
    return imp.define(
        node, imp.elementwise(loc, {*x, *y},
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                Type f32 = nb.getF32Type();
                                Value p = math::PowFOp::create(
                                    nb, l, castScalar(nb, l, a[0], f32),
                                    castScalar(nb, l, a[1], f32));
                                return castScalar(nb, l, p, xElt);
                              }));
  }
  if (it != imp.values.end()) {
    if (auto c = it->second.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
        if (dense.isSplat() && isa<FloatType>(dense.getElementType()))
          e = dense.getSplatValue<APFloat>().convertToDouble();
  } else if (const IntConstant *ic = imp.intInput(node, 1)) {
    if (ic->values.size() == 1)
      e = double(ic->values[0]);
  }
  if (!e) {
    FailureOr<Value> y = imp.input(node, 1);
    if (failed(y))
      return failure();
    if (failed(checkOperands(imp, node, {*x, *y})))
      return failure();
    return imp.define(
        node, imp.elementwise(
                  loc, {*x, *y}, [](OpBuilder &nb, Location l, ValueRange a) {
                    return math::PowFOp::create(nb, l, a[0], a[1]).getResult();
                  }));
  }
  double ex = *e;
  return imp.define(
      node,
      imp.elementwise(
          loc, {*x}, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value v = a[0];
            if (ex == 1.0)
              return v;
            if (ex == 2.0)
              return arith::MulFOp::create(nb, l, v, v);
            if (ex == 3.0)
              return arith::MulFOp::create(
                  nb, l, arith::MulFOp::create(nb, l, v, v), v);
            if (ex == 0.5)
              return math::SqrtOp::create(nb, l, v);
            if (ex == -1.0)
              return arith::DivFOp::create(nb, l, constLike(nb, l, v, 1.0), v);
            return math::PowFOp::create(nb, l, v, constLike(nb, l, v, ex));
          }));
}
} // namespace

void nki::onnx_import::registerElementwiseOps(OpTable &t) {
  t["Add"] = naryOp<add, false>;
  t["Sub"] = naryOp<sub, false>;
  t["Mul"] = naryOp<mul, false>;
  t["Div"] = naryOp<div, false>;
  t["Max"] = naryOp<max, true>;
  t["Min"] = naryOp<min, true>;
  t["Sum"] = naryOp<add, true>;
  t["Mean"] = naryOp<add, true, true>;
  t["Relu"] = unaryOp<relu>;
  t["Sigmoid"] = unaryOp<sigmoid>;
  t["Tanh"] = unaryOp<tanh>;
  t["Exp"] = unaryOp<exp>;
  t["Log"] = unaryOp<log>;
  t["Sqrt"] = unaryOp<sqrt>;
  t["Abs"] = unaryOp<abs, true>;
  t["Neg"] = unaryOp<neg, true>;
  t["Erf"] = unaryOp<erf>;
  t["Reciprocal"] = unaryOp<reciprocal>;
  t["Sin"] = unaryOp<sin>;
  t["Cos"] = unaryOp<cos>;
  t["Softsign"] = unaryOp<softsign>;
  t["Softplus"] = unaryOp<softplus>;
  for (const char *op : {"LeakyRelu", "Elu", "Selu", "HardSigmoid"})
    t[op] = activation;
  t["Pow"] = pow;
}
