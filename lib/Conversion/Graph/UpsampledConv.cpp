//===- UpsampledConv.cpp - Convolutions of nearest upsamples as phases ----===//
//
// A decoder (U-Net, FPN, a DB text detector) upsamples by an integer factor
// with nearest neighbours and convolves the result, often after
// concatenating a skip connection. Every output pixel of phase (r_h, r_w)
// (its position modulo the factors) then reads the small tensor x through
// the same few pixels: tap k of the kernel lands on x row
// q + floor((r + d * k - pad) / f) for output row f * q + r. So the
// convolution of the upsampled part is, per phase, a stride-1 convolution
// of x itself whose filter sums the taps that land on one x pixel: a 3x3
// kernel after a 2x upsample becomes four 2x2 convolutions of x, 16 instead
// of 36 multiplies per 2x2 output block, and the upsampled tensor is never
// built. Each phase is written into its strided slice of the result
// (nki-eliminate-empty-tensors then computes it there in place), as the
// importer does for a ConvTranspose (docs/compiler.md). The channels of a
// concatenation that are not upsampled keep one convolution of their own,
// and the parts are added.
//
// A transposed convolution whose kernel is its stride (a U-Net's 2x2,
// stride 2) is the same kind of part: its phase (s, t) is a 1x1 convolution
// of x plus a bias, so a tap that lands on upsampled pixel phase (s, t)
// adds its weight times that 1x1 filter to the phase filter, mixing x's
// channels, and the bias rides on a channel of ones appended to x (zero
// in the padding, where the transposed convolution's result is zero too).
// Its result, the concat and the bf16 rounding of the result under
// auto-cast are no longer computed.
//
// Only with a constant filter (the phase filters are computed here), pads
// that at most pad x (no phase window cuts x), output sizes that the
// factors divide, and when the phases multiply less. The assembled result
// is written with strides, in place when it stays in SBUF; a larger one is
// assembled on chip from the stacked phases (nki-interleave-phases).
//
//===----------------------------------------------------------------------===//

#include "ConstantValues.h"
#include "DecomposeConv.h"
#include "InterleavePhases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// A nearest upsample by integer factors of H and W: the generic
/// `y[n, c, h, w] = x[n, c, h floordiv fh, w floordiv fw]` the importer
/// writes for Resize/Upsample. Or a transposed convolution's phases
/// (matchTransposedPhases): phase (s, t) of y is x's channels mixed by
/// `mix[s * fw + t]` ([F, C] row-major) plus `bias` ([F], or none).
struct Upsample {
  Value x;
  int64_t fh = 1, fw = 1;
  SmallVector<SmallVector<double>> mix;
  SmallVector<double> bias;
};

std::optional<Upsample> matchUpsample(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != 4 || g.getNumParallelLoops() != 4)
    return std::nullopt;
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity() || maps[0].getNumResults() != 4)
    return std::nullopt;
  Upsample up;
  up.x = g.getDpsInputs()[0];
  int64_t factor[4] = {1, 1, 1, 1};
  for (auto [i, e] : llvm::enumerate(maps[0].getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() != i)
        return std::nullopt;
      continue;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin || bin.getKind() != AffineExprKind::FloorDiv || i < 2)
      return std::nullopt;
    auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
    auto f = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!d || !f || d.getPosition() != i || f.getValue() < 1)
      return std::nullopt;
    factor[i] = f.getValue();
  }
  auto xt = cast<RankedTensorType>(up.x.getType());
  auto yt = cast<RankedTensorType>(v.getType());
  for (int i = 0; i < 4; ++i)
    if (xt.getDimSize(i) * factor[i] != yt.getDimSize(i))
      return std::nullopt;
  up.fh = factor[2];
  up.fw = factor[3];
  if (up.fh * up.fw == 1)
    return std::nullopt;
  return up;
}

