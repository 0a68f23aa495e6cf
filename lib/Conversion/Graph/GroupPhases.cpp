//===- GroupPhases.cpp - nki-group-phases ---------------------------------===//
//
// A convolution of a nearest upsample (UpsampledConv.cpp) is one
// convolution per output phase, each of x padded by its own window, written
// into the result with row and column steps. A phase of F <= 64 filters
// fills a quadrant or a half of the PE's columns; phases that fill them
// together are one convolution of x padded by their union window (phase k
// its filters at columns [k * cols, k * cols + F), zero elsewhere, its taps
// at their offset in the union), and nki-tile evacuates each phase's block
// of the result into its strided slice (the U-Net's decoders: three
// matmuls of 96 rows a chunk instead of four of 128).
//
// Only where the assembled result stays in SBUF (half a partition at most,
// channels on the partitions, as nki-interleave-phases decides the others)
// and a convolution's epilogue adds it (the direct convolution of the skip
// connection): then the result is an operand of that epilogue. Decided
// here, after nki-split-batch, for the images of a group: a result too
// large with the whole batch may fit with a group's (the f32 U-Net at batch
// 8 runs in two groups of four, and its middle decoder's phases were one
// by one: 270 us against 2 x 119.5 for the U-Net at batch 4 alone).
//
//===----------------------------------------------------------------------===//

#include "ChannelBytes.h"
#include "InterleavePhases.h"

#include "../Conv/ConvGeneric.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

