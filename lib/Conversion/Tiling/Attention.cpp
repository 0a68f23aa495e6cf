//===- Attention.cpp - Flash-style attention: scores never leave the chip ===//
//
// For each batch (batch x head) K^T [d, Sk] and V [Sk, e] are loaded into
// SBUF once; for each block of up to 128 queries, Q^T [d, q] is the
// stationary operand and the keys are visited two PSUM banks (2 x 512) per
// step, bank j of a step:
//
//   S_j  = Q K^T[:, blk_j]                    PE, PSUM [q, 512]
//   x_j  = S_j (+ mask block)                 DVE, only where a mask is
//   r    = min(r, -c * rowmax(x_j))           the running max, as -c * max
//
// then once per step
//
//   a    = exp(r - r_old)                     ACT [q, 1]: the rescale
//   P_j  = exp(c * x_j + r), rs_j = rowsum    ACT, one pass each, bf16 out
//   l    = l * a + rs_0 + rs_1                POOL
//   P^T  = transposes of P's 128-key blocks   PE, a PSUM bank, one copy
//   O    = O * a + P^T^T V[blk]               ACT/DVE in PSUM, then PE
//
// and at the end O / l is stored. c is the prologue's scale (1/sqrt(d)),
// folded into the exp. Blocks of a constant mask that are -inf throughout
// are skipped; blocks that are zero throughout add nothing; other blocks
// are loaded (once per distinct content: a causal mask has a few diagonal
// patterns).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cfloat>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
/// `a` as a 2-D [features, cols] operand over the heads from `batch` on:
/// its `row` dim (the head dims) and `col` dim, the heads' rows side by
/// side (the batch steps by a head's rows).
Access allHeads(Access a, int bDim, int64_t batch, int row, int col) {
  a.offset += a.step(bDim, batch);
  a.strides = {a.strides[row], a.strides[col]};
  a.splitDim = -1;
  return a;
}

struct AttentionKernel {
  OpBuilder &b;
  const AttentionChain &c;
  const TileOptions &options;
  Location loc;
  int64_t P;

  AttentionKernel(OpBuilder &b, const AttentionChain &c,
                  const TileOptions &options)
      : b(b), c(c), options(options), loc(c.context->getLoc()),
        P(options.partitions) {}

  Value idx(int64_t v) { return indexConst(b, loc, v); }
  StringAttr str(StringRef s) { return b.getStringAttr(s); }
  FloatAttr f32(double v) { return b.getF32FloatAttr(float(v)); }

  /// [rows <= P, cols] of `a` at (batch, row0, col0), `rowDim` on the
  /// partitions, in `type` (the DMAs cast; loadRows).
  Value load(const Access &a, int bDim, int64_t batch, int rowDim, int64_t row0,
             int64_t rows, int colDim, int64_t col0, int64_t cols, Type type) {
    Value tile = allocTile(b, loc, {rows, cols}, type);
    fill(tile, a, bDim, batch, rowDim, row0, rows, colDim, col0, cols);
    return tile;
  }

  /// `load` of K^T or V (keys along the columns or the rows), each key
  /// range from its segment when the operand is assembled from several.
  Value loadKeys(ArrayRef<KeySegment> segments, const Access &whole,
                 bool keysOnCols, int bDim, int64_t batch, int rowDim,
                 int64_t row0, int64_t rows, int colDim, int64_t col0,
                 int64_t cols, Type type) {
    Value tile = allocTile(b, loc, {rows, cols}, type);
    fillKeys(tile, segments, whole, keysOnCols, bDim, batch, rowDim, row0, rows,
             colDim, col0, cols);
    return tile;
  }
  /// `loadKeys` into `tile` ([rows, cols] or wider).
  void fillKeys(Value tile, ArrayRef<KeySegment> segments, const Access &whole,
                bool keysOnCols, int bDim, int64_t batch, int rowDim,
                int64_t row0, int64_t rows, int colDim, int64_t col0,
                int64_t cols) {
    if (segments.empty())
      return fill(tileSlice(b, loc, tile, 0, rows, 0, cols), whole, bDim, batch,
                  rowDim, row0, rows, colDim, col0, cols);
    int64_t k0 = keysOnCols ? col0 : row0, n = keysOnCols ? cols : rows;
    for (const KeySegment &seg : segments) {
      int64_t lo = std::max(seg.begin, k0), hi = std::min(seg.end, k0 + n);
      if (lo >= hi)
        continue;
      if (keysOnCols)
        fill(tileSlice(b, loc, tile, 0, rows, lo - k0, hi - lo), seg.a, bDim,
             batch, rowDim, row0, rows, colDim, lo - seg.begin, hi - lo);
      else
        fill(tileSlice(b, loc, tile, lo - k0, hi - lo, 0, cols), seg.a, bDim,
             batch, rowDim, lo - seg.begin, hi - lo, colDim, col0, cols);
    }
  }

  /// Writes [rows, cols] of `a` at (batch, row0, col0) into `tile`.
  void fill(Value tile, const Access &a, int bDim, int64_t batch, int rowDim,
            int64_t row0, int64_t rows, int colDim, int64_t col0,
            int64_t cols) {
    SmallVector<Value> ivs(a.strides.size());
    if (bDim >= 0)
      ivs[bDim] = idx(batch);
    ivs[rowDim] = idx(row0);
    ivs[colDim] = idx(col0);
    loadRows(b, loc, P, a, ivs, rowDim, colDim, tile);
  }

