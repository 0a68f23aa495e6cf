//===- TopK.cpp - ONNX TopK -----------------------------------------------===//
//
// The K largest (or smallest) elements along `axis` and their indices, for
// a compile-time K: the axis is moved last ([rows, D], Rows.h's toRows)
// and K rounds each pick one column per row:
//
//   m     = max_j (taken[j] ? -inf : x[j])          (min and +inf: smallest)
//   i     = min_j (!taken[j] && x[j] == m ? j : D)  (the lowest index first)
//   taken = taken || j == i
//
// so the results come out sorted, equal values in index order, as the spec
// asks for sorted=1 (and allows for sorted=0). 3K row generics; indices are
// picked in f32 (exact below 2^24) and returned as i32 (INT64 carried). NaNs
// are not ordered: a row holding one yields NaN values and index D.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

namespace {

LogicalResult topK(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> xIn = imp.input(node, 0);
  if (failed(xIn))
    return failure();
  Value x = *xIn;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  if (rank == 0)
    return emitError(loc) << "TopK of a scalar";
  int64_t k;
  if (imp.opset < 10) {
    k = intAttr(node, "k", -1);
  } else {
    const IntConstant *kc = imp.intInput(node, 1);
    if (!kc || kc->values.size() != 1)
      return emitError(loc)
             << "TopK K '" << (node.input_size() > 1 ? node.input(1) : "")
             << "' must be a compile-time integer (it decides "
                "the output shape)";
    k = kc->values[0];
  }
  int64_t axis = intAttr(node, "axis", -1);
  FailureOr<SmallVector<bool>> mask = axesMask(imp, node, {axis}, rank);
  if (failed(mask))
    return failure();
  if (axis < 0)
    axis += rank;
  int64_t d = shape[axis];
  if (k < 1 || k > d)
    return emitError(loc) << "TopK K " << k << " is not in [1, " << d
                          << "] (the size of axis " << axis << ")";
  bool largest = intAttr(node, "largest", 1) != 0;
  Type elt = tensorType(x).getElementType();
  Type f32 = imp.b.getF32Type();
  if (elt != f32)
    x = imp.elementwise(
        loc, {x},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return castScalar(b, l, a[0], f32);
        },
        f32);
  Rows r = toRows(imp, loc, x, *mask);
  SmallVector<float> iotaData;
  for (int64_t i = 0; i < d; ++i)
    iotaData.push_back(float(i));
  Value iota = arith::ConstantOp::create(
      imp.b, loc,
      DenseElementsAttr::get(RankedTensorType::get({d}, f32),
                             ArrayRef<float>(iotaData)));
  double inf = std::numeric_limits<double>::infinity();
  double excluded = largest ? -inf : inf;
  Value taken = imp.filled(loc, {r.rows, d}, f32, 0.0);
  SmallVector<Value> values, indices;
  for (int64_t t = 0; t < k; ++t) {
    Value m = rowGeneric(
        imp, loc, r.rows, d, {{r.v, Bcast::Full}, {taken, Bcast::Full}}, f32,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value isTaken =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[1],
                                    constLike(b, l, a[1], 0.5));
          return arith::SelectOp::create(b, l, isTaken,
                                         constLike(b, l, a[0], excluded), a[0]);
        },
        largest ? Combine::Max : Combine::Min);
    Value i = rowGeneric(
        imp, loc, r.rows, d,
        {{r.v, Bcast::Full},
         {taken, Bcast::Full},
         {m, Bcast::Row},
         {iota, Bcast::Col}},
        f32,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value free = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                             a[1], constLike(b, l, a[1], 0.5));
          Value eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                           a[0], a[2]);
          Value hit = arith::AndIOp::create(b, l, free, eq);
          return arith::SelectOp::create(b, l, hit, a[3],
                                         constLike(b, l, a[3], double(d)));
        },
        Combine::Min);
    values.push_back(imp.reshape(loc, m, {r.rows, 1}));
    indices.push_back(imp.reshape(loc, i, {r.rows, 1}));
    if (t + 1 < k)
      taken = rowGeneric(
          imp, loc, r.rows, d,
          {{taken, Bcast::Full}, {i, Bcast::Row}, {iota, Bcast::Col}}, f32,
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value now = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              a[2], a[1]);
            return arith::SelectOp::create(b, l, now,
                                           constLike(b, l, a[0], 1.0), a[0]);
          });
  }
  auto stack = [&](ArrayRef<Value> parts) -> Value {
    if (parts.size() == 1)
      return parts[0];
    return tensor::ConcatOp::create(imp.b, loc, 1, parts);
  };
  SmallVector<int64_t> outShape(shape);
  outShape[axis] = k;
  Value vals = fromRows(imp, loc, stack(values), r, outShape);
  if (elt != f32)
    vals = imp.elementwise(
        loc, {vals},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return castScalar(b, l, a[0], elt);
        },
        elt);
  Value idx = imp.elementwise(
      loc, {fromRows(imp, loc, stack(indices), r, outShape)},
      [](OpBuilder &b, Location l, ValueRange a) {
        return castScalar(b, l, a[0], b.getI32Type());
      },
      imp.b.getI32Type());
  if (failed(imp.define(node, vals)))
    return failure();
  return node.output_size() > 1 ? imp.define(node, idx, 1) : success();
}

} // namespace

void nki::onnx_import::registerTopKOps(OpTable &t) { t["TopK"] = topK; }