namespace nki {
#define GEN_PASS_DEF_NKIGROUPPHASES
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// A phase's window in one spatial dim: x padded by `lo` and `hi`, `taps`
/// taps.
struct Window {
  int64_t lo = 0, hi = 0, taps = 0;
  bool operator==(const Window &o) const {
    return lo == o.lo && hi == o.hi && taps == o.taps;
  }
};

/// The window of `a` and `b` together (`a` empty: `b`'s).
Window unite(const Window &a, const Window &b) {
  if (!a.taps)
    return b;
  Window u;
  u.lo = std::max(a.lo, b.lo);
  u.hi = std::max(a.hi, b.hi);
  u.taps = std::max(a.taps - a.lo, b.taps - b.lo) + u.lo;
  return u;
}

/// One phase's convolution: a generic of x padded by its window (no pad
/// when the window is empty) by a constant filter, from a fill.
struct Phase {
  linalg::GenericOp conv;
  nki::conv::ConvGeneric g;
  tensor::PadOp pad; // null: x itself
  DenseElementsAttr filter;
  linalg::FillOp fill;
  Window rows, cols;
};

/// The phases of `chain`, in phase order, when every insert is one phase's
/// convolution of the same x (same padding value, same fill, F filters of
/// C channels, unit strides and dilations), read only by its insert.
std::optional<SmallVector<Phase>> matchPhases(nki::PhaseChain &chain) {
  // One insert a phase, in phase order (a group's convolution goes before
  // its first phase's insert).
  int64_t phases = chain.fh * chain.fw;
  if (int64_t(chain.inserts.size()) != phases || !llvm::is_sorted(chain.phases))
    return std::nullopt;
  SmallVector<Phase> out(phases);
  Value x;
  std::optional<Attribute> padValue, fillValue;
  for (auto [insert, p] : llvm::zip_equal(chain.inserts, chain.phases)) {
    auto conv = insert.getSource().getDefiningOp<linalg::GenericOp>();
    std::optional<nki::conv::ConvGeneric> g =
        conv ? nki::conv::matchConvGeneric(conv) : std::nullopt;
    if (!g || !conv->hasOneUse() || g->strideH != 1 || g->strideW != 1 ||
        g->dilationH != 1 || g->dilationW != 1)
      return std::nullopt;
    Phase &ph = out[p];
    ph.conv = conv;
    ph.g = *g;
    if (!matchPattern(conv.getDpsInputs()[1], m_Constant(&ph.filter)))
      return std::nullopt;
    ph.fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    Attribute value;
    if (!ph.fill || !matchPattern(ph.fill.getInputs()[0], m_Constant(&value)) ||
        (fillValue && *fillValue != value))
      return std::nullopt;
    fillValue = value;
    Value in = conv.getDpsInputs()[0];
    ph.pad = in.getDefiningOp<tensor::PadOp>();
    Value source = in;
    ph.rows.taps = g->kh;
    ph.cols.taps = g->kw;
    if (ph.pad) {
      Attribute v;
      ArrayRef<int64_t> lo = ph.pad.getStaticLow(), hi = ph.pad.getStaticHigh();
      if (!ph.pad.getConstantPaddingValue() ||
          !matchPattern(ph.pad.getConstantPaddingValue(), m_Constant(&v)) ||
          (padValue && *padValue != v) || ShapedType::isDynamicShape(lo) ||
          ShapedType::isDynamicShape(hi) || lo[0] || lo[1] || hi[0] || hi[1])
        return std::nullopt;
      padValue = v;
      source = ph.pad.getSource();
      ph.rows.lo = lo[2];
      ph.rows.hi = hi[2];
      ph.cols.lo = lo[3];
      ph.cols.hi = hi[3];
    }
    if (x && source != x)
      return std::nullopt;
    x = source;
  }
  // The phases of a row share its row window, of a column its column
  // window (the upsampled convolution's), and their filters' shape.
  for (int64_t p = 0; p < phases; ++p)
    if (!(out[p].rows == out[p / chain.fw * chain.fw].rows) ||
        !(out[p].cols == out[p % chain.fw].cols) ||
        out[p].filter.getType() != out[0].filter.getType())
      return std::nullopt;
  return out;
}

/// How many phases one convolution computes (consecutive ones, row phase
/// major): 4 or 2, as many as fill the PE's columns when each phase's `f`
/// filters take a quadrant or a half of them (its result block then starts
/// where an engine may read it), for at most four phases; the count whose
/// union windows take the fewest matmuls a pixel, if fewer than the phases
/// one by one; else 1.
int64_t groupSize(ArrayRef<Phase> phases, int64_t f, int64_t c, bool fp32,
                  int64_t partitions) {
  int64_t n = int64_t(phases.size()), p = partitions;
  int64_t cols = f <= p / 4 ? p / 4 : f <= p / 2 ? p / 2 : p;
  int64_t most = std::min(n, p / cols);
  if (most < 2 || n > 4)
    return 1;
  // Matmuls a pixel as nki-tile's convolution kernel takes them (Conv.cpp,
  // analyze and chooseBands): with fp32 inputs the kernel rows fold onto
  // the partitions where they may, and as many kernel columns beside them
  // as fit; otherwise (auto-cast reads a resident input in place) a matmul
  // per tap and channel block.
  auto matmuls = [&](int64_t kh, int64_t kw) {
    if (fp32 && nki::conv::foldsKernelRows(c, kh, true, p)) {
      int64_t folded = p / (c * kh);
      return (kw + folded - 1) / folded;
    }
    return kh * kw * ((c + p - 1) / p);
  };
  auto total = [&](int64_t size) {
    int64_t sum = 0;
    for (int64_t p0 = 0; p0 < n; p0 += size) {
      Window h, w;
      for (int64_t k = p0; k < std::min(n, p0 + size); ++k) {
        h = unite(h, phases[k].rows);
        w = unite(w, phases[k].cols);
      }
      sum += matmuls(h.taps, w.taps);
    }
    return sum;
  };
  int64_t best = 1;
  for (int64_t size = 4; size >= 2; size /= 2)
    if (size <= most && n % size == 0 && total(size) < total(best))
      best = size;
  return best;
}

/// Replaces phases [p0, p0 + count) of `chain` by one convolution (the file
/// comment), before the chain's first insert.
void group(nki::PhaseChain &chain, MutableArrayRef<Phase> phases, int64_t p0,
           int64_t count, int64_t cols) {
  Phase &first = phases[p0];
  Window rows, columns;
  for (int64_t k = p0; k < p0 + count; ++k) {
    rows = unite(rows, phases[k].rows);
    columns = unite(columns, phases[k].cols);
  }
  auto fType = cast<RankedTensorType>(first.filter.getType());
  int64_t c = fType.getDimSize(0), f = fType.getDimSize(3);
  // Filter [C, TH, TW, count * cols], zero but each phase's taps.
  Type elt = fType.getElementType();
  const llvm::fltSemantics &semantics =
      cast<FloatType>(elt).getFloatSemantics();
  SmallVector<APFloat> weights(c * rows.taps * columns.taps * count * cols,
                               APFloat::getZero(semantics));
  for (int64_t k = 0; k < count; ++k) {
    Phase &ph = phases[p0 + k];
    auto values = llvm::to_vector(ph.filter.getValues<APFloat>());
    int64_t dh = rows.lo - ph.rows.lo, dw = columns.lo - ph.cols.lo;
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t i = 0; i < ph.rows.taps; ++i)
        for (int64_t j = 0; j < ph.cols.taps; ++j)
          for (int64_t fi = 0; fi < f; ++fi)
            weights[((ci * rows.taps + dh + i) * columns.taps + dw + j) *
                        (count * cols) +
                    k * cols + fi] =
                values[((ci * ph.rows.taps + i) * ph.cols.taps + j) * f + fi];
  }
  // In the order nki-prepare-graph builds a group: before the insert of
  // its first phase the filter, the init, the padded x and the
  // convolution; each phase's block before its insert.
  auto insertOf = [&](int64_t phase) {
    for (auto [insert, p] : llvm::zip_equal(chain.inserts, chain.phases))
      if (p == phase)
        return insert;
    llvm_unreachable("every phase has its insert");
  };
  OpBuilder b(insertOf(p0));
  Location loc = first.conv.getLoc();
  MLIRContext *ctx = b.getContext();
  auto idx = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(ctx, v);
  };
  Value w = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({c, rows.taps, columns.taps, count * cols},
                                elt),
          weights));
  auto yType = cast<RankedTensorType>(first.conv.getResult(0).getType());
  SmallVector<int64_t> shape(yType.getShape());
  shape[1] = count * cols;
  auto groupType = RankedTensorType::get(shape, yType.getElementType());
  Value init =
      linalg::FillOp::create(
          b, first.fill.getLoc(), first.fill.getInputs()[0],
          tensor::EmptyOp::create(b, loc, shape, yType.getElementType())
              .getResult())
          .getResult(0);
  // x padded by the union window (none when it is empty), like the
  // phases' pads.
  Phase *padded = nullptr;
  for (Phase &ph : phases)
    if (ph.pad)
      padded = &ph;
  Value x = padded ? padded->pad.getSource() : first.conv.getDpsInputs()[0];
  if (rows.lo || rows.hi || columns.lo || columns.hi) {
    auto xt = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> padShape(xt.getShape());
    padShape[2] += rows.lo + rows.hi;
    padShape[3] += columns.lo + columns.hi;
    x = tensor::PadOp::create(
        b, padded->pad.getLoc(),
        RankedTensorType::get(padShape, xt.getElementType()), x,
        idx({0, 0, rows.lo, columns.lo}), idx({0, 0, rows.hi, columns.hi}),
        padded->pad.getConstantPaddingValue());
  }
  IRMapping map;
  map.map(first.conv.getDpsInputs()[0], x);
  map.map(first.conv.getDpsInputs()[1], w);
  map.map(first.conv.getDpsInits()[0], init);
  Operation *conv = b.clone(*first.conv, map);
  conv->getResult(0).setType(groupType);
  for (int64_t k = 0; k < count; ++k) {
    Phase &ph = phases[p0 + k];
    b.setInsertionPoint(insertOf(p0 + k));
    Value block = tensor::ExtractSliceOp::create(
        b, loc, conv->getResult(0), idx({0, k * cols, 0, 0}),
        idx(yType.getShape()), idx({1, 1, 1, 1}));
    ph.conv.getResult(0).replaceAllUsesWith(block);
  }
}