  /// What a constant mask does to one block.
  enum class Block { Plain, Skip, Masked };
  struct MaskBlock {
    Block kind = Block::Plain;
    bool zeroOrInf = false;    // every value 0 or -inf (scales leave it alone)
    std::vector<float> values; // of a masked block of a constant mask
  };
  int64_t maskIndex(int64_t batch, int64_t q, int64_t k) const {
    const Access &m = *c.mask;
    if (c.maskRank == 3)
      return m.offset + batch * m.strides[0] + q * m.strides[1] +
             k * m.strides[2];
    return m.offset + (batch * c.queries + q) * m.strides[0] + k * m.strides[1];
  }
  /// The block of keys [k0, k0 + kw); `kw` shrinks to the last key that
  /// some row keeps (the keys after add exp(-inf) = 0 to every row: a
  /// causal diagonal block ends at its query block's last key).
  MaskBlock classify(int64_t batch, int64_t q0, int64_t qm, int64_t k0,
                     int64_t &kw) const {
    if (!c.mask)
      return {Block::Plain, false, {}};
    if (!c.maskValues)
      return {Block::Masked, false, {}};
    // The raw f32 data (a splat has one element): a causal mask at 8,192
    // has 67M values to look at.
    auto data =
        reinterpret_cast<const float *>(c.maskValues.getRawData().data());
    bool splat = c.maskValues.isSplat();
    int64_t kStride = splat ? 0 : c.mask->strides.back();
    auto at = [&](int64_t q, int64_t k) {
      return data[splat ? 0 : maskIndex(batch, q, k0) + (k - k0) * kStride];
    };
    auto isInf = [](float v) { return std::isinf(v) && v < 0; };
    auto columnMasked = [&](int64_t k) {
      for (int64_t q = q0; q < q0 + qm; ++q)
        if (!isInf(at(q, k)))
          return false;
      return true;
    };
    while (kw > 0 && columnMasked(k0 + kw - 1))
      --kw;
    if (kw == 0)
      return {Block::Skip, true, {}};
    bool allZero = true, zeroOrInf = true;
    for (int64_t q = q0; q < q0 + qm && (allZero || zeroOrInf); ++q)
      for (int64_t k = k0; k < k0 + kw; ++k) {
        float v = at(q, k);
        allZero &= v == 0.0f;
        zeroOrInf &= isInf(v) || v == 0.0f;
      }
    if (allZero)
      return {Block::Plain, true, {}};
    std::vector<float> seen;
    seen.reserve(qm * kw);
    for (int64_t q = q0; q < q0 + qm; ++q)
      for (int64_t k = k0; k < k0 + kw; ++k)
        seen.push_back(at(q, k));
    return {Block::Masked, zeroOrInf, std::move(seen)};
  }

  struct Step {
    int64_t k0, kw;
    MaskBlock mask;
  };
  struct QueryBlock {
    int64_t batch, q0, qm;
    SmallVector<Value> qT; // Q^T [dd, qm] per block of head dims
    SmallVector<Step> steps;
    Value negMax, rowSum; // the running state
    /// The context in PSUM, by chunks of at most a bank's columns.
    SmallVector<Value> ctx;
    /// Every row keeps some key (a constant mask's blocks say so).
    bool rowsLive = false;
  };
  /// `count` steps of one query block in flight, from `step` on, sharing
  /// the softmax's bookkeeping: what their phases hand on.
  struct Slot {
    QueryBlock *block;
    size_t step, count;
    Value alpha;
    SmallVector<Value> p, pT;
    SmallVector<int64_t> pTBlock; // the key block of each pT
  };
  /// Query blocks whose steps are interleaved, how many steps (banks of
  /// keys) share one slot's bookkeeping (the rescale of the running max
  /// and of the context: two halve it; three or four leave too few PSUM
  /// banks for the pipeline; the stacked heads of a decode step keep one,
  /// their context takes up to four banks), and how many slots ahead of
  /// the P V matmuls the scores (run()) and the transposes are emitted.
  static constexpr size_t kGroup = 2, kSpan = 2;
  static constexpr size_t kTransposesAhead = 1;

  /// An identity [P, P] in bf16, built once (POOL).
  Value identity;
  Value identityTile() {
    if (identity)
      return identity;
    Value ones = allocTile(b, loc, {P, P}, b.getBF16Type());
    tile::MemsetOp::create(b, loc, ones, f32(1.0));
    identity = allocTile(b, loc, {P, P}, b.getBF16Type());
    tile::AffineSelectOp::create(
        b, loc, ones, identity, str("eq"), f32(0.0), b.getI64IntegerAttr(0),
        b.getI64IntegerAttr(-1), b.getDenseI64ArrayAttr({1}));
    return identity;
  }

  /// A 0 / -inf mask block in bf16 for the PE, -inf as -3e38: added to the
  /// scores by a matmul with the identity (0 x -inf would be NaN). A row
  /// whose keys are all masked in one block then has a finite max there,
  /// which is right as long as some other block of the row keeps a key
  /// (the later, larger max rescales that block's sum to 0).
  Value peMaskTile(const QueryBlock &blk, const Step &step) {
    return maskTile(blk, step, b.getBF16Type(), [&](Value m) {
      tile::TensorScalarOp::create(b, loc, m, m, Value(), Value(), str("max"),
                                   f32(-3.0e38), str("bypass"), f32(0),
                                   UnitAttr(), UnitAttr());
    });
  }

