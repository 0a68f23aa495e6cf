//===- ConvToImplicitGemm.cpp - 2-D convolutions for implicit GEMM
//---------===//
//
// linalg.conv_2d_nchw_fchw becomes the generic of Conv/ConvGeneric.h, which
// nki-tile runs as implicit GEMM: the input is loaded into SBUF once and
// every kernel tap is one matmul over a shifted window of it, accumulated in
// PSUM, instead of an im2col gather through HBM (DecomposeConv.cpp, which
// stays the path for 1-D and 3-D convolutions, non-constant grouped and
// depthwise filters, and inputs whose rows do not fit). Depthwise and
// grouped convolutions become dense ones per block of channels. The filter goes
// to [C, KH, KW, F] order: a constant filter is permuted here, at compile time;
// any other through a linalg.transpose.
//
//===----------------------------------------------------------------------===//

#include "DecomposeConv.h"

#include "../Conv/ConvGeneric.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

using namespace mlir;

namespace {

/// The kernel keeps the filter of every input-channel block in SBUF beside
/// two bands of input rows (Tiling/Conv.cpp gives them half of SBUF); the
/// filter plus two one-output-row bands must fit half of the chosen
/// target's SBUF, or the convolution takes the im2col path.
int64_t workingSetBytes(const nki::isa::TargetDesc &target) {
  return target.sbufBytesPerPartition / 2;
}

/// out[c * rows + r] = in[r * cols + c] for elements of `bytes` bytes, in
/// square blocks that stay in cache (ResNet-50's filters, 100 MB, took a
/// seventh of its compile one strided element at a time).
template <typename T>
void transposeBlocks(const T *in, T *out, int64_t rows, int64_t cols) {
  constexpr int64_t kBlock = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock)
      for (int64_t r = r0, re = std::min(rows, r0 + kBlock); r < re; ++r)
        for (int64_t c = c0, ce = std::min(cols, c0 + kBlock); c < ce; ++c)
          out[c * rows + r] = in[r * cols + c];
}

void transposeElements(const char *in, char *out, int64_t rows, int64_t cols,
                       int64_t bytes) {
  switch (bytes) {
  case 4:
    return transposeBlocks(reinterpret_cast<const uint32_t *>(in),
                           reinterpret_cast<uint32_t *>(out), rows, cols);
  case 2:
    return transposeBlocks(reinterpret_cast<const uint16_t *>(in),
                           reinterpret_cast<uint16_t *>(out), rows, cols);
  case 1:
    return transposeBlocks(reinterpret_cast<const uint8_t *>(in),
                           reinterpret_cast<uint8_t *>(out), rows, cols);
  default:
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(out + (c * rows + r) * bytes, in + (r * cols + c) * bytes,
                    size_t(bytes));
  }
}

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
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    std::unique_ptr<char[]> out(new char[raw.size()]); // not zero-filled
    // out[ckk * F + f] = in[f * CKK + ckk]
    transposeElements(raw.data(), out.get(), s[0], s[1] * s[2] * s[3], bytes);
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::getFromRawBuffer(
            outType, ArrayRef<char>(out.get(), raw.size())));
  }
  Value init = tensor::EmptyOp::create(b, loc, outType.getShape(),
                                       outType.getElementType());
  return linalg::TransposeOp::create(b, loc, w, init,
                                     ArrayRef<int64_t>{1, 2, 3, 0})
      .getResult()[0];
}

/// Channel slices of a convolution's [N, C, H, W] input `x`: of a padded
/// input, the pad of the source's slice (found through reshapes that give
/// back its shape: the importer flattens and expands the input of a grouped
/// convolution), so that the kernel still sets each slice's padding on
/// chip; else a slice of `x`.
class ChannelSlices {
public:
  explicit ChannelSlices(Value x) : x(x) {
    Value unshaped = x;
    while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        unshaped.getDefiningOp()))
      unshaped = unshaped.getDefiningOp()->getOperand(0);
    if (unshaped.getType() == x.getType())
      pad = unshaped.getDefiningOp<tensor::PadOp>();
    if (pad && (!pad.getConstantPaddingValue() || pad.getStaticLow()[1] != 0 ||
                pad.getStaticHigh()[1] != 0))
      pad = {};
  }

  /// Channels [c0, c0 + cb) of `x`.
  Value get(OpBuilder &b, Location loc, int64_t c0, int64_t cb) {
    auto xt = cast<RankedTensorType>(x.getType());
    if (cb == xt.getShape()[1])
      return x;
    if (!pad)
      return slice(b, loc, x, c0, cb);
    SmallVector<int64_t> padded(xt.getShape());
    padded[1] = cb;
    return tensor::PadOp::create(
        b, loc, RankedTensorType::get(padded, xt.getElementType()),
        slice(b, loc, pad.getSource(), c0, cb), pad.getMixedLowPad(),
        pad.getMixedHighPad(), pad.getConstantPaddingValue());
  }

