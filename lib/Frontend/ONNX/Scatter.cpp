//===- Scatter.cpp - ONNX ScatterElements, Scatter and ScatterND ----------===//
//
// Scatters with runtime (or constant) indices, as Importer::gatherLast
// gathers: the scattered axis is moved last, data viewed as [M, D] and the
// indices and updates as [M, K] (ScatterND: its linearized index tuples as
// [K] shared by every row), and each output element reduces over the K
// updates against a constant iota along D:
//
//   none      last = max_k (idx[k] == j ? k : -1); out = last >= 0 ?
//             upd[last] : data. ONNX leaves duplicate indices undefined; the
//             last update (in index order) wins, as ONNX's reference does.
//   add       data + sum_k (idx[k] == j ? upd[k] : 0)
//   max, min  max/min(data, max/min_k (idx[k] == j ? upd[k] : -/+inf))
//   mul       data * prod_k (idx[k] == j ? upd[k] : 1), the product taken by
//             multiplying halves of an [M * D, K] tensor (the compiler's
//             reductions combine with add, max and min only)
//
// The reductions are order-independent, so the compiler may split them.
// Integer data is scattered in f32 and converted back (exact below 2^24).
// Negative indices wrap; an index out of range matches nothing (nothing
// checks it at run time). ScatterElements indices smaller than data outside
// the axis scatter into the leading block of data (extract/insert_slice).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "Rows.h"

#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

namespace {

enum class Reduction { None, Add, Mul, Max, Min };

FailureOr<Reduction> readReduction(Importer &imp, const onnx::NodeProto &node) {
  std::string r = stringAttr(node, "reduction", "none");
  if (r == "none")
    return Reduction::None;
  if (r == "add")
    return Reduction::Add;
  if (r == "mul")
    return Reduction::Mul;
  if (r == "max")
    return Reduction::Max;
  if (r == "min")
    return Reduction::Min;
  return emitError(imp.nodeLoc(node))
         << node.op_type() << " reduction '" << r
         << "' is not one of none, add, mul, max, min";
}

/// A constant 1-D iota of `n` elements of type `elt` (integer or float).
Value iota(Importer &imp, Location loc, int64_t n, Type elt) {
  auto type = RankedTensorType::get({n}, elt);
  if (auto it = dyn_cast<IntegerType>(elt)) {
    SmallVector<APInt> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(APInt(it.getWidth(), i, /*isSigned=*/true));
    return arith::ConstantOp::create(imp.b, loc,
                                     DenseElementsAttr::get(type, v));
  }
  SmallVector<APFloat> v;
  for (int64_t i = 0; i < n; ++i) {
    APFloat f = APFloat(double(i));
    bool lost;
    f.convert(cast<FloatType>(elt).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    v.push_back(f);
  }
  return arith::ConstantOp::create(imp.b, loc, DenseElementsAttr::get(type, v));
}

/// Whether index `idx` (wrapped by `dim` when negative and integer) equals
/// iota value `j`.
Value hitOf(OpBuilder &b, Location l, Value idx, Value j, int64_t dim) {
  if (auto it = dyn_cast<IntegerType>(idx.getType())) {
    Value zero = arith::ConstantOp::create(b, l, b.getIntegerAttr(it, 0));
    Value dimV = arith::ConstantOp::create(b, l, b.getIntegerAttr(it, dim));
    Value neg =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx, zero);
    idx = arith::SelectOp::create(b, l, neg,
                                  arith::AddIOp::create(b, l, idx, dimV), idx);
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx, j);
  }
  return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, idx, j);
}

/// A reduction over k of an [M, D] result from operands read at (m, k),
/// (k), (j) or (m, j) (`maps` over dims m, j, k), starting from `init`.
Value reduceK(Importer &imp, Location loc, ValueRange ins,
              ArrayRef<AffineMap> inMaps, Value init, BodyFn body) {
  OpBuilder &b = imp.b;
  SmallVector<AffineMap> maps(inMaps);
  maps.push_back(AffineMap::get(
      3, 0, {b.getAffineDimExpr(0), b.getAffineDimExpr(1)}, imp.ctx));
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ins, ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(nb, l, body(nb, l, a));
             })
      .getResult(0);
}

