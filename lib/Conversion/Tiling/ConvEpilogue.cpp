//===- ConvEpilogue.cpp - a convolution's evacuations ---------------------===//
//
// ConvKernel's evacuations of its PSUM accumulators (ConvKernel.h): the
// fused epilogue (bias, activation, residual, clamps), max and global
// poolings of the result, transposed convolutions' phase scatters, and the
// engines the evacuations take.
//
//===----------------------------------------------------------------------===//

#include "ConvKernel.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// Whether `v` is exactly representable in the float type `t`.
static bool representable(double v, Type t) {
  auto ft = dyn_cast<FloatType>(t);
  if (!ft)
    return false;
  APFloat f(v);
  bool lost = false;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return !lost && f.convertToDouble() == v;
}

/// When `t` is the result of a min/max clamp by immediates the (as wide or
/// narrower) `view` holds exactly, applied to a fresh tile `s` that one
/// instruction wrote and only the clamp reads: that instruction writes
/// `view` instead and the clamp runs in place there. round(clamp(x)) ==
/// clamp(round(x)) for monotonic rounding and bounds the narrow type holds.
/// (Under auto-cast the graph already rounds before the clamp,
/// RoundBeforeClamp.h; the tile is then no wider than the view.) Returns
/// the clamp, now in place on `view`, or null.
static tile::TensorScalarOp clampInto(Value t, Value view) {
  auto ts = dyn_cast_or_null<tile::TensorScalarOp>(
      t.hasOneUse() ? *t.getUsers().begin() : nullptr);
  Type narrow = cast<MemRefType>(view.getType()).getElementType();
  if (!ts || ts.getDst() != t || ts.getScalar0() || ts.getScalar1() ||
      tile::storageBytes(narrow) >
          tile::storageBytes(cast<MemRefType>(t.getType()).getElementType()))
    return {};
  auto clamp = [&](StringRef op, APFloat imm) {
    return op == "bypass" || ((op == "min" || op == "max") &&
                              representable(imm.convertToDouble(), narrow));
  };
  if (!clamp(ts.getOp0(), ts.getImm0()) || ts.getOp0() == "bypass" ||
      !clamp(ts.getOp1(), ts.getImm1()))
    return {};
  Value src = ts.getSrc();
  auto srcAlloc = src.getDefiningOp<tile::AllocOp>();
  auto tAlloc = t.getDefiningOp<tile::AllocOp>();
  if (!srcAlloc || !tAlloc || !src.hasNUses(2))
    return {};
  Operation *writer = nullptr;
  for (Operation *user : src.getUsers())
    if (user != ts.getOperation())
      writer = user;
  auto effects = dyn_cast_or_null<MemoryEffectOpInterface>(writer);
  if (!effects || !effects.getEffectOnValue<MemoryEffects::Write>(src) ||
      effects.getEffectOnValue<MemoryEffects::Read>(src))
    return {};
  // A ReLU under the clamp at 6 joins the clamp (round(relu(v)) is
  // max(round(v), 0)): the ACT's pass is then an identity, which the DVE
  // can run as well (Lowering.cpp's activationOnDve), and the clamp in
  // the narrow type is one pass either way.
  auto act = dyn_cast<tile::ActivationOp>(writer);
  if (act && act.getFunc() == "relu" && !act.getAccum() &&
      ts.getOp0() == "min" && ts.getOp1() == "bypass") {
    OpBuilder b(ts);
    act.setFuncAttr(b.getStringAttr("identity"));
    ts.setOp1Attr(ts.getOp0Attr());
    ts.setImm1Attr(ts.getImm0Attr());
    ts.setOp0Attr(b.getStringAttr("max"));
    ts.setImm0Attr(b.getF32FloatAttr(0.0f));
  }
  src.replaceAllUsesWith(view);
  t.replaceAllUsesWith(view);
  srcAlloc->erase();
  tAlloc->erase();
  return ts;
}

void ConvKernel::joinClamps() {
  // `c` may join a run that `a` starts (alike(a, a): `a` may start one).
  auto alike = [&](Clamp &a, Clamp &c) {
    return c.out.tensor == a.out.tensor && c.f0 == a.f0 && c.fb == a.fb &&
           c.ow0 == 0 && c.wc == g.ow && !c.op.getScalar0() &&
           !c.op.getScalar1() &&
           c.op->getAttrDictionary() == a.op->getAttrDictionary();
  };
  for (size_t i = 0; i < clamps.size();) {
    Clamp &first = clamps[i];
    // Consecutive rows of one image, or whole images one after another.
    int64_t images = 1, rows = first.rc;
    size_t e = i + 1, whole = first.oh == 0 && rows == g.oh ? e : 0;
    if (alike(first, first))
      for (; e < clamps.size() && alike(first, clamps[e]); ++e) {
        Clamp &c = clamps[e];
        int64_t n = first.n + images - 1;
        if (c.n == n && c.oh == (images > 1 ? 0 : first.oh) + rows &&
            (images == 1 || c.oh + c.rc <= g.oh))
          rows += c.rc;
        else if (c.n == n + 1 && c.oh == 0 && first.oh == 0 && rows == g.oh)
          ++images, rows = c.rc;
        else
          break;
        if (first.oh == 0 && rows == g.oh)
          whole = e + 1;
      }
    // Several images: whole ones only.
    if (images > 1) {
      e = whole;
      images = clamps[e - 1].n - first.n + 1;
      rows = g.oh;
    }
    if (e - i > 1) {
      // After the last of them: every chunk it covers has been written.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(clamps[e - 1].op);
      Value view = options.residents->view(b, loc, first.out, first.n, first.f0,
                                           first.fb, first.oh, rows, 1, 0, g.ow,
                                           1, images);
      auto joined = cast<tile::TensorScalarOp>(b.clone(*first.op));
      joined.getSrcMutable().assign(view);
      joined.getDstMutable().assign(view);
      for (size_t j = i; j < e; ++j) {
        Value old = clamps[j].op.getDst();
        clamps[j].op->erase();
        if (Operation *def = old.getDefiningOp(); def && def->use_empty())
          def->erase();
      }
    }
    i = std::max(e, i + 1);
  }
  clamps.clear();
}