  /// The s for which a constant mask block keeps (0) exactly the keys f <=
  /// p + s of each query row p and masks (-inf) the others: a causal
  /// triangle's diagonal blocks, which the POOL makes with one
  /// affine_select instead of their load from HBM.
  static std::optional<int64_t> triangle(const MaskBlock &mask, int64_t qm,
                                         int64_t kw) {
    if (!mask.zeroOrInf || mask.values.size() != size_t(qm * kw))
      return std::nullopt;
    auto kept = [&](int64_t p) {
      int64_t n = 0;
      while (n < kw && mask.values[p * kw + n] == 0.0f)
        ++n;
      for (int64_t f = n; f < kw; ++f)
        if (mask.values[p * kw + f] == 0.0f)
          return int64_t(-1); // not a prefix
      return n;
    };
    // The shift from a row that keeps some keys but not all.
    std::optional<int64_t> shift;
    for (int64_t p = 0; p < qm && !shift; ++p)
      if (int64_t n = kept(p); n > 0 && n < kw)
        shift = n - 1 - p;
    if (!shift)
      return std::nullopt;
    for (int64_t p = 0; p < qm; ++p)
      if (kept(p) != std::clamp<int64_t>(p + *shift + 1, 0, kw))
        return std::nullopt;
    return shift;
  }

  /// The mask block of a step in SBUF, in `type` (the DMA casts) and then
  /// made by `finish`; blocks of a constant mask are loaded once per
  /// distinct content (and type) while they fit in an eighth of the
  /// budget.
  std::map<std::tuple<int64_t, int64_t, std::vector<float>, bool>, Value>
      maskTiles;
  int64_t maskBytes = 0;
  Value maskTile(const QueryBlock &blk, const Step &step, Type type,
                 function_ref<void(Value)> finish = {}) {
    int64_t qm = blk.qm, kw = step.kw;
    auto key = std::make_tuple(qm, kw, step.mask.values, type.isF32());
    auto cached = maskTiles.find(key);
    if (c.maskValues && cached != maskTiles.end())
      return cached->second;
    SmallVector<Value> ivs;
    if (c.maskRank == 3)
      ivs = {idx(blk.batch), idx(blk.q0), idx(step.k0)};
    else
      ivs = {idx(blk.batch * c.queries + blk.q0), idx(step.k0)};
    Value m = allocTile(b, loc, {qm, kw}, type);
    const Access &ma = *c.mask;
    if (std::optional<int64_t> shift = triangle(step.mask, qm, kw)) {
      // Made on the POOL, not loaded: 0 where key f <= query p + shift.
      Value zeros = allocTile(b, loc, {qm, kw}, type);
      tile::MemsetOp::create(b, loc, zeros, f32(0.0))
          ->setAttr(tile::kEngineAttr, str("pool"));
      tile::AffineSelectOp::create(b, loc, zeros, m, str("ge"), f32(-INFINITY),
                                   b.getI64IntegerAttr(*shift),
                                   b.getI64IntegerAttr(1),
                                   b.getDenseI64ArrayAttr({-1}));
    } else {
      tile::DmaOp::create(
          b, loc,
          hbmView(b, loc, ma.buffer, ma.offsetAt(b, loc, ivs), {qm, kw},
                  {ma.strides[c.maskRank - 2], ma.strides.back()}),
          m);
    }
    if (finish)
      finish(m);
    int64_t bytes = kw * tile::storageBytes(type);
    if (c.maskValues &&
        maskBytes + bytes <= options.sbufBytesPerPartition / 8) {
      maskTiles[key] = m;
      maskBytes += bytes;
    }
    return m;
  }

  /// The scores of one bank of keys on the PE, in PSUM, and what the DVE
  /// adds to them (a mask): the tile the softmax reads. `c1` becomes the
  /// exp's scale.
  Value emitBankScores(QueryBlock &blk, const Step &step, double &c1) {
    int64_t qm = blk.qm, k0 = step.k0, kw = step.kw;
    int64_t kHead = blk.batch / c.kGroup;
    ArrayRef<Value> kT = loadKeysUpTo(kHead, k0 + kw);
    Value s =
        allocTile(b, loc, {qm, kw}, b.getF32Type(), tile::MemorySpace::PSUM);
    for (auto [j, q] : llvm::enumerate(blk.qT)) {
      int64_t dd = cast<MemRefType>(q.getType()).getDimSize(0);
      tile::MatmulOp::create(b, loc, q, tileSlice(b, loc, kT[j], 0, dd, k0, kw),
                             s, j ? b.getUnitAttr() : UnitAttr());
    }
    c1 = c.scale * c.innerScale;
    if (step.mask.kind == Block::Masked && step.mask.zeroOrInf &&
        blk.rowsLive && !step.mask.values.empty() && !c.scoresType.isF32()) {
      // The mask joins the scores on the PE, which has time to spare in
      // bf16 (not in f32, at a quarter of the rate), and the DVE does not
      // add it.
      tile::MatmulOp::create(b, loc,
                             tileSlice(b, loc, identityTile(), 0, qm, 0, qm),
                             peMaskTile(blk, step), s, b.getUnitAttr());
      return s;
    }
    if (step.mask.kind != Block::Masked)
      return s;
    // x = innerScale * S + mask, in SBUF; a mask of 0 / -inf values is its
    // own multiple, so the inner scale joins the exp's.
    Value m = maskTile(blk, step, b.getF32Type());
    Value scores = s;
    if (c.innerScale != 1.0 && !step.mask.zeroOrInf) {
      scores = allocTile(b, loc, {qm, kw}, b.getF32Type());
      tile::TensorScalarOp::create(b, loc, s, scores, Value(), Value(),
                                   str("mul"), f32(c.innerScale), str("bypass"),
                                   f32(0), UnitAttr(), UnitAttr());
      c1 = c.scale;
    }
    Value x = allocTile(b, loc, {qm, kw}, b.getF32Type());
    tile::TensorTensorOp::create(b, loc, str("add"), scores, m, x);
    return x;
  }

