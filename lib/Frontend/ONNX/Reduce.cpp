//===- Reduce.cpp - ONNX Reduce*, GlobalAveragePool, GlobalMaxPool --------===//
//
// Every reduction takes one form: the reduced axes are transposed last when
// they are not already, the tensor is viewed as [rows, cols], and one
// linalg.generic reduces along cols with a body combine(out, f(x)) where
// combine is add, max or min (what the compiler's reduction kernels take);
// the [rows] result is reshaped to the kept dims. What does not fit in f and
// combine is one small elementwise op on the result (sqrt for ReduceL2, log
// for ReduceLogSum). ReduceProd has no such combiner: it multiplies the two
// halves of the columns together until one column is left.
//
//===----------------------------------------------------------------------===//

#include "Reduce.h"

#include "mlir/Dialect/Math/IR/Math.h"

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
  OpBuilder &b = imp.b;
  int64_t rank = shape.size(), offset = rank - int64_t(from.size());
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < int64_t(from.size()); ++i)
    exprs.push_back(from[i] == 1 && shape[offset + i] != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(offset + i));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, imp.ctx),
                                 b.getMultiDimIdentityMap(rank)};
  Value init = imp.emptyLike(loc, shape, tensorType(v).getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{v}, ValueRange{init}, maps,
             iters,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

namespace {
enum class Kind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  SumSquare,
  L1,
  L2,
  LogSum,
  LogSumExp
};

/// Reduces [rows, cols] `x` along cols to [rows].
Value reduceRowsOf(Importer &imp, Location loc, Kind kind, const Rows &r) {
  Type elt = tensorType(r.v).getElementType();
  Value x = r.v;
  int64_t rows = r.rows, cols = r.cols;
  auto reduce = [&](Combine c, BodyFn f, ArrayRef<RowOperand> extra = {}) {
    SmallVector<RowOperand> ins = {{x, Bcast::Full}};
    ins.append(extra.begin(), extra.end());
    return rowGeneric(imp, loc, rows, cols, ins, elt, f, c);
  };
  auto map1 = [&](Value v, BodyFn f) { return imp.elementwise(loc, {v}, f); };
  BodyFn id = [](OpBuilder &, Location, ValueRange a) { return a[0]; };
  BodyFn square = [](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::MulFOp::create(b, l, a[0], a[0]);
  };
  switch (kind) {
  case Kind::Sum:
    return reduce(Combine::Add, id);
  case Kind::Mean:
    // Each term divided by the count keeps the mean one reduction kernel.
    return reduce(Combine::Add,
                  [cols](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return arith::DivFOp::create(
                        b, l, a[0], constLike(b, l, a[0], double(cols)));
                  });
  case Kind::Max:
    return reduce(Combine::Max, id);
  case Kind::Min:
    return reduce(Combine::Min, id);
  case Kind::SumSquare:
    return reduce(Combine::Add, square);
  case Kind::L1:
    return reduce(Combine::Add,
                  [](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return math::AbsFOp::create(b, l, a[0]);
                  });
  case Kind::L2:
    return map1(reduce(Combine::Add, square),
                [](OpBuilder &b, Location l, ValueRange a) -> Value {
                  return math::SqrtOp::create(b, l, a[0]);
                });
  case Kind::LogSum:
    return map1(reduce(Combine::Add, id),
                [](OpBuilder &b, Location l, ValueRange a) -> Value {
                  return math::LogOp::create(b, l, a[0]);
                });
  case Kind::LogSumExp: {
    // max + log(sum(exp(x - max))): exp cannot overflow.
    Value mx = reduce(Combine::Max, id);
    Value s = reduce(Combine::Add,
                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                       return math::ExpOp::create(
                           b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                     },
                     {{mx, Bcast::Row}});
    return imp.elementwise(loc, {s, mx},
                           [](OpBuilder &b, Location l, ValueRange a) -> Value {
                             return arith::AddFOp::create(
                                 b, l, math::LogOp::create(b, l, a[0]), a[1]);
                           });
  }
  case Kind::Prod: {
    OpBuilder &b = imp.b;
    auto cut = [&](Value v, int64_t offset, int64_t size) -> Value {
      return tensor::ExtractSliceOp::create(
          b, loc, v,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(size)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    };
    auto place = [&](Value v, Value into, int64_t offset) -> Value {
      return tensor::InsertSliceOp::create(
          b, loc, v, into,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(rows),
                                 b.getIndexAttr(shapeOf(v)[1])},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    };
    Value v = x;
    for (int64_t n = cols; n > 1;) {
      int64_t half = n / 2;
      Value p =
          imp.elementwise(loc, {cut(v, 0, half), cut(v, half, half)},
                          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            return arith::MulFOp::create(nb, l, a[0], a[1]);
                          });
      if (n % 2) {
        // The odd last column joins the products as one more column.
        Value joined = imp.emptyLike(loc, {rows, half + 1}, elt);
        joined = place(p, joined, 0);
        p = place(cut(v, n - 1, 1), joined, half);
      }
      v = p;
      n = half + n % 2;
    }
    return imp.reshape(loc, v, {rows});
  }
  }
  llvm_unreachable("unknown reduction");
}

/// Whether the axes come from input 1 rather than the `axes` attribute.
bool axesAsInput(Importer &imp, Kind kind) {
  return imp.opset >= 18 || (kind == Kind::Sum && imp.opset >= 13);
}

template <Kind kind>
LogicalResult reduceOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  Value x = *in;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();

  SmallVector<int64_t> axes;
  if (axesAsInput(imp, kind)) {
    if (findAttr(node, "axes"))
      return emitError(loc)
             << node.op_type() << " takes its axes as input 1 "
             << "from opset " << imp.opset << ", not as an attribute";
    if (imp.hasInput(node, 1)) {
      const IntConstant *c = imp.intInput(node, 1);
      if (!c)
        return emitError(loc)
               << node.op_type() << " axes '" << node.input(1)
               << "' must be a compile-time constant (an initializer or a "
                  "Constant); axes computed at run time are not supported";
      if (c->shape.size() != 1)
        return emitError(loc) << node.op_type() << " axes must be 1-D";
      axes.assign(c->values.begin(), c->values.end());
    }
  } else if (auto a = intsAttr(node, "axes")) {
    axes = *a;
  }
  if (axes.empty()) {
    int64_t noop = intAttr(node, "noop_with_empty_axes", 0);
    if (noop == 1) {
      // "Not reduced": the input itself. For the ops that transform each
      // element before combining, that would not be a reduction over an
      // empty set, so it is refused rather than guessed.
      if (kind == Kind::Sum || kind == Kind::Mean || kind == Kind::Max ||
          kind == Kind::Min || kind == Kind::Prod)
        return imp.define(node, x);
      return emitError(loc) << node.op_type()
                            << " with noop_with_empty_axes=1 and no axes is "
                               "not supported";
    }
    if (noop != 0)
      return emitError(loc) << node.op_type() << " noop_with_empty_axes must "
                            << "be 0 or 1, not " << noop;
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  FailureOr<SmallVector<bool>> mask = axesMask(imp, node, axes, rank);
  if (failed(mask))
    return failure();
  int64_t keepdims = intAttr(node, "keepdims", 1);
  if (keepdims != 0 && keepdims != 1)
    return emitError(loc) << node.op_type() << " keepdims must be 0 or 1, not "
                          << keepdims;
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i) {
    if ((*mask)[i] && shape[i] == 0)
      return emitError(loc)
             << node.op_type() << " over an empty dim is not supported";
    if (!(*mask)[i])
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  Rows r = toRows(imp, loc, x, *mask);
  return imp.define(
      node, imp.reshape(loc, reduceRowsOf(imp, loc, kind, r), outShape));
}

/// GlobalAveragePool / GlobalMaxPool: the mean or max over every dim after
/// N and C, kept as size-1 dims.
template <Kind kind>
LogicalResult globalPool(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(*in);
  int64_t rank = shape.size();
  if (rank < 3)
    return emitError(loc) << node.op_type()
                          << " needs an N x C x D1 x ... input, not rank "
                          << rank;
  SmallVector<bool> mask(rank, true);
  mask[0] = mask[1] = false;
  SmallVector<int64_t> outShape(rank, 1);
  outShape[0] = shape[0];
  outShape[1] = shape[1];
  Rows r = toRows(imp, loc, *in, mask);
  return imp.define(
      node, imp.reshape(loc, reduceRowsOf(imp, loc, kind, r), outShape));
}
} // namespace

void nki::onnx_import::registerReduceOps(OpTable &t) {
  t["ReduceSum"] = reduceOp<Kind::Sum>;
  t["ReduceMean"] = reduceOp<Kind::Mean>;
  t["ReduceMax"] = reduceOp<Kind::Max>;
  t["ReduceMin"] = reduceOp<Kind::Min>;
  t["ReduceProd"] = reduceOp<Kind::Prod>;
  t["ReduceSumSquare"] = reduceOp<Kind::SumSquare>;
  t["ReduceL1"] = reduceOp<Kind::L1>;
  t["ReduceL2"] = reduceOp<Kind::L2>;
  t["ReduceLogSum"] = reduceOp<Kind::LogSum>;
  t["ReduceLogSumExp"] = reduceOp<Kind::LogSumExp>;
  t["GlobalAveragePool"] = globalPool<Kind::Mean>;
  t["GlobalMaxPool"] = globalPool<Kind::Max>;
}
