//===- ConvDepthwise.cpp - depthwise taps on the vector engines -----------===//
//
// ConvKernel's depthwise steps (ConvKernel.h): the compact weights and the
// diagonal filter the PE multiplies with, and the chunks the vector engines
// compute instead (their paths, chosen per chunk by the target's costs).
//
//===----------------------------------------------------------------------===//

#include "ConvKernel.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// The [C, KH * KW * C] filter tile of a depthwise block from its compact
/// [C, KH, KW] weights: one DMA of KH * KW elements per partition, then one
/// POOL affine_select over a view that repeats each weight along the filter
/// axis, keeping element (c, tap, f) where f - c == 0 and zeroing the rest
/// (the diagonal filter in HBM would be C times as many bytes); with folded
/// rows, then in the folded layout.
Value ConvKernel::loadCompact() {
  int64_t taps = g.kh * g.kw, cs = g.c;
  HbmLayout l = *hbmLayoutOf(op, diagonal);
  Value t = allocTile(b, loc, {cs, taps}, g.filterType);
  tile::DmaOp::create(b, loc,
                      hbmView(b, loc, l.buffer, indexConst(b, loc, l.offset),
                              {cs, taps}, {l.strides[0], 1}),
                      t);
  return t;
}

Value ConvKernel::buildDiagonal() {
  int64_t taps = g.kh * g.kw, cs = g.c;
  Value t = allocTile(b, loc, {cs, taps * g.f}, g.filterType);
  auto view = [&](Value tile, ArrayRef<int64_t> strides) -> Value {
    auto type = cast<MemRefType>(tile.getType());
    auto layout = StridedLayoutAttr::get(b.getContext(), 0, strides);
    auto viewType = MemRefType::get({cs, taps, g.f}, g.filterType, layout,
                                    type.getMemorySpace());
    return memref::ReinterpretCastOp::create(
        b, loc, viewType, tile, b.getIndexAttr(0),
        {b.getIndexAttr(cs), b.getIndexAttr(taps), b.getIndexAttr(g.f)},
        {b.getIndexAttr(strides[0]), b.getIndexAttr(strides[1]),
         b.getIndexAttr(strides[2])});
  };
  tile::AffineSelectOp::create(
      b, loc, view(compact, {taps, 1, 0}), view(t, {taps * g.f, g.f, 1}),
      b.getStringAttr("eq"), b.getF32FloatAttr(0.0f), b.getI64IntegerAttr(0),
      b.getI64IntegerAttr(-1), b.getDenseI64ArrayAttr({0, 1}));
  if (!foldRows)
    return t;
  // Folded: partition kh * C + c holds w[c, kh, :, :], the columns of
  // kernel row kh of the diagonal tile, moved there by a DMA within SBUF
  // (an engine keeps data on its partitions).
  int64_t row = g.kw * g.f;
  Value folded = allocTile(b, loc, {g.kh * g.c, row}, g.filterType);
  for (int64_t kh = 0; kh < g.kh; ++kh)
    tile::DmaOp::create(b, loc, tileSlice(b, loc, t, 0, g.c, kh * row, row),
                        tileSlice(b, loc, folded, kh * g.c, g.c, 0, row));
  return folded;
}

void ConvKernel::vectorChunk(OpBuilder &b, Value input, const Chunk &ch,
                             Value acc) {
  int64_t cs = bands * g.c; // packed bands: each band's channels
  for (int64_t i = 0; i < g.kh * g.kw; ++i) {
    int64_t tap = tapAt(i);
    int64_t kh = tap / g.kw, kw = tap % g.kw;
    TapCols t = tapCols(ch, kw);
    if (t.qa >= t.qb)
      continue;
    Value window =
        chunkWindow(b, input, cs, ch, ch.r0 * g.strideH + kh * g.dilationH,
                    g.strideH, t.col, g.strideW, t.qb - t.qa);
    Value weight = tileSlice(b, loc, compact, 0, cs, tap, 1);
    Value product =
        i == 0 ? acc : allocTile(b, loc, {cs, ch.pixels()}, b.getF32Type());
    Value productWindow = accWindow(b, product, cs, ch, t.qa, t.qb);
    tile::TensorScalarOp::create(
        b, loc, window, productWindow, weight, Value(), b.getStringAttr("mul"),
        b.getF32FloatAttr(0.0f), b.getStringAttr("bypass"),
        b.getF32FloatAttr(0.0f), UnitAttr(), UnitAttr());
    if (i > 0) {
      Value sum = accWindow(b, acc, cs, ch, t.qa, t.qb);
      auto add = tile::TensorTensorOp::create(b, loc, b.getStringAttr("add"),
                                              sum, productWindow, sum);
      // Sums in SBUF on the POOL, as chooseVectorChunks counted them: the
      // scheduler, placing each where it finishes first, gave some to the
      // DVE, whose PSUM sums (its alone) then ended the layer late
      // (EfficientNet-B0 f32 at batch 1: 468.0 -> 456.3 us).
      if (!tile::isPsum(acc.getType()))
        add->setAttr(tile::kEngineAttr, b.getStringAttr("pool"));
    }
  }
}