void ConvKernel::poolChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t fb,
                           int64_t oh, int64_t rc, Value chunk) {
  // The chunk's final values [fb, rc * ow] (or a [fb, rc, ow] view) in
  // SBUF: the max over column pairs (and the column before each, 3x3),
  // then over row pairs (and the row before each), on the DVE or the POOL,
  // and each band's pooled rows out.
  auto type = cast<MemRefType>(chunk.getType());
  Type work = type.getElementType();
  if (tile::isPsum(type)) {
    Value t = allocTile(b, loc, {fb, type.getDimSize(1)}, work);
    tile::CopyOp::create(b, loc, chunk, t);
    chunk = t;
    type = cast<MemRefType>(chunk.getType());
  }
  // A tile of its own (not a view of a staging or result tile that the
  // next chunk writes again) may wait for the chunk after it.
  bool ownTile = chunk.getDefiningOp<tile::AllocOp>() != nullptr;
  if (type.getRank() == 2)
    chunk = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{fb, rc, g.ow}, chunk,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
  // fs partitions a block: a band, or one of a chunk's stacked rows.
  int64_t pw = g.ow / 2, fs = fb / (stack > 1 ? validBlocks() : bands);
  bool three = pool->window == 3;
  // A 2x2 window's rows in two chunks (chunks of one row): the column maxes
  // go into a tile of the band's rows, as for 3x3, and the chunk that
  // completes a pair pools it. The pooled rows this chunk completes:
  // [pairFirst, pairFirst + pr) of the band.
  bool across = !three && stack == 1 && (oh % 2 || rc % 2);
  int64_t pairFirst = oh / 2, pr = (oh + rc) / 2 - pairFirst;
  // Chunks of one row: a pair's first row waits whole in its own tile, and
  // the second takes the max of the two rows first (unit stride: the DVE's
  // 2-byte path for bf16), then of that row's column pairs. One strided max
  // a pair instead of two (each a cycle an element, 64 + 2 x 160 for the
  // text recogniser's 320 columns) and the rows' max (64 + 160):
  // 768 cycles for 992 on its first layer's 2 x 192 pairs an image.
  auto [waiting, waitingRow] = pairRows.lookup({n, f0});
  if (across && rc == 1 && oh % 2 == 0 && ownTile) {
    pairRows[{n, f0}] = {chunk, oh};
    return;
  }
  Value pairMax;
  if (across && rc == 1 && waiting && waitingRow == oh - 1) {
    pairMax = allocTile(b, loc, {fb, 1, g.ow}, work);
    tile::TensorTensorOp::create(b, loc, "max", waiting, chunk, pairMax);
    pairRows.erase({n, f0});
  }
  // Rows [c0, c0 + rc) of `cols` are the chunk's.
  Value cols;
  int64_t c0 = 0;
  if (pairMax) {
    // The columns of the pair's row maxes, below.
  } else if (three || across) {
    Value &band = poolCols[{n, f0}];
    if (!band)
      band = allocTile(b, loc, {fb, bandH, pw}, work);
    cols = band;
    c0 = oh;
  } else {
    cols = allocTile(b, loc, {fb, rc, pw}, work);
  }
  auto max = [&](Value x, Value y, Value dst) {
    tile::TensorTensorOp::create(b, loc, "max", x, y, dst);
  };
  if (!pairMax)
    max(windowOf(b, loc, chunk, fb, 0, rc, 1, 0, pw, 2),
        windowOf(b, loc, chunk, fb, 0, rc, 1, 1, pw, 2),
        windowOf(b, loc, cols, fb, c0, rc, 1, 0, pw, 1));
  // Column 2q - 1 for q >= 1 (q = 0's is the padding).
  if (three && pw > 1) {
    Value dst = windowOf(b, loc, cols, fb, c0, rc, 1, 1, pw - 1, 1);
    max(dst, windowOf(b, loc, chunk, fb, 0, rc, 1, 1, pw - 1, 2), dst);
  }
  std::optional<ResidentRef> out =
      options.residents ? options.residents->lookup(pooled.buffer)
                        : std::nullopt;
  // Pooled rows row, row + step, ... (count of them) of a block.
  auto target = [&](int64_t row, int64_t count, int64_t step = 1) -> Value {
    if (out)
      return options.residents->view(b, loc, *out, n, f0, fs, row, count, step,
                                     0, pw, 1);
    SmallVector<Value> ivs = {indexConst(b, loc, n), indexConst(b, loc, f0),
                              indexConst(b, loc, row), indexConst(b, loc, 0)};
    return hbm(
        b, pooled, ivs, {fs, count, pw},
        {pooled.strides[1], step * pooled.strides[2], pooled.strides[3]});
  };
  // `src` ([fs, count, pw]) out to those rows: a DMA, or, into a packed
  // tensor, its reader's band tile.
  bool packedOut = out && out->tensor->packed;
  auto put = [&](Value src, int64_t row, int64_t count, int64_t step = 1) {
    if (packedOut)
      options.residents->write(b, loc, *out, src, n, f0, fs, row, count, step,
                               0, pw, tailGroup);
    else
      tile::DmaOp::create(b, loc, src, target(row, count, step));
  };
  // Stacked rows: block j holds output rows stack * (oh + i) + j, so a
  // pooled pair is blocks 2p and 2p + 1, on other partitions. Where both
  // blocks of every pair start where an engine may read them, one max a
  // pair reads them in place into block 2p; else each pair's blocks trade
  // places by DMA and one max over every block leaves pair p's maxes in
  // block 2p (and again in 2p + 1). Pooled rows (stack / 2) * (oh + i) + p.
  if (stack > 1) {
    auto block = [&](Value t, int64_t j) {
      return windowOf(b, loc, t, fs, 0, rc, 1, 0, pw, 1, j * fs);
    };
    int64_t nb = validBlocks();
    bool pairsInPlace =
        options.residents &&
        llvm::all_of(llvm::seq<int64_t>(0, nb / 2), [&](int64_t p) {
          return options.residents->engineMayMove((2 * p + 1) * fs, 2 * p * fs,
                                                  fs);
        });
    if (pairsInPlace) {
      for (int64_t p = 0; 2 * p < nb; ++p)
        max(block(cols, 2 * p), block(cols, 2 * p + 1), block(cols, 2 * p));
    } else {
      Value other = allocTile(b, loc, {fb, rc, pw}, work);
      for (int64_t j = 0; j < nb; ++j)
        tile::DmaOp::create(b, loc, block(cols, j ^ 1), block(other, j));
      max(cols, other, cols);
    }
    for (int64_t p = 0; 2 * p < nb; ++p)
      put(block(cols, 2 * p), stack / 2 * oh + p, rc, stack / 2);
    return;
  }
  // One band in SBUF: straight into the pooled tensor's tile. Bands into
  // one with border columns: staged with them (Residents::stagesRows).
  if (pr == 0)
    return;
  bool inPlace = bands == 1 && out && !packedOut;
  Value staged = !inPlace && !three && out && (packedOut || bands > 1) &&
                         stagesRowsInto(*out, pw)
                     ? options.residents->stagedRows(b, loc, *out, fb, pr)
                     : Value();
  Value rows = inPlace ? target(pairFirst, pr)
               : staged
                   ? options.residents->stagedInterior(b, loc, *out, staged)
                   : allocTile(b, loc, {fb, pr, pw}, work);
  // The pairs' first rows in `cols`: the chunk's own (c0 = oh even), or
  // the band's rows from the pair before this chunk's odd first row.
  int64_t v0 = c0 - oh + 2 * pairFirst;
  if (pairMax)
    max(windowOf(b, loc, pairMax, fb, 0, 1, 1, 0, pw, 2),
        windowOf(b, loc, pairMax, fb, 0, 1, 1, 1, pw, 2), rows);
  else
    max(windowOf(b, loc, cols, fb, v0, pr, 2, 0, pw, 1),
        windowOf(b, loc, cols, fb, v0 + 1, pr, 2, 0, pw, 1), rows);
  // Row 2i - 1: the previous chunk's last for i = 0, but in a band's
  // first chunk (the padding in the first band; the band before's last
  // row, below, in the others).
  int64_t first = three && oh == 0 ? 1 : 0;
  if (three && pr > first) {
    Value dst = windowOf(b, loc, rows, fb, first, pr - first, 1, 0, pw, 1);
    max(dst,
        windowOf(b, loc, cols, fb, c0 + 2 * first - 1, pr - first, 2, 0, pw, 1),
        dst);
  }
  if (inPlace)
    return;
  if (staged) {
    for (int64_t j = 0; j < bands; ++j)
      options.residents->writeStagedRows(b, loc, *out, staged, j * fs, n, f0,
                                         fs, pairFirst + j * bandH / 2,
                                         tailGroup);
    return;
  }
  for (int64_t j = 0; j < bands; ++j) {
    int64_t r0 = j > 0 ? first : 0;
    if (pr > r0)
      put(windowOf(b, loc, rows, fs, r0, pr - r0, 1, 0, pw, 1, j * fs),
          pairFirst + j * bandH / 2 + r0, pr - r0);
  }
  if (!three || bands == 1)
    return;
  if (oh == 0)
    poolFirst[{n, f0}] = rows;
  if (oh + rc < bandH)
    return;
  // The band's last chunk: each band's last row of column maxes moves to
  // the next band's partitions (the first band's gets the padding), joins
  // the first pooled row there, which goes out.
  Value firstRows = poolFirst.lookup({n, f0});
  Value above = allocTile(b, loc, {fb, 1, pw}, work);
  tile::MemsetOp::create(
      b, loc, above,
      b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  for (int64_t j = 1; j < bands; ++j)
    tile::DmaOp::create(
        b, loc,
        windowOf(b, loc, cols, fs, bandH - 1, 1, 1, 0, pw, 1, (j - 1) * fs),
        windowOf(b, loc, above, fs, 0, 1, 1, 0, pw, 1, j * fs));
  Value top = windowOf(b, loc, firstRows, fb, 0, 1, 1, 0, pw, 1);
  max(top, above, top);
  for (int64_t j = 1; j < bands; ++j)
    put(windowOf(b, loc, firstRows, fs, 0, 1, 1, 0, pw, 1, j * fs),
        j * bandH / 2, 1);
}

bool ConvKernel::evacuatesImages(int64_t pixels) const {
  if (blocks() != 1 || bands > 1 || poolInKernel || scale)
    return false;
  // A global pooling's sums (a squeeze-and-excitation's squeeze) of images
  // of a few pixels, each image one evacuation: one reduction for them all
  // (sumForPool).
  if (globalPool &&
      (chained || !(pixels <= kFewPixels && evacuationsPerImage == 1)))
    return false;
  // Every per-channel operand is the same for every image.
  if (epilogue && !llvm::all_of(epi.operands, [&](const Access &e) {
        return !e.buffer || !perChannel(e, g.oh, g.ow) || e.strides[0] == 0;
      }))
    return false;
  // Images of a few pixels (a squeeze-and-excitation's 1x1 convolutions,
  // the last layers of a classifier of small inputs): an instruction's
  // fixed cost and its 64-element minimum are nearly all of it.
  if (pixels <= kFewPixels)
    return true;
  // Else an epilogue with a function only the ACT computes (SiLU, sigmoid,
  // GELU): its instructions cannot spread over the engines, so each one's
  // fixed cost is the ACT's alone. Others spread over three engines, where
  // more, smaller evacuations finish sooner (and the scheduler's balance
  // moves: ResNet-50's ReLU epilogues at batch 8 under auto-cast ran
  // 1,706 -> 1,839 us merged).
  return actEpilogue;
}

void ConvKernel::evacuate(OpBuilder &b, int64_t n, int64_t f0, int64_t fb,
                          int64_t oh, int64_t ow0, int64_t rc, int64_t wc,
                          Value acc, int64_t imgs) {
  assert((imgs == 1 || evacuatesImages(rc * wc)) &&
         "images evacuated one by one");
  int64_t cols = rc * wc * imgs;
  // Packed bands or stacked rows: partitions [j * F, (j + 1) * F) of the
  // chunk are output rows blockRow(oh, j), blockRow(oh, j) + blockRowStep(),
  // ...; every operand moves by DMA. A last group of fewer stacked rows
  // computes the first `nb` blocks only.
  int64_t fs = fb / blocks(), nb = validBlocks();
  if (nb < blocks()) {
    fb = nb * fs;
    acc = tileSlice(b, loc, acc, 0, fb, 0, cols);
  }
  // [fs, rc * wc] of block j of a 4-D operand: partitions along f, the
  // chunk's pixels along the free axis (whole rows merge; else rc == 1);
  // [fs, rc, wc] when the block's rows step over the others'.
  // (`parts` partitions: a chained 1x1's result or operand has its own.)
  auto view2d = [&](const Layout &l, int64_t width, int64_t j,
                    int64_t parts = 0) {
    parts = parts ? parts : fs;
    SmallVector<Value> ivs = {indexConst(b, loc, n), indexConst(b, loc, f0),
                              indexConst(b, loc, blockRow(oh, j)),
                              indexConst(b, loc, ow0)};
    if (imgs > 1 && width != 1)
      return hbm(b, l, ivs, {parts, imgs, width / imgs},
                 {l.strides[1], l.strides[0], l.strides[3]});
    if (width != 1 && blockRowStep() > 1)
      return hbm(b, l, ivs, {parts, rc, wc},
                 {l.strides[1], blockRowStep() * l.strides[2], l.strides[3]});
    int64_t free = width == 1 ? 1 : l.strides[3];
    return hbm(b, l, ivs, {parts, width}, {l.strides[1], free});
  };
  // A resident operand's chunk: [fs, rc, wc] of its SBUF tile.
  auto resident = [&](Value buffer, int64_t j) -> Value {
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(buffer) : std::nullopt;
    if (!r || r->tensor->packed) // written by DMA, never read here
      return {};
    return options.residents->view(b, loc, *r, n, f0, fs, blockRow(oh, j), rc,
                                   blockRowStep(), ow0, wc, 1, imgs);
  };
  // An operand's tile, [fb, cols] or a per-channel [fb, 1] `column`: a
  // resident view (one band), else one DMA per band; a column once per
  // image and filter block. (`parts` partitions a block: a chained 1x1's
  // columns have its filters'.)
  auto load = [&](const Layout &l, Type type, bool column,
                  int64_t parts = 0) -> Value {
    parts = parts ? parts : fs;
    if (!column && options.phaseAddends)
      if (auto it = options.phaseAddends->find(l.buffer);
          it != options.phaseAddends->end())
        return loadPhases(b, it->second, type, n, f0, parts, nb, oh, rc, ow0,
                          wc, imgs);
    if (Value v = !column && blocks() == 1 ? resident(l.buffer, 0) : Value())
      return v;
    int64_t width = column ? 1 : cols;
    std::tuple<Value, int64_t, int64_t> key = {
        l.buffer, l.offset + n * l.strides[0] + f0 * l.strides[1], parts};
    // A last group's shorter column is not cached: it covers fewer blocks.
    bool cache = column && nb == blocks();
    if (Value cached = cache ? columns.lookup(key) : Value())
      return cached;
    Value t = allocTile(b, loc, {nb * parts, width}, type);
    if (cache)
      columns[key] = t;
    for (int64_t j = 0; j < nb; ++j) {
      Value r = column ? Value() : resident(l.buffer, j);
      tile::DmaOp::create(b, loc, r ? r : view2d(l, width, j, parts),
                          tileSlice(b, loc, t, j * parts, parts, 0, width));
    }
    return t;
  };
  Layout out = resultLayout();
  Value outView = blocks() == 1 ? resident(out.buffer, 0) : Value();
  std::optional<ResidentRef> outRef =
      options.residents ? options.residents->lookup(out.buffer) : std::nullopt;
  // Whole rows of one image moved by DMA into a resident tensor whose rows
  // have border columns (packed bands, or its packed reader's tile): staged
  // with those columns so that each block is one run a partition
  // (stagesRowsInto); the last instruction writes the staged tile's
  // interior, made here, before it.
  Value staged, stagedView;
  if (outRef && !outView && !chained && !scatter &&
      !(poolInKernel && pool->resultUnread) && blockRowStep() == 1 &&
      nb == blocks() && imgs == 1 && ow0 == 0 && wc == g.ow &&
      (blocks() > 1 || outRef->tensor->packed) &&
      stagesRowsInto(*outRef, g.ow)) {
    staged = options.residents->stagedRows(b, loc, *outRef, fb, rc);
    stagedView = options.residents->stagedInterior(b, loc, *outRef, staged);
  }
  // The chunk's value `t` into the resident view.
  auto storeInto = [&](Value t, Value view) {
    // A final clamp (ReLU6's min with 6) into a narrower view: the value
    // before it is stored there and clamped in place (rounding commutes with
    // a clamp to a bound the narrow type holds exactly), which puts the
    // clamp on the DVE's fast path for 2-byte operands.
    if (tile::TensorScalarOp clamp = clampInto(t, view)) {
      if (outRef && blocks() == 1 && !poolInKernel && !globalPool && g.n > 1 &&
          imgs == 1)
        clamps.push_back({clamp, *outRef, n, f0, fb, oh, rc, ow0, wc});
      return;
    }
    // Of another element type (a bf16 tensor whose readers round to bf16)
    // when the tile is only the last instruction's destination: the store
    // into the view rounds as the copy would.
    auto alloc = t.getDefiningOp<tile::AllocOp>();
    if (alloc && t != acc &&
        (t.hasOneUse() ||
         cast<MemRefType>(t.getType()).getElementType() ==
             cast<MemRefType>(view.getType()).getElementType())) {
      // A pooled sum taken from the tile (sumForPool's reduction, when no
      // activation could accumulate it) reads the view instead: all of its
      // free dims, which may be more than the tile's ([P, rows, cols]).
      SmallVector<tile::ReduceOp> sums;
      for (Operation *user : t.getUsers())
        if (auto r = dyn_cast<tile::ReduceOp>(user); r && r.getSrc() == t)
          sums.push_back(r);
      t.replaceAllUsesWith(view);
      alloc->erase();
      for (tile::ReduceOp r : sums)
        r.setAxes(cast<MemRefType>(view.getType()).getRank() - 1);
      return;
    }
    tile::CopyOp::create(b, loc, t, view);
  };
  // The chained 1x1 convolution of the chunk's value `t`: multiplied in
  // the 1x1's input type, evacuated with its epilogue (per-channel
  // operands, a column per block) and stored a block at a time.
  auto chain = [&](Value t) {
    // Its instructions carry the 1x1's location (the per-op profile).
    Location loc = linalg::GenericOp(chained->op).getLoc();
    auto type = cast<MemRefType>(t.getType());
    if (type.getElementType() != chainG->inputType || tile::isPsum(type)) {
      // The instruction that computes the value writes the 1x1's type
      // when nothing else reads it (the same rounding as a copy's; under
      // auto-cast the U-Net's head took a third ACT pass a chunk so).
      if (Value narrow = retypeWrittenTile(b, t, chainG->inputType)) {
        t = narrow;
      } else {
        Value m = allocTile(b, loc, {fb, cols}, chainG->inputType);
        tile::CopyOp::create(b, loc, t, m);
        t = m;
      }
    }
    int64_t f2 = chainG->f, parts = nb * f2;
    Value acc2 = allocTile(b, loc, {parts, cols}, b.getF32Type(),
                           tile::MemorySpace::PSUM);
    tile::MatmulOp::create(b, loc,
                           tileSlice(b, loc, chainFilter, 0, fb, 0, parts), t,
                           acc2, UnitAttr());
    Type outType = cast<MemRefType>(chainY.buffer.getType()).getElementType();
    Value r;
    if (!chained->epilogue) {
      r = allocTile(b, loc, {parts, cols}, outType);
      tile::CopyOp::create(b, loc, acc2, r);
    } else {
      BodyLowering lowering2(b, loc, parts, cols);
      FailureOr<Value> v = chainEpi.compute(
          b, loc, lowering2, {TileValue::Full, 0.0, acc2, b.getF32Type()}, acc2,
          b.getF32Type(), parts, cols,
          [&](const Access &e) -> std::pair<Value, bool> {
            Layout l{e.buffer, e.offset, SmallVector<int64_t>(e.strides)};
            return {load(l, e.elementType, /*column=*/true, f2), true};
          },
          /*roundOnStore=*/true);
      if (failed(v)) {
        status = failure();
        return;
      }
      r = *v;
    }
    std::optional<ResidentRef> ref =
        options.residents ? options.residents->lookup(chainY.buffer)
                          : std::nullopt;
    for (int64_t j = 0; j < nb; ++j)
      tile::DmaOp::create(
          b, loc, tileSlice(b, loc, r, j * f2, f2, 0, cols),
          ref ? options.residents->view(b, loc, *ref, n, 0, f2, blockRow(oh, j),
                                        rc, blockRowStep(), ow0, wc, 1, imgs)
              : view2d(chainY, cols, j, f2));
  };
  // Writes the chunk's value `t` (a full SBUF or PSUM tile) out: into the
  // resident tensor (a fresh tile of its type is replaced by the view, so
  // the last instruction writes there), else by DMA. A fused pooling then
  // reads it where it is.
  // Returns where the chunk's values are once stored (null: nowhere).
  auto store = [&](Value t) -> Value {
    if (chained) {
      chain(t);
      return Value();
    }
    // Only the fused pooling reads the result: it pools the values the
    // result would hold, rounded to its type or to the pooled tensor's when
    // that is narrower (rounding commutes with max; the last instruction
    // writes that type when it can), and nothing is stored.
    if (poolInKernel && pool->resultUnread) {
      Type outType = cast<MemRefType>(out.buffer.getType()).getElementType();
      Type pooledType =
          cast<MemRefType>(pooled.buffer.getType()).getElementType();
      if (std::optional<ResidentRef> r =
              options.residents ? options.residents->lookup(pooled.buffer)
                                : std::nullopt)
        pooledType =
            cast<MemRefType>(r->tensor->tile.getType()).getElementType();
      if (tile::storageBytes(pooledType) < tile::storageBytes(outType))
        outType = pooledType;
      auto type = cast<MemRefType>(t.getType());
      if (outType != type.getElementType()) {
        Value narrow = retypeWrittenTile(b, t, outType);
        if (!narrow) {
          narrow = allocTile(b, loc, type.getShape(), outType);
          tile::CopyOp::create(b, loc, t, narrow);
        }
        t = narrow;
      }
      poolChunk(b, n, f0, fb, oh, rc, t);
      return Value();
    }
    if (!outView) {
      // Stored narrower (a bf16 tensor in HBM): the last instruction
      // writes that type, so the DMA moves half the bytes.
      Type outType = cast<MemRefType>(out.buffer.getType()).getElementType();
      if (outType != cast<MemRefType>(t.getType()).getElementType() &&
          tile::storageBytes(outType) <
              tile::storageBytes(
                  cast<MemRefType>(t.getType()).getElementType()))
        if (Value narrow = retypeWrittenTile(b, t, outType))
          t = narrow;
      if (staged) {
        storeInto(t, stagedView);
        for (int64_t j = 0; j < nb; ++j)
          options.residents->writeStagedRows(
              b, loc, *outRef, staged, j * fs, n, f0, fs, blockRow(oh, j),
              outRef->tensor->packed && tailGroup);
        if (poolInKernel)
          poolChunk(b, n, f0, fb, oh, rc, stagedView);
        return stagedView;
      }
      for (int64_t j = 0; j < nb; ++j) {
        if (outRef && outRef->tensor->packed) {
          // Into its reader's band tile: each image's rows of the block.
          for (int64_t i = 0; i < imgs; ++i)
            options.residents->write(
                b, loc, *outRef,
                tileSlice(b, loc, t, j * fs, fs, i * rc * wc, rc * wc), n + i,
                f0, fs, blockRow(oh, j), rc, blockRowStep(), ow0, wc,
                tailGroup);
          continue;
        }
        Value r = resident(out.buffer, j);
        Value block = tileSlice(b, loc, t, j * fs, fs, 0, cols);
        // A block of a resident result, from and to partitions where an
        // engine may start, as an engine copy: the last group's with one
        // image in flight, so that the next kernel waits for an instruction,
        // not a DMA's completion (with several images it has others to
        // start on, and the engines more to do); and every block of two
        // stacked windows, whose rows interleave the other blocks' (a DMA
        // pays a descriptor a row; the copy is one instruction, four
        // elements a cycle on the DVE for 2-byte types: ResNet-50 at batch
        // 8 in fp32 4,204.1 -> 4,200.9 us).
        if (r && ((tailGroup && oneImageInFlight()) || stackWindows > 1) &&
            engineMovesBlock(*outRef, j, f0, fs))
          tile::CopyOp::create(b, loc, block, r);
        else
          tile::DmaOp::create(b, loc, block, r ? r : view2d(out, cols, j));
      }
      if (poolInKernel)
        poolChunk(b, n, f0, fb, oh, rc, t);
      return t;
    }
    storeInto(t, outView);
    if (poolInKernel)
      poolChunk(b, n, f0, fb, oh, rc, outView);
    return outView;
  };
  BodyLowering lowering(b, loc, fb, cols);
  auto addOrder = [&] { return chooseAddOrder(cols); };
  lowering.setAddBeforePendingChoice(addOrder);
  auto siluEngines = [&] { return chooseSiluEngines(cols); };
  lowering.setSiluChoice(siluEngines);
  // Several images' sums read the values where the store left them: their
  // last instruction may write a resident view in place of `t`.
  auto storeAndSum = [&](Value t) {
    if (globalPool && imgs == 1)
      sumForPool(b, lowering, t, n, f0, fb);
    Value stored = store(t);
    if (globalPool && imgs > 1)
      sumForPool(b, lowering, stored, n, f0, fb, imgs);
  };
  if (scatter) {
    scatterChunk(b, n, f0, oh, ow0, rc, wc, acc, imgs);
    return;
  }
  TileValue product{TileValue::Full, 0.0, acc, b.getF32Type()};
  if (!zeroInit && !partner) // a partner's result is in the accumulator
    product = *lowering.binary(
        "add", product, {TileValue::Full, 0.0, load(y, elt, false), elt}, elt);
  if (!epilogue) {
    Value t = lowering.materializeFull(product, elt);
    if (t == acc && !outView) {
      t = allocTile(b, loc, {fb, cols}, elt);
      tile::CopyOp::create(b, loc, acc, t);
    }
    storeAndSum(t);
    return;
  }
  FailureOr<Value> t = epi.compute(
      b, loc, lowering, product, acc, elt, fb, cols,
      [&](const Access &e) -> std::pair<Value, bool> {
        bool column = perChannel(e, g.oh, g.ow);
        Layout l{e.buffer, e.offset, SmallVector<int64_t>(e.strides)};
        return {load(l, e.elementType, column), column};
      },
      /*roundOnStore=*/true);
  if (failed(t)) {
    status = failure();
    return;
  }
  storeAndSum(*t);
}

Value ConvKernel::loadPhases(OpBuilder &b, const TileOptions::PhaseAddend &pa,
                             Type type, int64_t n, int64_t f0, int64_t parts,
                             int64_t nb, int64_t oh, int64_t rc, int64_t ow0,
                             int64_t wc, int64_t imgs) {
  int64_t fh = pa.fh, fw = pa.fw, px = rc * wc, cols = px * imgs;
  Value t = allocTile(b, loc, {nb * parts, cols}, type);
  ArrayRef<int64_t> s = pa.strides; // [phases, N, C, H / fh, W / fw]
  int64_t off = pa.offset;
  Value root = pa.buffer;
  int64_t step = blockRowStep();
  auto at = [&](int64_t phase, int64_t img, int64_t h, int64_t w) {
    return indexConst(b, loc,
                      off + phase * s[0] + img * s[1] + f0 * s[2] + h * s[3] +
                          w * s[4]);
  };
  if (ow0 % fw == 0 && wc % fw == 0) {
    // The chunk's columns are whole column phases: its phase rows go into
    // `tmp` by DMA, a run of q columns or more a partition, and one engine
    // copy an image puts them in pixel order over every block's partitions
    // (from partition 0, where an engine may start). Rows in whole phase
    // pairs: tmp[c, py, px, a, q'] holds pixel (a * fh + py, q' * fw + px);
    // rows of one phase (stacked rows a multiple of fh apart):
    // tmp[c, px, k, q']; others tmp[c, k, px, q'], a DMA a row.
    int64_t q = wc / fw, a = rc / fh;
    bool phasePairs = step == 1 && rc % fh == 0;
    for (int64_t j = 0; j < nb; ++j)
      phasePairs &= blockRow(oh, j) % fh == 0;
    bool onePhase = !phasePairs && step % fh == 0;
    Value tmp = allocTile(b, loc, {nb * parts, cols}, type);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t i = 0; i < imgs; ++i) {
        int64_t h0 = blockRow(oh, j);
        // A DMA a phase (a channel's run of phase rows a piece of HBM that
        // the scheduler's dependences track on its own; all phases at once
        // would be one hull over the planes between them).
        auto phaseRows = [&](int64_t phase, int64_t h, int64_t rows,
                             int64_t rowStep, int64_t at0) {
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, root, at(phase, n + i, h, ow0 / fw),
                      {parts, rows, q}, {s[2], rowStep * s[3], s[4]}),
              tileSlice(b, loc, tmp, j * parts, parts, i * px + at0, rows * q));
        };
        for (int64_t p = 0; p < fh * fw; ++p) {
          int64_t py = p / fw, pxw = p % fw;
          if (phasePairs) // tmp[c, py, px, a, q]
            phaseRows(p, h0 / fh, a, 1, p * a * q);
          else if (onePhase && py == 0) // tmp[c, px, k, q]
            phaseRows((h0 % fh) * fw + pxw, h0 / fh, rc, step / fh,
                      pxw * rc * q);
          else if (!onePhase && py == 0) // tmp[c, k, px, q]
            for (int64_t k = 0; k < rc; ++k) {
              int64_t h = h0 + k * step;
              phaseRows((h % fh) * fw + pxw, h / fh, 1, 1, k * wc + pxw * q);
            }
        }
      }
    for (int64_t i = 0; i < imgs; ++i) {
      Value chunk = tileSlice(b, loc, t, 0, nb * parts, i * px, px);
      SmallVector<int64_t> shape = {nb * parts, a, fh, q, fw},
                           strides = {cols, q, fw * a * q, 1, a * q};
      SmallVector<ReassociationIndices> groups = {{0}, {1, 2, 3, 4}};
      if (!phasePairs) {
        shape = {nb * parts, rc, q, fw};
        strides = onePhase ? SmallVector<int64_t>{cols, q, 1, rc * q}
                           : SmallVector<int64_t>{cols, wc, 1, q};
        groups = {{0}, {1, 2, 3}};
      }
      tile::CopyOp::create(
          b, loc, stridedView(b, loc, tmp, shape, strides, i * px),
          memref::ExpandShapeOp::create(b, loc, shape, chunk, groups));
    }
    return t;
  }
  // Columns that start or end inside a column phase: a DMA a row and
  // column phase, straight into its columns (an element a descriptor).
  for (int64_t j = 0; j < nb; ++j)
    for (int64_t i = 0; i < imgs; ++i)
      for (int64_t k = 0; k < rc; ++k) {
        int64_t h = blockRow(oh, j) + k * step;
        for (int64_t p = 0; p < fw; ++p) {
          int64_t q0 = ((p - ow0) % fw + fw) % fw; // (ow0 + q0) % fw == p
          if (q0 >= wc)
            continue;
          int64_t count = (wc - q0 + fw - 1) / fw;
          Value row = memref::SubViewOp::create(
              b, loc, t,
              SmallVector<OpFoldResult>{b.getIndexAttr(j * parts),
                                        b.getIndexAttr(i * px + k * wc + q0)},
              SmallVector<OpFoldResult>{b.getIndexAttr(parts),
                                        b.getIndexAttr(count)},
              SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(fw)});
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, root,
                      at((h % fh) * fw + p, n + i, h / fh, (ow0 + q0) / fw),
                      {parts, count}, {s[2], s[4]}),
              row);
        }
      }
  return t;
}

