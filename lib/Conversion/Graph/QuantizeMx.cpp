//===- QuantizeMx.cpp - --auto-cast=mxfp8/mxfp4 for weights' matmuls ------===//
//
// OCP microscaling: every 32 contraction elements share a power-of-two
// scale, so a block's values use e4m3's (e2m1's) whole range whatever the
// tensor's spread, and the PE applies the scales itself (matmul_mx, trn3). The
// weight's blocks are quantised here; the activation's at run time by
// three generics nki-tile fuses into one row kernel: the block maxima, their
// e8m0 scales, the division and rounding.
//
//===----------------------------------------------------------------------===//

#include "QuantizeMx.h"
#include "QuantizeUtils.h"

#include "../Common/MxMatmul.h"

#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Types.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace nki::quantize;
namespace isa = nki::isa;

namespace {

/// A format's element: its rounding store and the value of a code.
uint8_t toCode(nki::MxFormat f, float v) {
  return f == nki::MxFormat::Fp4 ? isa::floatToFp4E2M1(v)
                                 : isa::floatToFp8E4M3(v);
}
float fromCode(nki::MxFormat f, uint8_t code) {
  return f == nki::MxFormat::Fp4 ? isa::fp4E2M1ToFloat(code)
                                 : isa::fp8E4M3ToFloat(code);
}

/// W [K, N] (as `read` gives element (k, n)) in blocks of `format`: the
/// codes (a byte each, as a dense attribute holds them), the e8m0 scales
/// [K/32, N] and the relative rounding error.
struct MxWeight {
  SmallVector<char> values, scales;
  double error = 0;
};

MxWeight quantizeWeight(int64_t K, int64_t N, nki::MxFormat format,
                        function_ref<float(int64_t, int64_t)> read) {
  MxWeight w;
  w.values.resize(K * N);
  w.scales.resize(K / nki::kMxBlock * N);
  double errSq = 0, normSq = 0;
  for (int64_t j = 0; j < K / nki::kMxBlock; ++j)
    for (int64_t n = 0; n < N; ++n) {
      float amax = 0;
      for (int64_t i = 0; i < nki::kMxBlock; ++i)
        amax = std::max(amax, std::fabs(read(j * nki::kMxBlock + i, n)));
      uint8_t code = isa::floatToE8M0(amax * nki::mxScaleFactor(format));
      w.scales[j * N + n] = char(code);
      float scale = isa::e8m0ToFloat(code);
      for (int64_t i = 0; i < nki::kMxBlock; ++i) {
        int64_t k = j * nki::kMxBlock + i;
        float v = read(k, n);
        uint8_t q = toCode(format, v / scale);
        w.values[k * N + n] = char(q);
        double back = double(fromCode(format, q)) * scale;
        errSq += (double(v) - back) * (double(v) - back);
        normSq += double(v) * double(v);
      }
    }
  w.error = normSq > 0 ? std::sqrt(errSq / normSq) : 0.0;
  return w;
}

} // namespace

float nki::mxScaleFactor(MxFormat format) {
  return 1.5f / (format == MxFormat::Fp4 ? 6.0f : 448.0f);
}

