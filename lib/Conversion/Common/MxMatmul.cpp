//===- MxMatmul.cpp - The MX-scaled matmul as a linalg.generic
//-------------===//

#include "MxMatmul.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace {

/// (m, n, k) -> A (m, k), sA (m, k/32), B (k, n), sB (k/32, n), C (m, n).
SmallVector<AffineMap> mxMaps(MLIRContext *ctx) {
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  AffineExpr kb = k.floorDiv(nki::kMxBlock);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(3, 0, results, ctx);
  };
  return {map({m, k}), map({m, kb}), map({k, n}), map({kb, n}), map({m, n})};
}

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// `v` is arith.extf of block argument `arg` to f32.
bool isExtOf(Value v, BlockArgument arg) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext && ext.getIn() == arg && ext.getType().isF32();
}

/// `v` is the product ext(x) x ext(s) (either order).
bool isScaled(Value v, BlockArgument x, BlockArgument s) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  return mul && ((isExtOf(mul.getLhs(), x) && isExtOf(mul.getRhs(), s)) ||
                 (isExtOf(mul.getLhs(), s) && isExtOf(mul.getRhs(), x)));
}

} // namespace

Value nki::buildMxMatmul(OpBuilder &b, Location loc, Value a, Value aScale,
                         Value bMat, Value bScale, Value init) {
  auto par = utils::IteratorType::parallel;
  auto red = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{a, aScale, bMat, bScale}, init,
             mxMaps(b.getContext()), {par, par, red},
             [](OpBuilder &nb, Location l, ValueRange args) {
               Type f32 = nb.getF32Type();
               auto ext = [&](Value v) -> Value {
                 return arith::ExtFOp::create(nb, l, f32, v);
               };
               Value x =
                   arith::MulFOp::create(nb, l, ext(args[0]), ext(args[1]));
               Value y =
                   arith::MulFOp::create(nb, l, ext(args[2]), ext(args[3]));
               Value p = arith::MulFOp::create(nb, l, x, y);
               linalg::YieldOp::create(
                   nb, l, arith::AddFOp::create(nb, l, args[4], p).getResult());
             })
      .getResult(0);
}

bool nki::isMxMatmul(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 4 ||
      generic.getNumDpsInits() != 1 ||
      generic.getIndexingMapsArray() != mxMaps(op.getContext()))
    return false;
  using utils::IteratorType;
  if (generic.getIteratorTypesArray() !=
      SmallVector<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                                IteratorType::reduction})
    return false;
  Value a = generic.getDpsInputs()[0], sa = generic.getDpsInputs()[1],
        bm = generic.getDpsInputs()[2], sb = generic.getDpsInputs()[3];
  if (!tile::isFp8Type(elementTypeOf(a)) ||
      !tile::isFp8Type(elementTypeOf(bm)) ||
      !isa<Float8E8M0FNUType>(elementTypeOf(sa)) ||
      !isa<Float8E8M0FNUType>(elementTypeOf(sb)) ||
      !elementTypeOf(generic.getDpsInits()[0]).isF32())
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  BlockArgument acc = body.getArgument(4);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  BlockArgument x = body.getArgument(0), xs = body.getArgument(1),
                y = body.getArgument(2), ys = body.getArgument(3);
  return (isScaled(mul.getLhs(), x, xs) && isScaled(mul.getRhs(), y, ys)) ||
         (isScaled(mul.getLhs(), y, ys) && isScaled(mul.getRhs(), x, xs));
}
