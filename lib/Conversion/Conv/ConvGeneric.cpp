//===- ConvGeneric.cpp - The implicit-GEMM convolution generic
//-------------===//

#include "ConvGeneric.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace nki::conv {

namespace {

enum Dim { N, F, OH, OW, C, KH, KW, kNumDims };

SmallVector<AffineMap> convMaps(MLIRContext *ctx, int64_t sh, int64_t sw,
                                int64_t dh, int64_t dw) {
  auto d = [&](int i) { return getAffineDimExpr(i, ctx); };
  AffineMap x = AffineMap::get(
      kNumDims, 0,
      {d(N), d(C), d(OH) * sh + d(KH) * dh, d(OW) * sw + d(KW) * dw}, ctx);
  AffineMap w = AffineMap::get(kNumDims, 0, {d(C), d(KH), d(KW), d(F)}, ctx);
  AffineMap y = AffineMap::get(kNumDims, 0, {d(N), d(F), d(OH), d(OW)}, ctx);
  return {x, w, y};
}

/// The coefficient of dim `dim` in the linear expression `e`, or nullopt
/// when `e` is not a sum of dims times constants.
std::optional<int64_t> coefficient(AffineExpr e, unsigned dim) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() == dim ? 1 : 0;
  if (isa<AffineConstantExpr>(e))
    return 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  if (bin.getKind() == AffineExprKind::Add) {
    std::optional<int64_t> l = coefficient(bin.getLHS(), dim),
                           r = coefficient(bin.getRHS(), dim);
    if (!l || !r)
      return std::nullopt;
    return *l + *r;
  }
  if (bin.getKind() == AffineExprKind::Mul) {
    auto k = dyn_cast<AffineConstantExpr>(bin.getRHS());
    std::optional<int64_t> l = coefficient(bin.getLHS(), dim);
    if (!k || !l)
      return std::nullopt;
    return *l * k.getValue();
  }
  return std::nullopt;
}

} // namespace

std::optional<ConvGeneric> matchConvGeneric(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != kNumDims || op->getNumResults() > 1)
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (int i = 0; i < kNumDims; ++i)
    if (iters[i] != (i < C ? utils::IteratorType::parallel
                           : utils::IteratorType::reduction))
      return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0].getNumResults() != 4)
    return std::nullopt;
  std::optional<int64_t> sh = coefficient(maps[0].getResult(2), OH),
                         dh = coefficient(maps[0].getResult(2), KH),
                         sw = coefficient(maps[0].getResult(3), OW),
                         dw = coefficient(maps[0].getResult(3), KW);
  if (!sh || !dh || !sw || !dw || *sh < 1 || *dh < 1 || *sw < 1 || *dw < 1 ||
      maps != convMaps(op.getContext(), *sh, *sw, *dh, *dw))
    return std::nullopt;

  // Body: yield(out + x * w) on one float type.
  Type elt;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<MemRefType>(v.getType());
    auto rt = dyn_cast<RankedTensorType>(v.getType());
    ShapedType s = t ? ShapedType(t) : ShapedType(rt);
    if (!s || !s.hasStaticShape() || (elt && s.getElementType() != elt))
      return std::nullopt;
    elt = s.getElementType();
  }
  if (!isa<FloatType>(elt))
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3)
    return std::nullopt;
  Value out = body.getArgument(2);
  Value prod = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != out && add.getRhs() != out))
    return std::nullopt;
  Value a0 = body.getArgument(0), a1 = body.getArgument(1);
  if (!((mul.getLhs() == a0 && mul.getRhs() == a1) ||
        (mul.getLhs() == a1 && mul.getRhs() == a0)))
    return std::nullopt;

  auto shape = [&](int i) {
    return cast<ShapedType>(op->getOperand(i).getType()).getShape();
  };
  ConvGeneric g;
  g.n = shape(0)[0];
  g.c = shape(0)[1];
  g.h = shape(0)[2];
  g.w = shape(0)[3];
  g.kh = shape(1)[1];
  g.kw = shape(1)[2];
  g.f = shape(1)[3];
  g.oh = shape(2)[2];
  g.ow = shape(2)[3];
  g.strideH = *sh;
  g.strideW = *sw;
  g.dilationH = *dh;
  g.dilationW = *dw;
  return g;
}

Value buildConvGeneric(OpBuilder &b, Location loc, Value x, Value w, Value init,
                       int64_t strideH, int64_t strideW, int64_t dilationH,
                       int64_t dilationW) {
  SmallVector<utils::IteratorType> iters(kNumDims,
                                         utils::IteratorType::parallel);
  for (int i = C; i < kNumDims; ++i)
    iters[i] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{x, w}, init,
      convMaps(b.getContext(), strideH, strideW, dilationH, dilationW), iters,
      [](OpBuilder &nb, Location l, ValueRange args) {
        Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[2], p).getResult());
      });
  return generic.getResult(0);
}

} // namespace nki::conv