/// The values of a float constant (a scalar or a tensor), as doubles.
std::optional<SmallVector<double>> constantValues(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return SmallVector<double>{f.getValueAsDouble()};
  auto value = dyn_cast<DenseElementsAttr>(attr);
  if (!value || !isa<FloatType>(value.getElementType()))
    return std::nullopt;
  return nki::toDoubles(value);
}

/// The phases the importer writes for a 2-D ConvTranspose whose kernel is
/// its stride (each output pixel one input pixel's product): per phase
/// (s, t) a zero-filled stride-1 1x1 convolution of the same x by the
/// constant filter W[:, :, s, t], plus the same per-channel constant (a
/// generic adding a [F, 1, 1] one, or none), inserted into its strided
/// slice of a tensor.empty (InterleavePhases.h's phase chain), `v` the
/// chain's result and each link read once.
std::optional<Upsample> matchTransposedPhases(Value v) {
  std::optional<nki::PhaseChain> chain = nki::phaseChainOf(v);
  if (!chain)
    return std::nullopt;
  Upsample up;
  up.fh = chain->fh;
  up.fw = chain->fw;
  up.mix.resize(up.fh * up.fw);
  for (auto [insert, phase] : llvm::zip_equal(chain->inserts, chain->phases)) {
    Value src = insert.getSource();
    if (!src.hasOneUse())
      return std::nullopt;
    SmallVector<double> bias;
    if (auto g = src.getDefiningOp<linalg::GenericOp>()) {
      // y = conv + b[f]: an add of the convolution (identity map) and a
      // [F, 1, 1] constant read at (f, 0, 0).
      Block &body = g.getRegion().front();
      auto add = body.getOperations().size() == 2
                     ? dyn_cast<arith::AddFOp>(body.front())
                     : arith::AddFOp();
      SmallVector<AffineMap> maps = g.getIndexingMapsArray();
      MLIRContext *ctx = g.getContext();
      AffineExpr zero = getAffineConstantExpr(0, ctx);
      AffineMap channel =
          AffineMap::get(4, 0, {getAffineDimExpr(1, ctx), zero, zero}, ctx);
      if (!add || g.getNumDpsInputs() != 2 || maps.size() != 3 ||
          !maps[0].isIdentity() || maps[1] != channel ||
          !maps[2].isIdentity() ||
          body.getTerminator()->getOperand(0) != add.getResult() ||
          !((add.getLhs() == body.getArgument(0) &&
             add.getRhs() == body.getArgument(1)) ||
            (add.getLhs() == body.getArgument(1) &&
             add.getRhs() == body.getArgument(0))))
        return std::nullopt;
      std::optional<SmallVector<double>> b = constantValues(g.getInputs()[1]);
      if (!b || !g.getInputs()[0].hasOneUse())
        return std::nullopt;
      bias = *b;
      src = g.getInputs()[0];
    }
    auto conv = src.getDefiningOp<linalg::Conv2DNchwFchwOp>();
    auto fill = conv ? conv.getOutputs()[0].getDefiningOp<linalg::FillOp>()
                     : linalg::FillOp();
    std::optional<SmallVector<double>> w =
        conv ? constantValues(conv.getInputs()[1]) : std::nullopt;
    std::optional<SmallVector<double>> init =
        fill ? constantValues(fill.getInputs()[0]) : std::nullopt;
    auto ws =
        conv ? cast<RankedTensorType>(conv.getInputs()[1].getType()).getShape()
             : ArrayRef<int64_t>();
    if (!w || !init || init->front() != 0.0 || ws[2] != 1 || ws[3] != 1 ||
        !llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 1; }) ||
        (up.x && conv.getInputs()[0] != up.x) ||
        (phase != chain->phases.front() && bias != up.bias))
      return std::nullopt;
    up.x = conv.getInputs()[0];
    up.bias = bias;
    up.mix[phase] = *w;
  }
  return up;
}

/// One phase r of one spatial dim: output rows f * q + r, q < Q, read x
/// rows q + delta(k) for tap k, delta(k) = floor((r + d * k - pad) / f).
/// The phase convolution pads x by `lo` and `hi` and has `taps` taps; tap k
/// of the original kernel adds into phase tap `tapOf[k]`.
struct PhaseDim {
  int64_t lo = 0, hi = 0, taps = 0;
  SmallVector<int64_t> tapOf;
};

