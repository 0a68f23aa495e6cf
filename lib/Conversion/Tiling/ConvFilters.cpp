//===- ConvFilters.cpp - a convolution's filter tiles ---------------------===//
//
// ConvKernel's filter tiles (ConvKernel.h): loaded whole, folded, stacked
// or per phase, packed block-diagonally for bands side by side, and scaled
// per image by a channel scale it absorbs.
//
//===----------------------------------------------------------------------===//

#include "ConvKernel.h"

#include <algorithm>
#include <array>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// Folded kernel columns: one tile [KWf * KH * C, G * F] (KWf = foldCols,
/// G = ceil(KW / KWf) matmuls a row of taps), partition (kwi * KH + kh) *
/// C + c holding at columns [g * F, (g + 1) * F) w[c, kh, g * KWf + kwi,
/// :], zero where that kernel column is past KW; one DMA per tap (a few
/// channels each: the stem of an image net).
Value ConvKernel::loadFoldedFilter() {
  int64_t groups = taps();
  Value t =
      allocTile(b, loc, {foldCols * g.kh * g.c, groups * g.f}, g.filterType);
  if (groups * foldCols > g.kw)
    tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  for (int64_t kwi = 0; kwi < foldCols; ++kwi)
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t gi = 0; gi < groups && gi * foldCols + kwi < g.kw; ++gi) {
        int64_t kw = gi * foldCols + kwi;
        tile::DmaOp::create(
            b, loc,
            hbmView(b, loc, w.buffer,
                    indexConst(b, loc, w.offset + (kh * g.kw + kw) * g.f),
                    {g.c, g.f}, {w.strides[0], 1}),
            tileSlice(b, loc, t, (kwi * g.kh + kh) * g.c, g.c, gi * g.f, g.f));
      }
  return t;
}

/// Stacked rows: one tile [foldGroups() * C, windows * KW * stack * F],
/// partition i * C + c holding at column (v * KW + kw) * stack * F + j * F
/// + f the weight w[c, v * windowStep() + i - j, kw, f] of window v when
/// that kernel row is in [0, KH), zero elsewhere (rows folded in windows:
/// stack 1, j 0); one DMA per window, output row
/// j and kernel row kh (every kernel column at once). In two windows a
/// kernel row's weights come from HBM once and are copied within SBUF to
/// their other places (a 64-channel 3x3 of the U-Net at batch 1 in fp32
/// otherwise read its 147 KB of weights twice).
Value ConvKernel::loadStackedFilter() {
  int64_t cols = stack * g.f, pitch = stackWindows * g.kw * cols;
  Value t = allocTile(b, loc, {foldGroups() * g.c, pitch}, g.filterType);
  tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  auto type = cast<MemRefType>(t.getType());
  SmallVector<Value> placed(g.kh); // each kernel row's first place

  for (int64_t v = 0; v < stackWindows; ++v)
    for (int64_t j = 0; j < stack; ++j)
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        int64_t i = kh + j - v * windowStep();
        if (i < 0 || i >= foldGroups())
          continue;
        int64_t offset = i * g.c * pitch + v * g.kw * cols + j * g.f;
        auto layout =
            StridedLayoutAttr::get(b.getContext(), offset, {pitch, cols, 1});
        auto viewType = MemRefType::get({g.c, g.kw, g.f}, g.filterType, layout,
                                        type.getMemorySpace());
        Value dst = memref::ReinterpretCastOp::create(
            b, loc, viewType, t, b.getIndexAttr(offset),
            {b.getIndexAttr(g.c), b.getIndexAttr(g.kw), b.getIndexAttr(g.f)},
            {b.getIndexAttr(pitch), b.getIndexAttr(cols), b.getIndexAttr(1)});
        Value src =
            placed[kh] ? placed[kh]
                       : hbmView(b, loc, w.buffer,
                                 indexConst(b, loc, w.offset + kh * g.kw * g.f),
                                 {g.c, g.kw, g.f}, {w.strides[0], g.f, 1});
        tile::DmaOp::create(b, loc, src, dst);
        if (stackWindows > 1 && !placed[kh])
          placed[kh] = dst;
      }
  return t;
}

