//===- Builders.cpp - Helpers the ONNX op handlers build with -------------===//

#include "ImporterImpl.h"
#include "ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

RankedTensorType onnx_import::tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

SmallVector<int64_t> onnx_import::shapeOf(Value v) {
  return llvm::to_vector(tensorType(v).getShape());
}

std::string onnx_import::typeName(int32_t onnxType) {
  if (onnx::TensorProto_DataType_IsValid(onnxType))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(onnxType));
  return "type " + std::to_string(onnxType);
}

std::optional<SmallVector<int64_t>>
onnx_import::broadcastShape(ArrayRef<SmallVector<int64_t>> shapes) {
  size_t rank = 0;
  for (auto &s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<int64_t> out(rank, 1);
  for (auto &s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = d;
    }
  return out;
}

Value Importer::elementwise(Location loc, ValueRange operands, BodyFn body,
                            Type resultElt) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : operands)
    shapes.push_back(llvm::to_vector(tensorType(v).getShape()));
  SmallVector<int64_t> out = *broadcastShape(shapes);
  int64_t rank = out.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (Value v : operands) {
    ArrayRef<int64_t> s = tensorType(v).getShape();
    int64_t offset = rank - int64_t(s.size());
    // Numpy broadcasting: missing leading dims are dropped from the map,
    // size-1 dims against a larger one read index 0. (Collapsing the unit
    // dims away instead makes the compiler return a memref view today.)
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < int64_t(s.size()); ++i)
      exprs.push_back(s[i] == 1 && out[offset + i] != 1
                          ? b.getAffineConstantExpr(0)
                          : b.getAffineDimExpr(offset + i));
    ins.push_back(v);
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Type elt = resultElt ? resultElt : tensorType(operands[0]).getElementType();
  Value init = emptyLike(loc, out, elt);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto op = linalg::GenericOp::create(
      b, loc, init.getType(), ins, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value r = body(nb, l, args.drop_back());
        linalg::YieldOp::create(nb, l, r);
      });
  return op.getResult(0);
}

/// Max or sum over the last dim, as a tensor of the leading dims.
Value Importer::reduceLast(Location loc, Value x, bool isMax) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> outShape(t.getShape().drop_back());
  Type elt = t.getElementType();
  Value init = filled(loc, outShape, elt,
                      isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i + 1 < rank; ++i)
    outExprs.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value r =
                   isMax ? arith::MaximumFOp::create(nb, l, args[0], args[1])
                               .getResult()
                         : arith::AddFOp::create(nb, l, args[0], args[1])
                               .getResult();
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

/// body(x, row) where `row` holds one value per leading index of `x` (a
/// reduction over x's last dim), broadcast along that dim.
Value Importer::rowwise(Location loc, Value x, Value row, BodyFn body) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  SmallVector<AffineExpr> rowExprs;
  for (int64_t i = 0; i + 1 < rank; ++i)
    rowExprs.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, rowExprs, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  Value init = emptyLike(loc, t.getShape(), t.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, row}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

/// Any static reshape: collapse to 1-D, then expand to the target.
Value Importer::reshape(Location loc, Value x, ArrayRef<int64_t> shape) {
  RankedTensorType t = tensorType(x);
  if (t.getShape() == shape)
    return x;
  Type elt = t.getElementType();
  if (t.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < t.getRank(); ++i)
      all.push_back(i);
    SmallVector<ReassociationIndices> groups;
    if (t.getRank() > 0)
      groups.push_back(all);
    x = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({t.getNumElements()}, elt), x, groups);
  }
  if (shape.size() == 1)
    return x;
  ReassociationIndices all;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i)
    all.push_back(i);
  SmallVector<ReassociationIndices> groups;
  if (!shape.empty())
    groups.push_back(all);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({}, elt), x, groups);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, elt), x, groups);
}

Value Importer::transpose(Location loc, Value x, ArrayRef<int64_t> perm) {
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  Value init = emptyLike(loc, shape, t.getElementType());
  return linalg::TransposeOp::create(b, loc, x, init, perm).getResult()[0];
}

