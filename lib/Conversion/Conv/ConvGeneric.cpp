//===- ConvGeneric.cpp - The implicit-GEMM convolution generic
//-------------===//

#include "ConvGeneric.h"
#include "../Graph/FoldConstantGenerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

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

  for (Value v : op->getOperands()) {
    auto t = dyn_cast<ShapedType>(v.getType());
    if (!t || !t.hasStaticShape() || !isa<FloatType>(t.getElementType()))
      return std::nullopt;
  }
  // Body: yield(out + a * b), a and b the input's and filter's elements.
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  Value out = body.getArgument(2);
  if (!add || (add.getLhs() != out && add.getRhs() != out))
    return std::nullopt;
  Value prod = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getType() != out.getType())
    return std::nullopt;
  // The type an operand reaches the multiply in: the argument itself, or
  // extf(arg), or extf(truncf(arg)) (rounded to the truncf's type first).
  auto operandType = [&](Value v, unsigned &arg) -> Type {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
      v = ext.getIn();
      if (auto trunc = v.getDefiningOp<arith::TruncFOp>()) {
        auto a = dyn_cast<BlockArgument>(trunc.getIn());
        if (!a || a.getOwner() != &body)
          return {};
        arg = a.getArgNumber();
        return trunc.getType();
      }
    }
    auto a = dyn_cast<BlockArgument>(v);
    if (!a || a.getOwner() != &body)
      return {};
    arg = a.getArgNumber();
    return a.getType();
  };
  unsigned argL = 9, argR = 9;
  Type tl = operandType(mul.getLhs(), argL),
       tr = operandType(mul.getRhs(), argR);
  if (!tl || !tr || !((argL == 0 && argR == 1) || (argL == 1 && argR == 0)))
    return std::nullopt;
  // Nothing else in the body: the multiply, the add and the casts feeding
  // them.
  unsigned casts = 0;
  for (Operation &inner : body.without_terminator())
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner))
      ++casts;
  if (body.getOperations().size() != 3 + casts)
    return std::nullopt;
  Type inputType = argL == 0 ? tl : tr, filterType = argL == 0 ? tr : tl;
  // The PE multiplies f32 with f32 or 16-bit types with each other.
  if (inputType.isF32() != filterType.isF32() ||
      inputType.getIntOrFloatBitWidth() < 16)
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
  g.inputType = inputType;
  g.filterType = filterType;
  return g;
}

void castConvGenericToBF16(OpBuilder &b, linalg::GenericOp op) {
  Type bf16 = b.getBF16Type();
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  bool castFilter = true;
  if (Value rounded = roundConstantToBF16(b, loc, w)) {
    w = rounded;
    castFilter = false;
  }
  auto generic = linalg::GenericOp::create(
      b, loc, op->getResultTypes(), ValueRange{x, w}, op.getDpsInits(),
      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Type f32 = nb.getF32Type();
        auto round = [&](Value v) {
          Value t = arith::TruncFOp::create(nb, l, bf16, v);
          return arith::ExtFOp::create(nb, l, f32, t).getResult();
        };
        Value xv = round(args[0]);
        Value wv = castFilter
                       ? round(args[1])
                       : arith::ExtFOp::create(nb, l, f32, args[1]).getResult();
        Value p = arith::MulFOp::create(nb, l, xv, wv);
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[2], p).getResult());
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
}

bool roundsInputToBF16(linalg::GenericOp op) {
  auto arg = op.getRegion().front().getArgument(0);
  if (!arg.getType().isF32() || !arg.hasOneUse())
    return false;
  auto trunc = dyn_cast<arith::TruncFOp>(*arg.getUsers().begin());
  return trunc && trunc.getType().isBF16();
}

