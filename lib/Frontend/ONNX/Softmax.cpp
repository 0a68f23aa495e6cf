//===- Softmax.cpp - ONNX Softmax, LogSoftmax, Hardmax --------------------===//
//
// Each is computed on the input viewed as [rows, cols] with the softmax axis
// along cols, as a chain of 2-D generics with row reductions (max, exp(x -
// max), sum, divide for Softmax), the form the compiler keeps together as
// one row-group kernel.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
using RowsFn = Value (*)(Importer &, Location, const Rows &);

Value sub(OpBuilder &b, Location l, Value x, Value y) {
  return arith::SubFOp::create(b, l, x, y);
}

Value rowMax(Importer &imp, Location loc, const Rows &r) {
  return rowGeneric(
      imp, loc, r.rows, r.cols, {{r.v, Bcast::Full}},
      tensorType(r.v).getElementType(),
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, Combine::Max);
}

Value softmaxRows(Importer &imp, Location loc, const Rows &r) {
  Type elt = tensorType(r.v).getElementType();
  Value mx = rowMax(imp, loc, r);
  Value e = rowGeneric(
      imp, loc, r.rows, r.cols, {{r.v, Bcast::Full}, {mx, Bcast::Row}}, elt,
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        return math::ExpOp::create(b, l, sub(b, l, a[0], a[1]));
      });
  Value sum = rowGeneric(
      imp, loc, r.rows, r.cols, {{e, Bcast::Full}}, elt,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, Combine::Add);
  return rowGeneric(imp, loc, r.rows, r.cols,
                    {{e, Bcast::Full}, {sum, Bcast::Row}}, elt,
                    [](OpBuilder &b, Location l, ValueRange a) -> Value {
                      return arith::DivFOp::create(b, l, a[0], a[1]);
                    });
}

/// (x - max) - log(sum(exp(x - max))).
Value logSoftmaxRows(Importer &imp, Location loc, const Rows &r) {
  Type elt = tensorType(r.v).getElementType();
  Value mx = rowMax(imp, loc, r);
  Value shifted = rowGeneric(imp, loc, r.rows, r.cols,
                             {{r.v, Bcast::Full}, {mx, Bcast::Row}}, elt,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return sub(b, l, a[0], a[1]);
                             });
  Value sum = rowGeneric(
      imp, loc, r.rows, r.cols, {{shifted, Bcast::Full}}, elt,
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        return math::ExpOp::create(b, l, a[0]);
      },
      Combine::Add);
  return rowGeneric(imp, loc, r.rows, r.cols,
                    {{shifted, Bcast::Full}, {sum, Bcast::Row}}, elt,
                    [](OpBuilder &b, Location l, ValueRange a) -> Value {
                      return sub(b, l, a[0], math::LogOp::create(b, l, a[1]));
                    });
}

/// 1 at the first maximum of each row, 0 elsewhere. The column index comes
/// from a constant [cols] tensor (f32: exact below 2^24 columns).
Value hardmaxRows(Importer &imp, Location loc, const Rows &r) {
  OpBuilder &b = imp.b;
  Type elt = tensorType(r.v).getElementType();
  Value mx = rowMax(imp, loc, r);
  SmallVector<float> idx(r.cols);
  for (int64_t i = 0; i < r.cols; ++i)
    idx[i] = float(i);
  auto iotaType = RankedTensorType::get({r.cols}, b.getF32Type());
  Value iota = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(iotaType, ArrayRef<float>(idx)));
  double past = double(r.cols);
  Value first = rowGeneric(
      imp, loc, r.rows, r.cols,
      {{r.v, Bcast::Full}, {mx, Bcast::Row}, {iota, Bcast::Col}},
      b.getF32Type(),
      [past](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value isMax =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        return arith::SelectOp::create(nb, l, isMax, a[2],
                                       constLike(nb, l, a[2], past));
      },
      Combine::Min);
  return rowGeneric(
      imp, loc, r.rows, r.cols, {{iota, Bcast::Col}, {first, Bcast::Row}}, elt,
      [elt](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value hit =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        return arith::SelectOp::create(
            nb, l, hit,
            arith::ConstantOp::create(nb, l, nb.getFloatAttr(elt, 1.0)),
            arith::ConstantOp::create(nb, l, nb.getFloatAttr(elt, 0.0)));
      });
}

/// Runs `fn` on the input as [rows, cols]: before opset 13 the dims from
/// `axis` on are flattened into cols; from 13 cols is `axis` alone,
/// transposed last when it is not.
template <RowsFn fn>
LogicalResult onAxis(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  Value x = *in;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  int64_t attr = intAttr(node, "axis", imp.opset >= 13 ? -1 : 1);
  int64_t axis = attr < 0 ? attr + rank : attr;
  if (rank == 0 || axis < 0 || axis >= rank)
    return emitError(loc) << node.op_type() << " axis " << attr
                          << " is out of range for a rank-" << rank << " input";
  SmallVector<bool> cols(rank, false);
  for (int64_t i = axis; i < (imp.opset >= 13 ? axis + 1 : rank); ++i)
    cols[i] = true;
  Rows r = toRows(imp, loc, x, cols);
  return imp.define(node, fromRows(imp, loc, fn(imp, loc, r), r, shape));
}
} // namespace

void nki::onnx_import::registerSoftmaxOps(OpTable &t) {
  t["Softmax"] = onAxis<softmaxRows>;
  t["LogSoftmax"] = onAxis<logSoftmaxRows>;
  t["Hardmax"] = onAxis<hardmaxRows>;
}