/// The partner's stationary operands (PhasePartner.h): per window and
/// column phase px one tile [phaseBlocks() * C, KW * stack * F], partition
/// i * C + c holding at column kw * stack * F + j * F + f the weight
/// w[c, kh, kw, f] of the phase of block j (row phase j % fh) whose kernel
/// row kh reads tile block i (phaseRow, relative to the window's first),
/// zero elsewhere; one DMA per block j and kernel row kh in the window
/// (every kernel column at once).
SmallVector<Value> ConvKernel::loadPhaseFilters() {
  SmallVector<Value> tiles;
  int64_t c = phases->c, fh = phases->fh, fw = phases->fw, cols = stack * g.f;
  for (const PhaseWindow &win : windows)
    for (int64_t px = 0; px < fw; ++px) {
      int64_t pitch = phases->kwOf(px) * cols;
      Value t =
          allocTile(b, loc, {phaseBlocks() * c, pitch}, phases->filterType);
      tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
      auto type = cast<MemRefType>(t.getType());
      for (int64_t j = 0; j < stack; ++j) {
        const PhasePartner::Phase &ph = phases->phases[(j % fh) * fw + px];
        Layout l =
            *hbmLayoutOf(ph.op, linalg::GenericOp(ph.op).getDpsInputs()[1]);
        for (int64_t kh = 0; kh < ph.g.kh; ++kh) {
          int64_t i = phaseRow(*phases, j, kh) - win.lo;
          if (i < 0 || i >= phaseBlocks())
            continue;
          int64_t offset = i * c * pitch + j * g.f;
          auto layout =
              StridedLayoutAttr::get(b.getContext(), offset, {pitch, cols, 1});
          auto viewType = MemRefType::get({c, ph.g.kw, g.f}, phases->filterType,
                                          layout, type.getMemorySpace());
          Value dst = memref::ReinterpretCastOp::create(
              b, loc, viewType, t, b.getIndexAttr(offset),
              {b.getIndexAttr(c), b.getIndexAttr(ph.g.kw), b.getIndexAttr(g.f)},
              {b.getIndexAttr(pitch), b.getIndexAttr(cols), b.getIndexAttr(1)});
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, l.buffer,
                      indexConst(b, loc, l.offset + kh * l.strides[1]),
                      {c, ph.g.kw, g.f}, {l.strides[0], g.f, 1}),
              dst);
        }
      }
      tiles.push_back(t);
    }
  return tiles;
}

SmallVector<Value> ConvKernel::loadFilters() {
  if (stack > 1 || windowRows)
    return {loadStackedFilter()};
  if (foldCols > 1)
    return {loadFoldedFilter()};
  // Per channel block one tile [c, KH * KW * F] (folded: [KH * C, KW * F],
  // partition kh * C + c holding w[c, kh, :, :]).
  int64_t rows = foldRows ? g.kh : 1, row = g.kh * g.kw * g.f / rows;
  // A filter the plan keeps in SBUF for several kernels: the first loads
  // it, the others read its tiles (when this kernel's code comes after
  // theirs, in their layout, and no packing below rewrites them in place).
  const Residents::SharedFilter *shared =
      options.residents && !(bands > 1 && !outBands)
          ? options.residents->sharedFilter(op)
          : nullptr;
  if (shared && !shared->tiles.empty()) {
    Operation *first = shared->tiles.front().getDefiningOp();
    auto type = cast<MemRefType>(shared->tiles.front().getType());
    if (first->getBlock() == b.getInsertionBlock() &&
        b.getInsertionPoint() != b.getInsertionBlock()->end() &&
        first->isBeforeInBlock(&*b.getInsertionPoint()) &&
        type.getDimSize(0) == std::min(P(), g.c) * rows &&
        type.getDimSize(1) == row && type.getElementType() == g.filterType)
      return shared->tiles;
    shared = nullptr;
  }
  SmallVector<Value> tiles = loadFilterBlocks(w, g.c, rows, row, g.filterType);
  if (shared)
    shared->tiles = tiles;
  return tiles;
}

SmallVector<Value> ConvKernel::loadFilterBlocks(const Layout &l,
                                                int64_t channels, int64_t rows,
                                                int64_t row, Type type) {
  SmallVector<Value> filters;
  int64_t pieces = loadPieces(row * tile::storageBytes(type));
  int64_t step = (row + pieces - 1) / pieces;
  for (int64_t c0 = 0; c0 < channels; c0 += P()) {
    int64_t cs = std::min(P(), channels - c0);
    Value t = allocTile(b, loc, {cs * rows, row}, type);
    for (int64_t kh = 0; kh < rows; ++kh)
      for (int64_t q = 0; q < row; q += step) {
        int64_t m = std::min(step, row - q);
        tile::DmaOp::create(
            b, loc,
            hbmView(
                b, loc, l.buffer,
                indexConst(b, loc, l.offset + c0 * l.strides[0] + kh * row + q),
                {cs, m}, {l.strides[0], 1}),
            tileSlice(b, loc, t, kh * cs, cs, q, m));
      }
    filters.push_back(t);
  }
  return filters;
}