void ConvKernel::scatterChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t oh,
                              int64_t ow0, int64_t rc, int64_t wc, Value acc,
                              int64_t imgs) {
  int64_t cols = rc * wc * imgs;
  for (auto [p, out] : llvm::zip_equal(scatter->pieces, scatterOut)) {
    // Partitions [channel, channel + channels) of the accumulator (where
    // an engine may start reading: findPhaseScatter) onto the target's.
    Value block = tileSlice(b, loc, acc, p.channel - f0, p.channels, 0, cols);
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(p.target) : std::nullopt;
    if (r && !r->tensor->packed) {
      tile::CopyOp::create(b, loc, block,
                           options.residents->view(b, loc, *r, n, 0, p.channels,
                                                   oh, rc, 1, ow0, wc, 1,
                                                   imgs));
      continue;
    }
    // A target in HBM: evacuated to SBUF, then a DMA per image.
    Value t = allocTile(b, loc, {p.channels, cols}, elt);
    tile::CopyOp::create(b, loc, block, t);
    for (int64_t i = 0; i < imgs; ++i) {
      SmallVector<Value> ivs = {indexConst(b, loc, n + i),
                                indexConst(b, loc, 0), indexConst(b, loc, oh),
                                indexConst(b, loc, ow0)};
      tile::DmaOp::create(
          b, loc, tileSlice(b, loc, t, 0, p.channels, i * rc * wc, rc * wc),
          hbm(b, out, ivs, {p.channels, rc, wc},
              {out.strides[1], out.strides[2], out.strides[3]}));
    }
  }
}