/// The product of an [R, K] tensor along K, by multiplying halves.
Value productLast(Importer &imp, Location loc, Value v) {
  OpBuilder &b = imp.b;
  int64_t rows = shapeOf(v)[0];
  auto cut = [&](Value x, int64_t offset, int64_t size) -> Value {
    return tensor::ExtractSliceOp::create(
        b, loc, x,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  };
  for (int64_t n = shapeOf(v)[1]; n > 1;) {
    int64_t half = n / 2;
    Value p =
        imp.elementwise(loc, {cut(v, 0, half), cut(v, half, half)},
                        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          return arith::MulFOp::create(nb, l, a[0], a[1]);
                        });
    if (n % 2)
      p = tensor::ConcatOp::create(b, loc, 1, ValueRange{p, cut(v, n - 1, 1)});
    v = p;
    n = half + n % 2;
  }
  return imp.reshape(loc, v, {rows});
}

/// out[m, j] = data[m, j] combined with every upd[m, k] whose index
/// (idx[m, k] with `perRow`, else idx[k]) is j. `data` and `upd` are float;
/// integer indices wrap by D, float ones (already linear) do not.
Value scatterLast(Importer &imp, Location loc, Value data, Value idx, Value upd,
                  bool perRow, Reduction red) {
  OpBuilder &b = imp.b;
  MLIRContext *ctx = imp.ctx;
  Type elt = tensorType(data).getElementType();
  Type idxElt = tensorType(idx).getElementType();
  int64_t m = shapeOf(data)[0], d = shapeOf(data)[1], k = shapeOf(upd)[1];
  AffineExpr dm = b.getAffineDimExpr(0), dj = b.getAffineDimExpr(1),
             dk = b.getAffineDimExpr(2);
  AffineMap mk = AffineMap::get(3, 0, {dm, dk}, ctx);
  AffineMap idxMap = perRow ? mk : AffineMap::get(3, 0, {dk}, ctx);
  AffineMap jMap = AffineMap::get(3, 0, {dj}, ctx);
  AffineMap kMap = AffineMap::get(3, 0, {dk}, ctx);
  AffineMap mj = AffineMap::get(3, 0, {dm, dj}, ctx);
  Value iotaJ = iota(imp, loc, d, idxElt);
  double inf = std::numeric_limits<double>::infinity();

  if (red == Reduction::Mul) {
    // Factors [M, D, K] = hit ? upd : 1, then their product along K.
    SmallVector<int64_t> idx3 = {perRow ? m : 1, 1, k};
    Value factors = imp.elementwise(
        loc,
        {imp.reshape(loc, idx, idx3), imp.reshape(loc, upd, {m, 1, k}),
         imp.reshape(loc, iotaJ, {d, 1})},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value hit = hitOf(nb, l, a[0], a[2], d);
          return arith::SelectOp::create(nb, l, hit, a[1],
                                         constLike(nb, l, a[1], 1.0));
        },
        elt);
    Value prod = imp.reshape(
        loc, productLast(imp, loc, imp.reshape(loc, factors, {m * d, k})),
        {m, d});
    return imp.elementwise(
        loc, {data, prod},
        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return arith::MulFOp::create(nb, l, a[0], a[1]);
        });
  }

  if (red != Reduction::None) {
    double identity = red == Reduction::Add   ? 0.0
                      : red == Reduction::Max ? -inf
                                              : inf;
    Value acc =
        reduceK(imp, loc, {idx, upd, iotaJ}, {idxMap, mk, jMap},
                imp.filled(loc, {m, d}, elt, identity),
                [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  Value hit = hitOf(nb, l, a[0], a[2], d);
                  Value v = arith::SelectOp::create(
                      nb, l, hit, a[1], constLike(nb, l, a[1], identity));
                  if (red == Reduction::Add)
                    return arith::AddFOp::create(nb, l, a[3], v);
                  if (red == Reduction::Max)
                    return arith::MaximumFOp::create(nb, l, a[3], v);
                  return arith::MinimumFOp::create(nb, l, a[3], v);
                });
    return imp.elementwise(
        loc, {data, acc},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          if (red == Reduction::Add)
            return arith::AddFOp::create(nb, l, a[0], a[1]);
          if (red == Reduction::Max)
            return arith::MaximumFOp::create(nb, l, a[0], a[1]);
          return arith::MinimumFOp::create(nb, l, a[0], a[1]);
        });
  }

  // none: the last k that hits each j (-1 for none), then its update.
  Type f32 = b.getF32Type();
  Value iotaK = iota(imp, loc, k, f32);
  Value last = reduceK(imp, loc, {idx, iotaJ, iotaK}, {idxMap, jMap, kMap},
                       imp.filled(loc, {m, d}, f32, -1.0),
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value hit = hitOf(nb, l, a[0], a[1], d);
                         Value v = arith::SelectOp::create(
                             nb, l, hit, a[2], constLike(nb, l, a[2], -1.0));
                         return arith::MaximumFOp::create(nb, l, a[3], v);
                       });
  Value picked = reduceK(imp, loc, {upd, iotaK, last}, {mk, kMap, mj},
                         imp.filled(loc, {m, d}, elt, 0.0),
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           Value is = arith::CmpFOp::create(
                               nb, l, arith::CmpFPredicate::OEQ, a[1], a[2]);
                           Value v = arith::SelectOp::create(
                               nb, l, is, a[0], constLike(nb, l, a[0], 0.0));
                           return arith::AddFOp::create(nb, l, a[3], v);
                         });
  return imp.elementwise(
      loc, {data, last, picked},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value any = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE,
                                          a[1], constLike(nb, l, a[1], 0.0));
        return arith::SelectOp::create(nb, l, any, a[2], a[0]);
      });
}

