//===- QuantizeFp8.cpp - --auto-cast=fp8 for matmuls of weights -----------===//
//
// Per-tensor scales for weights (known at compile time) and per-row scales
// for activations (a row maximum before the matmul): both factor out of the
// contraction, so the product in PSUM needs one multiply by a [P, 1] column
// to come back to the f32 result. A per-row scale follows each token's own
// range, which a per-tensor activation scale would need calibration data
// for.
//
//===----------------------------------------------------------------------===//

#include "QuantizeFp8.h"
#include "QuantizeUtils.h"

#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Types.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace nki::quantize;
namespace isa = nki::isa;

namespace {

/// The smallest row maximum a scale is taken from: a zero row stays zero,
/// and no scale overflows.
constexpr float kMinRowMax = 1e-12f;

/// `dense` divided by `scale` and rounded to fp8 e4m3 as the machine rounds
/// (nearest even, saturating).
DenseElementsAttr toFp8(DenseElementsAttr dense, float scale) {
  SmallVector<char> bytes;
  bytes.reserve(dense.getNumElements());
  for (float v : dense.getValues<float>())
    bytes.push_back(char(nki::isa::floatToFp8E4M3(v / scale)));
  auto type = cast<RankedTensorType>(dense.getType())
                  .clone(Float8E4M3FNType::get(dense.getContext()));
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

} // namespace

bool nki::quantizeMatmulToFp8(RewriterBase &rewriter, linalg::MatmulOp op) {
  Value a = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  auto cType = cast<RankedTensorType>(init.getType());
  DenseElementsAttr dense;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), k = getAffineDimExpr(2, ctx);
  if (!aType.getElementType().isF32() || !cType.getElementType().isF32() ||
      !matchPattern(w, m_Constant(&dense)) || !dense.getElementType().isF32() ||
      op.getIndexingMapsArray()[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      !isZeroFill(init))
    return false;

  float wMax = 0;
  for (float v : dense.getValues<float>())
    wMax = std::max(wMax, std::fabs(v));
  if (!std::isfinite(wMax))
    return false;
  float wScale = wMax > 0 ? wMax / kFp8E4M3Max : 1.0f;
  DenseElementsAttr w8Values = toFp8(dense, wScale);
  // The weight's rounding error, ||W - sW x W8|| / ||W||: the part of the
  // accuracy cost known at compile time (nki-compile --report lists it).
  double errSq = 0, normSq = 0;
  for (auto [v, q] :
       llvm::zip(dense.getValues<float>(), w8Values.getRawData())) {
    double back = double(isa::fp8E4M3ToFloat(uint8_t(q))) * wScale;
    errSq += (double(v) - back) * (double(v) - back);
    normSq += double(v) * double(v);
  }
  double weightError = normSq > 0 ? std::sqrt(errSq / normSq) : 0.0;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  Type f8 = Float8E4M3FNType::get(ctx);
  int64_t rows = aType.getDimSize(0);
  auto par = utils::IteratorType::parallel;
  auto red = utils::IteratorType::reduction;
  AffineMap id2 = rewriter.getMultiDimIdentityMap(2);
  AffineMap row = AffineMap::get(2, 0, {rewriter.getAffineDimExpr(0)}, ctx);
  AffineMap id1 = rewriter.getMultiDimIdentityMap(1);
  auto f32Const = [&](OpBuilder &b, Location l, float v) -> Value {
    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
  };

  // a[m] = max(max_k |A[m, k]|, kMinRowMax)
  Value zero = f32Const(rewriter, loc, 0.0f);
  Value rowInit =
      linalg::FillOp::create(
          rewriter, loc, zero,
          tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows}, f32)
              .getResult())
          .getResult(0);
  Value rowMax = generic(
      rewriter, loc, a, rowInit, {id2, row}, {par, red},
      [](OpBuilder &b, Location l, ValueRange args) {
        Value abs = math::AbsFOp::create(b, l, args[0]);
        return arith::MaximumFOp::create(b, l, abs, args[1]).getResult();
      });
  // A8[m, k] = fp8(A[m, k] x 448 / a[m]), the scale computed in the body
  // from the row maximum: the maximum and this op are then one row kernel
  // (RowGroup.cpp) that reads A once, the scale a [P, 1] column.
  Value a8Init =
      tensor::EmptyOp::create(rewriter, loc, aType.getShape(), f8).getResult();
  Value a8 = generic(
      rewriter, loc, ValueRange{a, rowMax}, a8Init, {id2, row, id2}, {par, par},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value clamped = arith::MaximumFOp::create(b, l, args[1],
                                                  f32Const(b, l, kMinRowMax));
        Value scale =
            arith::DivFOp::create(b, l, f32Const(b, l, kFp8E4M3Max), clamped);
        Value scaled = arith::MulFOp::create(b, l, args[0], scale);
        return arith::TruncFOp::create(b, l, f8, scaled).getResult();
      });
  // a[m] x sW / 448, which dequantises the product.
  Value dequant = generic(
      rewriter, loc, rowMax,
      tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows}, f32)
          .getResult(),
      {id1, id1}, {par}, [&](OpBuilder &b, Location l, ValueRange args) {
        Value clamped = arith::MaximumFOp::create(b, l, args[0],
                                                  f32Const(b, l, kMinRowMax));
        return arith::MulFOp::create(b, l, clamped,
                                     f32Const(b, l, wScale / kFp8E4M3Max))
            .getResult();
      });
  Value w8 = arith::ConstantOp::create(rewriter, loc, w8Values);

  auto matmul =
      linalg::MatmulOp::create(rewriter, loc, op->getResultTypes(),
                               ValueRange{a8, w8}, init, keptAttributes(op));
  matmul->setAttr(nki::tile::kFp8WeightErrorAttr,
                  rewriter.getF64FloatAttr(weightError));
  Value product = matmul.getResult(0);
  // C[m, n] = P[m, n] x a[m] x sW / 448
  Value cInit = tensor::EmptyOp::create(rewriter, loc, cType.getShape(), f32);
  Value c = generic(
      rewriter, loc, ValueRange{product, dequant}, cInit, {id2, row, id2},
      {par, par}, [](OpBuilder &b, Location l, ValueRange args) {
        return arith::MulFOp::create(b, l, args[0], args[1]).getResult();
      });
  rewriter.replaceOp(op, c);
  return true;
}