bool ConvKernel::evacuatesInPlace() const {
  if (blocks() != 1 || pool || globalPool || chained || !options.residents)
    return false;
  if (scatter)
    return llvm::all_of(scatter->pieces, [&](const PhaseScatter::Piece &p) {
      return options.residents->lookup(p.target).has_value();
    });
  return options.residents->lookup(resultLayout().buffer).has_value();
}

void ConvKernel::sumForPool(OpBuilder &b, BodyLowering &lowering, Value t,
                            int64_t n, int64_t f0, int64_t fb, int64_t imgs) {
  Type f32 = b.getF32Type();
  int64_t fs = fb / blocks();
  PoolSums &images = imageSums[f0];
  // Images [n, n + count)'s columns of the block's [fs, N] sums; allocated
  // before the instruction that first writes it (`before`, else here).
  auto imageColumns = [&](Operation *before, int64_t count) {
    if (!images.tile) {
      OpBuilder::InsertionGuard guard(b);
      if (before)
        b.setInsertionPoint(before);
      images.tile = allocTile(b, loc, {fs, g.n}, f32);
    }
    return tileSlice(b, loc, images.tile, 0, fs, n, count);
  };
  // `count` more images summed: after the last, the sums go out.
  auto imagesDone = [&](int64_t count) {
    images.next += count;
    if (images.next == g.n)
      storePooledSum(b, loc, *globalPool->pool, images.tile, 0, g.n,
                     globalPool->c0 + f0, fs, options.residents);
  };
  if (imgs > 1) {
    // Whole images, one evacuation each (evacuatesImages): [fb, imgs, px]
    // summed over its pixels into images [n, n + imgs)'s columns.
    assert(blocks() == 1 && evacuationsPerImage == 1 &&
           "several images' pool sums from one evacuation each");
    // `t`: the chunk's [fb, imgs * px] tile, or the view it was stored
    // into, [fb, imgs, ...] (a resident tensor's images).
    auto type = cast<MemRefType>(t.getType());
    Value rows = t;
    if (type.getRank() == 2) {
      auto [strides, offset] = type.getStridesAndOffset();
      int64_t px = type.getDimSize(1) / imgs;
      rows =
          stridedView(b, loc, t, {fb, imgs, px}, {strides[0], px, 1}, offset);
    }
    auto rowsType = cast<MemRefType>(rows.getType());
    if (rowsType.getRank() < 3 || rowsType.getDimSize(1) != imgs) {
      op->emitOpError() << "internal error: the global pooling's sums of "
                        << imgs << " images read " << rowsType;
      status = failure();
      return;
    }
    tile::ReduceOp::create(
        b, loc, b.getStringAttr("add"), rows, imageColumns(nullptr, imgs),
        b.getI64IntegerAttr(rowsType.getRank() - 2), Value());
    imagesDone(imgs);
    return;
  }
  FailureOr<Value> part =
      lowering.reduceRows("add", TileValue{TileValue::Full, 0.0, t, f32});
  if (failed(part)) {
    status = failure();
    return;
  }
  // The chunk's [fb, 1] sum goes straight into its column: the new tile
  // reduceRows made (allocated before the instruction that writes it) is
  // replaced by the column.
  int64_t count = evacuationsPerImage;
  PoolSums &sums = poolSums[{n, f0}];
  // The new tile a reduction made (allocated before the instruction that
  // writes it) replaced by `column`.
  auto redirect = [&](Value tile, Value column) {
    Operation *alloc = tile.getDefiningOp();
    tile.replaceAllUsesWith(column);
    alloc->erase();
  };
  Value sum = *part;
  bool direct = count == 1 && blocks() == 1;
  if (count > 1) {
    // The chunk's [fb, 1] sum goes straight into its column.
    Operation *alloc = sum.getDefiningOp();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    if (!sums.tile)
      sums.tile = allocTile(b, loc, {fb, count}, f32);
    redirect(sum, tileSlice(b, loc, sums.tile, 0, fb, sums.next, 1));
  } else if (direct) {
    Operation *alloc = sum.getDefiningOp();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    redirect(sum, imageColumns(alloc, 1));
  }
  if (++sums.next < count)
    return;
  if (count > 1) {
    sum = blocks() == 1 ? imageColumns(nullptr, 1)
                        : allocTile(b, loc, {fb, 1}, f32);
    tile::ReduceOp::create(b, loc, b.getStringAttr("add"), sums.tile, sum,
                           b.getI64IntegerAttr(1), Value());
  }
  // Packed bands or stacked rows: block j of the partitions summed other
  // rows of the same channels; a DMA within SBUF puts each block's column
  // beside the others on the first block's partitions.
  if (blocks() > 1) {
    Value side = allocTile(b, loc, {fs, blocks()}, f32);
    for (int64_t j = 0; j < blocks(); ++j)
      tile::DmaOp::create(b, loc, tileSlice(b, loc, sum, j * fs, fs, 0, 1),
                          tileSlice(b, loc, side, 0, fs, j, 1));
    tile::ReduceOp::create(b, loc, b.getStringAttr("add"), side,
                           imageColumns(nullptr, 1), b.getI64IntegerAttr(1),
                           Value());
  }
  imagesDone(1);
}

