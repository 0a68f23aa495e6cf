//===- GatherElements.cpp - ONNX GatherElements ---------------------------===//
//
// out[..., k, ...] = x[..., idx[..., k, ...], ...] along `axis`: the axis is
// moved last in x ([M, D]) and in the indices ([M, K]), then
// Importer::gatherLast, as Gather with runtime indices does.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "Rows.h"

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
  // The axis last: [rows, dim] data and [rows, k] indices.
  SmallVector<bool> axisMask(rank, false);
  axisMask[axis] = true;
  Rows xr = toRows(imp, loc, x, axisMask);
  Rows ir = toRows(imp, loc, idx, axisMask);
  Value g = imp.gatherLast(loc, xr.v, ir.v, /*perRow=*/true);
  return imp.define(node, fromRows(imp, loc, g, ir, shapeOf(idx)));
}
} // namespace

void nki::onnx_import::registerGatherElementsOps(OpTable &t) {
  t["GatherElements"] = gatherElements;
}
