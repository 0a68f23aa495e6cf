//===- PaddingTaps.cpp - Kernel taps that read only padding ---------------===//
//
// A convolution of a zero-padded input whose padding is wider than the
// input reaches some kernel taps only through padding: DeepLabV3's ASPP at
// 28 x 28 dilates a 3x3 kernel by 36 with 36 rows of padding, so its outer
// taps never read the image, and the convolution is a 1x1 one of the
// unpadded input. Such taps multiply zeros: they are sliced off the filter,
// and the padding the remaining taps reach is all that is kept.
//
//===----------------------------------------------------------------------===//

#include "DecomposeConv.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;

namespace {

/// One spatial dim: the input's extent and low padding, the output's
/// extent, the stride, dilation and kernel extent.
struct Dim {
  int64_t in, low, out, stride, dilation, kernel;
  /// The taps [first, last] that read the input (not only padding) for
  /// some output position; empty (first > last) when none does.
  std::pair<int64_t, int64_t> taps() const {
    int64_t first = kernel, last = -1;
    for (int64_t k = 0; k < kernel; ++k) {
      int64_t lo = k * dilation - low, hi = (out - 1) * stride + lo;
      if (hi >= 0 && lo <= in - 1) {
        first = std::min(first, k);
        last = k;
      }
    }
    return {first, last};
  }
};

struct DropPaddingTaps : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getInputs()[0].getDefiningOp<tensor::PadOp>();
    Value w = op.getInputs()[1], init = op.getOutputs()[0];
    if (!pad || op->getNumResults() != 1)
      return failure();
    FloatAttr value;
    Value padValue = pad.getConstantPaddingValue();
    auto src = dyn_cast<RankedTensorType>(pad.getSource().getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(init.getType());
    if (!padValue || !matchPattern(padValue, m_Constant(&value)) ||
        !value.getValue().isZero() || !src || !wt || !yt ||
        !src.hasStaticShape() || !wt.hasStaticShape() || !yt.hasStaticShape() ||
        pad.getStaticLow()[0] != 0 || pad.getStaticLow()[1] != 0 ||
        pad.getStaticHigh()[0] != 0 || pad.getStaticHigh()[1] != 0 ||
        llvm::any_of(pad.getStaticLow(), ShapedType::isDynamic) ||
        llvm::any_of(pad.getStaticHigh(), ShapedType::isDynamic))
      return failure();
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
    SmallVector<int64_t> first(2), count(2), start(2), end(2);
    bool trimmed = false;
    for (int d = 0; d < 2; ++d) {
      Dim dim{src.getDimSize(2 + d), pad.getStaticLow()[2 + d],
              yt.getDimSize(2 + d),  strides[d],
              dilations[d],          wt.getDimSize(2 + d)};
      auto [lo, hi] = dim.taps();
      if (lo > hi)
        return failure(); // every tap reads padding: a constant result
      first[d] = lo;
      count[d] = hi - lo + 1;
      trimmed |= count[d] < dim.kernel;
      // The input the kept taps read, in the unpadded input's coordinates:
      // [start, end), padded where it leaves the input.
      start[d] = lo * dim.dilation - dim.low;
      end[d] = (dim.out - 1) * dim.stride + (count[d] - 1) * dim.dilation +
               start[d] + 1;
    }
    if (!trimmed)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto attrs = [&](ArrayRef<int64_t> v) {
      return getAsIndexOpFoldResult(ctx, v);
    };
    ArrayRef<int64_t> ws = wt.getShape(), xs = src.getShape();
    Value filter = tensor::ExtractSliceOp::create(
        rewriter, loc, w, attrs({0, 0, first[0], first[1]}),
        attrs({ws[0], ws[1], count[0], count[1]}), attrs({1, 1, 1, 1}));
    SmallVector<int64_t> offsets = {0, 0}, sizes = {xs[0], xs[1]}, low = {0, 0},
                         high = {0, 0};
    for (int d = 0; d < 2; ++d) {
      int64_t from = std::max<int64_t>(start[d], 0);
      int64_t to = std::min(end[d], xs[2 + d]);
      offsets.push_back(from);
      sizes.push_back(to - from);
      low.push_back(from - start[d]);
      high.push_back(end[d] - to);
    }
    Value x = tensor::ExtractSliceOp::create(rewriter, loc, pad.getSource(),
                                             attrs(offsets), attrs(sizes),
                                             attrs({1, 1, 1, 1}));
    if (llvm::any_of(low, [](int64_t v) { return v; }) ||
        llvm::any_of(high, [](int64_t v) { return v; })) {
      SmallVector<int64_t> padded(sizes);
      for (int d = 0; d < 2; ++d)
        padded[2 + d] += low[2 + d] + high[2 + d];
      x = tensor::PadOp::create(
          rewriter, loc, RankedTensorType::get(padded, src.getElementType()), x,
          attrs(low), attrs(high), padValue);
    }
    rewriter.replaceOpWithNewOp<linalg::Conv2DNchwFchwOp>(
        op, TypeRange{yt}, ValueRange{x, filter}, ValueRange{init},
        op.getStrides(), op.getDilations());
    return success();
  }
};

} // namespace

void nki::populateDropPaddingTapsPatterns(RewritePatternSet &patterns) {
  patterns.add<DropPaddingTaps>(patterns.getContext());
}