/// `v` converted to `to` elementwise (castScalar), or `v` itself.
Value convert(Importer &imp, Location loc, Value v, Type to) {
  if (tensorType(v).getElementType() == to)
    return v;
  return imp.elementwise(
      loc, {v},
      [&](OpBuilder &b, Location l, ValueRange a) {
        return castScalar(b, l, a[0], to);
      },
      to);
}

/// Integer data is scattered in f32.
Type workType(Importer &imp, Value data) {
  Type elt = tensorType(data).getElementType();
  return isa<FloatType>(elt) ? elt : imp.b.getF32Type();
}

LogicalResult checkIndices(Importer &imp, const onnx::NodeProto &node,
                           Value idx) {
  auto it = dyn_cast<IntegerType>(tensorType(idx).getElementType());
  if (!it || it.getWidth() < 8)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " indices must be integers, got "
           << idx.getType();
  return success();
}

LogicalResult scatterElements(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 3);
  if (failed(ins))
    return failure();
  Value data = (*ins)[0], idx = (*ins)[1], upd = (*ins)[2];
  FailureOr<Reduction> red = readReduction(imp, node);
  if (failed(red) || failed(checkIndices(imp, node, idx)))
    return failure();
  RankedTensorType t = tensorType(data), it = tensorType(idx);
  int64_t rank = t.getRank();
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank)
    return emitError(loc) << node.op_type() << " axis "
                          << intAttr(node, "axis", 0) << " of a rank-" << rank
                          << " tensor";
  if (shapeOf(upd) != shapeOf(idx))
    return emitError(loc) << node.op_type() << " updates " << upd.getType()
                          << " and indices " << idx.getType()
                          << " differ in shape";
  if (tensorType(upd).getElementType() != t.getElementType())
    return emitError(loc) << node.op_type() << " updates " << upd.getType()
                          << " and data " << data.getType()
                          << " differ in element type";
  bool fits = it.getRank() == rank;
  for (int64_t d = 0; fits && d < rank; ++d)
    fits = d == axis || it.getDimSize(d) <= t.getDimSize(d);
  if (!fits)
    return emitError(loc) << node.op_type() << " indices " << it
                          << " must not exceed data " << t
                          << " in any dim but the axis";
  if (t.getNumElements() == 0 || it.getNumElements() == 0)
    return emitError(loc) << node.op_type() << " of an empty tensor";
  // Indices smaller than data outside the axis scatter into the leading
  // block of data, which is then put back into the rest.
  SmallVector<int64_t> block(t.getShape());
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      block[d] = it.getDimSize(d);
  Value whole = data;
  auto attrs = [&](ArrayRef<int64_t> v) {
    return llvm::map_to_vector(
        v, [&](int64_t i) -> OpFoldResult { return imp.b.getIndexAttr(i); });
  };
  SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
  bool partial = ArrayRef<int64_t>(block) != t.getShape();
  if (partial) {
    data = tensor::ExtractSliceOp::create(
        imp.b, loc, RankedTensorType::get(block, t.getElementType()), data,
        attrs(zeros), attrs(block), attrs(ones));
    t = tensorType(data);
  }
  // The axis last: [rows, dim] data, [rows, k] indices and updates.
  SmallVector<bool> axisMask(rank, false);
  axisMask[axis] = true;
  auto rows = [&](Value v) { return toRows(imp, loc, v, axisMask); };
  Type work = workType(imp, data);
  Rows dataRows = rows(convert(imp, loc, data, work));
  Value r = scatterLast(imp, loc, dataRows.v, rows(idx).v,
                        rows(convert(imp, loc, upd, work)).v,
                        /*perRow=*/true, *red);
  r = fromRows(imp, loc, r, dataRows, block);
  r = convert(imp, loc, r, t.getElementType());
  if (partial)
    r = tensor::InsertSliceOp::create(imp.b, loc, r, whole, attrs(zeros),
                                      attrs(block), attrs(ones));
  return imp.define(node, r);
}