/// The PE time this kernel emitted after its result's first channel block
/// was complete, for its result and a global pooling it computes (all of
/// it when an earlier kernel wrote other channels first).
void ConvKernel::recordResultTail() const {
  if (!options.resultTailPeNs || firstBlockPe < 0)
    return;
  auto record = [&](Value buffer) {
    auto [it, fresh] =
        options.resultTailPeNs->try_emplace(viewRoot(buffer), 0.0);
    double tail = evacuationLoads.pe - (fresh ? firstBlockPe : 0.0);
    it->second = fresh ? tail : it->second + tail;
  };
  if (scatter)
    record(scatter->pieces.front().target);
  else
    record(resultLayout().buffer);
  if (globalPool)
    record(globalPool->pool->out.buffer);
}

/// The reassociated order (a DVE add reading the accumulator in PSUM, then
/// the ACT's ReLU with the shift as its bias) or the written one (an ACT
/// pass adding the shift out of PSUM, then the add and the ReLU in SBUF,
/// which the POOL can take), whichever finishes the chunks so far first:
/// a 1x1 convolution whose matmuls take less time than its evacuations
/// (ResNet-50's 64-channel conv3 under auto-cast: 0.21 us of PE, 0.59 of
/// DVE and 0.47 of ACT a chunk) gives some chunks to the POOL. A depthwise
/// kernel keeps the reassociated order: its vector engines' taps are in
/// chooseVectorChunks' loads, not these.
bool ConvKernel::chooseAddOrder(int64_t cols) {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || !t.actClockMHz || !t.dveClockMHz)
    return true;
  TileOptions::EngineLoads reassociated = evacuationLoads;
  reassociated.act += vectorNs(cols, t.actClockMHz);
  TileOptions::EngineLoads written = reassociated;
  reassociated.dve += vectorNs(cols, t.dveClockMHz);
  written.pool += poolNs(cols, 2) + poolNs(cols, 1);
  bool keep = !(written.finish() < reassociated.finish());
  evacuationLoads = keep ? reassociated : written;
  return keep;
}