private:
  static Value slice(OpBuilder &b, Location loc, Value v, int64_t c0,
                     int64_t cb) {
    SmallVector<int64_t> sizes(cast<RankedTensorType>(v.getType()).getShape());
    sizes[1] = cb;
    MLIRContext *ctx = b.getContext();
    return tensor::ExtractSliceOp::create(
        b, loc, v, getAsIndexOpFoldResult(ctx, {0, c0, 0, 0}),
        getAsIndexOpFoldResult(ctx, sizes),
        getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
  }

  Value x;
  tensor::PadOp pad;
};

/// Rows [c0, c0 + cb) of a [C, KH, KW, F] filter: a constant's contiguous
/// bytes, or a slice.
Value filterRows(OpBuilder &b, Location loc, Value filter, int64_t c0,
                 int64_t cb) {
  auto type = cast<RankedTensorType>(filter.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (cb == shape[0])
    return filter;
  int64_t rowElements = shape[1] * shape[2] * shape[3];
  shape[0] = cb;
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  DenseElementsAttr dense;
  if (matchPattern(filter, m_Constant(&dense))) {
    if (dense.isSplat())
      return arith::ConstantOp::create(b, loc, dense.resizeSplat(sliceType));
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    ArrayRef<char> raw = dense.getRawData().slice(
        size_t(c0 * rowElements * bytes), size_t(cb * rowElements * bytes));
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::getFromRawBuffer(sliceType, raw));
  }
  MLIRContext *ctx = b.getContext();
  return tensor::ExtractSliceOp::create(
      b, loc, sliceType, filter, getAsIndexOpFoldResult(ctx, {c0, 0, 0, 0}),
      getAsIndexOpFoldResult(ctx, shape),
      getAsIndexOpFoldResult(ctx, {1, 1, 1, 1}));
}