/// ScatterND: data [d0, ..., dr-1], indices [..., L], updates = indices'
/// leading dims + data's dims from L. The index tuples are linearized over
/// the first L dims (each component wrapped when negative) in f32, exact
/// while that product is below 2^24.
LogicalResult scatterND(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 3);
  if (failed(ins))
    return failure();
  Value data = (*ins)[0], idx = (*ins)[1], upd = (*ins)[2];
  FailureOr<Reduction> red = readReduction(imp, node);
  if (failed(red) || failed(checkIndices(imp, node, idx)))
    return failure();
  SmallVector<int64_t> ds = shapeOf(data), is = shapeOf(idx);
  int64_t rank = ds.size();
  if (is.empty() || is.back() < 1 || is.back() > rank)
    return emitError(loc) << "ScatterND indices " << idx.getType()
                          << " must end in a dim of 1 to " << rank
                          << " (the data's rank)";
  int64_t l = is.back();
  SmallVector<int64_t> expected(is.begin(), is.end() - 1);
  expected.append(ds.begin() + l, ds.end());
  if (shapeOf(upd) != expected ||
      tensorType(upd).getElementType() != tensorType(data).getElementType())
    return emitError(loc) << "ScatterND updates " << upd.getType()
                          << " must have shape indices.shape[:-1] + "
                             "data.shape[L:] and data's element type";
  int64_t p = 1, s = 1, n = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < l ? p : s) *= ds[i];
  for (size_t i = 0; i + 1 < is.size(); ++i)
    n *= is[i];
  if (p >= (int64_t(1) << 24))
    return emitError(loc) << "ScatterND indexes " << p
                          << " positions; at most 2^24 are exact in f32";
  // lin[n] = sum_l wrap(idx[n, l]) * stride_l, as a sum over l in f32.
  SmallVector<double> dims, strides(l);
  int64_t stride = 1;
  for (int64_t i = l - 1; i >= 0; --i) {
    strides[i] = double(stride);
    stride *= ds[i];
  }
  for (int64_t i = 0; i < l; ++i)
    dims.push_back(double(ds[i]));
  Type f32 = imp.b.getF32Type();
  auto constF = [&](ArrayRef<double> v) {
    SmallVector<float> fs(v.begin(), v.end());
    return arith::ConstantOp::create(
        imp.b, loc,
        DenseElementsAttr::get(RankedTensorType::get({l}, f32),
                               ArrayRef<float>(fs)));
  };
  Value terms = imp.elementwise(
      loc, {imp.reshape(loc, idx, {n, l}), constF(dims), constF(strides)},
      [](OpBuilder &b, Location lc, ValueRange a) -> Value {
        Value i = castScalar(b, lc, a[0], b.getF32Type());
        Value neg = arith::CmpFOp::create(b, lc, arith::CmpFPredicate::OLT, i,
                                          constLike(b, lc, i, 0.0));
        i = arith::SelectOp::create(b, lc, neg,
                                    arith::AddFOp::create(b, lc, i, a[1]), i);
        return arith::MulFOp::create(b, lc, i, a[2]);
      },
      f32);
  Value lin = imp.reduceLast(loc, terms, /*isMax=*/false);
  // The scattered positions along the last dim: [S, P] and [S, N].
  Type work = workType(imp, data);
  auto cols = [&](Value v, int64_t rows) {
    Value x = imp.reshape(loc, convert(imp, loc, v, work), {rows, s});
    return s == 1 ? imp.reshape(loc, x, {1, rows})
                  : imp.transpose(loc, x, {1, 0});
  };
  Value r = scatterLast(imp, loc, cols(data, p), lin, cols(upd, n),
                        /*perRow=*/false, *red);
  r = s == 1 ? imp.reshape(loc, r, ds)
             : imp.reshape(loc, imp.transpose(loc, r, {1, 0}), ds);
  return imp.define(node,
                    convert(imp, loc, r, tensorType(data).getElementType()));
}

} // namespace

void nki::onnx_import::registerScatterOps(OpTable &t) {
  t["ScatterElements"] = scatterElements;
  t["Scatter"] = scatterElements; // opsets 9-10: no reduction
  t["ScatterND"] = scatterND;
}