/// The DMAs from HBM that write `tile` (an nki.alloc), each into the whole
/// tile or a 2-D static subview of it that nothing else uses, when nothing
/// else uses the tile; none otherwise.
static std::optional<SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>>>
hbmLoadsOf(Value tile) {
  if (!tile.getDefiningOp<tile::AllocOp>())
    return std::nullopt;
  SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>> loads;
  auto fromHbm = [](Operation *op, Value dst) -> tile::DmaOp {
    auto dma = dyn_cast<tile::DmaOp>(op);
    return dma && dma.getDst() == dst && tile::isHbm(dma.getSrc().getType())
               ? dma
               : tile::DmaOp();
  };
  for (Operation *user : tile.getUsers()) {
    if (tile::DmaOp dma = fromHbm(user, tile)) {
      loads.push_back({dma, memref::SubViewOp()});
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || view.getSourceType().getRank() != 2 ||
        view.getType().getRank() != 2 || !view->hasOneUse() ||
        llvm::any_of(view.getStaticOffsets(), ShapedType::isDynamic))
      return std::nullopt;
    tile::DmaOp dma = fromHbm(*view->getUsers().begin(), view);
    if (!dma)
      return std::nullopt;
    loads.push_back({dma, view});
  }
  return loads;
}

/// The block-diagonal filter of packed bands, [bands * C * KH', taps x
/// bands x F]: band j's copy of `filter` ([C * KH', taps * F]) at
/// partitions [j * C * KH', (j + 1) * C * KH') and filters [j * F, (j + 1)
/// * F) of each tap, zero elsewhere. The copies go onto their partitions
/// from HBM (a small constant filter: `filter`'s loads, again for each
/// band) or from `filter` by one DMA each (whole rows: few descriptors);
/// two POOL affine_selects then spread them along the bands, keeping
/// element (p, tap, j, f) where j * C * KH' <= p < (j + 1) * C * KH'.
Value ConvKernel::packFilter(Value filter) {
  int64_t parts = bandParts(), n = taps(), row = n * g.f;
  Value staged = allocTile(b, loc, {bands * parts, row}, g.filterType);
  // Loaded from HBM (a constant filter): each band's copy from there
  // instead of from `filter`, whose load and then the staging copies each
  // took a DMA's completion before the first matmul (2 us each in
  // MobileNetV2's stem), when a band's loads take less queue time than
  // that completion. Not larger filters, whose load is hidden ahead of
  // the kernel anyway and whose copies from HBM then compete with the
  // first layers' loads (ResNet-50 f32 b1: layer1's 3x3 filters, 147 KB a
  // band, and the stem's 49 loads of three partitions a band, 734.6 ->
  // 735.4 us).
  std::optional<SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>>> loads =
      hbmLoadsOf(filter);
  // Each load's slice of `filter`: [p0, f0] and [ps, fs].
  auto sliceOf = [&](memref::SubViewOp view) -> std::array<int64_t, 4> {
    auto type = cast<MemRefType>((view ? Value(view) : filter).getType());
    return {view ? view.getStaticOffsets()[0] : 0,
            view ? view.getStaticOffsets()[1] : 0, type.getDimSize(0),
            type.getDimSize(1)};
  };
  const TileOptions::Rates &t = options.rates;
  if (loads) {
    int64_t bytes = 0;
    for (auto [dma, view] : *loads) {
      auto [p0, f0, ps, fs] = sliceOf(view);
      bytes += ps * std::max(fs * tile::storageBytes(g.filterType),
                             t.dmaMinDescriptorBytes);
    }
    if (!t.dmaBytesPerNs || bytes > t.dmaLatencyNs * t.dmaBytesPerNs)
      loads.reset();
  }
  if (loads) {
    for (int64_t j = 0; j < bands; ++j)
      for (auto [dma, view] : *loads) {
        auto [p0, f0, ps, fs] = sliceOf(view);
        tile::DmaOp::create(
            b, loc, dma.getSrc(),
            tileSlice(b, loc, staged, j * parts + p0, ps, f0, fs));
      }
    for (auto [dma, view] : *loads) {
      dma->erase();
      if (view)
        view->erase();
    }
    filter.getDefiningOp()->erase();
  } else {
    for (int64_t j = 0; j < bands; ++j)
      tile::DmaOp::create(b, loc, filter,
                          tileSlice(b, loc, staged, j * parts, parts, 0, row));
  }
  Value packed =
      allocTile(b, loc, {bands * parts, n * bands * g.f}, g.filterType);
  auto view = [&](Value tile, ArrayRef<int64_t> strides) -> Value {
    auto type = cast<MemRefType>(tile.getType());
    SmallVector<int64_t> sizes = {bands * parts, n, bands, g.f};
    auto layout = StridedLayoutAttr::get(b.getContext(), 0, strides);
    auto viewType =
        MemRefType::get(sizes, g.filterType, layout, type.getMemorySpace());
    SmallVector<OpFoldResult> sizeOfr, strideOfr;
    for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
      sizeOfr.push_back(b.getIndexAttr(size));
      strideOfr.push_back(b.getIndexAttr(stride));
    }
    return memref::ReinterpretCastOp::create(
        b, loc, viewType, tile, b.getIndexAttr(0), sizeOfr, strideOfr);
  };
  // Every band's filters over the staged copy (stride 0 along the bands).
  Value src = view(staged, {row, g.f, 0, 1});
  Value dst = view(packed, {n * bands * g.f, bands * g.f, g.f, 1});
  auto select = [&](Value from, StringRef cmp, int64_t offset) {
    tile::AffineSelectOp::create(
        b, loc, from, dst, b.getStringAttr(cmp), b.getF32FloatAttr(0.0f),
        b.getI64IntegerAttr(offset), b.getI64IntegerAttr(1),
        b.getDenseI64ArrayAttr({0, -parts, 0}));
  };
  select(src, "ge", 0);      // p - j * parts >= 0
  select(dst, "lt", -parts); // p - j * parts - parts < 0
  return packed;
}