/// ONNX MatMul for ranks >= 2: 2-D is linalg.matmul; a rank-N A against a
/// 2-D B folds A's leading dims into rows; equal batch dims fold into one
/// batch of linalg.batch_matmul.
FailureOr<Value> Importer::matmul(Location loc, Value a, Value bm) {
  RankedTensorType ta = tensorType(a), tb = tensorType(bm);
  int64_t ra = ta.getRank(), rb = tb.getRank();
  Type elt = ta.getElementType();
  if (ra < 2 || rb < 2)
    return emitError(loc) << "MatMul of rank " << ra << " by rank " << rb
                          << " is not supported yet (both must be >= 2)";
  int64_t k = ta.getDimSize(ra - 1);
  if (tb.getDimSize(rb - 2) != k)
    return emitError(loc) << "MatMul contraction sizes differ: " << k << " and "
                          << tb.getDimSize(rb - 2);
  int64_t m = ta.getDimSize(ra - 2), n = tb.getDimSize(rb - 1);
  SmallVector<int64_t> outShape(ta.getShape().drop_back());
  outShape.push_back(n);
  if (rb == 2) {
    int64_t rows = ta.getNumElements() / k;
    Value a2 = reshape(loc, a, {rows, k});
    Value init = filled(loc, {rows, n}, elt, 0.0);
    Value r =
        linalg::MatmulOp::create(b, loc, ValueRange{a2, bm}, ValueRange{init})
            .getResult(0);
    return reshape(loc, r, outShape);
  }
  if (ra == 2) {
    // One A for every batch of B (a constant matrix times each channel):
    // one batch matmul whose A map has no batch dim.
    int64_t batch = tb.getNumElements() / (k * n);
    SmallVector<int64_t> shape(tb.getShape().drop_back(2));
    shape.append({m, n});
    Value b3 = reshape(loc, bm, {batch, k, n});
    Value init = filled(loc, {batch, m, n}, elt, 0.0);
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    auto map = [&](ArrayRef<AffineExpr> results) {
      return AffineMapAttr::get(AffineMap::get(4, 0, results, ctx));
    };
    NamedAttribute maps(
        b.getStringAttr("indexing_maps"),
        b.getArrayAttr({map({d1, d3}), map({d0, d3, d2}), map({d0, d1, d2})}));
    Value r = linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                            ValueRange{a, b3}, ValueRange{init},
                                            {maps})
                  .getResult(0);
    return reshape(loc, r, shape);
  }
  if (ra != rb || ta.getShape().drop_back(2) != tb.getShape().drop_back(2))
    return emitError(loc) << "MatMul with broadcast batch dims (" << ta
                          << " by " << tb << ") is not supported yet";
  int64_t batch = ta.getNumElements() / (m * k);
  Value a3 = reshape(loc, a, {batch, m, k});
  Value b3 = reshape(loc, bm, {batch, k, n});
  Value init = filled(loc, {batch, m, n}, elt, 0.0);
  Value r = linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3},
                                          ValueRange{init})
                .getResult(0);
  return reshape(loc, r, outShape);
}