struct GroupPhases : nki::impl::NKIGroupPhasesBase<GroupPhases> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target))
      return signalPassFailure();
    const nki::isa::TargetDesc &t = **target;
    for (nki::PhaseChain &chain : nki::phaseChains(func)) {
      // A result that stays in SBUF, read by an epilogue (elementwise)
      // that adds it, nothing else.
      Value result = chain.inserts.back().getResult();
      auto reader =
          result.hasOneUse()
              ? dyn_cast<linalg::GenericOp>(*result.getUsers().begin())
              : linalg::GenericOp();
      if (nki::channelMajorBytesPerPartition(chain.empty.getType(),
                                             t.numPartitions) >
              nki::maxInPlacePhaseBytes(t.sbufBytesPerPartition) ||
          !reader || reader.getNumReductionLoops() != 0)
        continue;
      std::optional<SmallVector<Phase>> phases = matchPhases(chain);
      if (!phases)
        continue;
      const nki::conv::ConvGeneric &g = phases->front().g;
      bool fp32 = g.inputType.isF32() && g.filterType.isF32();
      int64_t size = groupSize(*phases, g.f, g.c, fp32, t.numPartitions);
      if (size < 2)
        continue;
      int64_t cols = t.numPartitions / size;
      for (int64_t p0 = 0; p0 < int64_t(phases->size()); p0 += size)
        group(chain, *phases, p0, size, cols);
      // The phases' own convolutions, fills and pads, now unused.
      for (Phase &ph : *phases) {
        Operation *fill = ph.fill, *pad = ph.pad;
        ph.conv->erase();
        if (fill && fill->use_empty())
          fill->erase();
        if (pad && pad->use_empty())
          pad->erase();
      }
    }
  }
};

} // namespace