bool nki::quantizeMatmulToMx(RewriterBase &rewriter, linalg::MatmulOp op,
                             MxFormat format) {
  Value a = op.getDpsInputs()[0], w = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  auto cType = cast<RankedTensorType>(init.getType());
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  DenseElementsAttr dense;
  bool wKN = maps[1] == AffineMap::get(3, 0, {k, n}, ctx);
  bool wNK = maps[1] == AffineMap::get(3, 0, {n, k}, ctx);
  int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
          N = cType.getDimSize(1);
  if (!aType.getElementType().isF32() || !cType.getElementType().isF32() ||
      !matchPattern(w, m_Constant(&dense)) || !dense.getElementType().isF32() ||
      maps[0] != AffineMap::get(3, 0, {m, k}, ctx) || !(wKN || wNK) ||
      !isZeroFill(init) || K % kMxBlock)
    return false;
  SmallVector<float> wf(dense.getValues<float>()); // a splat's too
  for (float v : wf)
    if (!std::isfinite(v))
      return false;
  MxWeight q = quantizeWeight(K, N, format, [&](int64_t kk, int64_t nn) {
    return wKN ? wf[kk * N + nn] : wf[nn * K + kk];
  });

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  float factor = mxScaleFactor(format);
  Type f32 = rewriter.getF32Type(), e8m0 = Float8E8M0FNUType::get(ctx);
  Type qType = format == MxFormat::Fp4 ? Type(Float4E2M1FNType::get(ctx))
                                       : Type(Float8E4M3FNType::get(ctx));
  int64_t blocks = K / kMxBlock;
  auto par = utils::IteratorType::parallel;
  auto red = utils::IteratorType::reduction;
  AffineMap id3 = rewriter.getMultiDimIdentityMap(3);
  AffineMap id2 = rewriter.getMultiDimIdentityMap(2);
  AffineMap rowBlock = AffineMap::get(
      3, 0, {rewriter.getAffineDimExpr(0), rewriter.getAffineDimExpr(1)}, ctx);
  auto empty = [&](ArrayRef<int64_t> shape, Type t) -> Value {
    return tensor::EmptyOp::create(rewriter, loc, shape, t);
  };
  auto f32Const = [](OpBuilder &b, Location l, float v) -> Value {
    return arith::ConstantOp::create(b, l, b.getF32FloatAttr(v));
  };
  SmallVector<ReassociationIndices> split = {{0}, {1, 2}};

  // A as [M, K/32, 32]; the block maxima [M, K/32].
  Value blocked = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({M, blocks, kMxBlock}, f32), a,
      split);
  Value zero =
      linalg::FillOp::create(rewriter, loc, f32Const(rewriter, loc, 0.0f),
                             empty({M, blocks}, f32))
          .getResult(0);
  Value amax = generic(
      rewriter, loc, blocked, zero, {id3, rowBlock}, {par, par, red},
      [](OpBuilder &b, Location l, ValueRange args) {
        Value abs = math::AbsFOp::create(b, l, args[0]);
        return arith::MaximumFOp::create(b, l, abs, args[1]).getResult();
      });
  // sA = e8m0(amax x 1.5 / 448) (/ 6), rounded as the machine stores e8m0.
  Value scales = generic(
      rewriter, loc, amax, empty({M, blocks}, e8m0), {id2, id2}, {par, par},
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value s = arith::MulFOp::create(b, l, args[0], f32Const(b, l, factor));
        return arith::TruncFOp::create(b, l, e8m0, s).getResult();
      });
  // Aq = e4m3(A / sA) (e2m1): dividing by a power of two is exact.
  Value aqBlocked =
      generic(rewriter, loc, ValueRange{blocked, scales},
              empty({M, blocks, kMxBlock}, qType), {id3, rowBlock, id3},
              {par, par, par}, [&](OpBuilder &b, Location l, ValueRange args) {
                Value s = arith::ExtFOp::create(b, l, f32, args[1]);
                Value x = arith::DivFOp::create(b, l, args[0], s);
                return arith::TruncFOp::create(b, l, qType, x).getResult();
              });
  Value aq = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({M, K}, qType), aqBlocked, split);

  auto constant = [&](ArrayRef<int64_t> shape, Type t, ArrayRef<char> bytes) {
    return arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::getFromRawBuffer(RankedTensorType::get(shape, t),
                                            bytes));
  };
  Value wq = constant({K, N}, qType, q.values);
  Value wScales = constant({blocks, N}, e8m0, q.scales);
  Value c = buildMxMatmul(rewriter, loc, aq, scales, wq, wScales, init);
  Operation *mx = c.getDefiningOp();
  for (NamedAttribute attr : op->getDiscardableAttrs())
    mx->setAttr(attr.getName(), attr.getValue());
  // The report's record, on the function: linalg may rebuild the generic.
  auto func = op->getParentOfType<FunctionOpInterface>();
  SmallVector<Attribute> errors;
  if (auto old = func->getAttrOfType<ArrayAttr>(tile::kMxWeightErrorsAttr))
    errors.append(old.begin(), old.end());
  errors.push_back(rewriter.getArrayAttr(
      {LocationAttr(op.getLoc()), rewriter.getF64FloatAttr(q.error)}));
  func->setAttr(tile::kMxWeightErrorsAttr, rewriter.getArrayAttr(errors));
  rewriter.replaceOp(op, c);
  return true;
}