bool ConvKernel::reducesTaps(int64_t pixels, bool dveTaps) const {
  const TileOptions::Rates &t = options.rates;
  int64_t products = pixels * g.kh * g.kw;
  // Bands loaded from HBM hold the source's columns only (trimmed): a
  // border tap then covers part of a chunk, leaving products unset.
  return !trimmed && t.dveClockMHz && pixels <= t.minElementCycles &&
         products <= kMaxTapProducts &&
         (!dveTaps || products <= options.psumColumns);
}

void ConvKernel::reduceChunk(OpBuilder &b, Value input, const Chunk &ch,
                             Value acc, ChunkPath path) {
  int64_t cs = bands * g.c, taps = g.kh * g.kw, px = ch.pixels();
  // products[c, pixel, tap]: the tap innermost, for the reduce.
  Value products = allocTile(b, loc, {cs, px * taps}, b.getF32Type());
  auto layoutOf = [](Value v, SmallVectorImpl<int64_t> &strides) {
    int64_t offset = 0;
    (void)getStaticLayout(cast<MemRefType>(v.getType()), strides, offset);
    return offset;
  };
  // The window of tap (kh, kw): [cs, (imgs,) rc, wc].
  auto window = [&](int64_t kh, int64_t kw) {
    TapCols t = tapCols(ch, kw);
    return chunkWindow(b, input, cs, ch, ch.r0 * g.strideH + kh * g.dilationH,
                       g.strideH, t.col, g.strideW, t.qb - t.qa);
  };
  // The same dims of the products: each pixel's taps are `taps` apart.
  SmallVector<int64_t> pixelStrides = {px * taps};
  if (ch.imgs > 1)
    pixelStrides.push_back(ch.rc * ch.wc * taps);
  pixelStrides.append({ch.wc * taps, taps});
  SmallVector<int64_t> pixelSizes = {cs};
  if (ch.imgs > 1)
    pixelSizes.push_back(ch.imgs);
  pixelSizes.append({ch.rc, ch.wc});
  if (path == ChunkPath::ReduceSums) {
    for (int64_t tap = 0; tap < taps; ++tap)
      tile::TensorScalarOp::create(
          b, loc, window(tap / g.kw, tap % g.kw),
          stridedView(b, loc, products, pixelSizes, pixelStrides, tap),
          tileSlice(b, loc, compact, 0, cs, tap, 1), Value(),
          b.getStringAttr("mul"), b.getF32FloatAttr(0.0f),
          b.getStringAttr("bypass"), b.getF32FloatAttr(0.0f), UnitAttr(),
          UnitAttr());
  } else {
    // One multiply over the taps of a kernel row (of every row for one
    // image: the access pattern's four free dims are the kernel row and
    // column and the pixel's row and column), the weights stepping with
    // the tap and standing still over the pixels.
    SmallVector<int64_t> strides;
    int64_t origin = layoutOf(window(0, 0), strides);
    SmallVector<int64_t> ignored;
    int64_t rowStep = g.kh > 1 ? layoutOf(window(1, 0), ignored) - origin : 0;
    int64_t colStep = g.kw > 1 ? layoutOf(window(0, 1), ignored) - origin : 0;
    bool allRows = ch.imgs == 1;
    for (int64_t kh = 0; kh < (allRows ? 1 : g.kh); ++kh) {
      SmallVector<int64_t> sizes = {cs}, in = {strides[0]}, weights = {taps},
                           out = {pixelStrides[0]};
      if (allRows) {
        sizes.push_back(g.kh);
        in.push_back(rowStep);
        weights.push_back(g.kw);
        out.push_back(g.kw);
      }
      sizes.push_back(g.kw);
      in.push_back(colStep);
      weights.push_back(1);
      out.push_back(1);
      sizes.append(pixelSizes.begin() + 1, pixelSizes.end());
      in.append(strides.begin() + 1, strides.end());
      weights.append(pixelSizes.size() - 1, 0);
      out.append(pixelStrides.begin() + 1, pixelStrides.end());
      // The DVE's with the PSUM copy (a cycle an element), the POOL's
      // with the SBUF weights (two), as chooseVectorChunks counted them.
      bool onPool = path == ChunkPath::PoolTaps;
      auto mul = tile::TensorTensorOp::create(
          b, loc, b.getStringAttr("mul"),
          stridedView(b, loc, input, sizes, in, origin + kh * rowStep),
          stridedView(b, loc, onPool ? compact : tapWeights, sizes, weights,
                      kh * g.kw),
          stridedView(b, loc, products, sizes, out, kh * g.kw));
      mul->setAttr(tile::kEngineAttr, b.getStringAttr(onPool ? "pool" : "dve"));
    }
  }
  Value sums = memref::ExpandShapeOp::create(
      b, loc, SmallVector<int64_t>{cs, px, taps}, products,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  auto reduce = tile::ReduceOp::create(b, loc, b.getStringAttr("add"), sums,
                                       acc, b.getI64IntegerAttr(1), Value());
  reduce->setAttr(tile::kEngineAttr, b.getStringAttr("dve"));
}

/// Which chunks of a depthwise convolution the vector engines compute:
/// greedily, the engine mix that finishes first, by the target's costs.
/// The PE's matmul column costs 4 cycles for fp32 (a quarter of its bf16
/// rate) and the diagonal filter wastes all but one of its rows, while the
/// ACT and DVE each pass over a tap's window in about a cycle per element;
/// so fp32 layers go largely to the vector engines, bf16 ones stay on the
/// PE but for small windows, where LoadStationary dominates. The ACT also
/// evacuates every chunk (its epilogue). Sums in PSUM are the DVE's (the
/// POOL cannot reach PSUM); a chunk may instead be summed in an SBUF
/// accumulator, which the POOL multiplies and sums (two cycles an element
/// with two inputs), so that three engines share the taps. A chunk of a
/// small image may put all its taps' products in one tile that one DVE
/// reduce sums (reducesTaps): ReduceSums, the products a tap at a time as
/// for the PSUM sums, or one multiply for them all, DveTaps (the weights
/// broadcast from a PSUM copy) or PoolTaps (from SBUF).
void ConvKernel::chooseVectorChunks() {
  const TileOptions::Rates &t = options.rates;
  if (!diagonal || foldRows || scale || fBlocks != 1 || !t.actClockMHz)
    return;
  int64_t taps = g.kh * g.kw;
  // The channel blocks of one convolution continue from the loads the
  // blocks before them left.
  TileOptions::DepthwiseLoads fresh;
  fresh.source = op.getLoc();
  TileOptions::DepthwiseLoads &loads =
      options.depthwiseLoads ? *options.depthwiseLoads : fresh;
  if (loads.source != LocationAttr(op.getLoc()))
    loads = fresh;
  double &pe = loads.pe, &act = loads.act, &dve = loads.dve, &pool = loads.pool;
  SmallVector<size_t> starts; // the end of each group of images' chunks
  for (int64_t n = 0; n < g.n;
       n += imageGroup, starts.push_back(chunkPaths.size()))
    forEachChunk(std::min(imageGroup, g.n - n), [&](int64_t pixels,
                                                    int64_t group) {
      double peNs = peChunkNs(pixels, group, taps);
      double evacuation = vectorNs(pixels, t.actClockMHz);
      double products = taps * vectorNs(pixels, t.actClockMHz);
      double sums = (taps - 1) * vectorNs(pixels, t.dveClockMHz);
      double poolWork =
          taps * poolNs(pixels, 1) + (taps - 1) * poolNs(pixels, 2);
      bool reduce = reducesTaps(pixels, false);
      bool dveTaps = reducesTaps(pixels, true);
      // Not under auto-cast (bf16 inputs): EfficientNet-B0 at batch 1 ran
      // 237.7 -> 242.2 us with the POOL's multiplies.
      bool poolTaps = reduce && g.inputType.isF32();
      double reduced = vectorNs(pixels * taps, t.dveClockMHz);
      // Each path's engine time (ChunkPath's order; the ACT evacuates
      // every chunk) and whether the chunk may take it.
      struct Work {
        bool allowed;
        double pe, act, dve, pool;
      } work[] = {{true, peNs, evacuation, 0, 0},
                  {true, 0, evacuation + products, sums, 0},
                  {true, 0, evacuation, 0, poolWork},
                  {reduce, 0, evacuation + products, reduced, 0},
                  {dveTaps, 0, evacuation, 2 * reduced, 0},
                  {poolTaps, 0, evacuation, reduced, poolNs(pixels * taps, 2)}};
      auto finish = [&](const Work &w) {
        return std::max({pe + w.pe, act + w.act, dve + w.dve, pool + w.pool});
      };
      // The first of the least (the PE on a tie, then the paths in order).
      size_t best = 0;
      for (size_t i = 1; i < std::size(work); ++i)
        if (work[i].allowed && finish(work[i]) < finish(work[best]))
          best = i;
      chunkPaths.push_back(ChunkPath(best));
      pe += work[best].pe;
      act += work[best].act;
      dve += work[best].dve;
      pool += work[best].pool;
    });
  // When most of an image's chunks take the vector paths, those go first
  // and the PE's last: a vector chunk is a chain (products, then sums)
  // that its engines start as soon as it is issued, a PE chunk an
  // evacuation after its matmuls, which the PE runs whenever it is free.
  // In the greedy's order EfficientNet-B0's 112 x 112 depthwise layer in
  // f32 ended on 9 us of the DVE's sums alone. (When the PE takes most,
  // its chunks keep their order: its evacuations, not the vector chains,
  // must keep up.)
  for (size_t i = 0, b0 = 0; i < starts.size(); b0 = starts[i++]) {
    auto first = chunkPaths.begin() + b0, last = chunkPaths.begin() + starts[i];
    if (2 * std::count(first, last, ChunkPath::PE) >= last - first)
      continue;
    SmallVector<ChunkPath> paths(first, last);
    auto onVector = [](ChunkPath p) { return p != ChunkPath::PE; };
    auto peChunks = std::copy_if(paths.begin(), paths.end(), first, onVector);
    std::copy_if(paths.begin(), paths.end(), peChunks, std::not_fn(onVector));
  }
}
