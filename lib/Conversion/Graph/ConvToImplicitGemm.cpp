//===- ConvToImplicitGemm.cpp - 2-D convolutions for implicit GEMM
//---------===//
//
// linalg.conv_2d_nchw_fchw becomes the generic of Conv/ConvGeneric.h, which
// nki-tile runs as implicit GEMM: the input is loaded into SBUF once and
// every kernel tap is one matmul over a shifted window of it, accumulated in
// PSUM, instead of an im2col gather through HBM (DecomposeConv.cpp, which
// stays the path for grouped, depthwise, 1-D and 3-D convolutions and for
// inputs whose rows do not fit). The filter goes to [C, KH, KW, F] order: a
// constant filter is permuted here, at compile time; any other through a
// linalg.transpose.
//
//===----------------------------------------------------------------------===//

#include "DecomposeConv.h"

#include "../Conv/ConvGeneric.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace {

/// The kernel keeps the filter of every input-channel block in SBUF beside
/// two bands of input rows (Tiling/Conv.cpp gives them half of SBUF); the
/// filter plus two one-output-row bands must fit half of the smallest
/// target's SBUF (trn1's 192 KiB), or the convolution takes the im2col
/// path.
constexpr int64_t kMinWorkingSetBytes = 96 * 1024;
constexpr int64_t kPartitions = 128;

/// `w` [F, C, KH, KW] as [C, KH, KW, F]; folded when it is a constant.
Value filterCKKF(OpBuilder &b, Location loc, Value w) {
  auto type = cast<RankedTensorType>(w.getType());
  ArrayRef<int64_t> s = type.getShape();
  auto outType =
      RankedTensorType::get({s[1], s[2], s[3], s[0]}, type.getElementType());
  DenseElementsAttr dense;
  if (matchPattern(w, m_Constant(&dense))) {
    if (dense.isSplat())
      return arith::ConstantOp::create(b, loc, dense.resizeSplat(outType));
    ArrayRef<char> raw = dense.getRawData();
    int64_t bytes = int64_t(raw.size()) / type.getNumElements();
    int64_t inner = s[1] * s[2] * s[3];
    std::vector<char> out(raw.size());
    // out[(ckk) * F + f] = in[f * CKK + ckk]
    for (int64_t f = 0; f < s[0]; ++f)
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(&out[size_t((i * s[0] + f) * bytes)],
                    &raw[size_t((f * inner + i) * bytes)], size_t(bytes));
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::getFromRawBuffer(outType, out));
  }
  Value init = tensor::EmptyOp::create(b, loc, outType.getShape(),
                                       outType.getElementType());
  return linalg::TransposeOp::create(b, loc, w, init,
                                     ArrayRef<int64_t>{1, 2, 3, 0})
      .getResult()[0];
}

struct ConvToImplicitGemm : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  ConvToImplicitGemm(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(init.getType());
    if (!xt || !wt || !yt || !xt.hasStaticShape() || !wt.hasStaticShape() ||
        !yt.hasStaticShape() || op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "needs static tensors");
    Type elt = xt.getElementType();
    if (!isa<FloatType>(elt) || wt.getElementType() != elt ||
        yt.getElementType() != elt || elt.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "needs one float type");
    ArrayRef<int64_t> xs = xt.getShape(), ws = wt.getShape();
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    int64_t cBlocks = (xs[1] + kPartitions - 1) / kPartitions;
    int64_t rows = (ws[2] - 1) * dilations[0] + 1;
    int64_t need = cBlocks * bytes * (ws[2] * ws[3] * ws[0] + 2 * rows * xs[3]);
    if (need > kMinWorkingSetBytes)
      return rewriter.notifyMatchFailure(op, "working set too large");
    Location loc = op.getLoc();
    Value filter = filterCKKF(rewriter, loc, w);
    rewriter.replaceOp(op, nki::conv::buildConvGeneric(
                               rewriter, loc, x, filter, init, strides[0],
                               strides[1], dilations[0], dilations[1]));
    return success();
  }
};

} // namespace

void nki::populateConvToImplicitGemmPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvToImplicitGemm>(patterns.getContext());
}