/// Fails when the phase's window would cut x (pads larger than the
/// kernel's reach): such shapes keep the upsampled convolution.
std::optional<PhaseDim> phaseDim(int64_t r, int64_t f, int64_t pad,
                                 int64_t dilation, int64_t kernel, int64_t in,
                                 int64_t q) {
  PhaseDim p;
  int64_t first = llvm::divideFloorSigned(r - pad, f);
  int64_t last = llvm::divideFloorSigned(r + dilation * (kernel - 1) - pad, f);
  for (int64_t k = 0; k < kernel; ++k)
    p.tapOf.push_back(llvm::divideFloorSigned(r + dilation * k - pad, f) -
                      first);
  p.lo = -first;
  p.hi = (q - 1 + last) - (in - 1);
  p.taps = last - first + 1;
  if (p.lo < 0 || p.hi < 0)
    return std::nullopt;
  return p;
}

/// The part of a convolution's input channels [c0, c0 + c) with its
/// source: the upsample it reads, if the phases are taken for it.
struct Part {
  Value source;
  int64_t c0 = 0, c = 0;
  /// The phases' input channels: x's, and a channel of ones that carries
  /// a transposed convolution's bias.
  int64_t xc = 0;
  std::optional<Upsample> up;
  SmallVector<PhaseDim> rows, cols; // per phase of H, of W
};