  /// The [q, 1] bookkeeping runs on the POOL, which this kernel leaves
  /// idle: the scheduler would give it to the DVE, which saves the 50 ns
  /// of waiting on another engine but bounds the kernel with the ACT.
  void onPool(Operation *op) { op->setAttr(tile::kEngineAttr, str("pool")); }

  /// K^T of a K head ([dd, Sk] per block of P head dims) and how many of
  /// its keys are loaded; V of a V head ([<= P keys, width] per key block).
  struct HeadKeys {
    SmallVector<Value> kT;
    int64_t loaded = 0;
  };
  std::map<int64_t, HeadKeys> keysOf;
  std::map<int64_t, SmallVector<Value>> valuesOf;

  /// K^T's columns [0, end) of K head `kHead`, a bank of keys at a time,
  /// loaded as the first scores that need them are emitted: the PE keeps
  /// program order, and K^T loaded whole first held the first scores back
  /// until its last transposes.
  ArrayRef<Value> loadKeysUpTo(int64_t kHead, int64_t end) {
    HeadKeys &keys = keysOf[kHead];
    if (keys.kT.empty() && c.kSegments.empty() && c.kGroup == 1)
      if (Value kT = groupedT(c.kT, c.kB, kHead, c.kRow, c.kCol, 0, c.keys)) {
        keys.kT.push_back(kT);
        keys.loaded = c.keys;
      }
    if (keys.kT.empty())
      for (int64_t d0 = 0; d0 < c.headDim; d0 += P)
        keys.kT.push_back(allocTile(
            b, loc, {std::min(P, c.headDim - d0), c.keys}, c.scoresType));
    int64_t bank = options.bankColumns;
    for (; keys.loaded < end; keys.loaded += bank) {
      int64_t k0 = keys.loaded, kw = std::min(bank, c.keys - k0);
      for (auto [j, t] : llvm::enumerate(keys.kT)) {
        int64_t dd = cast<MemRefType>(t.getType()).getDimSize(0);
        fillKeys(tileSlice(b, loc, t, 0, dd, k0, kw), c.kSegments, c.kT,
                 /*keysOnCols=*/true, c.kB, kHead, c.kRow, int64_t(j) * P, dd,
                 c.kCol, k0, kw);
      }
    }
    return keys.kT;
  }

  /// Q^T or K^T of `batch` ([d, cols] from column col0, head dims on the
  /// partitions) as a view of a tile shared by its group of heads, where
  /// the heads' rows sit side by side in `a` (the batch steps by d, d in
  /// unit stride, the columns not), d is a multiple of 32 and the columns
  /// fit the partitions: the group's rows come in one load, one PE
  /// transpose and one copy out of PSUM, and head h of the group reads
  /// partitions [h d, (h + 1) d) (where an engine may start, d = 32 or
  /// 64). Small heads paid a transpose and a copy each (a text
  /// recogniser's 32 heads of 32 dims and 80 tokens at batch 8). Null
  /// where the operand is not laid out so.
  std::map<std::tuple<const Access *, int64_t, int64_t>, Value> groupsT;
  Value groupedT(const Access &a, int bDim, int64_t batch, int dDim, int colDim,
                 int64_t col0, int64_t cols) {
    int64_t d = c.headDim, heads = P / std::max<int64_t>(d, 1);
    // A split batch's heads sit side by side within a group of splitCount
    // (an image's heads); the tile's heads must not cross one.
    bool split = a.splitDim == bDim && bDim >= 0;
    if (bDim < 0 || d % 32 || d > P / 2 || cols > P || a.strides[dDim] != 1 ||
        a.strides[colDim] == 1 ||
        (split ? a.splitStride != d || a.splitCount % heads != 0
               : a.strides[bDim] != d))
      return {};
    int64_t g0 = batch / heads * heads;
    int64_t g = std::min(heads, c.batch - g0);
    Value &group = groupsT[{&a, g0, col0}];
    if (!group) // every head's features from g0's on (loadRows transposes)
      group = load(allHeads(a, bDim, g0, dDim, colDim), -1, 0, 0, 0, g * d, 1,
                   col0, cols, c.scoresType);
    return tileSlice(b, loc, group, (batch - g0) * d, d, 0, cols);
  }

