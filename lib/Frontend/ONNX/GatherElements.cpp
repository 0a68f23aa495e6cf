//===- GatherElements.cpp - ONNX GatherElements ---------------------------===//
//
// out[..., k, ...] = x[..., idx[..., k, ...], ...] along `axis`: the axis is
// moved last in x ([M, D]) and in the indices ([M, K]), and each output is
// a reduction over j < D of (idx == j ? x[m, j] : 0) against a constant
// iota, as Gather with runtime indices does (negative indices wrap; an
// index out of range gives 0, as nothing checks it at run time).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
LogicalResult gatherElements(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  Value x = (*ins)[0], idx = (*ins)[1];
  RankedTensorType t = tensorType(x), it = tensorType(idx);
  auto idxElt = dyn_cast<IntegerType>(it.getElementType());
  if (!idxElt || idxElt.getWidth() < 8)
    return emitError(loc) << "GatherElements indices must be integers, got "
                          << it;
  int64_t rank = t.getRank();
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank)
    return emitError(loc) << "GatherElements axis " << intAttr(node, "axis", 0)
                          << " of a rank-" << rank << " tensor";
  bool sameOuter = it.getRank() == rank;
  for (int64_t d = 0; sameOuter && d < rank; ++d)
    sameOuter = d == axis || it.getDimSize(d) == t.getDimSize(d);
  if (!sameOuter)
    return emitError(loc) << "GatherElements indices " << it
                          << " must match data " << t
                          << " in every dim but the axis";
  if (t.getNumElements() == 0 || it.getNumElements() == 0)
    return emitError(loc) << "GatherElements of an empty tensor";
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  bool moved = axis != rank - 1;
  int64_t dim = t.getDimSize(axis), k = it.getDimSize(axis);
  int64_t m = t.getNumElements() / dim;
  Value x2 =
      imp.reshape(loc, moved ? imp.transpose(loc, x, perm) : x, {m, dim});
  Value i2 =
      imp.reshape(loc, moved ? imp.transpose(loc, idx, perm) : idx, {m, k});
  SmallVector<APInt> iota;
  for (int64_t j = 0; j < dim; ++j)
    iota.push_back(APInt(idxElt.getWidth(), j, /*isSigned=*/true));
  Value iotaV = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({dim}, idxElt), iota));
  Type elt = t.getElementType();
  bool isFloat = isa<FloatType>(elt);
  Value init =
      linalg::FillOp::create(b, loc,
                             ValueRange{arith::ConstantOp::create(
                                 b, loc, cast<TypedAttr>(b.getZeroAttr(elt)))},
                             ValueRange{imp.emptyLike(loc, {m, k}, elt)})
          .getResult(0);
  AffineExpr dm = b.getAffineDimExpr(0), dk = b.getAffineDimExpr(1),
             dj = b.getAffineDimExpr(2);
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {dm, dj}, imp.ctx),
                                 AffineMap::get(3, 0, {dm, dk}, imp.ctx),
                                 AffineMap::get(3, 0, {dj}, imp.ctx),
                                 AffineMap::get(3, 0, {dm, dk}, imp.ctx)};
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  Value g =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{x2, i2, iotaV}, ValueRange{init},
          maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value zeroI =
                arith::ConstantOp::create(nb, l, nb.getIntegerAttr(idxElt, 0));
            Value dimI = arith::ConstantOp::create(
                nb, l, nb.getIntegerAttr(idxElt, dim));
            Value neg = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                              a[1], zeroI);
            Value i = arith::SelectOp::create(
                nb, l, neg, arith::AddIOp::create(nb, l, a[1], dimI), a[1]);
            Value hit =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i, a[2]);
            Value zero = arith::ConstantOp::create(
                nb, l, cast<TypedAttr>(nb.getZeroAttr(elt)));
            Value v = arith::SelectOp::create(nb, l, hit, a[0], zero);
            Value sum = isFloat
                            ? arith::AddFOp::create(nb, l, a[3], v).getResult()
                            : arith::AddIOp::create(nb, l, a[3], v).getResult();
            linalg::YieldOp::create(nb, l, sum);
          })
          .getResult(0);
  if (!moved)
    return imp.define(node, imp.reshape(loc, g, shapeOf(idx)));
  SmallVector<int64_t> permuted;
  for (int64_t p : perm)
    permuted.push_back(it.getDimSize(p));
  return imp.define(node,
                    imp.transpose(loc, imp.reshape(loc, g, permuted), inverse));
}
} // namespace

void nki::onnx_import::registerGatherElementsOps(OpTable &t) {
  t["GatherElements"] = gatherElements;
}