/// A SiLU on the ACT (one pass) or on the DVE and the POOL (a DVE pass out
/// of PSUM, then two one-input passes and a product, about four times the
/// engine time), whichever finishes the chunks so far first: an expansion
/// whose matmuls take less time than its evacuations (EfficientNet-B0's
/// 16 -> 96 1x1 under auto-cast, 42 us of PE and 96 of ACT at batch 8)
/// gives some chunks to the idle DVE and POOL. Not the last ones: a chunk
/// stays on the ACT when the ACT time of the chunks after it is less than
/// the four passes' (the layer does not end behind their chain). Not in a
/// depthwise kernel, whose vector engines' taps chooseVectorChunks counts.
/// Only when the kernel multiplies bf16 (auto-cast): the passes are within
/// a few fp32 ulps of the ACT's SiLU, not bit-identical to the body's fp32
/// steps as the ACT's is; and with fp32 inputs the matmuls outlast any
/// evacuation (four PE cycles a column).
bool ConvKernel::chooseSiluEngines(int64_t cols) {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || g.inputType.isF32() || !t.actClockMHz || !t.dveClockMHz ||
      !t.poolClockMHz)
    return false;
  double dve = vectorNs(cols, t.dveClockMHz);
  double pool = 2 * poolNs(cols, 1) + poolNs(cols, 2);
  TileOptions::EngineLoads onAct = evacuationLoads, off = evacuationLoads;
  onAct.act += vectorNs(cols, t.actClockMHz);
  off.dve += dve;
  off.pool += pool;
  // Every output column is evacuated once a filter block (bands side by
  // side share their columns).
  int64_t total = fBlocks * g.n * g.ow * (bandH + (lastRows ? 1 : 0));
  siluColumns += cols;
  double after = double(std::max<int64_t>(0, total - siluColumns)) * 1000.0 /
                 double(t.actClockMHz);
  bool vector = after >= dve + pool && off.finish() < onAct.finish();
  evacuationLoads = vector ? off : onAct;
  return vector;
}