  /// The loads a head's first scores need, emitted with them: the first
  /// bank of K^T, V (unless its group's first head loaded them) and Q^T of
  /// the head's first kGroup query blocks (the others' come with the
  /// scores of the block kGroup before them). Emitted here rather than
  /// before the kernel, the next head's loads and transposes come while
  /// the PE and the ACT still work on this one's last steps.
  void startHead(int64_t batch) {
    (void)loadKeysUpTo(batch / c.kGroup, 1); // emitted now; read later
    int64_t vHead = batch / c.vGroup, Sk = c.keys, e = c.valueDim;
    if (!valuesOf.count(vHead)) {
      SmallVector<Value> &v = valuesOf[vHead];
      for (int64_t k0 = 0; k0 < Sk; k0 += P)
        v.push_back(loadKeys(c.vSegments, c.v, /*keysOnCols=*/false, c.vB,
                             vHead, c.vRow, k0, std::min(P, Sk - k0), c.vCol, 0,
                             e, c.multiplyType));
    }
    // A head of at most two groups of query blocks loads them all here:
    // its second group starts right after the first (sequence 512: the
    // Llama-style layer 230.8 -> 230.4 us, the others within 0.1).
    bool all = llvm::divideCeil(c.queries, P) <= int64_t(2 * kGroup);
    for (QueryBlock &blk : blocks)
      if (blk.batch == batch && (all || blk.q0 < int64_t(kGroup) * P))
        loadQueries(blk);
  }
  /// Q^T of a query block (PE transposes of row-major Q), unless loaded.
  void loadQueries(QueryBlock &blk) {
    if (!blk.qT.empty())
      return;
    if (Value qT =
            groupedT(c.q, c.qB, blk.batch, c.qCol, c.qRow, blk.q0, blk.qm)) {
      blk.qT.push_back(qT);
      return;
    }
    for (int64_t d0 = 0; d0 < c.headDim; d0 += P)
      blk.qT.push_back(load(c.q, c.qB, blk.batch, c.qCol, d0,
                            std::min(P, c.headDim - d0), c.qRow, blk.q0, blk.qm,
                            c.scoresType));
  }

  /// Phase 1: the scores of the slot's banks on the PE, the online softmax
  /// on ACT and DVE, its [q, 1] bookkeeping once per slot.
  void emitScores(Slot &slot) {
    QueryBlock &blk = *slot.block;
    size_t at = &blk - blocks.begin();
    if ((at == 0 || blocks[at - 1].batch != blk.batch) && blk.qT.empty())
      startHead(blk.batch);
    // Q^T of the block that takes this one's place in the pipeline when
    // it ends, kGroup on: loaded while the blocks in between run, where
    // loading every block's up front held the head's first scores back
    // (2,048 x 128: 67.1 -> 65.0 us).
    if (slot.step == 0 && at + kGroup < blocks.size() &&
        blocks[at + kGroup].batch == blk.batch)
      loadQueries(blocks[at + kGroup]);
    loadQueries(blk);
    bool first = slot.step == 0;
    int64_t qm = blk.qm;
    SmallVector<Value> xs;
    SmallVector<double> scales;
    // The running max, kept as r = -c * max (the exp's bias), folded over
    // the banks; the first block's is kept finite so that a row it masks
    // entirely contributes exp(-inf) = 0, not NaN.
    Value r = first ? Value() : blk.negMax;
    for (size_t i = 0; i < slot.count; ++i) {
      double c1;
      Value x = emitBankScores(blk, blk.steps[slot.step + i], c1);
      Value bankMax = allocTile(b, loc, {qm, 1}, b.getF32Type());
      tile::ReduceOp::create(b, loc, str("max"), x, bankMax,
                             b.getI64IntegerAttr(1), Value());
      Value next = allocTile(b, loc, {qm, 1}, b.getF32Type());
      onPool(tile::TensorScalarOp::create(
          b, loc, bankMax, next, Value(), r, str("mul"), f32(-c1), str("min"),
          f32(r ? 0.0 : FLT_MAX), UnitAttr(), UnitAttr()));
      r = next;
      xs.push_back(x);
      scales.push_back(c1);
    }
    if (!first) {
      slot.alpha = allocTile(b, loc, {qm, 1}, b.getF32Type());
      tile::ActivationOp::create(b, loc, str("exp"), blk.negMax, slot.alpha,
                                 Value(), r, Value(), f32(-1.0), f32(0.0));
    }
    blk.negMax = r;
    for (auto [x, c1] : llvm::zip(xs, scales)) {
      int64_t kw = cast<MemRefType>(x.getType()).getDimSize(1);
      Value p = allocTile(b, loc, {qm, kw}, c.multiplyType);
      slot.p.push_back(p);
      Value rs = allocTile(b, loc, {qm, 1}, b.getF32Type());
      tile::ActivationOp::create(b, loc, str("exp"), x, p, Value(), r, rs,
                                 f32(c1), f32(0.0));
      // l = l * alpha + rs on the first bank of a slot, l + rs after.
      Value l = rs;
      if (blk.rowSum) {
        l = allocTile(b, loc, {qm, 1}, b.getF32Type());
        if (p == slot.p.front())
          onPool(tile::TensorScalarOp::create(
              b, loc, blk.rowSum, l, slot.alpha, rs, str("mul"), f32(0),
              str("add"), f32(0), UnitAttr(), UnitAttr()));
        else
          onPool(tile::TensorTensorOp::create(b, loc, str("add"), blk.rowSum,
                                              rs, l));
      }
      blk.rowSum = l;
    }
  }

