//===- Loss.cpp - ONNX NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss -===//
//
// The class axis (1) is moved last and the input viewed as [M, C] with the
// integer targets as [M]. The picked value of each row is a reduction over
// the classes against a constant iota (sum over c of t == c ? -x[c] * w[c]
// : 0), as Gather with runtime indices does; rows whose target is
// ignore_index contribute nothing. `mean` divides by the summed weights of
// the rows that count.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {

struct LossInputs {
  Rows x;       // [M, C]
  Value target; // [M], integer
  Value weight; // [C] or null
  SmallVector<int64_t> targetShape;
};

/// Checks and views the operands: x [N, C, d...], target [N, d...] of
/// integers, weight [C].
FailureOr<LossInputs> viewInputs(Importer &imp, const onnx::NodeProto &node,
                                 Value x, Value target, Value weight) {
  Location loc = imp.nodeLoc(node);
  RankedTensorType xt = tensorType(x), tt = tensorType(target);
  if (!isa<FloatType>(xt.getElementType()))
    return emitError(loc) << node.op_type() << " input must be float, got "
                          << xt;
  if (!tt.getElementType().isSignlessInteger(32))
    return emitError(loc) << node.op_type()
                          << " target must be an integer tensor, got " << tt;
  if (xt.getRank() < 2 || tt.getRank() != xt.getRank() - 1 ||
      tt.getDimSize(0) != xt.getDimSize(0) ||
      tt.getShape().drop_front() != xt.getShape().drop_front(2))
    return emitError(loc) << node.op_type() << " target " << tt
                          << " does not match input " << xt
                          << " ([N, C, d...] against [N, d...])";
  int64_t classes = xt.getDimSize(1);
  if (weight && (tensorType(weight).getShape() != ArrayRef<int64_t>{classes} ||
                 tensorType(weight).getElementType() != xt.getElementType()))
    return emitError(loc) << node.op_type() << " weight must be [" << classes
                          << "] of the input's element type, got "
                          << weight.getType();
  SmallVector<bool> classAxis(xt.getRank(), false);
  classAxis[1] = true;
  LossInputs in;
  in.x = toRows(imp, loc, x, classAxis);
  in.target = imp.reshape(loc, target, {in.x.rows});
  in.weight = weight;
  in.targetShape = shapeOf(target);
  return in;
}

/// The loss from [M, C] log-probabilities: per row, reduced to a sum, or the
/// weighted mean.
Value nll(Importer &imp, const onnx::NodeProto &node, const LossInputs &in,
          Value logProb) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  Type elt = tensorType(logProb).getElementType();
  Type idxElt = tensorType(in.target).getElementType();
  int64_t rows = in.x.rows, classes = in.x.cols;
  std::optional<int64_t> ignore;
  if (findAttr(node, "ignore_index"))
    ignore = intAttr(node, "ignore_index", 0);
  std::string reduction = stringAttr(node, "reduction", "mean");

  SmallVector<APInt> iota;
  for (int64_t c = 0; c < classes; ++c)
    iota.push_back(APInt(32, c, /*isSigned=*/true));
  Value iotaV = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({classes}, idxElt), iota));
  SmallVector<RowOperand> ops = {{in.target, Bcast::Row}, {iotaV, Bcast::Col}};
  if (in.weight)
    ops.push_back({in.weight, Bcast::Col});
  // t == c, and t is not ignored.
  auto hit = [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
    Value h =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[0], a[1]);
    if (!ignore)
      return h;
    Value ign =
        arith::ConstantOp::create(nb, l, nb.getIntegerAttr(idxElt, *ignore));
    return arith::AndIOp::create(
        nb, l, h,
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, a[0], ign));
  };
  bool weighted = bool(in.weight);
  // -log_prob[t] * w[t] per row.
  SmallVector<RowOperand> lossOps = ops;
  lossOps.insert(lossOps.begin(), {logProb, Bcast::Full});
  Value loss = rowGeneric(
      imp, loc, rows, classes, lossOps, elt,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = arith::NegFOp::create(nb, l, a[0]);
        if (weighted)
          v = arith::MulFOp::create(nb, l, v, a[3]);
        return arith::SelectOp::create(nb, l, hit(nb, l, a.drop_front()), v,
                                       constLike(nb, l, v, 0.0));
      },
      Combine::Add);
  if (reduction == "none")
    return imp.reshape(loc, loss, in.targetShape);
  auto total = [&](Value v) {
    Value r = rowGeneric(
        imp, loc, 1, rows, {{imp.reshape(loc, v, {1, rows}), Bcast::Full}}, elt,
        [](OpBuilder &, Location, ValueRange a) { return a[0]; }, Combine::Add);
    return imp.reshape(loc, r, {});
  };
  Value sum = total(loss);
  if (reduction == "sum")
    return sum;
  // The weight of each row's target (0 for ignored rows).
  Value rowWeight = rowGeneric(
      imp, loc, rows, classes, ops, elt,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value w =
            weighted
                ? a[2]
                : arith::ConstantOp::create(nb, l, nb.getFloatAttr(elt, 1.0))
                      .getResult();
        return arith::SelectOp::create(nb, l, hit(nb, l, a), w,
                                       constLike(nb, l, w, 0.0));
      },
      Combine::Add);
  return imp.elementwise(
      loc, {sum, total(rowWeight)},
      [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::DivFOp::create(nb, l, a[0], a[1]).getResult();
      });
}

