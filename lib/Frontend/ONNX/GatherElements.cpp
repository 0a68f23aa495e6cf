//===- GatherElements.cpp - ONNX GatherElements ---------------------------===//
//
// out[..., k, ...] = x[..., idx[..., k, ...], ...] along `axis`: the axis is
// moved last in x ([M, D]) and in the indices ([M, K]), then
// Importer::gatherLast, as Gather with runtime indices does.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
LogicalResult gatherElements(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
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
  Value g = imp.gatherLast(loc, x2, i2, /*perRow=*/true);
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
