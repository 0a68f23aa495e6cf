//===- MxMatmul.cpp - The MX-scaled matmul as a linalg.generic
//-------------===//

#include "MxMatmul.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

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

namespace {

/// What matchMx found: whether `op` is an MX matmul and, for the folded
/// form, its constant moving scale.
struct MxForm {
  bool matched = false;
  std::optional<float> splatMovingScale;
};

/// `v` is a constant f32 power of two (an e8m0 scale folded into the body).
std::optional<float> powerOfTwoConstant(Value v) {
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.getType().isF32())
    return std::nullopt;
  float f = float(attr.getValueAsDouble());
  int exp;
  if (!(f > 0) || std::frexp(f, &exp) != 0.5f)
    return std::nullopt;
  return f;
}

/// The maps of an MX generic with `inputs` operands: mxMaps, with B and sB
/// each either [K, N] (k, n) or transposed [N, K] (n, k), and without sB
/// when it is folded into the body (3 inputs).
bool hasMxMaps(linalg::GenericOp generic, unsigned inputs) {
  SmallVector<AffineMap> want = mxMaps(generic.getContext());
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (inputs < 3 || inputs > 4 || maps.size() != inputs + 1)
    return false;
  auto transposed = [](AffineMap m) {
    return AffineMap::get(3, 0, {m.getResult(1), m.getResult(0)},
                          m.getContext());
  };
  auto isB = [&](AffineMap got, AffineMap b) {
    return got == b || got == transposed(b);
  };
  return maps[0] == want[0] && maps[1] == want[1] && isB(maps[2], want[2]) &&
         (inputs == 3 || isB(maps[3], want[3])) && maps.back() == want[4];
}

bool isMxElementType(Type t) {
  return nki::tile::isFp8Type(t) || nki::tile::isFp4Type(t);
}

MxForm matchMx(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInits() != 1)
    return {};
  unsigned inputs = generic.getNumDpsInputs();
  if (!hasMxMaps(generic, inputs))
    return {};
  using utils::IteratorType;
  if (generic.getIteratorTypesArray() !=
      SmallVector<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                                IteratorType::reduction})
    return {};
  Value a = generic.getDpsInputs()[0], sa = generic.getDpsInputs()[1],
        bm = generic.getDpsInputs()[2];
  if (!isMxElementType(elementTypeOf(a)) ||
      !isMxElementType(elementTypeOf(bm)) ||
      !isa<Float8E8M0FNUType>(elementTypeOf(sa)) ||
      (inputs == 4 &&
       !isa<Float8E8M0FNUType>(elementTypeOf(generic.getDpsInputs()[3]))) ||
      !elementTypeOf(generic.getDpsInits()[0]).isF32())
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  BlockArgument acc = body.getArgument(inputs);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return {};
  BlockArgument x = body.getArgument(0), xs = body.getArgument(1),
                y = body.getArgument(2);
  auto movingScaled = [&](Value v) -> std::optional<MxForm> {
    if (inputs == 4)
      return isScaled(v, y, body.getArgument(3))
                 ? std::optional<MxForm>(MxForm{true, std::nullopt})
                 : std::nullopt;
    auto m = v.getDefiningOp<arith::MulFOp>();
    if (!m)
      return std::nullopt;
    for (auto [ext, scale] :
         {std::pair{m.getLhs(), m.getRhs()}, std::pair{m.getRhs(), m.getLhs()}})
      if (isExtOf(ext, y))
        if (std::optional<float> c = powerOfTwoConstant(scale))
          return MxForm{true, c};
    return std::nullopt;
  };
  for (auto [xSide, ySide] : {std::pair{mul.getLhs(), mul.getRhs()},
                              std::pair{mul.getRhs(), mul.getLhs()}})
    if (isScaled(xSide, x, xs))
      if (std::optional<MxForm> form = movingScaled(ySide))
        return *form;
  return {};
}

} // namespace

bool nki::isMxMatmul(linalg::LinalgOp op) { return matchMx(op).matched; }

std::optional<float> nki::mxSplatMovingScale(linalg::LinalgOp op) {
  return matchMx(op).splatMovingScale;
}