  /// Phase 2: P^T, 128 keys at a time, into one PSUM bank per bank of
  /// keys and one copy out.
  void emitTransposes(Slot &slot) {
    for (auto [i, p] : llvm::enumerate(slot.p)) {
      const Step &step = slot.block->steps[slot.step + i];
      emitBankTransposes(slot, p, step.k0, step.kw);
    }
  }
  void emitBankTransposes(Slot &slot, Value p, int64_t k0, int64_t kw) {
    int64_t qm = slot.block->qm;
    int64_t bank = options.bankColumns;
    Type mul = c.multiplyType;
    int64_t subs = llvm::divideCeil(kw, P);
    bool packed = kw % P == 0 && subs * qm <= bank;
    Value pTps, pTsb;
    if (packed) {
      pTps = allocTile(b, loc, {P, subs * qm}, b.getF32Type(),
                       tile::MemorySpace::PSUM);
      pTsb = allocTile(b, loc, {P, subs * qm}, mul);
    }
    for (int64_t j = 0; j < subs; ++j) {
      int64_t kk = std::min(P, kw - j * P);
      slot.pTBlock.push_back((k0 + j * P) / P);
      Value src = tileSlice(b, loc, p, 0, qm, j * P, kk);
      if (packed) {
        tile::TransposeOp::create(b, loc, src,
                                  tileSlice(b, loc, pTps, 0, P, j * qm, qm));
        continue;
      }
      Value t =
          allocTile(b, loc, {kk, qm}, b.getF32Type(), tile::MemorySpace::PSUM);
      tile::TransposeOp::create(b, loc, src, t);
      Value t2 = allocTile(b, loc, {kk, qm}, mul);
      tile::CopyOp::create(b, loc, t, t2);
      slot.pT.push_back(t2);
    }
    if (packed) {
      tile::CopyOp::create(b, loc, pTps, pTsb);
      for (int64_t j = 0; j < subs; ++j)
        slot.pT.push_back(tileSlice(b, loc, pTsb, 0, P, j * qm, qm));
    }
  }

  /// Phase 3: the context rescaled by the slot's alpha, then P V added.
  void emitContext(Slot &slot) {
    QueryBlock &blk = *slot.block;
    bool first = slot.step == 0;
    ArrayRef<Value> v = valuesOf[blk.batch / c.vGroup];
    // The context in PSUM from the block's first P V on: allocated up
    // front, every block's would hold PSUM banks the pipeline needs.
    int64_t width = cast<MemRefType>(v.front().getType()).getDimSize(1);
    for (int64_t c0 = 0; first && c0 < width; c0 += ctxChunk)
      blk.ctx.push_back(allocTile(b, loc,
                                  {blk.qm, std::min(ctxChunk, width - c0)},
                                  b.getF32Type(), tile::MemorySpace::PSUM));
    int64_t c0 = 0;
    for (Value ctx : blk.ctx) {
      int64_t cw = cast<MemRefType>(ctx.getType()).getDimSize(1);
      if (!first)
        tile::TensorScalarOp::create(b, loc, ctx, ctx, slot.alpha, Value(),
                                     str("mul"), f32(0), str("bypass"), f32(0),
                                     UnitAttr(), UnitAttr());
      for (auto [j, pT] : llvm::enumerate(slot.pT)) {
        int64_t kk = cast<MemRefType>(pT.getType()).getDimSize(0);
        tile::MatmulOp::create(
            b, loc, pT, tileSlice(b, loc, v[slot.pTBlock[j]], 0, kk, c0, cw),
            ctx, first && j == 0 ? UnitAttr() : b.getUnitAttr());
      }
      c0 += cw;
    }
    if (slot.step + slot.count == blk.steps.size())
      store(blk);
  }

  /// O / l of a query block, stored. With stacked heads, row h of the
  /// context holds every head's V weighted by head h's probabilities; its
  /// block h is head h's context.
  void store(const QueryBlock &blk) {
    int64_t e = c.valueDim, qm = blk.qm, c0 = 0;
    for (Value ctx : blk.ctx) {
      int64_t cw = cast<MemRefType>(ctx.getType()).getDimSize(1);
      Value o = allocTile(b, loc, {qm, cw}, c.out.elementType);
      tile::TensorScalarOp::create(b, loc, ctx, o, blk.rowSum, Value(),
                                   str("div"), f32(0), str("bypass"), f32(0),
                                   UnitAttr(), UnitAttr());
      SmallVector<Value> ivs(c.out.strides.size());
      if (!stacked) {
        if (c.oB >= 0)
          ivs[c.oB] = idx(blk.batch);
        ivs[c.oRow] = idx(blk.q0);
        tile::DmaOp::create(
            b, loc, o,
            hbmView(b, loc, c.out.buffer, c.out.offsetAt(b, loc, ivs), {qm, e},
                    {c.out.strides[c.oRow], c.out.strides[c.oCol]}));
      }
      for (int64_t h = c0 / e; stacked && h < (c0 + cw) / e; ++h) {
        ivs[c.oB] = idx(h);
        ivs[c.oRow] = idx(0);
        tile::DmaOp::create(
            b, loc, tileSlice(b, loc, o, h, 1, h * e - c0, e),
            hbmView(b, loc, c.out.buffer, c.out.offsetAt(b, loc, ivs), {1, e},
                    {c.out.strides[c.oRow], c.out.strides[c.oCol]}));
      }
      c0 += cw;
    }
  }

  /// A decode step (one query per head) as one block of stacked heads:
  /// K^T and V of all heads, Q block-diagonal (emitStacked).
  bool stacked = false;
  bool stackHeads();
  void emitStacked();
  void addSteps(QueryBlock &blk);
  /// Every head's query blocks, in the order they run; the context's
  /// PSUM chunks are at most `ctxChunk` columns.
  SmallVector<QueryBlock> blocks;
  int64_t ctxChunk = 0;
  void run();