void readInputInBF16(RewriterBase &rewriter, linalg::GenericOp op, Value x) {
  // In place: the op (and its result) stay, for callers that hold them (a
  // chain of convolutions, each one's result the next one's input).
  BlockArgument arg = op.getRegion().front().getArgument(0);
  auto trunc = cast<arith::TruncFOp>(*arg.getUsers().begin());
  rewriter.modifyOpInPlace(op, [&] {
    op.getDpsInputOperand(0)->set(x);
    arg.setType(trunc.getType());
  });
  rewriter.replaceAllUsesWith(trunc.getResult(), arg);
  rewriter.eraseOp(trunc);
}

Value buildDiagonalFilter(OpBuilder &b, Location loc, Value w) {
  auto type = cast<RankedTensorType>(w.getType());
  ArrayRef<int64_t> s = type.getShape();
  Type elt = type.getElementType();
  Value init = tensor::EmptyOp::create(b, loc, {s[0], s[1], s[2], s[0]}, elt);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d0, d1, d2}, ctx),
                                 AffineMap::getMultiDimIdentityMap(4, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{w}, init, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value c = linalg::IndexOp::create(nb, l, 0);
        Value f = linalg::IndexOp::create(nb, l, 3);
        Value diagonal =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c, f);
        Value zero = arith::ConstantOp::create(
            nb, l, cast<TypedAttr>(nb.getZeroAttr(elt)));
        linalg::YieldOp::create(
            nb, l,
            arith::SelectOp::create(nb, l, diagonal, args[0], zero)
                .getResult());
      });
  return generic.getResult(0);
}

/// The value `op` yields on the diagonal when it is the generic
///   d[c, kh, kw, f] = c == f ? v : 0
/// over 4 parallel loops with `inputs` inputs, its result written whole.
static std::optional<Value> diagonalValue(linalg::GenericOp op,
                                          unsigned inputs) {
  if (op.getNumDpsInputs() != inputs || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || op.getNumReductionLoops() != 0 ||
      op.getIndexingMapsArray().back() !=
          AffineMap::getMultiDimIdentityMap(4, op.getContext()))
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                    : arith::CmpIOp();
  auto dimOf = [](Value v) -> int64_t {
    auto index = v.getDefiningOp<linalg::IndexOp>();
    return index ? int64_t(index.getDim()) : -1;
  };
  FloatAttr zero;
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  int64_t l = dimOf(cmp.getLhs()), r = dimOf(cmp.getRhs());
  if (std::min(l, r) != 0 || std::max(l, r) != 3 ||
      !matchPattern(select.getFalseValue(), m_Constant(&zero)) ||
      !zero.getValue().isZero())
    return std::nullopt;
  ArrayRef<int64_t> out =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getShape();
  if (out[0] != out[3])
    return std::nullopt;
  return select.getTrueValue();
}

std::optional<Value> matchDiagonalFilter(linalg::GenericOp op) {
  std::optional<Value> v = diagonalValue(op, 1);
  MLIRContext *ctx = op.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  if (!v || *v != op.getRegion().front().getArgument(0) ||
      op.getIndexingMapsArray().front() !=
          AffineMap::get(4, 0, {d0, d1, d2}, ctx))
    return std::nullopt;
  ArrayRef<int64_t> in =
      cast<ShapedType>(op.getDpsInputs()[0].getType()).getShape();
  ArrayRef<int64_t> out =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getShape();
  if (in.size() != 3 || in != out.drop_back())
    return std::nullopt;
  return op.getDpsInputs()[0];
}

std::optional<FloatAttr> matchSplatDiagonalFilter(linalg::GenericOp op) {
  std::optional<Value> v = diagonalValue(op, 0);
  FloatAttr weight;
  if (!v || !matchPattern(*v, m_Constant(&weight)))
    return std::nullopt;
  return weight;
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

bool foldsKernelRows(int64_t channels, int64_t kh, bool fp32,
                     int64_t partitions) {
  int64_t most = fp32 ? 64 : 32;
  return kh > 1 && channels <= most && channels * kh <= partitions;
}

} // namespace nki::conv
