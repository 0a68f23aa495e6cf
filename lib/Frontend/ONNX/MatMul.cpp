//===- MatMul.cpp - ONNX MatMul and Gemm ----------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
LogicalResult matmulOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  FailureOr<Value> r = imp.matmul(imp.nodeLoc(node), (*ins)[0], (*ins)[1]);
  return failed(r) ? failure() : imp.define(node, *r);
}

/// alpha * A' B' + beta * C, with A' and B' optionally transposed and C
/// broadcast to the result.
LogicalResult gemm(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  Value a = (*ins)[0], bm = (*ins)[1];
  if (tensorType(a).getRank() != 2 || tensorType(bm).getRank() != 2)
    return emitError(loc) << "Gemm inputs must be 2-D";
  if (intAttr(node, "transA", 0))
    a = imp.transpose(loc, a, {1, 0});
  if (intAttr(node, "transB", 0))
    bm = imp.transpose(loc, bm, {1, 0});
  FailureOr<Value> y = imp.matmul(loc, a, bm);
  if (failed(y))
    return failure();
  double alpha = floatAttr(node, "alpha", 1.0f);
  double beta = floatAttr(node, "beta", 1.0f);
  Value c = ins->size() > 2 ? (*ins)[2] : Value();
  if (c) {
    std::optional<SmallVector<int64_t>> s =
        broadcastShape({shapeOf(*y), shapeOf(c)});
    if (!s || *s != shapeOf(*y))
      return emitError(loc) << "Gemm C " << c.getType()
                            << " does not broadcast to " << y->getType();
  }
  if (alpha == 1.0 && (!c || beta == 0.0))
    return imp.define(node, *y);
  SmallVector<Value> operands = {*y};
  if (c && beta != 0.0)
    operands.push_back(c);
  return imp.define(
      node,
      imp.elementwise(
          loc, operands, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
            Value r = v[0];
            if (alpha != 1.0)
              r = arith::MulFOp::create(nb, l, r, constLike(nb, l, r, alpha));
            if (v.size() > 1) {
              Value cc = v[1];
              if (beta != 1.0)
                cc = arith::MulFOp::create(nb, l, cc,
                                           constLike(nb, l, cc, beta));
              r = arith::AddFOp::create(nb, l, r, cc);
            }
            return r;
          }));
}
} // namespace

void nki::onnx_import::registerMatMulOps(OpTable &t) {
  t["MatMul"] = matmulOp;
  t["Gemm"] = gemm;
}