struct ConvToImplicitGemm : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  ConvToImplicitGemm(MLIRContext *ctx, const nki::isa::TargetDesc &target)
      : OpRewritePattern(ctx, /*benefit=*/2), target(target) {}
  const nki::isa::TargetDesc &target;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<nki::StaticConvOperands> operands =
        nki::staticConvOperands(rewriter, op);
    if (failed(operands))
      return failure();
    auto [x, w, init, xt, wt, yt] = *operands;
    Type elt = xt.getElementType();
    if (!isa<FloatType>(elt) || wt.getElementType() != elt ||
        yt.getElementType() != elt || elt.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "needs one float type");
    ArrayRef<int64_t> xs = xt.getShape(), ws = wt.getShape();
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
    // Each block of 128 input channels needs its filter and two bands of
    // the kernel's rows in the working set. A contraction that does not fit
    // is split into convolutions over as few slices of whole blocks as fit,
    // each accumulating onto the last one's result (its kernel adds it at the
    // evacuation): DeepLabV3's 2,048-channel 3x3 ASPP branches at dilation
    // 12 and 24 took im2col through HBM.
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8, P = target.numPartitions;
    int64_t cBlocks = llvm::divideCeil(xs[1], P);
    int64_t rows = (ws[2] - 1) * dilations[0] + 1;
    int64_t blockBytes = bytes * (ws[2] * ws[3] * ws[0] + 2 * rows * xs[3]);
    int64_t fit = workingSetBytes(target) / blockBytes;
    if (fit < 1)
      return rewriter.notifyMatchFailure(op, "working set too large");
    int64_t slices = llvm::divideCeil(cBlocks, fit);
    int64_t sliceChannels = llvm::divideCeil(cBlocks, slices) * P;
    Location loc = op.getLoc();
    Value filter = filterCKKF(rewriter, loc, w);
    ChannelSlices inputs(x);
    Value y = init;
    for (int64_t c0 = 0; c0 < xs[1]; c0 += sliceChannels) {
      int64_t cb = std::min(sliceChannels, xs[1] - c0);
      y = nki::conv::buildConvGeneric(
          rewriter, loc, inputs.get(rewriter, loc, c0, cb),
          filterRows(rewriter, loc, filter, c0, cb), y, strides[0], strides[1],
          dilations[0], dilations[1]);
    }
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// A 1-D convolution as the 2-D one of rows of one pixel: x [N, C, W] as
/// [N, C, 1, W], w [F, C, K] as [F, C, 1, K], and the result back to [N, F,
/// OW]. The pattern above then takes it, or the im2col of 2-D convolutions
/// does. A padded input is padded after the reshape (so that the kernel
/// still sets the padding on chip), and a filled init is filled in its new
/// shape (a zero fill is what the kernel's start flag replaces). Before, a 1-D
/// convolution was an im2col of K strided copies through HBM: a stride-2
/// one (Whisper's and wav2vec's front ends) moved an element a descriptor,
/// 938 us for 256 -> 512 channels over 1,000 samples on trn2.
struct Conv1DAsConv2D : OpRewritePattern<linalg::Conv1DNcwFcwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv1DNcwFcwOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<nki::StaticConvOperands> operands =
        nki::staticConvOperands(rewriter, op);
    if (failed(operands))
      return failure();
    auto [x, w, init, xt, wt, yt] = *operands;
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> rows = {{0}, {1}, {2, 3}};
    auto withRow = [](ArrayRef<int64_t> s) {
      return SmallVector<int64_t>{s[0], s[1], 1, s[2]};
    };
    auto expand = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      return tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(withRow(t.getShape()), t.getElementType()), v,
          rows);
    };
    Value x4;
    auto pad = x.getDefiningOp<tensor::PadOp>();
    if (pad && pad.getConstantPaddingValue() &&
        !ShapedType::isDynamicShape(pad.getStaticLow()) &&
        !ShapedType::isDynamicShape(pad.getStaticHigh())) {
      ArrayRef<int64_t> lo = pad.getStaticLow(), hi = pad.getStaticHigh();
      x4 = tensor::PadOp::create(
          rewriter, loc,
          RankedTensorType::get(withRow(xt.getShape()), xt.getElementType()),
          expand(pad.getSource()),
          getAsIndexOpFoldResult(op.getContext(), {lo[0], lo[1], 0, lo[2]}),
          getAsIndexOpFoldResult(op.getContext(), {hi[0], hi[1], 0, hi[2]}),
          pad.getConstantPaddingValue());
    } else {
      x4 = expand(x);
    }
    Value init4;
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, withRow(yt.getShape()), yt.getElementType());
      init4 = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                  .getResult(0);
    } else {
      init4 = expand(init);
    }
    auto pair = [&](int64_t v) { return rewriter.getI64TensorAttr({1, v}); };
    auto conv = linalg::Conv2DNchwFchwOp::create(
        rewriter, loc, init4.getType(), ValueRange{x4, expand(w)},
        ValueRange{init4}, pair(*op.getStrides().getValues<int64_t>().begin()),
        pair(*op.getDilations().getValues<int64_t>().begin()));
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, yt, conv.getResult(0), rows);
    return success();
  }
};

/// The zero fill `init` is, if it is one.
bool isZeroFilled(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr f;
  return fill && matchPattern(fill.getInputs()[0], m_Constant(&f)) &&
         f.getValue().isZero();
}

