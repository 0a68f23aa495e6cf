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

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

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
