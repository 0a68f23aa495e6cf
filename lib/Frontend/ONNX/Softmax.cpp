//===- Softmax.cpp - ONNX Softmax -----------------------------------------===//
//
// Written as max / exp(x - max) / sum / divide over the last dim, the form
// the compiler keeps together as one row-group kernel.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
Value softmaxLast(Importer &imp, Location loc, Value v) {
  Value mx = imp.reduceLast(loc, v, /*isMax=*/true);
  Value e = imp.rowwise(loc, v, mx,
                        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          return math::ExpOp::create(
                              nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
                        });
  Value sum = imp.reduceLast(loc, e, /*isMax=*/false);
  return imp.rowwise(loc, e, sum,
                     [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::DivFOp::create(nb, l, a[0], a[1]);
                     });
}

LogicalResult softmax(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  Value x = *in;
  int64_t rank = tensorType(x).getRank();
  int64_t axis = intAttr(node, "axis", imp.opset >= 13 ? -1 : 1);
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank)
    return emitError(loc) << "Softmax axis " << axis << " of a rank-" << rank
                          << " tensor";
  SmallVector<int64_t> shape = shapeOf(x);
  if (axis == rank - 1)
    return imp.define(node, softmaxLast(imp, loc, x));
  if (imp.opset < 13) {
    // Before opset 13 the input is coerced to 2-D at `axis` and the
    // softmax runs over the flattened trailing dims.
    int64_t rows = 1;
    for (int64_t i = 0; i < axis; ++i)
      rows *= shape[i];
    Value flat =
        imp.reshape(loc, x, {rows, tensorType(x).getNumElements() / rows});
    return imp.define(node,
                      imp.reshape(loc, softmaxLast(imp, loc, flat), shape));
  }
  // From opset 13 the softmax is over `axis` alone: move it last and back.
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  return imp.define(
      node,
      imp.transpose(loc, softmaxLast(imp, loc, imp.transpose(loc, x, perm)),
                    inverse));
}
} // namespace

void nki::onnx_import::registerSoftmaxOps(OpTable &t) {
  t["Softmax"] = softmax;
}