/// A convolution computed per block of channels (depthwise or grouped),
/// each block a dense convolution of its `inBlock` input channels into its
/// `outBlock` output channels (the last block may have fewer of each), whose
/// [cb, KH, KW, fb] filter `filterOf(c0, cb, f0, fb)` gives. A padded input
/// is padded per block, so that the kernel still sets the padding on chip.
/// `x` is [N, C, H, W] (padded); returns [N, F, OH, OW].
template <typename ConvOp>
Value perBlock(
    PatternRewriter &rewriter, ConvOp op, Value x, ArrayRef<int64_t> ys,
    int64_t inBlock, int64_t outBlock,
    function_ref<Value(int64_t, int64_t, int64_t, int64_t)> filterOf) {
  Location loc = op.getLoc();
  SmallVector<int64_t> strides(op.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> dilations(
      op.getDilations().template getValues<int64_t>());
  auto xt = cast<RankedTensorType>(x.getType());
  Type elt = xt.getElementType();
  ArrayRef<int64_t> xs = xt.getShape();
  int64_t c = xs[1], f = ys[1];
  MLIRContext *ctx = rewriter.getContext();
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  ChannelSlices slices(x);
  Value y = tensor::EmptyOp::create(rewriter, loc, ys, elt);
  Value zero = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elt)));
  for (int64_t c0 = 0, f0 = 0; c0 < c; c0 += inBlock, f0 += outBlock) {
    int64_t cb = std::min(inBlock, c - c0), fb = std::min(outBlock, f - f0);
    Value xb = slices.get(rewriter, loc, c0, cb);
    Value wb = filterOf(c0, cb, f0, fb);
    SmallVector<int64_t> yShape(ys);
    yShape[1] = fb;
    // The block's result is computed in its slice of the whole one (so that
    // bufferization writes it there, not into a buffer of its own copied
    // in).
    Value e =
        fb == f
            ? tensor::EmptyOp::create(rewriter, loc, yShape, elt).getResult()
            : tensor::ExtractSliceOp::create(rewriter, loc, y,
                                             idx({0, f0, 0, 0}), idx(yShape),
                                             idx({1, 1, 1, 1}))
                  .getResult();
    Value z = linalg::FillOp::create(rewriter, loc, zero, e).getResult(0);
    Value yb =
        nki::conv::buildConvGeneric(rewriter, loc, xb, wb, z, strides[0],
                                    strides[1], dilations[0], dilations[1]);
    if (fb == f)
      return yb;
    y = tensor::InsertSliceOp::create(rewriter, loc, yb, y, idx({0, f0, 0, 0}),
                                      idx(yShape), idx({1, 1, 1, 1}));
  }
  return y;
}

/// A depthwise convolution with a constant filter, per block of up to 128
/// channels, as a dense convolution whose filter [cb, KH, KW, cb] is zero
/// off the diagonal (ConvGeneric.h's buildDiagonalFilter of the block's
/// [cb, KH, KW] weights; nki-tile builds it on chip): on the PE, a tap is
/// one matmul with a diagonal stationary operand, all taps accumulated in
/// PSUM, instead of an im2col batch matmul per channel. The PE does 128
/// times the useful multiplies, which its throughput affords. `x` is [N,
/// C, H, W] (padded); returns [N, C, OH, OW].
template <typename ConvOp>
Value depthwise(PatternRewriter &rewriter, ConvOp op, Value x,
                DenseElementsAttr dense, int64_t kh, int64_t kw,
                ArrayRef<int64_t> ys, int64_t partitions) {
  auto weights = llvm::to_vector(dense.getValues<APFloat>());
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  int64_t block = std::min(ys[1], partitions);
  SmallVector<APFloat> filter;
  return perBlock(rewriter, op, x, ys, block, block,
                  [&](int64_t c0, int64_t cb, int64_t, int64_t) {
                    // w[c0 + i, kh, kw] on the diagonal of [cb, KH, KW, cb].
                    filter.assign(weights.begin() + c0 * kh * kw,
                                  weights.begin() + (c0 + cb) * kh * kw);
                    Value compact = arith::ConstantOp::create(
                        rewriter, op.getLoc(),
                        DenseElementsAttr::get(
                            RankedTensorType::get({cb, kh, kw}, elt), filter));
                    return nki::conv::buildDiagonalFilter(rewriter, op.getLoc(),
                                                          compact);
                  });
}

/// A grouped convolution (G groups of c input channels and f filters, not
/// one each: that is depthwise) with a constant filter, per block of as
/// many whole groups as fit the partitions on both sides, as a dense
/// convolution whose [gb c, KH, KW, gb f] filter holds each group's
/// weights on its diagonal block and zeros elsewhere: every tap one
/// matmul over the block, all taps accumulated in PSUM, instead of the
/// im2col batch matmul through HBM (a RegNet's 8-wide groups: 4.8 ms at
/// batch 1). The PE does 128 / c times the useful multiplies (the zeros
/// are constants in HBM too). `w` is [G, f, c, KH, KW]; `x` [N, G c, H, W]
/// (padded); returns [N, G f, OH, OW].
template <typename ConvOp>
Value grouped(PatternRewriter &rewriter, ConvOp op, Value x,
              DenseElementsAttr dense, ArrayRef<int64_t> ws,
              ArrayRef<int64_t> ys, int64_t partitions) {
  int64_t c = ws[2], f = ws[1], taps = ws[3] * ws[4];
  int64_t gb = std::max<int64_t>(1, std::min(partitions / c, partitions / f));
  auto xt = cast<RankedTensorType>(x.getType());
  Type elt = xt.getElementType();
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = dense.getRawData();
  return perBlock(
      rewriter, op, x, ys, gb * c, gb * f,
      [&](int64_t c0, int64_t cb, int64_t, int64_t fb) {
        // out[(l c + i), tap, (l f + j)] = w[g0 + l, j, i, tap]
        std::vector<char> out(size_t(cb * taps * fb * bytes), 0);
        int64_t g0 = c0 / c;
        for (int64_t l = 0; l < cb / c; ++l)
          for (int64_t j = 0; j < f; ++j)
            for (int64_t i = 0; i < c; ++i)
              for (int64_t t = 0; t < taps; ++t) {
                int64_t from = dense.isSplat()
                                   ? 0
                                   : (((g0 + l) * f + j) * c + i) * taps + t;
                int64_t to = ((l * c + i) * taps + t) * fb + l * f + j;
                std::memcpy(&out[size_t(to * bytes)],
                            &raw[size_t(from * bytes)], size_t(bytes));
              }
        auto type = RankedTensorType::get({cb, ws[3], ws[4], fb}, elt);
        return arith::ConstantOp::create(
            rewriter, op.getLoc(),
            DenseElementsAttr::getFromRawBuffer(type, out));
      });
}

