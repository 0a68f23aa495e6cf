//===- Rows.cpp - Row-wise builders the reduction families share ----------===//
//
// rowGeneric, toRows / fromRows, axesMask and broadcastTo (Rows.h): the
// reduction, softmax, normalization, loss, logic, top-k, gather and scatter
// handlers build on them.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

namespace {
std::string shapeString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

double identityOf(Combine c) {
  switch (c) {
  case Combine::Add:
    return 0.0;
  case Combine::Max:
    return -std::numeric_limits<double>::infinity();
  case Combine::Min:
    return std::numeric_limits<double>::infinity();
  }
  llvm_unreachable("unknown combiner");
}

Value combineOp(OpBuilder &b, Location l, Combine c, Value acc, Value v) {
  switch (c) {
  case Combine::Add:
    return arith::AddFOp::create(b, l, acc, v);
  case Combine::Max:
    return arith::MaximumFOp::create(b, l, acc, v);
  case Combine::Min:
    return arith::MinimumFOp::create(b, l, acc, v);
  }
  llvm_unreachable("unknown combiner");
}
} // namespace

Value nki::onnx_import::rowGeneric(Importer &imp, Location loc, int64_t rows,
                                   int64_t cols, ArrayRef<RowOperand> ins,
                                   Type elt, BodyFn body,
                                   std::optional<Combine> combine) {
  OpBuilder &b = imp.b;
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (const RowOperand &in : ins) {
    operands.push_back(in.v);
    SmallVector<AffineExpr> exprs;
    if (in.kind != Bcast::Col)
      exprs.push_back(d0);
    if (in.kind != Bcast::Row)
      exprs.push_back(d1);
    maps.push_back(AffineMap::get(2, 0, exprs, imp.ctx));
  }
  SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
  Value init;
  if (combine) {
    iters[1] = utils::IteratorType::reduction;
    maps.push_back(AffineMap::get(2, 0, {d0}, imp.ctx));
    init = imp.filled(loc, {rows}, elt, identityOf(*combine));
  } else {
    maps.push_back(b.getMultiDimIdentityMap(2));
    init = imp.emptyLike(loc, {rows, cols}, elt);
  }
  return linalg::GenericOp::create(
             b, loc, init.getType(), operands, ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value v = body(nb, l, args.drop_back());
               if (combine)
                 v = combineOp(nb, l, *combine, args.back(), v);
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

Rows nki::onnx_import::toRows(Importer &imp, Location loc, Value x,
                              ArrayRef<bool> reduced) {
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  Rows r;
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i]) {
      perm.push_back(i);
      r.rows *= shape[i];
    }
  int64_t kept = perm.size();
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i]) {
      perm.push_back(i);
      r.cols *= shape[i];
    }
  Value v = x;
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
    v = imp.transpose(loc, x, perm);
    r.perm = perm;
  }
  Type elt = tensorType(x).getElementType();
  auto type = RankedTensorType::get({r.rows, r.cols}, elt);
  if (rank == 0) {
    v = tensor::ExpandShapeOp::create(imp.b, loc, type, v,
                                      ArrayRef<ReassociationIndices>{});
  } else if (kept > 0 && kept < rank) {
    // One collapse when both groups have dims: a view, no copy.
    SmallVector<ReassociationIndices> groups(2);
    for (int64_t i = 0; i < rank; ++i)
      groups[i < kept ? 0 : 1].push_back(i);
    if (rank != 2)
      v = tensor::CollapseShapeOp::create(imp.b, loc, type, v, groups);
  } else {
    v = imp.reshape(loc, v, {r.rows, r.cols});
  }
  r.v = v;
  return r;
}

Value nki::onnx_import::fromRows(Importer &imp, Location loc, Value y,
                                 const Rows &r, ArrayRef<int64_t> shape) {
  if (r.perm.empty())
    return imp.reshape(loc, y, shape);
  SmallVector<int64_t> permuted, inverse(shape.size());
  for (size_t i = 0; i < r.perm.size(); ++i) {
    permuted.push_back(shape[r.perm[i]]);
    inverse[r.perm[i]] = i;
  }
  return imp.transpose(loc, imp.reshape(loc, y, permuted), inverse);
}

FailureOr<SmallVector<bool>>
nki::onnx_import::axesMask(Importer &imp, const onnx::NodeProto &node,
                           ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<bool> mask(rank, false);
  for (int64_t a : axes) {
    int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank)
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " axis " << a
             << " is out of range for a rank-" << rank << " input";
    if (mask[axis])
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " axis " << a << " is repeated";
    mask[axis] = true;
  }
  return mask;
}

FailureOr<Value> nki::onnx_import::broadcastTo(Importer &imp,
                                               const onnx::NodeProto &node,
                                               Value v, ArrayRef<int64_t> shape,
                                               StringRef what) {
  SmallVector<int64_t> from = shapeOf(v);
  if (ArrayRef<int64_t>(from) == shape)
    return v;
  Location loc = imp.nodeLoc(node);
  std::optional<SmallVector<int64_t>> common =
      broadcastShape({from, SmallVector<int64_t>(shape)});
  if (from.size() > shape.size() || !common ||
      ArrayRef<int64_t>(*common) != shape)
    return emitError(loc) << node.op_type() << " " << what << " of shape "
                          << shapeString(from) << " does not broadcast to "
                          << shapeString(shape);
  return broadcastValue(imp, loc, v, shape);
}