Value Importer::matmulAlong(Location loc, Value x, int64_t axis, int64_t m,
                            ArrayRef<double> w, ArrayRef<double> bias) {
  RankedTensorType t = tensorType(x);
  Type elt = t.getElementType();
  int64_t rank = t.getRank(), n = t.getDimSize(axis);
  assert(int64_t(w.size()) == m * n && "matmulAlong: weights are not [m, n]");
  assert((bias.empty() || int64_t(bias.size()) == m) && "matmulAlong: bias");
  int64_t pre = 1, post = 1;
  for (int64_t d = 0; d < axis; ++d)
    pre *= t.getDimSize(d);
  for (int64_t d = axis + 1; d < rank; ++d)
    post *= t.getDimSize(d);
  SmallVector<int64_t> outShape(t.getShape());
  outShape[axis] = m;
  auto mm = [&](Value a, Value bm) { return *matmul(loc, a, bm); };
  // The bias, one value per output index along the axis, shaped to
  // broadcast against the matmul's result.
  auto addBias = [&](Value y, ArrayRef<int64_t> biasShape) {
    if (bias.empty())
      return y;
    Value bv = denseFloatConstant(*this, loc, biasShape, elt, bias);
    return elementwise(
        loc, {y, bv}, [](OpBuilder &nb, Location l, ValueRange v) {
          return arith::AddFOp::create(nb, l, v[0], v[1]).getResult();
        });
  };
  if (pre == 1 && post > 1) {
    // Nothing precedes the axis: W [m, n] times x viewed as [n, post].
    Value wm = denseFloatConstant(*this, loc, {m, n}, elt, w);
    Value y = addBias(mm(wm, reshape(loc, x, {n, post})), {m, 1});
    return reshape(loc, y, outShape);
  }
  // W^T [n, m], for x times it from the right.
  auto transposedWeights = [&] {
    SmallVector<double> wt(n * m);
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < n; ++i)
        wt[i * m + o] = w[o * n + i];
    return denseFloatConstant(*this, loc, {n, m}, elt, wt);
  };
  if (post == 1) {
    // The last axis: x viewed as [pre, n] times W^T.
    Value y = addBias(mm(reshape(loc, x, {pre, n}), transposedWeights()), {m});
    return reshape(loc, y, outShape);
  }
  // An axis in the middle with long rows after it: W [m, n] times each of
  // the pre [n, post] slices, one batch matmul whose A is W for every batch.
  // A segmentation net's bilinear resize of its [21, 28, 224] logits to
  // 224 rows: 55.0 -> 34.2 us under auto-cast on trn2 (the transposes below
  // moved 14 MB for a 4.2 MB result). Each batch is a matmul of `post`
  // columns, and short ones pay the PE's fixed costs a batch: a [128, 14,
  // 28] resize to 28 rows takes 39.2 us with the transposes, 72.3 so.
  constexpr int64_t kMinBatchColumns = 96; // 112 gain, 56 lose
  if (post >= kMinBatchColumns) {
    Value wm = denseFloatConstant(*this, loc, {m, n}, elt, w);
    Value y3 = addBias(mm(wm, reshape(loc, x, {pre, n, post})), {m, 1});
    return reshape(loc, y3, outShape);
  }
  // Else the axis moved last: [pre, post, n] times W^T, and back.
  Value wtm = transposedWeights();
  Value x3 = transpose(loc, reshape(loc, x, {pre, n, post}), {0, 2, 1});
  Value y3 = addBias(mm(x3, wtm), {m});
  return reshape(loc, transpose(loc, y3, {0, 2, 1}), outShape);
}

const onnx::AttributeProto *onnx_import::findAttr(const onnx::NodeProto &node,
                                                  StringRef name) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}
int64_t onnx_import::intAttr(const onnx::NodeProto &node, StringRef name,
                             int64_t dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->i() : dflt;
}
float onnx_import::floatAttr(const onnx::NodeProto &node, StringRef name,
                             float dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->f() : dflt;
}

Value onnx_import::constLike(OpBuilder &b, Location l, Value like, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(like.getType(), v));
}

std::string onnx_import::stringAttr(const onnx::NodeProto &node, StringRef name,
                                    StringRef dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>>
onnx_import::intsAttr(const onnx::NodeProto &node, StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

Value Importer::emptyLike(Location loc, ArrayRef<int64_t> shape, Type elt) {
  return tensor::EmptyOp::create(b, loc, shape, elt);
}

Value Importer::filled(Location loc, ArrayRef<int64_t> shape, Type elt,
                       double v) {
  Value c = arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, v));
  return linalg::FillOp::create(b, loc, c, emptyLike(loc, shape, elt))
      .getResult(0);
}