/// The checks the depthwise and grouped forms share: static float tensors
/// of one type (bytes of whole elements), a constant filter, a zero init,
/// and the kernel's working set within the limit: a block's filter of
/// `filterColumns` columns (its taps times its filters) on each of its
/// `channels` partitions (in blocks of 128) and two one-row bands of
/// `width` and the kernel's rows.
LogicalResult checkConstantFilter(PatternRewriter &rewriter, Operation *op,
                                  Value x, Value w, Value init,
                                  int64_t channels, int64_t filterColumns,
                                  int64_t kh, int64_t dilation, int64_t width,
                                  DenseElementsAttr &dense,
                                  const nki::isa::TargetDesc &target) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  auto yt = dyn_cast<RankedTensorType>(init.getType());
  if (!xt || !wt || !yt || !xt.hasStaticShape() || !yt.hasStaticShape() ||
      op->getNumResults() != 1 || !matchPattern(w, m_Constant(&dense)) ||
      !isZeroFilled(init))
    return rewriter.notifyMatchFailure(
        op, "needs static tensors, a constant filter and a zero init");
  Type elt = xt.getElementType();
  if (!isa<FloatType>(elt) || wt.getElementType() != elt ||
      yt.getElementType() != elt || elt.getIntOrFloatBitWidth() % 8 ||
      elt.getIntOrFloatBitWidth() > 32)
    return rewriter.notifyMatchFailure(op, "needs one float type");
  int64_t rows = (kh - 1) * dilation + 1;
  int64_t blocks = llvm::divideCeil(channels, int64_t(target.numPartitions));
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  if (blocks * bytes * (filterColumns + 2 * rows * width) >
      workingSetBytes(target))
    return rewriter.notifyMatchFailure(op, "working set too large");
  return success();
}

/// A depthwise block's checks: its diagonal filter, [cb, KH, KW, cb].
LogicalResult checkDepthwise(PatternRewriter &rewriter, Operation *op, Value x,
                             Value w, Value init, int64_t khDim, int64_t width,
                             int64_t dilation, DenseElementsAttr &dense,
                             const nki::isa::TargetDesc &target) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  if (!xt || !wt || !wt.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "needs static tensors");
  ArrayRef<int64_t> ws = wt.getShape();
  int64_t kh = ws[khDim], kw = ws[khDim + 1];
  int64_t block = std::min<int64_t>(xt.getShape()[1], target.numPartitions);
  return checkConstantFilter(rewriter, op, x, w, init, block, kh * kw * block,
                             kh, dilation, width, dense, target);
}

/// The [N, G C, H, W] input of a grouped convolution's [N, G, C, H, W] x:
/// through the importer's expand_shape when there is one (so that a pad
/// before it stays visible), else a collapse.
Value groupedInput(PatternRewriter &rewriter, Location loc, Value x) {
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}, {4}};
  if (auto expand = x.getDefiningOp<tensor::ExpandShapeOp>();
      expand && expand.getReassociationIndices() == groups)
    return expand.getSrc();
  return tensor::CollapseShapeOp::create(rewriter, loc, x, groups);
}