  LogicalResult emit();
};
} // namespace

void AttentionKernel::run() {
  // The steps in the order the PE runs them: those of kGroup query
  // blocks of a head in turn, head after head. The PE keeps program order
  // (Schedule.cpp), so the phases are software-pipelined, across heads
  // too: slot i's P V matmuls come after the transposes of slot i + 1 and
  // the scores of slot i + kScoresAhead, which the ACT and DVE work on
  // meanwhile.
  size_t span = stacked ? 1 : kSpan;
  // Scores three slots ahead, four when the steps are uneven (a causal
  // mask's: blocks of fewer steps, diagonal ones shorter than a bank),
  // whose slots hold less work for the ACT and DVE to overlap (causal
  // 2,048 x 128 in bf16 40.9 -> 39.7 us, 512 x 128 9.9 -> 9.3; without a
  // mask four was slower, 65.0 -> 65.4).
  bool uneven = llvm::any_of(blocks, [&](const QueryBlock &blk) {
    return blk.steps.size() != blocks.front().steps.size() ||
           llvm::any_of(blk.steps, [&](const Step &step) {
             return step.kw != blocks.front().steps.front().kw;
           });
  });
  size_t kScoresAhead = uneven ? 4 : 3;
  std::vector<Slot> slots;
  for (size_t g0 = 0, n; g0 < blocks.size(); g0 += n) {
    size_t most = 0;
    n = 1;
    while (n < kGroup && g0 + n < blocks.size() &&
           blocks[g0 + n].batch == blocks[g0].batch)
      ++n;
    for (size_t i = 0; i < n; ++i)
      most = std::max(most, blocks[g0 + i].steps.size());
    for (size_t k = 0; k < most; k += span)
      for (size_t i = 0; i < n; ++i)
        if (k < blocks[g0 + i].steps.size())
          slots.push_back({&blocks[g0 + i],
                           k,
                           std::min(span, blocks[g0 + i].steps.size() - k),
                           {},
                           {},
                           {},
                           {}});
  }
  // One pipeline for all heads when two heads' K^T, V and Q^T fit in
  // half of the budget (the next head's are loaded while this one's are
  // still read); else one per head, as K^T and V of one head may take
  // half of it (findAttention).
  int64_t dBlocks = llvm::divideCeil(c.headDim, P);
  int64_t headBytes =
      dBlocks * (c.keys + c.queries) * tile::storageBytes(c.scoresType) +
      llvm::divideCeil(c.keys, P) * c.valueDim *
          tile::storageBytes(c.multiplyType);
  bool acrossHeads = 4 * headBytes <= options.sbufBytesPerPartition;
  for (size_t s0 = 0, s1; s0 < slots.size(); s0 = s1) {
    s1 = s0 + 1;
    while (s1 < slots.size() &&
           (acrossHeads || slots[s1].block->batch == slots[s0].block->batch))
      ++s1;
    MutableArrayRef<Slot> run(slots.data() + s0, s1 - s0);
    int64_t n = int64_t(run.size());
    for (int64_t i = -int64_t(kScoresAhead); i < n; ++i) {
      if (i + int64_t(kScoresAhead) < n)
        emitScores(run[i + kScoresAhead]);
      if (i + int64_t(kTransposesAhead) >= 0 &&
          i + int64_t(kTransposesAhead) < n)
        emitTransposes(run[i + kTransposesAhead]);
      if (i >= 0)
        emitContext(run[i]);
    }
  }
}

/// The key steps of a query block: a PSUM bank of keys each, those a
/// constant mask skips left out.
void AttentionKernel::addSteps(QueryBlock &blk) {
  int64_t bank = options.bankColumns, Sk = c.keys;
  for (int64_t k0 = 0; k0 < Sk; k0 += bank) {
    int64_t kw = std::min(bank, Sk - k0);
    MaskBlock mb = classify(blk.batch, blk.q0, blk.qm, k0, kw);
    if (mb.kind != Block::Skip)
      blk.steps.push_back({k0, kw, std::move(mb)});
  }
  if (blk.steps.empty()) { // every key masked: computed, as NaN, like softmax
    int64_t kw = std::min(bank, Sk);
    blk.steps.push_back({0, kw, {Block::Masked, false, {}}});
  }
  // Rows that keep a key: all of them when a block adds no mask, else
  // those with a 0 in some masked block's values.
  SmallVector<bool> live(blk.qm, false);
  for (const Step &step : blk.steps) {
    if (step.mask.kind == Block::Plain)
      live.assign(blk.qm, true);
    else if (step.mask.zeroOrInf && !step.mask.values.empty())
      for (int64_t q = 0; q < blk.qm; ++q)
        for (int64_t k = 0; k < step.kw && !live[q]; ++k)
          live[q] = step.mask.values[q * step.kw + k] == 0.0f;
  }
  blk.rowsLive = llvm::all_of(live, [](bool l) { return l; });
}