LogicalResult checkReduction(Importer &imp, const onnx::NodeProto &node) {
  std::string r = stringAttr(node, "reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " reduction must be none, sum or mean, got '"
           << r << "'";
  return success();
}

LogicalResult nllLoss(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins) || failed(checkReduction(imp, node)))
    return failure();
  Value weight = ins->size() > 2 ? (*ins)[2] : Value();
  FailureOr<LossInputs> in =
      viewInputs(imp, node, (*ins)[0], (*ins)[1], weight);
  if (failed(in))
    return failure();
  return imp.define(node, nll(imp, node, *in, in->x.v));
}

/// SoftmaxCrossEntropyLoss: NLL of the log-softmax over the classes; the
/// optional second output is that log-softmax in the input's layout.
LogicalResult softmaxCrossEntropy(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins) || failed(checkReduction(imp, node)))
    return failure();
  Value weight = ins->size() > 2 ? (*ins)[2] : Value();
  FailureOr<LossInputs> in =
      viewInputs(imp, node, (*ins)[0], (*ins)[1], weight);
  if (failed(in))
    return failure();
  int64_t rows = in->x.rows, cols = in->x.cols;
  Type elt = tensorType(in->x.v).getElementType();
  Value mx = rowGeneric(
      imp, loc, rows, cols, {{in->x.v, Bcast::Full}}, elt,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, Combine::Max);
  Value sum = rowGeneric(
      imp, loc, rows, cols, {{in->x.v, Bcast::Full}, {mx, Bcast::Row}}, elt,
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return math::ExpOp::create(nb, l,
                                   arith::SubFOp::create(nb, l, a[0], a[1]));
      },
      Combine::Add);
  Value logProb =
      rowGeneric(imp, loc, rows, cols,
                 {{in->x.v, Bcast::Full}, {mx, Bcast::Row}, {sum, Bcast::Row}},
                 elt, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   return arith::SubFOp::create(
                       nb, l, arith::SubFOp::create(nb, l, a[0], a[1]),
                       math::LogOp::create(nb, l, a[2]));
                 });
  if (failed(imp.define(node, nll(imp, node, *in, logProb))))
    return failure();
  if (node.output_size() > 1 && !node.output(1).empty())
    return imp.define(
        node, fromRows(imp, loc, logProb, in->x, shapeOf((*ins)[0])), 1);
  return success();
}
} // namespace

void nki::onnx_import::registerLossOps(OpTable &t) {
  t["NegativeLogLikelihoodLoss"] = nllLoss;
  t["SoftmaxCrossEntropyLoss"] = softmaxCrossEntropy;
}