struct DepthwiseToImplicitGemm
    : OpRewritePattern<linalg::DepthwiseConv2DNchwChwOp> {
  DepthwiseToImplicitGemm(MLIRContext *ctx, const nki::isa::TargetDesc &target)
      : OpRewritePattern(ctx, /*benefit=*/2), target(target) {}
  const nki::isa::TargetDesc &target;

  LogicalResult matchAndRewrite(linalg::DepthwiseConv2DNchwChwOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    DenseElementsAttr dense;
    if (failed(checkDepthwise(rewriter, op, x, w, init, /*khDim=*/1,
                              cast<ShapedType>(x.getType()).getShape()[3],
                              *op.getDilations().getValues<int64_t>().begin(),
                              dense, target)))
      return failure();
    ArrayRef<int64_t> ws = cast<RankedTensorType>(w.getType()).getShape();
    rewriter.replaceOp(
        op, depthwise(rewriter, op, x, dense, ws[1], ws[2],
                      cast<RankedTensorType>(init.getType()).getShape(),
                      target.numPartitions));
    return success();
  }
};

/// A grouped convolution with one input and one output channel per group
/// (how the ONNX importer writes a depthwise Conv): x [N, G, 1, H, W],
/// w [G, 1, 1, KH, KW], y [N, G, 1, OH, OW] go to the depthwise form above.
struct GroupedDepthwiseToImplicitGemm
    : OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  GroupedDepthwiseToImplicitGemm(MLIRContext *ctx,
                                 const nki::isa::TargetDesc &target)
      : OpRewritePattern(ctx, /*benefit=*/2), target(target) {}
  const nki::isa::TargetDesc &target;

  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    auto xt = cast<ShapedType>(x.getType()), wt = cast<ShapedType>(w.getType());
    if (!xt.hasRank() || !wt.hasRank() || xt.getDimSize(2) != 1 ||
        wt.getDimSize(1) != 1 || wt.getDimSize(2) != 1)
      return rewriter.notifyMatchFailure(op, "not one channel per group");
    DenseElementsAttr dense;
    if (failed(checkDepthwise(
            rewriter, op, x, w, init, /*khDim=*/3, xt.getDimSize(4),
            *op.getDilations().getValues<int64_t>().begin(), dense, target)))
      return failure();
    ArrayRef<int64_t> ws = wt.getShape(),
                      ys = cast<RankedTensorType>(init.getType()).getShape();
    Value y = depthwise(rewriter, op, groupedInput(rewriter, op.getLoc(), x),
                        dense, ws[3], ws[4], {ys[0], ys[1], ys[3], ys[4]},
                        target.numPartitions);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, init.getType(), y,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    return success();
  }
};

/// A grouped convolution of several channels or filters a group, per block
/// of whole groups (`grouped` above).
struct GroupedToImplicitGemm : OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  GroupedToImplicitGemm(MLIRContext *ctx, const nki::isa::TargetDesc &target)
      : OpRewritePattern(ctx, /*benefit=*/2), target(target) {}
  const nki::isa::TargetDesc &target;

  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getInputs()[0], w = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(init.getType());
    if (!xt || !wt || !yt || !wt.hasStaticShape() || !yt.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static tensors");
    ArrayRef<int64_t> ws = wt.getShape(), ys = yt.getShape();
    if (ws[1] == 1 && ws[2] == 1)
      return rewriter.notifyMatchFailure(op, "depthwise");
    // A block's filter [gb c, KH, KW, gb f] beside its two bands.
    int64_t P = target.numPartitions, c = ws[2], f = ws[1];
    int64_t gb = std::max<int64_t>(1, std::min(P / c, P / f));
    DenseElementsAttr dense;
    if (failed(checkConstantFilter(
            rewriter, op, x, w, init, gb * c, ws[3] * ws[4] * gb * f, ws[3],
            *op.getDilations().getValues<int64_t>().begin(), xt.getDimSize(4),
            dense, target)))
      return failure();
    Value y = grouped(rewriter, op, groupedInput(rewriter, op.getLoc(), x),
                      dense, ws, {ys[0], ys[1] * ys[2], ys[3], ys[4]}, P);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, init.getType(), y,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    return success();
  }
};

} // namespace

void nki::populateConvToImplicitGemmPatterns(
    RewritePatternSet &patterns, const nki::isa::TargetDesc &target) {
  patterns.add<ConvToImplicitGemm, DepthwiseToImplicitGemm,
               GroupedDepthwiseToImplicitGemm, GroupedToImplicitGemm>(
      patterns.getContext(), target);
  patterns.add<Conv1DAsConv2D>(patterns.getContext(), /*benefit=*/2);
}