LogicalResult AttentionKernel::emit() {
  if (stackHeads()) {
    emitStacked();
    return success();
  }
  // Every head's query blocks; K^T, V and Q^T are loaded as each head's
  // first scores are emitted (startHead), K^T once per group of query
  // heads that share it, V likewise.
  int64_t Sq = c.queries;
  for (int64_t batch = 0; batch < c.batch; ++batch)
    for (int64_t q0 = 0; q0 < Sq; q0 += P) {
      QueryBlock &blk = blocks.emplace_back();
      blk.batch = batch;
      blk.q0 = q0;
      blk.qm = std::min(P, Sq - q0);
      addSteps(blk);
    }
  ctxChunk = c.valueDim;
  run();
  return success();
}

/// Stacked heads need one query per head, no mask, and each of K and V
/// laid out with its heads side by side (head stride = head width x
/// element stride), so that all heads' K^T is one [H * d, Sk] walk and
/// all heads' V one [Sk, H * e] walk; the context [H, H * e] must fit in
/// half of PSUM, and K^T and V in half of the SBUF budget.
bool AttentionKernel::stackHeads() {
  int64_t H = c.batch, d = c.headDim, e = c.valueDim, Sk = c.keys;
  auto sideBySide = [](const Access &a, int head, int within, int64_t n) {
    return a.splitDim < 0 && a.strides[head] == n * a.strides[within];
  };
  if (c.queries != 1 || H < 2 || H > P || c.mask || c.kGroup != 1 ||
      c.vGroup != 1 || c.qB < 0 || c.kB < 0 || c.vB < 0 || c.oB < 0 ||
      !sideBySide(c.kT, c.kB, c.kRow, d) || !sideBySide(c.v, c.vB, c.vCol, e) ||
      H * e > 4 * options.bankColumns)
    return false;
  for (const KeySegment &seg : c.kSegments)
    if (!sideBySide(seg.a, c.kB, c.kRow, d))
      return false;
  for (const KeySegment &seg : c.vSegments)
    if (!sideBySide(seg.a, c.vB, c.vCol, e))
      return false;
  int64_t resident =
      llvm::divideCeil(H * d, P) * Sk * tile::storageBytes(c.scoresType) +
      llvm::divideCeil(Sk, P) * H * e * tile::storageBytes(c.multiplyType);
  return resident * 2 <= options.sbufBytesPerPartition;
}

void AttentionKernel::emitStacked() {
  stacked = true;
  int64_t H = c.batch, d = c.headDim, e = c.valueDim, Sk = c.keys;
  Type mul = c.multiplyType, qkType = c.scoresType;
  // K^T of all heads, [<= P features, Sk] per block of P of the H * d
  // features; V of all heads, [<= P keys, H * e] per key block.
  Access kAll = allHeads(c.kT, c.kB, 0, c.kRow, c.kCol),
         vAll = allHeads(c.v, c.vB, 0, c.vRow, c.vCol);
  SmallVector<KeySegment> kSegs(c.kSegments), vSegs(c.vSegments);
  for (KeySegment &seg : kSegs)
    seg.a = allHeads(seg.a, c.kB, 0, c.kRow, c.kCol);
  for (KeySegment &seg : vSegs)
    seg.a = allHeads(seg.a, c.vB, 0, c.vRow, c.vCol);
  HeadKeys &keys = keysOf[0];
  keys.loaded = Sk;
  for (int64_t f0 = 0; f0 < H * d; f0 += P)
    keys.kT.push_back(loadKeys(kSegs, kAll, /*keysOnCols=*/true, -1, 0, 0, f0,
                               std::min(P, H * d - f0), 1, 0, Sk, qkType));
  SmallVector<Value> &v = valuesOf[0];
  for (int64_t k0 = 0; k0 < Sk; k0 += P)
    v.push_back(loadKeys(vSegs, vAll, /*keysOnCols=*/false, -1, 0, 0, k0,
                         std::min(P, Sk - k0), 1, 0, H * e, mul));
  // Q block-diagonal: column h of feature block t holds head h's query in
  // the rows of its features, zeros elsewhere. Block t of the scores
  // matmul then contributes exactly the heads whose features it holds.
  QueryBlock &blk = blocks.emplace_back();
  blk.batch = 0;
  blk.q0 = 0;
  blk.qm = H;
  for (int64_t f0 = 0; f0 < H * d; f0 += P) {
    int64_t rows = std::min(P, H * d - f0);
    Value q = allocTile(b, loc, {rows, H}, qkType);
    tile::MemsetOp::create(b, loc, q, b.getF32FloatAttr(0.0f));
    for (int64_t h = f0 / d; h < H && h * d < f0 + rows; ++h) {
      int64_t from = std::max(h * d, f0), to = std::min(h * d + d, f0 + rows);
      SmallVector<Value> ivs(c.q.strides.size());
      ivs[c.qB] = idx(h);
      ivs[c.qRow] = idx(0);
      ivs[c.qCol] = idx(from - h * d);
      tile::DmaOp::create(b, loc,
                          hbmView(b, loc, c.q.buffer, c.q.offsetAt(b, loc, ivs),
                                  {to - from, 1}, {c.q.strides[c.qCol], 1}),
                          tileSlice(b, loc, q, from - f0, to - from, h, 1));
    }
    blk.qT.push_back(q);
  }
  addSteps(blk);
  // Context chunks of whole heads (a head's block is stored from one).
  ctxChunk = options.bankColumns / e * e;
  run();
}

LogicalResult tiling::tileAttention(OpBuilder &b, const AttentionChain &chain,
                                    const TileOptions &options) {
  return AttentionKernel(b, chain, options).emit();
}