struct UpsampledConvAsPhases : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  explicit UpsampledConvAsPhases(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getInputs()[0].getDefiningOp<tensor::PadOp>();
    DenseElementsAttr filter;
    if (!pad || !pad.getConstantPaddingValue() ||
        !matchPattern(op.getInputs()[1], m_Constant(&filter)) ||
        op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "needs a padded input and a "
                                             "constant filter");
    auto ut = cast<RankedTensorType>(pad.getSource().getType());
    auto yt = cast<RankedTensorType>(op.getResultTypes()[0]);
    Type elt = yt.getElementType();
    if (!ut.hasStaticShape() || !yt.hasStaticShape() || !isa<FloatType>(elt) ||
        ut.getElementType() != elt || filter.getElementType() != elt ||
        !llvm::all_of(op.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 1; }))
      return rewriter.notifyMatchFailure(op, "needs stride 1, one float type");
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (ShapedType::isDynamicShape(low) || ShapedType::isDynamicShape(high) ||
        low[0] || low[1] || high[0] || high[1])
      return rewriter.notifyMatchFailure(op, "needs static pads of H and W "
                                             "only");
    SmallVector<int64_t> dil(op.getDilations().getValues<int64_t>());
    ArrayRef<int64_t> ws = filter.getType().getShape(), ys = yt.getShape();

    // The input's parts: a concatenation along the channels, or one.
    SmallVector<Value> sources;
    if (auto cat = pad.getSource().getDefiningOp<tensor::ConcatOp>()) {
      if (cat.getDim() != 1)
        return rewriter.notifyMatchFailure(op, "concat not along channels");
      llvm::append_range(sources, cat.getInputs());
    } else {
      sources.push_back(pad.getSource());
    }
    SmallVector<Part, 2> parts;
    int64_t c0 = 0;
    bool anyPhased = false;
    for (Value s : sources) {
      Part part;
      part.source = s;
      part.c0 = c0;
      part.c = cast<RankedTensorType>(s.getType()).getDimSize(1);
      c0 += part.c;
      std::optional<Upsample> up = matchUpsample(s);
      if (!up)
        up = matchTransposedPhases(s);
      if (up && takePhases(*up, low, dil, ws, ys, part))
        anyPhased = true;
      parts.push_back(std::move(part));
    }
    if (!anyPhased)
      return rewriter.notifyMatchFailure(op, "no upsampled part pays");

    Location loc = op.getLoc();
    Value init = op.getOutputs()[0];
    SmallVector<Part *> direct;
    for (Part &p : parts)
      if (!p.up)
        direct.push_back(&p);
    // The phases first, from zero when the direct convolution takes the
    // init, so that the sum becomes that convolution's epilogue (an
    // epilogue's other operands are computed before its matmul).
    Value sum;
    for (Part &p : parts)
      if (p.up) {
        Value y = phases(rewriter, op, pad, filter, p,
                         sum || !direct.empty() ? Value() : init);
        sum = sum ? add(rewriter, loc, sum, y) : y;
      }
    if (!direct.empty())
      sum = add(rewriter, loc, sum,
                directConv(rewriter, op, pad, filter, direct, init));
    rewriter.replaceOp(op, sum);
    return success();
  }

  /// Fills in `part`'s phases when the phases multiply less than the
  /// upsampled convolution.
  bool takePhases(const Upsample &up, ArrayRef<int64_t> low,
                  ArrayRef<int64_t> dil, ArrayRef<int64_t> ws,
                  ArrayRef<int64_t> ys, Part &part) const {
    auto xs = cast<RankedTensorType>(up.x.getType()).getShape();
    if (ys[2] % up.fh || ys[3] % up.fw)
      return false;
    int64_t qh = ys[2] / up.fh, qw = ys[3] / up.fw;
    // The phases of spatial dim d (2 or 3) into `out`, and their taps.
    auto dimPhases = [&](int d, int64_t f, int64_t q,
                         SmallVector<PhaseDim> &out) -> std::optional<int64_t> {
      int64_t taps = 0;
      for (int64_t r = 0; r < f; ++r) {
        std::optional<PhaseDim> p =
            phaseDim(r, f, low[d], dil[d - 2], ws[d], xs[d], q);
        if (!p)
          return std::nullopt;
        taps += p->taps;
        out.push_back(*p);
      }
      return taps;
    };
    std::optional<int64_t> tapsH = dimPhases(2, up.fh, qh, part.rows);
    std::optional<int64_t> tapsW =
        tapsH ? dimPhases(3, up.fw, qw, part.cols) : std::nullopt;
    if (!tapsW) {
      part.rows.clear();
      part.cols.clear();
      return false;
    }
    // Multiplies an output pixel and filter: the phases' against the
    // upsampled convolution's (and a transposed convolution's own, x's
    // channels for each of its filters).
    part.xc = up.mix.empty() ? part.c : xs[1] + (up.bias.empty() ? 0 : 1);
    int64_t phased = *tapsH * *tapsW * part.xc;
    int64_t direct = up.fh * up.fw * ws[2] * ws[3] * part.c;
    if (!up.mix.empty())
      direct += up.fh * up.fw * xs[1] * part.c / ws[0];
    if (phased >= direct) {
      part.rows.clear();
      part.cols.clear();
      return false;
    }
    part.up = up;
    return true;
  }

  /// The convolution of the parts that are not upsampled, with the
  /// original padding, dilations and init.
  Value directConv(PatternRewriter &rewriter, linalg::Conv2DNchwFchwOp op,
                   tensor::PadOp pad, DenseElementsAttr filter,
                   ArrayRef<Part *> direct, Value init) const {
    Location loc = op.getLoc();
    ArrayRef<int64_t> ws = filter.getType().getShape();
    Type elt = filter.getElementType();
    SmallVector<Value> sources;
    SmallVector<Attribute> weights;
    auto all = llvm::to_vector(filter.getValues<Attribute>());
    int64_t taps = ws[2] * ws[3], c = 0;
    for (Part *p : direct) {
      sources.push_back(p->source);
      c += p->c;
    }
    for (int64_t f = 0; f < ws[0]; ++f)
      for (Part *p : direct)
        for (int64_t i = 0; i < p->c * taps; ++i)
          weights.push_back(all[(f * ws[1] + p->c0) * taps + i]);
    Value x =
        sources.size() == 1
            ? sources[0]
            : tensor::ConcatOp::create(rewriter, loc, 1, sources).getResult();
    Value w = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({ws[0], c, ws[2], ws[3]}, elt), weights));
    return conv(
        rewriter, op,
        padded(rewriter, loc, x, pad.getStaticLow(), pad.getStaticHigh(), pad),
        w, init);
  }

  /// The upsampled part as its phases, each written into its strided slice
  /// of the result; `init` (the original's) when the phases start from it,
  /// else they start from zero. nki-group-phases later makes the phases
  /// that fill the PE's columns together one convolution, where the
  /// result of a group of images stays in SBUF.
  Value phases(PatternRewriter &rewriter, linalg::Conv2DNchwFchwOp op,
               tensor::PadOp pad, DenseElementsAttr filter, const Part &part,
               Value init) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto idx = [&](ArrayRef<int64_t> v) {
      return getAsIndexOpFoldResult(ctx, v);
    };
    auto yt = cast<RankedTensorType>(op.getResultTypes()[0]);
    ArrayRef<int64_t> ys = yt.getShape(), ws = filter.getType().getShape();
    Type elt = yt.getElementType();
    const Upsample &up = *part.up;
    int64_t qh = ys[2] / up.fh, qw = ys[3] / up.fw;
    SmallVector<int64_t> phaseShape = {ys[0], ys[1], qh, qw};
    SmallVector<int64_t> steps = {1, 1, up.fh, up.fw};
    auto weights = llvm::to_vector(filter.getValues<APFloat>());
    auto fill = init ? init.getDefiningOp<linalg::FillOp>() : linalg::FillOp();
    Value zero;
    Value y = tensor::EmptyOp::create(rewriter, loc, ys, elt);
    // A transposed convolution's bias rides on a channel of ones beside x
    // (zero in the padding, like the bias outside the result).
    Value x = up.x;
    if (!up.bias.empty()) {
      auto xt = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(xt.getShape());
      shape[1] = 1;
      Value one = arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(rewriter.getFloatAttr(elt, 1.0)));
      Value ones =
          linalg::FillOp::create(
              rewriter, loc, one,
              tensor::EmptyOp::create(rewriter, loc, shape, elt).getResult())
              .getResult(0);
      x = tensor::ConcatOp::create(rewriter, loc, 1, ValueRange{x, ones})
              .getResult();
    }
    for (int64_t phase = 0; phase < up.fh * up.fw; ++phase) {
      int64_t rh = phase / up.fw, rw = phase % up.fw;
      const PhaseDim &rows = part.rows[rh], &columns = part.cols[rw];
      // Filter [F, C, th, tw]: the sum of the taps that land on each x
      // pixel, in double and rounded once. A transposed convolution's
      // phase (s, t) of the upsampled pixel a tap reads mixes x's
      // channels: the tap's weight of upsampled channel u goes to x
      // channel c times mix[s, t][u, c] (and to the ones channel times the
      // bias of u).
      int64_t xc = part.xc, cx = xc - (up.bias.empty() ? 0 : 1);
      SmallVector<double> sums(ws[0] * xc * rows.taps * columns.taps, 0.0);
      ArrayRef<int64_t> low = pad.getStaticLow();
      SmallVector<int64_t> dil(op.getDilations().getValues<int64_t>());
      for (int64_t f = 0; f < ws[0]; ++f)
        for (int64_t u = 0; u < part.c; ++u)
          for (int64_t kh = 0; kh < ws[2]; ++kh)
            for (int64_t kw = 0; kw < ws[3]; ++kw) {
              int64_t src =
                  ((f * ws[1] + part.c0 + u) * ws[2] + kh) * ws[3] + kw;
              double v = weights[src].convertToDouble();
              auto at = [&](int64_t c) {
                return ((f * xc + c) * rows.taps + rows.tapOf[kh]) *
                           columns.taps +
                       columns.tapOf[kw];
              };
              if (up.mix.empty()) {
                sums[at(u)] += v;
                continue;
              }
              int64_t s = llvm::mod(rh - low[2] + dil[0] * kh, up.fh);
              int64_t t = llvm::mod(rw - low[3] + dil[1] * kw, up.fw);
              ArrayRef<double> m = up.mix[s * up.fw + t];
              for (int64_t c = 0; c < cx; ++c)
                sums[at(c)] += v * m[u * cx + c];
              if (!up.bias.empty())
                sums[at(cx)] += v * up.bias[u];
            }
      Value w = arith::ConstantOp::create(
          rewriter, loc,
          nki::fromDoubles(
              RankedTensorType::get({ws[0], xc, rows.taps, columns.taps}, elt),
              sums));
      // The phase's slice of the init: a fill of the phase's shape, a
      // strided slice of any other init, zero when the sum has one.
      Value start;
      SmallVector<int64_t> offsets = {0, 0, rh, rw};
      if (init && !fill) {
        start = tensor::ExtractSliceOp::create(
            rewriter, loc, init, idx(offsets), idx(phaseShape), idx(steps));
      } else {
        Value value = fill ? fill.getInputs()[0] : Value();
        if (!value) {
          if (!zero)
            zero = arith::ConstantOp::create(
                rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elt)));
          value = zero;
        }
        Value e = tensor::EmptyOp::create(rewriter, loc, phaseShape, elt);
        start = linalg::FillOp::create(rewriter, loc, value, e).getResult(0);
      }
      Value p = conv(rewriter, op,
                     padded(rewriter, loc, x, {0, 0, rows.lo, columns.lo},
                            {0, 0, rows.hi, columns.hi}, pad),
                     w, start, /*unitDilation=*/true);
      y = tensor::InsertSliceOp::create(rewriter, loc, p, y, idx(offsets),
                                        idx(phaseShape), idx(steps));
    }
    return y;
  }

  /// `x` padded by `lo` and `hi` with `like`'s padding value (no pad when
  /// both are zero).
  static Value padded(PatternRewriter &rewriter, Location loc, Value x,
                      ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                      tensor::PadOp like) {
    if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
        llvm::all_of(hi, [](int64_t v) { return v == 0; }))
      return x;
    auto xt = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(xt.getShape());
    for (size_t d = 0; d < shape.size(); ++d)
      shape[d] += lo[d] + hi[d];
    MLIRContext *ctx = rewriter.getContext();
    return tensor::PadOp::create(
        rewriter, loc, RankedTensorType::get(shape, xt.getElementType()), x,
        getAsIndexOpFoldResult(ctx, lo), getAsIndexOpFoldResult(ctx, hi),
        like.getConstantPaddingValue());
  }

  /// A convolution like `op` (its dilations, or unit ones) of `x` by `w`
  /// from `init`.
  static Value conv(PatternRewriter &rewriter, linalg::Conv2DNchwFchwOp op,
                    Value x, Value w, Value init, bool unitDilation = false) {
    auto ones = rewriter.getI64TensorAttr({1, 1});
    return linalg::Conv2DNchwFchwOp::create(
               rewriter, op.getLoc(), init.getType(), ValueRange{x, w},
               ValueRange{init}, ones,
               unitDilation ? ones : op.getDilationsAttr())
        .getResult(0);
  }

  static Value add(PatternRewriter &rewriter, Location loc, Value a, Value b) {
    auto type = cast<RankedTensorType>(a.getType());
    Value e = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                      type.getElementType());
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               rewriter, loc, type, ValueRange{a, b}, ValueRange{e},
               ArrayRef<AffineMap>{id, id, id}, iters,
               [](OpBuilder &nb, Location l, ValueRange args) {
                 Value s = arith::AddFOp::create(nb, l, args[0], args[1]);
                 linalg::YieldOp::create(nb, l, s);
               })
        .getResult(0);
  }
};

} // namespace

LogicalResult nki::rewriteUpsampledConvolutions(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  patterns.add<UpsampledConvAsPhases>(root->getContext());
  return applyPatternsGreedily(root, std::move(patterns));
}