Value Importer::gatherLast(Location loc, Value x, Value idx, bool perRow) {
  RankedTensorType t = tensorType(x), it = tensorType(idx);
  auto idxElt = cast<IntegerType>(it.getElementType());
  Type elt = t.getElementType();
  int64_t m = t.getDimSize(0), dim = t.getDimSize(1);
  int64_t n = it.getDimSize(it.getRank() - 1);
  SmallVector<APInt> iota;
  for (int64_t j = 0; j < dim; ++j)
    iota.push_back(APInt(idxElt.getWidth(), j, /*isSigned=*/true));
  Value iotaV = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({dim}, idxElt), iota));
  Value zero =
      arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(elt)));
  Value init = linalg::FillOp::create(b, loc, ValueRange{zero},
                                      ValueRange{emptyLike(loc, {m, n}, elt)})
                   .getResult(0);
  AffineExpr dm = b.getAffineDimExpr(0), dn = b.getAffineDimExpr(1),
             dj = b.getAffineDimExpr(2);
  SmallVector<AffineExpr> idxExprs = {dn};
  if (perRow)
    idxExprs.insert(idxExprs.begin(), dm);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, {dm, dj}, ctx), AffineMap::get(3, 0, idxExprs, ctx),
      AffineMap::get(3, 0, {dj}, ctx), AffineMap::get(3, 0, {dm, dn}, ctx)};
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  bool isFloat = isa<FloatType>(elt);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, idx, iotaV},
             ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value zeroI = arith::ConstantOp::create(
                   nb, l, nb.getIntegerAttr(idxElt, 0));
               Value dimI = arith::ConstantOp::create(
                   nb, l, nb.getIntegerAttr(idxElt, dim));
               Value neg = arith::CmpIOp::create(
                   nb, l, arith::CmpIPredicate::slt, a[1], zeroI);
               Value i = arith::SelectOp::create(
                   nb, l, neg, arith::AddIOp::create(nb, l, a[1], dimI), a[1]);
               Value hit = arith::CmpIOp::create(
                   nb, l, arith::CmpIPredicate::eq, i, a[2]);
               Value z = arith::ConstantOp::create(
                   nb, l, cast<TypedAttr>(nb.getZeroAttr(elt)));
               Value v = arith::SelectOp::create(nb, l, hit, a[0], z);
               Value sum =
                   isFloat ? arith::AddFOp::create(nb, l, a[3], v).getResult()
                           : arith::AddIOp::create(nb, l, a[3], v).getResult();
               linalg::YieldOp::create(nb, l, sum);
             })
      .getResult(0);
}

/// To BOOL is `!= 0`; float to int truncates toward zero; narrowing
/// integers saturate on the device (docs/onnx.md).
Value nki::onnx_import::castScalar(OpBuilder &b, Location l, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(from));
    if (isa<IntegerType>(from))
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, zero);
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, x, zero);
  }
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF) {
    if (fromF.getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, l, to, x);
    return arith::TruncFOp::create(b, l, to, x);
  }
  if (toF)
    return from.isInteger(1) ? arith::UIToFPOp::create(b, l, to, x).getResult()
                             : arith::SIToFPOp::create(b, l, to, x).getResult();
  if (fromF)
    return arith::FPToSIOp::create(b, l, to, x);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return from.isInteger(1) ? arith::ExtUIOp::create(b, l, to, x).getResult()
                             : arith::ExtSIOp::create(b, l, to, x).getResult();
  return arith::TruncIOp::create(b, l, to, x);
}

Value nki::onnx_import::broadcastValue(Importer &imp, Location loc, Value x,
                                       ArrayRef<int64_t> shape) {
  RankedTensorType t = tensorType(x);
  if (t.getShape() == shape)
    return x;
  OpBuilder &b = imp.b;
  int64_t rank = shape.size(), offset = rank - t.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < t.getRank(); ++i)
    exprs.push_back(t.getDimSize(i) == 1 && shape[offset + i] != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(offset + i));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, imp.ctx),
                                 b.getMultiDimIdentityMap(rank)};
  Value init = imp.emptyLike(loc, shape, t.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x}, ValueRange{init}, maps,
             iters,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}
