//===- CumSum.cpp - ONNX CumSum -------------------------------------------===//
//
// A running sum along `axis` is a matmul by a constant triangular 0/1
// matrix (Importer::matmulAlong): y[o] = sum over i of T[o, i] x[i] with
// T[o, i] = 1 for i <= o, i < o with `exclusive`, and the mirror images
// (i >= o, i > o) with `reverse`. The PE sums in fp32, so integer inputs
// are converted to f32 and back: exact while partial sums stay within 2^24.
//
// The axis is an input. A compile-time axis is one matmul; a runtime axis
// (a graph input, as in ONNX's own tests) computes the sum along every
// axis and selects the one the axis names (negative values wrap; a value
// out of range gives zeros, unchecked at run time).
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
/// The running sum of float `x` along `axis`.
Value cumSumAlong(Importer &imp, Location loc, Value x, int64_t axis,
                  bool exclusive, bool reverse) {
  int64_t n = tensorType(x).getDimSize(axis);
  std::vector<double> w(n * n, 0.0);
  for (int64_t o = 0; o < n; ++o)
    for (int64_t i = 0; i < n; ++i) {
      bool in =
          reverse ? (exclusive ? i > o : i >= o) : (exclusive ? i < o : i <= o);
      w[o * n + i] = in ? 1.0 : 0.0;
    }
  return imp.matmulAlong(loc, x, axis, n, w);
}

LogicalResult cumSum(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  int64_t rank = t.getRank();
  if (rank == 0)
    return emitError(loc) << "CumSum of a scalar: the input needs rank >= 1";
  if (t.getNumElements() == 0)
    return emitError(loc) << "CumSum of an empty tensor " << t;
  Type elt = t.getElementType();
  auto intElt = dyn_cast<IntegerType>(elt);
  if (intElt && intElt.getWidth() < 8)
    return emitError(loc) << "CumSum of " << t << " is not supported";
  bool exclusive = intAttr(node, "exclusive", 0) != 0;
  bool reverse = intAttr(node, "reverse", 0) != 0;

  Type f32 = imp.b.getF32Type();
  Value xf = *x;
  if (intElt)
    xf = imp.elementwise(
        loc, {xf},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return castScalar(nb, l, a[0], f32);
        },
        f32);
  auto back = [&](Value y) -> Value {
    if (!intElt)
      return y;
    return imp.elementwise(
        loc, {y},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return castScalar(nb, l, a[0], elt);
        },
        elt);
  };

  if (!imp.hasInput(node, 1))
    return emitError(loc) << "CumSum node is missing its axis input";
  if (const IntConstant *c = imp.intInput(node, 1)) {
    if (c->values.size() != 1)
      return emitError(loc)
             << "CumSum axis '" << node.input(1) << "' must be a scalar, got "
             << c->values.size() << " values";
    FailureOr<int64_t> axis = normalizeAxis(imp, node, c->values[0], rank);
    if (failed(axis))
      return failure();
    return imp.define(
        node, back(cumSumAlong(imp, loc, xf, *axis, exclusive, reverse)));
  }

  // A runtime axis: one running sum per candidate axis and a select.
  FailureOr<Value> axisV = imp.input(node, 1);
  if (failed(axisV))
    return failure();
  RankedTensorType at = tensorType(*axisV);
  if (at.getNumElements() != 1 || !isa<IntegerType>(at.getElementType()) ||
      at.getElementType().getIntOrFloatBitWidth() < 8)
    return emitError(loc) << "CumSum axis '" << node.input(1)
                          << "' must be an integer scalar, got " << at;
  Value axis = at.getRank() == 0 ? *axisV : imp.reshape(loc, *axisV, {});
  SmallVector<Value> operands = {axis};
  for (int64_t d = 0; d < rank; ++d)
    operands.push_back(cumSumAlong(imp, loc, xf, d, exclusive, reverse));
  auto axisElt = cast<IntegerType>(at.getElementType());
  Type fe = tensorType(xf).getElementType();
  Value y = imp.elementwise(
      loc, operands,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value r = arith::ConstantOp::create(nb, l, nb.getZeroAttr(fe));
        for (int64_t d = rank - 1; d >= 0; --d) {
          auto is = [&](int64_t v) {
            Value c =
                arith::ConstantOp::create(nb, l, nb.getIntegerAttr(axisElt, v));
            return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[0],
                                         c)
                .getResult();
          };
          Value hit = arith::OrIOp::create(nb, l, is(d), is(d - rank));
          r = arith::SelectOp::create(nb, l, hit, a[d + 1], r);
        }
        return r;
      },
      fe);
  return imp.define(node, back(y));
}
} // namespace

void nki::onnx_import::registerCumSumOps(OpTable &t) { t["CumSum"] = cumSum; }