/// The chained 1x1's filter [C, F'] once per block of the result's
/// partitions (packed bands or stacked rows), block-diagonal: [blocks * C,
/// blocks * F'], zero off the blocks.
Value ConvKernel::loadChainFilter() {
  Location loc = linalg::GenericOp(chained->op).getLoc();
  int64_t nb = blocks(), f2 = chainG->f;
  Value t = allocTile(b, loc, {nb * g.f, nb * f2}, chainG->filterType);
  if (nb > 1)
    tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  for (int64_t j = 0; j < nb; ++j)
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, chainW.buffer,
                                indexConst(b, loc, chainW.offset), {g.f, f2},
                                {chainW.strides[0], 1}),
                        tileSlice(b, loc, t, j * g.f, g.f, j * f2, f2));
  return t;
}

/// Squeeze-and-excitation before the convolution: x * s[n, c] convolved is
/// x convolved with the filter's rows of channel c times s[n, c], so each
/// image's filter tiles are scaled (C x KH x KW x F multiplies, not C x H x
/// W).
LogicalResult ConvKernel::scaleFilters(int64_t n, SmallVector<Value> &tiles) {
  for (int64_t cb = 0; cb < int64_t(tiles.size()); ++cb) {
    Value &t = tiles[cb];
    int64_t cs = cbAt(cb);
    // Every image's factors at the first (their sources are whole tensors
    // that earlier kernels wrote), each image's a column of them.
    Value &factors = scaleFactors[cb];
    if (!factors) {
      FailureOr<Value> all = channelScaleImages(b, loc, *scale, cb * P(), cs,
                                                g.n, options.residents);
      if (failed(all)) {
        status = op->emitOpError("cannot compute the channel scale it absorbs");
        return failure();
      }
      factors = *all;
    }
    Value column = tileSlice(b, loc, factors, 0, cs, n, 1);
    int64_t row = cast<MemRefType>(t.getType()).getDimSize(1);
    BodyLowering lowering(b, loc, cs, row);
    FailureOr<TileValue> scaled = lowering.binary(
        "mul", {TileValue::Full, 0.0, t, g.filterType},
        {TileValue::Column, 0.0, column, b.getF32Type()}, g.filterType);
    if (failed(scaled)) {
      status = failure();
      return failure();
    }
    t = lowering.materializeFull(*scaled, g.filterType);
  }
  return success();
}
