//===- Matmul.cpp - Blocked matmuls on the PE
//------------------------------===//
//
// Loop order, chosen so that the PE stays busy and DMA traffic stays low:
//
//   for batch, for N panel (<= 2048 columns, resident in SBUF as K/128 tiles):
//     for M block (128 rows):
//       A^T tiles [K-block, M]  (PE transposes of row-major A blocks; views
//                                of a pooled [N, C] tensor kept in SBUF)
//       for K block: for each 512-column bank of the panel:
//         matmul(A^T[k], B[k][:, bank], acc[bank])    // K accumulates in PSUM
//       evacuate each bank (copy, residual add or the fused epilogue), DMA out
//
// Each stationary A^T tile is reused across the panel's banks, so
// LoadStationary is paid once per bank group; B is read from HBM once. A
// panel is at most four banks wide unless all of B fits in SBUF, there are
// several M blocks and no sibling: then it is all of N, its banks taken four
// at a time per M block, and A is transposed once instead of once per panel.
//
// fp8 inputs on a target with the fp8 double row contract 256 rows a
// matmul: each operand's K block is a [K/2, columns, 2] tile whose element
// [p, j, r] is row 2p + r (loadRowGroups). A panel of B is loaded row pair
// by row pair ([K/2, 2, columns], contiguous in HBM) and interleaved on
// chip, or, for a constant B, loaded as it is from a copy stored as row
// pairs (groupedConstant); A^T blocks are PE transposes of every other row
// of a row-major A block.
//
// An MX matmul (Common/MxMatmul.h) is the same kernel with R = 4 rows a
// partition (matmul_mx, K = 512 a matmul) and e8m0 scales: B's [K/32, N]
// rows load with its panel; A's [M, K/32] block is PE-transposed per K
// block. A row-major fp8 A moves as f32 words (four contraction rows in
// one, nki.bitcast): one PE transpose of words per K block gives the
// [K/4, M, 4] quad layout directly.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Epilogue.h"
#include "Kernels.h"
#include "Match.h"
#include "Residents.h"
#include "TileUtils.h"

#include "../Common/MxMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
// A panel of B holds at most this many PSUM banks' worth of columns (each
// A block's products then fill half of PSUM).
constexpr int64_t kMaxPanelBanks = 4;
// M blocks of the wave that starts a wide staged panel (emitPanel): enough
// that their matmuls on one bank group cover the interleaving of the next.
constexpr int64_t kWaveBlocks = 4;
// Banks a wave stages at a time when B moves as words (GEMM 4096^3 MXFP4,
// trn3: 1 bank 513.9 us, 2 banks 511.2, a bank group of 4 514.8).
constexpr int64_t kQuadWaveBanks = 2;

struct MatmulKernel {
  MatmulKernel(OpBuilder &b, linalg::LinalgOp op, bool zeroInit,
               linalg::GenericOp epilogue, const PooledMatmulInput *pooled,
               const TileOptions &options, linalg::MatmulOp sibling,
               const MxQuantizedA *quantizedA)
      : b(b), op(op), loc(op.getLoc()), zeroInit(zeroInit), epilogue(epilogue),
        pooled(pooled), options(options), sibling(sibling),
        quantizedA(quantizedA) {}

  OpBuilder &b;
  linalg::LinalgOp op;
  Location loc;
  bool zeroInit;
  linalg::GenericOp epilogue;
  const PooledMatmulInput *pooled;
  const TileOptions &options;
  /// A second matmul of the same A (its B is `B2`), whose product the
  /// epilogue reads from its own PSUM tiles.
  linalg::MatmulOp sibling;
  Access B2;
  /// An MX matmul's A quantised in the kernel from the f32 `QA`.
  const MxQuantizedA *quantizedA;
  Access QA;

  int bDim = -1, mDim = 0, nDim = 0, kDim = 0;
  SmallVector<int64_t> extents;
  /// A as the kernel reads it (a pooled source in place of an absorbed
  /// cast's result), and the type the PE multiplies it in.
  Access A, B, C;
  Type aMultiply;
  /// A kept in SBUF (a pooled [N, C] tensor, channels on the partitions).
  std::optional<ResidentRef> aResident;
  Epilogue epi;
  /// The epilogue's operands that are one row for every output row (a
  /// Linear's bias), loaded once per panel: [min(P, M), panel width] tiles
  /// by operand index (null for the others).
  SmallVector<Value> panelRows;
  LogicalResult status = success();

  /// Contraction rows a partition: 2 for fp8 double-row matmuls, 4 for MX.
  int64_t R = 1;
  /// An MX matmul: A and B fp8 with e8m0 scales SA (over m and the K block
  /// of 32: strides[kDim] steps one scale block) and SB (K block, n).
  bool mx = false;
  Access SA, SB;
  /// The one value of every B scale when linalg folded sB into the body.
  std::optional<float> splatMovingScale;
  /// A constant B of a multi-row matmul stored as row groups,
  /// [K/R, N, R] (groupedConstant): its tiles load without interleaving.
  std::optional<Access> pairedB;

  int64_t P() const { return options.partitions; }
  /// Columns of the banks that share one A^T tile load: kMaxPanelBanks,
  /// halved when each column has two products (a sibling).
  int64_t groupColumns() const {
    return kMaxPanelBanks / (sibling ? 2 : 1) * bankColumns();
  }
  int64_t bankColumns() const { return options.bankColumns; }
  /// Contraction rows of one K block (one matmul).
  int64_t kBlock() const { return P() * R; }
  /// Partitions a K block's MX scales take in a scale transpose's result
  /// (twice its 16 blocks: 32, a quarter's start), and the K blocks one
  /// transpose serves (transposeScaleRows).
  int64_t scaleSlot() const { return 2 * kBlock() / kMxBlock; }
  int64_t scaleBlocksPerTranspose() const {
    return std::max<int64_t>(1, P() / scaleSlot());
  }

  LogicalResult analyze();
  LogicalResult analyzeMx();
  void emit();
  void emitPanel(OpBuilder &b, Value batch, Value nOff, int64_t np);
  /// A panel's B in SBUF: one tile per K block (tiles2: the sibling's B;
  /// scales: an MX matmul's [kk/32, np] scale tiles).
  struct PanelB {
    SmallVector<Value> tiles, tiles2, scales;
    /// A wave's B moved as words (fillQuadWords): the word tiles.
    SmallVector<Value> words;
  };
  /// An M block's stationary A^T tiles (and MX scales), one per K block.
  struct BlockA {
    SmallVector<Value> tiles, scales;
  };
  BlockA loadBlockA(OpBuilder &b, Value batch, Value mOff, int64_t mm);
  /// The matmuls and evacuations of one M block for the `width` columns
  /// of the panel from g0 (a bank group, or less in a wave).
  void emitGroup(OpBuilder &b, Value batch, Value nOff, int64_t np,
                 const PanelB &panel, Value mOff, int64_t mm, const BlockA &a,
                 int64_t g0, int64_t width);
  void emitBlock(OpBuilder &b, Value batch, Value nOff, int64_t np,
                 const PanelB &panel, Value mOff, int64_t mm);
  using Banks = ArrayRef<std::pair<int64_t, int64_t>>;
  /// How many of a GEMV's first K blocks the vector engines take.
  /// `first`: the panel's first bank group, which the head start of a
  /// pooled A applies to.
  int64_t vectorBlocks(int64_t mm, Banks banks, int64_t kBlocks,
                       bool first) const;
  /// The products of B's first `vk` K blocks with A's element on each
  /// partition, summed per bank: a [P, bank width] SBUF tile per bank.
  SmallVector<Value> vectorSums(OpBuilder &b, const PanelB &panel,
                                const BlockA &a, Banks banks, int64_t vk);
  /// An MX operand's scales stored [columns, K/32] (A's, or a transposed
  /// B's) for the `cols` columns from `colIv`: a [cols, width] e8m0 tile
  /// (width = 16 x K blocks + 16, the columns past K/32 zero).
  Value loadScaleRows(OpBuilder &b, const Access &s, int colDim, Value colIv,
                      int64_t cols);
  /// The [kk/32, mm] scale tiles of the K blocks from scale rows [mm,
  /// width] (loadScaleRows), by PE transposes of up to P / 32 K blocks
  /// each; or, with `into` (a tile per transpose, as loadScales allocates
  /// them), each transpose copied into its tile's columns [c0, c0 + mm).
  SmallVector<Value> transposeScaleRows(OpBuilder &b, Value rows, int64_t mm,
                                        ArrayRef<Value> into = {},
                                        int64_t c0 = 0);
  /// loadBlockA of a quantised A: per K block, A's f32 rows, their block
  /// maxima and e8m0 scales, e4m3(A / scale) as f32 words (or e2m1 codes
  /// packed into words, packFp4Words) and one PE transpose of them.
  BlockA quantizeBlockA(OpBuilder &b, Value mOff, int64_t mm);
  /// e2m1 codes [rows, K] (a byte each) into f32 words [rows, K/4] whose
  /// value as an integer is the quad's two bytes (c0 | c1 << 4 | c2 << 8 |
  /// c3 << 12).
  void packFp4Words(OpBuilder &b, Value codes, Value words);
  void evacuate(OpBuilder &b, Value batch, Value mOff, int64_t mm, Value nOff,
                int64_t n0, int64_t nw, Value acc, Value acc2);
  /// A [rows, cols] tile of `a` at iteration point (ivs) with `rowDim` on
  /// partitions and `colDim` along the free axis (loadRows).
  Value loadOperand(OpBuilder &b, const Access &a, ArrayRef<Value> ivs,
                    int rowDim, int64_t rows, int colDim, int64_t cols,
                    Type type = {});
  /// `a` row-major along `rowDim` as [rows, cols] tiles of at most P rows
  /// each (one per P rows; loadRows).
  SmallVector<Value> loadTransposed(OpBuilder &b, const Access &a,
                                    ArrayRef<Value> ivs, int rowDim,
                                    int64_t rows, int colDim, int64_t cols,
                                    Type type = {});
  /// `a`'s [rows, cols] at ivs as multi-row tiles [kk/R, cols, R], one per
  /// K block of the rows (element [p, j, r] is row R p + r of the block).
  SmallVector<Value> loadRowGroups(OpBuilder &b, const Access &a,
                                   ArrayRef<Value> ivs, int rowDim,
                                   int64_t rows, int colDim, int64_t cols);
  /// The copies that interleave columns [s0, s0 + cw) of a staged
  /// [K/R, R, cols] tile into columns [d0, d0 + cw) of its [K/R, cols, R]
  /// destination.
  void interleave(OpBuilder &b, Value stage, int64_t s0, Value dst, int64_t d0,
                  int64_t cw);
  /// loadRowGroups of an MX operand `a` contiguous along K (R = 4) through
  /// f32 words, or an empty list when its layout does not allow it
  /// (quadWordsApply): allocQuadTiles, then fillQuadWords of every column.
  SmallVector<Value> loadQuadWords(OpBuilder &b, const Access &a,
                                   ArrayRef<Value> ivs, int rowDim,
                                   int64_t rows, int colDim, int64_t cols);
  bool quadWordsApply(const Access &a, int colDim, int64_t rows) const;
  /// Per K block of `rows`: an f32 word tile [quads, cols] and the view of
  /// it matmul_mx reads ([quads, cols, 4] fp8, or [quads, cols, 2] fp4
  /// pairs).
  struct QuadTiles {
    SmallVector<Value> words, quads;
  };
  QuadTiles allocQuadTiles(OpBuilder &b, const Access &a, int64_t rows,
                           int64_t cols);
  /// f32 words [rows, cols] as matmul_mx reads them: [rows, cols, 4] of an
  /// fp8 `elementType`, or for fp4 [rows, cols, 2] pairs from byte
  /// `fp4Byte` of each word (the two bytes of a quad, rows 4p .. 4p + 3).
  Value quadView(OpBuilder &b, Value words, Type elementType, int64_t fp4Byte);
  /// Columns [c0, c1) of the word tiles from `a` at ivs: per 128 columns and
  /// K block a DMA of the rows and one PE transpose, per bank and K block
  /// one copy out of PSUM (exact for fp4).
  void fillQuadWords(OpBuilder &b, const Access &a, ArrayRef<Value> ivs,
                     int colDim, ArrayRef<Value> words, int64_t c0, int64_t c1);
  /// pairedB for a row-major constant B: a global holding B's row groups
  /// side by side, made once per constant, from regroupableGlobal.
  std::optional<Access> groupedConstant(OpBuilder &b);
  /// B's constant global when groupedConstant applies to it.
  memref::GlobalOp regroupableGlobal() const;
  /// The e8m0 scale tiles [kk/32, cols] of the K blocks of an MX operand
  /// for the `cols` columns from `colIv` (`colDim` of the scale access).
  SmallVector<Value> loadScales(OpBuilder &b, const Access &s, int colDim,
                                Value colIv, int64_t cols);
  /// The A^T tiles [kk, mm] of the K blocks from k0 on, several at once
  /// when A is row-major along K and one block's rows are shorter than a
  /// DMA descriptor's minimum (a bf16 row of 128 is 256 bytes, paid as
  /// 512): each M block is loaded for the group in one DMA and transposed
  /// block by block. How many blocks it loaded is the result's size.
  SmallVector<Value> loadATiles(OpBuilder &b, Value batch, Value mOff,
                                int64_t mm, int64_t k0);
  SmallVector<Value> ivsFor(Value batch, Value m, Value n, Value k) const {
    SmallVector<Value> ivs(extents.size());
    if (bDim >= 0)
      ivs[bDim] = batch;
    ivs[mDim] = m;
    ivs[nDim] = n;
    ivs[kDim] = k;
    return ivs;
  }
};
} // namespace

/// The access of an MX scale operand: map results are loop dims or a loop
/// dim floordiv 32, whose stride then steps one 32-row block.
static FailureOr<Access> analyzeScale(linalg::LinalgOp op, OpOperand &operand) {
  Access a;
  a.strides.assign(op.getNumLoops(), 0);
  a.buffer = operand.get();
  auto type = cast<MemRefType>(a.buffer.getType());
  a.elementType = type.getElementType();
  SmallVector<int64_t> memStrides;
  if (failed(getStaticLayout(type, memStrides, a.offset)))
    return op->emitOpError("MX scale operand has a dynamic layout");
  for (auto [r, result] :
       llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
    AffineExpr expr = result;
    if (auto bin = dyn_cast<AffineBinaryOpExpr>(expr))
      expr = bin.getLHS(); // d floordiv 32 (isMxMatmul checked)
    a.strides[cast<AffineDimExpr>(expr).getPosition()] += memStrides[r];
  }
  return a;
}

LogicalResult MatmulKernel::analyzeMx() {
  mx = true;
  mDim = 0;
  nDim = 1;
  kDim = 2;
  extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return op->emitOpError("dynamic shapes are not supported");
  if (options.mxRows != 4)
    return op->emitOpError("is an MX matmul (e8m0-scaled fp8 or fp4 blocks), "
                           "which needs a target with matmul_mx (trn3)");
  if (extents[kDim] % kMxBlock)
    return op->emitOpError()
           << "is an MX matmul with K = " << extents[kDim]
           << ", not a multiple of " << kMxBlock << " (one scale a block)";
  // With every B scale the same, linalg has folded sB into the body.
  splatMovingScale = mxSplatMovingScale(op);
  unsigned cOperand = splatMovingScale ? 3 : 4;
  FailureOr<Access> a = analyzeOperand(op, op->getOpOperand(0));
  FailureOr<Access> bb = analyzeOperand(op, op->getOpOperand(2));
  FailureOr<Access> c = analyzeOperand(op, op->getOpOperand(cOperand));
  FailureOr<Access> sa = analyzeScale(op, op->getOpOperand(1));
  FailureOr<Access> sb =
      splatMovingScale ? Access() : analyzeScale(op, op->getOpOperand(3));
  if (failed(a) || failed(bb) || failed(c) || failed(sa) || failed(sb))
    return failure();
  A = *a;
  B = *bb;
  C = *c;
  SA = *sa;
  SB = *sb;
  aMultiply = A.elementType;
  R = 4;
  // An fp4 operand is read as packed quads (loadQuadWords): K must be its
  // innermost dim.
  for (auto [x, colDim, name] : {std::tuple{&A, mDim, "A as [M, K]"},
                                 std::tuple{&B, nDim, "B as [N, K]"}}) {
    // A constant B is regrouped at compile time (groupedConstant).
    if (x == &B && regroupableGlobal())
      continue;
    if (tile::isFp4Type(x->elementType) &&
        (x->strides[kDim] != 1 || x->strides[colDim] == 1 ||
         !quadWordsApply(*x, colDim, extents[kDim])))
      return op->emitOpError()
             << "reads MXFP4 data " << x->buffer.getType()
             << " that is not contiguous along K; an f4E2M1FN tensor packs "
                "its innermost dim two values a byte and matmul_mx packs "
                "along K: store "
             << name;
  }
  if (quantizedA) {
    auto type = cast<MemRefType>(quantizedA->source.getType());
    SmallVector<int64_t> memStrides;
    QA.buffer = quantizedA->source;
    QA.elementType = type.getElementType();
    QA.strides.assign(extents.size(), 0);
    if (failed(getStaticLayout(type, memStrides, QA.offset)) ||
        (type.getRank() == 3 &&
         (memStrides[1] != kMxBlock || memStrides[2] != 1)))
      return op->emitOpError("quantised A has a dynamic or strided layout");
    // [M, K] or a contiguous view [M, K/32, 32] of it.
    QA.strides[mDim] = memStrides[0];
    QA.strides[kDim] = type.getRank() == 3 ? 1 : memStrides[1];
  }
  if (!epilogue)
    return success();
  return epi.analyze(epilogue, op.getDpsInits()[0]);
}

LogicalResult MatmulKernel::analyze() {
  if (isMxMatmul(op))
    return analyzeMx();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  // A shared by every batch (a constant resize matrix times each channel's
  // [H, W]): the batch dim is absent from A, which makes it a second N dim;
  // the outer of the two in C is the batch, A read for each.
  if (succeeded(dims) && dims->batch.empty() && dims->n.size() == 2 &&
      llvm::isa<linalg::BatchMatmulOp>(op)) {
    AffineMap c = op.getIndexingMapsArray()[2];
    unsigned outer =
        *c.getResultPosition(getAffineDimExpr(dims->n[0], op.getContext())) <
                *c.getResultPosition(
                    getAffineDimExpr(dims->n[1], op.getContext()))
            ? 0
            : 1;
    dims->batch.push_back(dims->n[outer]);
    dims->n.erase(dims->n.begin() + outer);
  }
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return op->emitOpError("only single M, N, K (and batch) dims are "
                           "supported");
  mDim = dims->m[0];
  nDim = dims->n[0];
  kDim = dims->k[0];
  if (!dims->batch.empty())
    bDim = dims->batch[0];
  extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return op->emitOpError("dynamic shapes are not supported");
  FailureOr<Access> a = analyzeOperand(op, op->getOpOperand(0));
  FailureOr<Access> bb = analyzeOperand(op, op->getOpOperand(1));
  FailureOr<Access> c = analyzeOperand(op, op->getOpOperand(2));
  if (failed(a) || failed(bb) || failed(c))
    return failure();
  A = *a;
  B = *bb;
  C = *c;
  aMultiply = A.elementType;
  if (pooled) {
    // Same shape and identity layout: only the buffer and type differ;
    // through a transpose, where each element is too.
    A.buffer = pooled->source;
    A.elementType =
        cast<MemRefType>(pooled->source.getType()).getElementType();
    if (pooled->transpose) {
      A.offset = pooled->offset;
      A.strides[mDim] = pooled->mStride;
      A.strides[kDim] = pooled->kStride;
    } else if (options.residents) {
      aResident = options.residents->lookup(pooled->source);
    }
  }
  auto isF32 = [](Type t) { return t.isF32(); };
  if (isF32(aMultiply) != isF32(B.elementType))
    return op->emitOpError("matmul inputs must both be f32 or both be "
                           "16-bit (use --auto-cast=matmul)");
  if (tile::isFp8Type(aMultiply) && tile::isFp8Type(B.elementType) &&
      options.fp8Rows == 2 && !pooled && extents[kDim] % 2 == 0)
    R = 2;
  if (sibling) {
    // findSiblingMatmul and nki-tile guarantee both.
    assert(epilogue && !pooled && "a sibling needs an epilogue, a plain A");
    FailureOr<Access> b2 = analyzeOperand(sibling, sibling->getOpOperand(1));
    if (failed(b2))
      return failure();
    B2 = *b2;
  }
  if (!epilogue)
    return success();
  // The epilogue walks C's iteration space: map its dims onto (b, m, n).
  return epi.analyze(epilogue, op.getDpsInits()[0]);
}

Value MatmulKernel::loadOperand(OpBuilder &b, const Access &a,
                                ArrayRef<Value> ivs, int rowDim, int64_t rows,
                                int colDim, int64_t cols, Type type) {
  Value tile = allocTile(b, loc, {rows, cols}, type ? type : a.elementType);
  loadRows(b, loc, P(), a, ivs, rowDim, colDim, tile);
  return tile;
}

SmallVector<Value> MatmulKernel::loadTransposed(OpBuilder &b, const Access &a,
                                                ArrayRef<Value> ivs, int rowDim,
                                                int64_t rows, int colDim,
                                                int64_t cols, Type type) {
  SmallVector<Value> tiles;
  for (int64_t r0 = 0; r0 < rows; r0 += P())
    tiles.push_back(allocTile(b, loc, {std::min(P(), rows - r0), cols},
                              type ? type : a.elementType));
  loadRows(b, loc, P(), a, ivs, rowDim, colDim, tiles);
  return tiles;
}

SmallVector<Value> MatmulKernel::loadRowGroups(OpBuilder &b, const Access &a,
                                               ArrayRef<Value> ivs, int rowDim,
                                               int64_t rows, int colDim,
                                               int64_t cols) {
  auto view = [&](Value t, ArrayRef<int64_t> offsets,
                  ArrayRef<int64_t> sizes) -> Value {
    SmallVector<int64_t> ones(sizes.size(), 1);
    return memref::SubViewOp::create(b, loc, t, offsets, sizes, ones);
  };
  // ivs with `delta` added to dim `d` (a null iv is 0).
  auto shifted = [&](int d, int64_t delta) {
    SmallVector<Value> at(ivs.begin(), ivs.end());
    if (delta) {
      Value dv = indexConst(b, loc, delta);
      at[d] = at[d] ? arith::AddIOp::create(b, loc, at[d], dv).getResult() : dv;
    }
    return at;
  };
  if (a.strides[colDim] != 1 && a.strides[rowDim] == 1 && R == 4)
    if (SmallVector<Value> words =
            loadQuadWords(b, a, ivs, rowDim, rows, colDim, cols);
        !words.empty())
      return words;
  SmallVector<Value> tiles;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock())
    tiles.push_back(allocTile(
        b, loc, {std::min(kBlock(), rows - r0) / R, cols, R}, a.elementType));
  auto pairsOf = [&](Value t) {
    return cast<MemRefType>(t.getType()).getDimSize(0);
  };
  if (a.strides[colDim] == 1 || a.strides[rowDim] != 1) {
    // Row groups side by side ([K/R, R, cols]: R x cols contiguous bytes a
    // partition when the columns are a whole row), then interleaved by
    // copies of at most a bank's columns, which the engines share.
    int64_t r0 = 0;
    for (Value t : tiles) {
      int64_t pairs = pairsOf(t);
      Value stage = allocTile(b, loc, {pairs, R, cols}, a.elementType);
      SmallVector<Value> at = shifted(rowDim, r0);
      tile::DmaOp::create(b, loc,
                          hbmView(b, loc, a.buffer, a.offsetAt(b, loc, at),
                                  {pairs, R, cols},
                                  {R * a.strides[rowDim], a.strides[rowDim],
                                   a.strides[colDim]}),
                          stage);
      for (int64_t c0 = 0; c0 < cols; c0 += bankColumns())
        interleave(b, stage, c0, t, c0, std::min(bankColumns(), cols - c0));
      r0 += R * pairs;
    }
    return tiles;
  }
  // Rows contiguous (a row-major A): [cw, rows] blocks with the columns on
  // the partitions, and R PE transposes a K block, one of each row r of
  // the groups.
  for (int64_t c0 = 0; c0 < cols; c0 += P()) {
    int64_t cw = std::min(P(), cols - c0);
    SmallVector<Value> at = shifted(colDim, c0);
    Value src = allocTile(b, loc, {cw, rows}, a.elementType);
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, a.buffer, a.offsetAt(b, loc, at),
                                {cw, rows}, {a.strides[colDim], 1}),
                        src);
    int64_t r0 = 0;
    for (Value t : tiles) {
      int64_t pairs = pairsOf(t);
      for (int64_t r = 0; r < R; ++r) {
        Value ps = allocTile(b, loc, {pairs, cw}, b.getF32Type(),
                             tile::MemorySpace::PSUM);
        Value rowsOf = memref::SubViewOp::create(
            b, loc, src, ArrayRef<int64_t>{0, r0 + r},
            ArrayRef<int64_t>{cw, pairs}, ArrayRef<int64_t>{1, R});
        tile::TransposeOp::create(b, loc, rowsOf, ps);
        tile::CopyOp::create(b, loc, ps, view(t, {0, c0, r}, {pairs, cw, 1}));
      }
      r0 += R * pairs;
    }
  }
  return tiles;
}

void MatmulKernel::interleave(OpBuilder &b, Value stage, int64_t s0, Value dst,
                              int64_t d0, int64_t cw) {
  int64_t pairs = cast<MemRefType>(dst.getType()).getDimSize(0);
  for (int64_t r = 0; r < R; ++r)
    tile::CopyOp::create(
        b, loc,
        memref::SubViewOp::create(b, loc, stage, ArrayRef<int64_t>{0, r, s0},
                                  ArrayRef<int64_t>{pairs, 1, cw},
                                  ArrayRef<int64_t>{1, 1, 1}),
        memref::SubViewOp::create(b, loc, dst, ArrayRef<int64_t>{0, d0, r},
                                  ArrayRef<int64_t>{pairs, cw, 1},
                                  ArrayRef<int64_t>{1, 1, 1}));
}

bool MatmulKernel::quadWordsApply(const Access &a, int colDim,
                                  int64_t rows) const {
  // A quad (four contraction rows of a column) is an f32 word of fp8 or
  // two bytes of fp4 (an HBM f4E2M1FN tensor packs its innermost dim). The
  // quads of a row must be whole: the buffer's rows and the view's start
  // and row pitch in multiples of four values.
  auto type = cast<MemRefType>(a.buffer.getType());
  return tile::storageBytes(a.elementType) == 1 && // fp8 or fp4
         type.getLayout().isIdentity() && type.getRank() >= 1 &&
         type.getShape().back() % 4 == 0 && a.offset % 4 == 0 &&
         a.strides[colDim] % 4 == 0 && rows % 4 == 0;
}

MatmulKernel::QuadTiles MatmulKernel::allocQuadTiles(OpBuilder &b,
                                                     const Access &a,
                                                     int64_t rows,
                                                     int64_t cols) {
  QuadTiles tiles;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock()) {
    int64_t quads = std::min(kBlock(), rows - r0) / R;
    Value w = allocTile(b, loc, {quads, cols}, b.getF32Type());
    tiles.words.push_back(w);
    // fp4: bytes 2 and 3, where the bf16 transposes put them.
    tiles.quads.push_back(quadView(b, w, a.elementType, 2));
  }
  return tiles;
}

Value MatmulKernel::quadView(OpBuilder &b, Value words, Type elementType,
                             int64_t fp4Byte) {
  auto type = cast<MemRefType>(words.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  bool fp4 = tile::isFp4Type(elementType);
  Type quadType = fp4 ? VectorType::get({2}, elementType) : elementType;
  Value bytes =
      tile::BitcastOp::create(b, loc,
                              MemRefType::get({rows, cols * 4}, quadType,
                                              nullptr, type.getMemorySpace()),
                              words);
  Value quads = memref::ExpandShapeOp::create(
      b, loc, ArrayRef<int64_t>{rows, cols, 4}, bytes,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  if (!fp4)
    return quads;
  return memref::SubViewOp::create(
      b, loc, quads, ArrayRef<int64_t>{0, 0, fp4Byte},
      ArrayRef<int64_t>{rows, cols, 2}, ArrayRef<int64_t>{1, 1, 1});
}

void MatmulKernel::fillQuadWords(OpBuilder &b, const Access &a,
                                 ArrayRef<Value> ivs, int colDim,
                                 ArrayRef<Value> words, int64_t c0,
                                 int64_t c1) {
  Type f32 = b.getF32Type();
  // A quad of fp4 moves as a bf16 (its two bytes): the PE transposes it to
  // an f32 whose upper half are those bits (bf16 widens exactly, NaN
  // patterns included), where the quad tile reads them.
  auto type = cast<MemRefType>(a.buffer.getType());
  Type unit = tile::isFp4Type(a.elementType) ? b.getBF16Type() : f32;
  SmallVector<int64_t> unitShape(type.getShape());
  unitShape.back() /= 4;
  Value units = tile::BitcastOp::create(
      b, loc, MemRefType::get(unitShape, unit, nullptr, type.getMemorySpace()),
      a.buffer);
  Value four = indexConst(b, loc, 4);
  // The transposes of a bank's columns share one PSUM tile and one copy
  // (which DVE alone makes: 64 + 512 cycles, not 4 x (64 + 128)).
  for (int64_t b0 = c0; b0 < c1; b0 += bankColumns()) {
    int64_t bw = std::min(bankColumns(), c1 - b0), q0 = 0;
    for (Value w : words) {
      int64_t quads = cast<MemRefType>(w.getType()).getDimSize(0);
      Value ps = allocTile(b, loc, {quads, bw}, f32, tile::MemorySpace::PSUM);
      for (int64_t s0 = 0; s0 < bw; s0 += P()) {
        int64_t cw = std::min(P(), bw - s0);
        SmallVector<Value> at(ivs.begin(), ivs.end());
        if (b0 + s0) {
          Value dv = indexConst(b, loc, b0 + s0);
          at[colDim] =
              at[colDim]
                  ? arith::AddIOp::create(b, loc, at[colDim], dv).getResult()
                  : dv;
        }
        Value from = arith::AddIOp::create(
            b, loc,
            arith::DivUIOp::create(b, loc, a.offsetAt(b, loc, at), four),
            indexConst(b, loc, q0));
        // One load a K block and 128 columns: the loads spread over DMA
        // queues and each transpose waits for its own words only.
        Value src = allocTile(b, loc, {cw, quads}, unit);
        tile::DmaOp::create(b, loc,
                            hbmView(b, loc, units, from, {cw, quads},
                                    {a.strides[colDim] / 4, 1}),
                            src);
        tile::TransposeOp::create(b, loc, src,
                                  tileSlice(b, loc, ps, 0, quads, s0, cw));
      }
      // fp4 pairs in the upper half may be any bf16 NaN pattern, which an
      // ACT identity (x * 1 + 0) would quiet: bits, so never on the ACT.
      // An fp8 word is an f32 NaN only when its row 3 is an fp8 NaN, which
      // makes the column's sums NaN whatever the quieting changes.
      tile::CopyOp::create(b, loc, ps, tileSlice(b, loc, w, 0, quads, b0, bw),
                           tile::isFp4Type(a.elementType) ? b.getUnitAttr()
                                                          : UnitAttr());
      q0 += quads;
    }
  }
}

SmallVector<Value> MatmulKernel::loadQuadWords(OpBuilder &b, const Access &a,
                                               ArrayRef<Value> ivs, int rowDim,
                                               int64_t rows, int colDim,
                                               int64_t cols) {
  if (!quadWordsApply(a, colDim, rows))
    return {};
  QuadTiles tiles = allocQuadTiles(b, a, rows, cols);
  fillQuadWords(b, a, ivs, colDim, tiles.words, 0, cols);
  return tiles.quads;
}

SmallVector<Value> MatmulKernel::loadScales(OpBuilder &b, const Access &s,
                                            int colDim, Value colIv,
                                            int64_t cols) {
  int64_t K = extents[kDim];
  bool transposed =
      !splatMovingScale && s.strides[kDim] == 1 && s.strides[colDim] != 1;
  SmallVector<Value> tiles;
  // Stored [columns, K/32]: a DMA of the tiles would move single bytes;
  // whole rows instead, PE-transposed as A's are, several K blocks a
  // transpose and a copy, each block's scales from a quarter's first
  // partition.
  int64_t slot = scaleSlot(), perTranspose = scaleBlocksPerTranspose();
  SmallVector<Value> groups;
  for (int64_t j0 = 0; transposed && j0 * kBlock() < K; j0 += perTranspose)
    groups.push_back(allocTile(
        b, loc,
        {std::min<int64_t>(perTranspose, llvm::divideCeil(K, kBlock()) - j0) *
             slot,
         cols},
        s.elementType));
  for (int64_t k0 = 0; k0 < K; k0 += kBlock()) {
    int64_t blocks = std::min(kBlock(), K - k0) / kMxBlock;
    SmallVector<Value> ivs(extents.size());
    ivs[colDim] = colIv;
    ivs[kDim] = indexConst(b, loc, k0 / kMxBlock);
    if (transposed) {
      int64_t j = k0 / kBlock();
      tiles.push_back(tileSlice(b, loc, groups[j / perTranspose],
                                j % perTranspose * slot, blocks, 0, cols));
      continue;
    }
    if (splatMovingScale) { // a power of two: e8m0 stores it exactly
      Value t = allocTile(b, loc, {blocks, cols},
                          Float8E8M0FNUType::get(b.getContext()));
      tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(*splatMovingScale));
      tiles.push_back(t);
      continue;
    }
    Value t = allocTile(b, loc, {blocks, cols}, s.elementType);
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, s.buffer, s.offsetAt(b, loc, ivs),
                                {blocks, cols},
                                {s.strides[kDim], s.strides[colDim]}),
                        t);
    tiles.push_back(t);
  }
  for (int64_t c0 = 0; transposed && c0 < cols; c0 += P()) {
    int64_t cw = std::min(P(), cols - c0);
    Value c = arith::AddIOp::create(b, loc, colIv, indexConst(b, loc, c0));
    transposeScaleRows(b, loadScaleRows(b, s, colDim, c, cw), cw, groups, c0);
  }
  return tiles;
}

memref::GlobalOp MatmulKernel::regroupableGlobal() const {
  int64_t K = extents[kDim], N = extents[nDim];
  auto get = B.buffer.getDefiningOp<memref::GetGlobalOp>();
  if (!get || bDim >= 0 || B.offset != 0 || B.strides[kDim] != N ||
      B.strides[nDim] != 1 || K % R ||
      cast<MemRefType>(get.getType()).getNumElements() != K * N)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  auto dense =
      global ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
             : DenseElementsAttr();
  // A splat fp8 B loads as well staged; fp4 has no other way from [K, N].
  if (!global || !global.getConstant() || !dense ||
      (dense.isSplat() && !tile::isFp4Type(B.elementType)))
    return {};
  return global;
}

std::optional<Access> MatmulKernel::groupedConstant(OpBuilder &b) {
  int64_t K = extents[kDim], N = extents[nDim];
  memref::GlobalOp global = regroupableGlobal();
  if (!global)
    return std::nullopt;
  auto dense = cast<DenseElementsAttr>(global.getInitialValueAttr());
  std::string name =
      (global.getSymName() + (R == 2 ? "_pairs" : "_quads")).str();
  auto module = global->getParentOfType<ModuleOp>();
  // fp4: a quad is two bytes of two codes each (matmul_mx's f4e2m1x2),
  // stored as ui8 (a dense attribute holds no pairs), the columns padded
  // to an even count so that a row's offset is whole bytes.
  bool fp4 = tile::isFp4Type(B.elementType);
  int64_t inner = fp4 ? 2 : R, width = fp4 ? llvm::alignTo(N, 2) : N;
  Type stored = fp4 ? IntegerType::get(b.getContext(), 8, IntegerType::Unsigned)
                    : B.elementType;
  auto type = MemRefType::get({K / R, width, inner}, stored);
  if (!SymbolTable::lookupSymbolIn(module, name)) {
    // Row k of B at [k / R, n, k % R] (fp4: the nibble k % 2 of byte
    // k % 4 / 2; a dense attribute holds an f4 code in a byte's low bits).
    ArrayRef<char> in = dense.getRawData();
    SmallVector<char> out(type.getNumElements());
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        int64_t at = (k / R) * inner * width + n * inner;
        char v = in[dense.isSplat() ? 0 : k * N + n];
        if (fp4)
          out[at + k % R / 2] |= char((v & 0xF) << (4 * (k % 2)));
        else
          out[at + k % R] = v;
      }
    OpBuilder gb(global);
    gb.setInsertionPointAfter(global);
    auto tensorType = RankedTensorType::get(type.getShape(), stored);
    memref::GlobalOp::create(
        gb, global.getLoc(), name, gb.getStringAttr("private"), type,
        DenseElementsAttr::getFromRawBuffer(tensorType, out),
        /*constant=*/true, global.getAlignmentAttr());
  }
  Access paired = B;
  paired.buffer = memref::GetGlobalOp::create(b, loc, type, name);
  paired.elementType = stored;
  // Group-starting rows k start at k / R x inner x width elements; column n
  // at inner x n.
  paired.strides[kDim] = inner * width / R;
  paired.strides[nDim] = inner;
  return paired;
}

void MatmulKernel::evacuate(OpBuilder &b, Value batch, Value mOff, int64_t mm,
                            Value nOff, int64_t n0, int64_t nw, Value acc,
                            Value acc2) {
  Value n = n0 ? arith::AddIOp::create(b, loc, nOff, indexConst(b, loc, n0))
                     .getResult()
               : nOff;
  SmallVector<Value> ivs = ivsFor(batch, mOff, n, Value());
  BodyLowering lowering(b, loc, mm, nw);
  TileValue product{TileValue::Full, 0.0, acc, b.getF32Type()};
  if (!zeroInit) {
    // C += A x B: add the existing output.
    Value old = allocTile(b, loc, {mm, nw}, C.elementType);
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, C.buffer, C.offsetAt(b, loc, ivs),
                                {mm, nw}, {C.strides[mDim], C.strides[nDim]}),
                        old);
    FailureOr<TileValue> sum = lowering.binary(
        "add", product, {TileValue::Full, 0.0, old, C.elementType},
        C.elementType);
    product = *sum;
  }
  if (!epilogue) {
    Value out = lowering.materializeFull(product, C.elementType);
    Value view = hbmView(b, loc, C.buffer, C.offsetAt(b, loc, ivs), {mm, nw},
                         {C.strides[mDim], C.strides[nDim]});
    if (out == acc) {
      // PSUM is not DMA-reachable: copy to SBUF first.
      out = allocTile(b, loc, {mm, nw}, C.elementType);
      tile::CopyOp::create(b, loc, acc, out);
    }
    tile::DmaOp::create(b, loc, out, view);
    return;
  }
  // Fused epilogue: C's dims are the epilogue's dims 0..rank-1 in order.
  unsigned rank = extents.size() - 1;
  SmallVector<Value> cIvs(rank);
  SmallVector<int64_t> cDims = {mDim, nDim};
  if (bDim >= 0)
    cDims.insert(cDims.begin(), bDim);
  // Output dims of C in order -> the epilogue's iteration dims.
  for (unsigned r = 0; r < rank; ++r)
    cIvs[r] = ivs[cDims[r]];
  unsigned pDim = rank - 2, fDim = rank - 1;
  FailureOr<Value> tile = epi.compute(
      b, loc, lowering, product, acc, C.elementType, mm, nw,
      [&](const Access &e) -> std::pair<Value, bool> {
        int64_t i = &e - epi.operands.data();
        if (i < int64_t(panelRows.size()) && panelRows[i])
          return {tileSlice(b, loc, panelRows[i], 0, mm, n0, nw), false};
        // The sibling's product, read in PSUM.
        if (sibling && i < int64_t(epilogue.getNumDpsInputs()) &&
            epilogue.getDpsInputs()[i] == sibling.getDpsInits()[0])
          return {acc2, false};
        bool column = e.strides[fDim] == 0;
        int64_t w = column ? 1 : nw;
        Value t = allocTile(b, loc, {mm, w}, e.elementType);
        tile::DmaOp::create(
            b, loc,
            hbmView(b, loc, e.buffer, e.offsetAt(b, loc, cIvs), {mm, w},
                    {e.strides[pDim], column ? 1 : e.strides[fDim]}),
            t);
        return {t, column};
      });
  if (failed(tile)) {
    status = failure();
    return;
  }
  const Access &out = epi.operands.back();
  tile::DmaOp::create(b, loc, *tile,
                      hbmView(b, loc, out.buffer, out.offsetAt(b, loc, cIvs),
                              {mm, nw},
                              {out.strides[pDim], out.strides[fDim]}));
}

SmallVector<Value> MatmulKernel::loadATiles(OpBuilder &b, Value batch,
                                            Value mOff, int64_t mm,
                                            int64_t k0) {
  int64_t K = extents[kDim];
  int64_t kk = std::min(kBlock(), K - k0);
  SmallVector<Value> ivs = ivsFor(batch, mOff, Value(), indexConst(b, loc, k0));
  // A pooled tensor kept in SBUF is A^T already (M <= 128: one block).
  if (aResident)
    return {options.residents->imageColumns(b, loc, *aResident, k0, kk)};
  int64_t rowBytes = kBlock() * tile::storageBytes(A.elementType);
  bool transposed = A.strides[mDim] != 1 && A.strides[kDim] == 1;
  int64_t group =
      options.rates.dmaMinDescriptorBytes > rowBytes && transposed
          ? llvm::divideCeil(options.rates.dmaMinDescriptorBytes, rowBytes)
          : 1;
  int64_t span = std::min(group * kBlock(), K - k0);
  if (R > 1)
    return loadRowGroups(b, A, ivs, kDim, span, mDim, mm);
  // A program input read through an absorbed cast: the DMAs round it.
  Type type = pooled && !pooled->pooling ? aMultiply : A.elementType;
  return span <= P() ? SmallVector<Value>{loadOperand(b, A, ivs, kDim, kk, mDim,
                                                      mm, type)}
                     : loadTransposed(b, A, ivs, kDim, span, mDim, mm, type);
}

Value MatmulKernel::loadScaleRows(OpBuilder &b, const Access &s, int colDim,
                                  Value colIv, int64_t cols) {
  int64_t K = extents[kDim], perBlock = kBlock() / kMxBlock;
  int64_t blocks = K / kMxBlock, kBlocks = llvm::divideCeil(K, kBlock());
  int64_t width = kBlocks * perBlock + perBlock;
  SmallVector<Value> ivs(extents.size());
  ivs[colDim] = colIv;
  Value rows = allocTile(b, loc, {cols, width}, s.elementType);
  tile::DmaOp::create(b, loc,
                      hbmView(b, loc, s.buffer, s.offsetAt(b, loc, ivs),
                              {cols, blocks},
                              {s.strides[colDim], s.strides[kDim]}),
                      tileSlice(b, loc, rows, 0, cols, 0, blocks));
  tile::MemsetOp::create(
      b, loc, tileSlice(b, loc, rows, 0, cols, blocks, width - blocks),
      b.getF32FloatAttr(0.0f));
  return rows;
}

SmallVector<Value> MatmulKernel::transposeScaleRows(OpBuilder &b, Value rows,
                                                    int64_t mm,
                                                    ArrayRef<Value> into,
                                                    int64_t c0) {
  // The PE transposes read the rows through a view that takes 32 columns
  // from every K block's first (16 columns apart; the next block's, or
  // zeros past the end, fill the rest): one transpose serves P / 32 K
  // blocks, each block's scales landing on a quarter's first partition,
  // where matmul_mx may read them (or whence a copy moves them `into`).
  int64_t K = extents[kDim], perBlock = kBlock() / kMxBlock;
  int64_t blocks = K / kMxBlock, kBlocks = llvm::divideCeil(K, kBlock());
  int64_t slot = scaleSlot(), width = kBlocks * perBlock + perBlock;
  Type e8m0 = cast<MemRefType>(rows.getType()).getElementType();
  SmallVector<Value> tiles;
  int64_t perTranspose = scaleBlocksPerTranspose();
  for (int64_t j0 = 0; j0 < kBlocks; j0 += perTranspose) {
    int64_t n = std::min(perTranspose, kBlocks - j0);
    auto viewType =
        MemRefType::get({mm, n, slot}, e8m0,
                        StridedLayoutAttr::get(b.getContext(), j0 * perBlock,
                                               {width, perBlock, 1}),
                        cast<MemRefType>(rows.getType()).getMemorySpace());
    Value slots = memref::ReinterpretCastOp::create(
        b, loc, viewType, rows, j0 * perBlock, ArrayRef<int64_t>{mm, n, slot},
        ArrayRef<int64_t>{width, perBlock, 1});
    Value ps = allocTile(b, loc, {n * slot, mm}, b.getF32Type(),
                         tile::MemorySpace::PSUM);
    tile::TransposeOp::create(b, loc, slots, ps);
    if (!into.empty()) { // powers of two: exact
      tile::CopyOp::create(
          b, loc, ps,
          tileSlice(b, loc, into[j0 / perTranspose], 0, n * slot, c0, mm));
      continue;
    }
    Value t = allocTile(b, loc, {n * slot, mm}, e8m0);
    tile::CopyOp::create(b, loc, ps, t); // powers of two: exact
    for (int64_t j = j0; j < j0 + n; ++j) {
      int64_t cols = std::min(perBlock, blocks - j * perBlock);
      tiles.push_back(tileSlice(b, loc, t, (j - j0) * slot, cols, 0, mm));
    }
  }
  return tiles;
}

MatmulKernel::BlockA MatmulKernel::quantizeBlockA(OpBuilder &b, Value mOff,
                                                  int64_t mm) {
  int64_t K = extents[kDim], perBlock = kBlock() / kMxBlock;
  int64_t blocks = K / kMxBlock, kBlocks = llvm::divideCeil(K, kBlock());
  int64_t width = kBlocks * perBlock + perBlock;
  Type f32 = b.getF32Type(), e8m0 = SA.elementType;
  auto str = [&](StringRef s) { return b.getStringAttr(s); };
  auto space = [](Value t) {
    return cast<MemRefType>(t.getType()).getMemorySpace();
  };
  // [mm, kk] as [mm, kk / 32, 32].
  auto blocked = [&](Value t, int64_t kk) -> Value {
    return memref::ExpandShapeOp::create(
        b, loc, ArrayRef<int64_t>{mm, kk / kMxBlock, kMxBlock}, t,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  };
  bool fp4 = tile::isFp4Type(aMultiply);
  Value rows = allocTile(b, loc, {mm, width}, e8m0);
  tile::MemsetOp::create(b, loc,
                         tileSlice(b, loc, rows, 0, mm, blocks, width - blocks),
                         b.getF32FloatAttr(0.0f));
  BlockA block;
  SmallVector<Value> ivs(extents.size());
  ivs[mDim] = mOff;
  for (int64_t k0 = 0; k0 < K; k0 += kBlock()) {
    int64_t kk = std::min(kBlock(), K - k0), nb = kk / kMxBlock, quads = kk / 4;
    ivs[kDim] = indexConst(b, loc, k0);
    Value x = allocTile(b, loc, {mm, kk}, f32);
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, QA.buffer, QA.offsetAt(b, loc, ivs),
                                {mm, kk}, {QA.strides[mDim], QA.strides[kDim]}),
                        x);
    // Each block's largest magnitude, then its scale e8m0(max x factor).
    Value magnitude = allocTile(b, loc, {mm, kk}, f32);
    tile::ActivationOp::create(b, loc, str("abs"), x, magnitude, Value(),
                               Value(), Value(), b.getF32FloatAttr(1.0f),
                               b.getF32FloatAttr(0.0f));
    Value maxima = allocTile(b, loc, {mm, nb}, f32);
    tile::ReduceOp::create(b, loc, str("max"), blocked(magnitude, kk), maxima,
                           b.getI64IntegerAttr(1), Value());
    Value scale = tileSlice(b, loc, rows, 0, mm, k0 / kMxBlock, nb);
    tile::TensorScalarOp::create(
        b, loc, maxima, scale, Value(), Value(), str("mul"),
        b.getF32FloatAttr(quantizedA->scaleFactor), str("bypass"),
        b.getF32FloatAttr(0.0f), UnitAttr(), UnitAttr());
    // e4m3(A / scale), each scale broadcast over its block, into f32 words.
    auto broadcastType = MemRefType::get(
        {mm, nb, kMxBlock}, e8m0,
        StridedLayoutAttr::get(b.getContext(), k0 / kMxBlock, {width, 1, 0}),
        space(rows));
    Value broadcast = memref::ReinterpretCastOp::create(
        b, loc, broadcastType, rows, k0 / kMxBlock,
        ArrayRef<int64_t>{mm, nb, kMxBlock}, ArrayRef<int64_t>{width, 1, 0});
    Value words = allocTile(b, loc, {mm, quads}, f32);
    if (fp4) {
      Value q = allocTile(b, loc, {mm, kk}, aMultiply); // a code a byte
      tile::TensorTensorOp::create(b, loc, str("div"), blocked(x, kk),
                                   broadcast, blocked(q, kk));
      packFp4Words(b, q, words);
    } else {
      Value q = memref::CollapseShapeOp::create(
          b, loc, quadView(b, words, aMultiply, 0),
          ArrayRef<ReassociationIndices>{{0}, {1, 2}});
      tile::TensorTensorOp::create(b, loc, str("div"), blocked(x, kk),
                                   broadcast, blocked(q, kk));
    }
    // One transpose of the words: [kk/4, mm] of four rows each.
    Value ps = allocTile(b, loc, {quads, mm}, f32, tile::MemorySpace::PSUM);
    tile::TransposeOp::create(b, loc, words, ps);
    Value stationary = allocTile(b, loc, {quads, mm}, f32);
    // Any engine: fp8 words as in fillQuadWords; packed fp4 words are
    // integers below 2^16 (f32 zero or subnormal), which x * 1 + 0 keeps.
    tile::CopyOp::create(b, loc, ps, stationary);
    // fp4: the packed quad is the word's value, in its bytes 0 and 1.
    block.tiles.push_back(quadView(b, stationary, aMultiply, 0));
  }
  block.scales = transposeScaleRows(b, rows, mm);
  return block;
}

void MatmulKernel::packFp4Words(OpBuilder &b, Value codes, Value words) {
  // Integers in fp32 (exact): pairs c0 + 16 c1 over [rows, K/2], then
  // words p0 + 256 p1 over [rows, K/4], stored as i32.
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto type = cast<MemRefType>(codes.getType());
  int64_t rows = type.getDimSize(0), n = type.getDimSize(1);
  Type f32 = b.getF32Type();
  Value bytes = tile::BitcastOp::create(
      b, loc,
      tile::getTileType(
          {rows, n}, IntegerType::get(b.getContext(), 8, IntegerType::Unsigned),
          tile::MemorySpace::SBUF),
      codes);
  auto every2 = [&](Value t, int64_t at, int64_t count) -> Value {
    return memref::SubViewOp::create(b, loc, t, ArrayRef<int64_t>{0, at},
                                     ArrayRef<int64_t>{rows, count},
                                     ArrayRef<int64_t>{1, 2});
  };
  auto combine = [&](Value from, int64_t count, float factor, Value into) {
    Value high = allocTile(b, loc, {rows, count}, f32);
    tile::TensorScalarOp::create(b, loc, every2(from, 1, count), high, Value(),
                                 Value(), str("mul"), b.getF32FloatAttr(factor),
                                 str("bypass"), b.getF32FloatAttr(0.0f),
                                 UnitAttr(), UnitAttr());
    tile::TensorTensorOp::create(b, loc, str("add"), high,
                                 every2(from, 0, count), into);
  };
  Value pairs = allocTile(b, loc, {rows, n / 2}, f32);
  combine(bytes, n / 2, 16.0f, pairs);
  combine(
      pairs, n / 4, 256.0f,
      tile::BitcastOp::create(b, loc,
                              tile::getTileType({rows, n / 4}, b.getI32Type(),
                                                tile::MemorySpace::SBUF),
                              words));
}

MatmulKernel::BlockA MatmulKernel::loadBlockA(OpBuilder &b, Value batch,
                                              Value mOff, int64_t mm) {
  if (quantizedA)
    return quantizeBlockA(b, mOff, mm);
  int64_t K = extents[kDim];
  BlockA block;
  if (mx)
    block.scales =
        transposeScaleRows(b, loadScaleRows(b, SA, mDim, mOff, mm), mm);
  // Stationary tiles A^T [k, m] for every K block.
  for (int64_t k0 = 0; k0 < K;) {
    for (Value a : loadATiles(b, batch, mOff, mm, k0)) {
      int64_t kk = cast<MemRefType>(a.getType()).getDimSize(0) * R;
      if (!mx && cast<MemRefType>(a.getType()).getElementType() != aMultiply) {
        Value rounded = allocTile(b, loc, {kk, mm}, aMultiply);
        tile::CopyOp::create(b, loc, a, rounded);
        a = rounded;
      }
      block.tiles.push_back(a);
      k0 += kk;
    }
  }
  return block;
}

void MatmulKernel::emitGroup(OpBuilder &b, Value batch, Value nOff, int64_t np,
                             const PanelB &panel, Value mOff, int64_t mm,
                             const BlockA &a, int64_t g0, int64_t width) {
  int64_t K = extents[kDim];
  SmallVector<std::pair<int64_t, int64_t>> banks;
  for (int64_t n0 = g0; n0 < std::min(np, g0 + width); n0 += bankColumns())
    banks.push_back({n0, std::min(bankColumns(), np - n0)});
  SmallVector<Value> accs, accs2;
  for (auto [n0, nw] : banks) {
    accs.push_back(
        allocTile(b, loc, {mm, nw}, b.getF32Type(), tile::MemorySpace::PSUM));
    if (sibling)
      accs2.push_back(
          allocTile(b, loc, {mm, nw}, b.getF32Type(), tile::MemorySpace::PSUM));
  }
  // A GEMV's first K blocks on the vector engines, their partitions summed
  // by one matmul a bank after the PE's own blocks.
  int64_t vk = vectorBlocks(mm, banks, int64_t(a.tiles.size()), g0 == 0);
  SmallVector<Value> sums =
      vk ? vectorSums(b, panel, a, banks, vk) : SmallVector<Value>();
  for (size_t k = vk; k < a.tiles.size(); ++k) {
    int64_t kk = std::min<int64_t>(kBlock(), K - int64_t(k) * kBlock());
    for (size_t i = 0; i < banks.size(); ++i) {
      UnitAttr accumulate = int64_t(k) > vk ? b.getUnitAttr() : UnitAttr();
      int64_t n0 = banks[i].first, nw = banks[i].second;
      auto emitMatmul = [&](ArrayRef<Value> from, Value acc) {
        // A multi-row tile's innermost dim: R rows, or R / 2 bytes of fp4.
        int64_t inner =
            R == 1 ? 1 : cast<MemRefType>(from[k].getType()).getDimSize(2);
        Value moving = R == 1
                           ? tileSlice(b, loc, from[k], 0, kk, n0, nw)
                           : memref::SubViewOp::create(
                                 b, loc, from[k], ArrayRef<int64_t>{0, n0, 0},
                                 ArrayRef<int64_t>{kk / R, nw, inner},
                                 ArrayRef<int64_t>{1, 1, 1})
                                 .getResult();
        if (mx) {
          Value scale =
              tileSlice(b, loc, panel.scales[k], 0, kk / kMxBlock, n0, nw);
          tile::MatmulMxOp::create(b, loc, a.tiles[k], moving, a.scales[k],
                                   scale, acc, accumulate);
          return;
        }
        tile::MatmulOp::create(b, loc, a.tiles[k], moving, acc, accumulate,
                               b.getI64IntegerAttr(R));
      };
      emitMatmul(panel.tiles, accs[i]);
      if (sibling)
        emitMatmul(panel.tiles2, accs2[i]);
    }
  }
  if (vk) {
    Value ones = allocTile(b, loc, {P(), 1}, b.getF32Type());
    tile::MemsetOp::create(b, loc, ones, b.getF32FloatAttr(1.0f));
    for (auto [acc, sum] : llvm::zip_equal(accs, sums))
      tile::MatmulOp::create(b, loc, ones, sum, acc, b.getUnitAttr(),
                             b.getI64IntegerAttr(1));
  }
  for (auto [i, bank] : llvm::enumerate(banks))
    evacuate(b, batch, mOff, mm, nOff, bank.first, bank.second, accs[i],
             sibling ? accs2[i] : Value());
}

/// A GEMV (one row of A) with fp32 inputs spends four PE cycles on each
/// column of B per K block, every stationary a single column of A, while
/// the vector engines idle: a batch-1 classifier's 1280 x 1000 weights
/// are 17.7 us of PE time at the end of MobileNetV2, with nothing else to
/// run. The first K blocks may instead go to the vector engines: each
/// block's rows of B scaled by A's element on its partition (ACT, DVE or
/// POOL), the scaled blocks summed in PSUM (the DVE, one PSUM input), and
/// one matmul of a ones column per bank adding up the partitions into the
/// PE's accumulator. As many blocks as make the PE's remaining blocks and
/// the DVE's sums end soonest, by the target's costs, when that is sooner
/// than the PE alone. A global pooling's result is stored a channel block
/// at a time by the convolution before, whose remaining PE work the
/// vector engines do not wait for (ResNet-50's classifier: 10 vector
/// blocks of 16 balanced from a common start, 718.6 us; 14 with that head
/// start, 713.0). (With bf16 inputs a block's columns cost the PE a cycle
/// each, less than any vector pass over them.)
int64_t MatmulKernel::vectorBlocks(int64_t mm, Banks banks, int64_t kBlocks,
                                   bool first) const {
  const TileOptions::Rates &t = options.rates;
  if (mm != 1 || R != 1 || mx || sibling || quantizedA || kBlocks < 3 ||
      !aMultiply.isF32() || !B.elementType.isF32() || !t.peClockMHz ||
      !t.actClockMHz || !t.dveClockMHz)
    return 0;
  auto ns = [](int64_t cycles, int64_t clockMHz) {
    return double(cycles) * 1000.0 / double(clockMHz);
  };
  double pe = ns(t.peLoadStationaryCycles * t.peFp32Factor, t.peClockMHz);
  double act = 0, dve = 0;
  for (auto [n0, nw] : banks) {
    pe += ns(std::max(nw, t.peMinColumns) * t.peFp32Factor, t.peClockMHz);
    int64_t pass = t.fixedOverheadCycles + std::max(nw, t.minElementCycles);
    act += ns(pass, t.actClockMHz);
    dve += ns(pass, t.dveClockMHz);
  }
  double headStart = 0;
  if (first && pooled && pooled->pooling && options.resultTailPeNs)
    headStart =
        std::max(options.resultTailPeNs->lookup(viewRoot(pooled->source)),
                 options.resultTailPeNs->lookup(pooled->pooled));
  return gemvVectorBlocks(pe, act, dve, kBlocks, headStart);
}

int64_t tiling::gemvVectorBlocks(double pe, double act, double dve,
                                 int64_t kBlocks, double headStart) {
  double best = double(kBlocks) * pe;
  int64_t vk = 0;
  for (int64_t v = 2; v < kBlocks; ++v) {
    double vector = std::max(double(v) * act, act + double(v - 1) * dve);
    double end = std::max(headStart + double(kBlocks - v) * pe, vector) + pe;
    if (end < best) {
      best = end;
      vk = v;
    }
  }
  return vk;
}

SmallVector<Value> MatmulKernel::vectorSums(OpBuilder &b, const PanelB &panel,
                                            const BlockA &a, Banks banks,
                                            int64_t vk) {
  SmallVector<Value> sums;
  ArrayRef<Value> scalars = ArrayRef<Value>(a.tiles).take_front(vk);
  for (auto [n0, nw] : banks) {
    SmallVector<Value> rows;
    for (int64_t k = 0; k < vk; ++k)
      rows.push_back(tileSlice(b, loc, panel.tiles[k], 0, P(), n0, nw));
    sums.push_back(gemvVectorSum(b, loc, rows, scalars));
  }
  return sums;
}

Value tiling::gemvVectorSum(OpBuilder &b, Location loc, ArrayRef<Value> rows,
                            ArrayRef<Value> scalars) {
  assert(rows.size() >= 2 && rows.size() == scalars.size());
  ArrayRef<int64_t> shape = cast<MemRefType>(rows.front().getType()).getShape();
  Value acc = allocTile(b, loc, shape, b.getF32Type(), tile::MemorySpace::PSUM);
  Value sum;
  for (auto [k, row, scalar] : llvm::enumerate(rows, scalars)) {
    Value product = k ? allocTile(b, loc, shape, b.getF32Type()) : acc;
    tile::TensorScalarOp::create(
        b, loc, row, product, scalar, Value(), b.getStringAttr("mul"),
        b.getF32FloatAttr(0.0f), b.getStringAttr("bypass"),
        b.getF32FloatAttr(0.0f), UnitAttr(), UnitAttr());
    if (!k)
      continue;
    sum = k + 1 < rows.size() ? acc : allocTile(b, loc, shape, b.getF32Type());
    tile::TensorTensorOp::create(b, loc, b.getStringAttr("add"), acc, product,
                                 sum);
  }
  return sum;
}

void MatmulKernel::emitBlock(OpBuilder &b, Value batch, Value nOff, int64_t np,
                             const PanelB &panel, Value mOff, int64_t mm) {
  BlockA a = loadBlockA(b, batch, mOff, mm);
  // The panel's banks, a group at a time (the A^T tiles serve them all).
  for (int64_t g0 = 0; g0 < np; g0 += groupColumns())
    emitGroup(b, batch, nOff, np, panel, mOff, mm, a, g0, groupColumns());
}

void MatmulKernel::emitPanel(OpBuilder &b, Value batch, Value nOff,
                             int64_t np) {
  int64_t K = extents[kDim];
  PanelB panel;
  // Staged row groups (a multi-row B that is not a stored constant) are
  // interleaved on chip at one byte a cycle, which for a wide panel takes
  // longer than the first M blocks' matmuls on it. The first blocks then
  // run as a wave, bank group by bank group, each group's staging just
  // before (a later group's copies overlap the earlier groups' matmuls).
  // B contiguous along K moves as words, a K block a transpose per 128
  // columns: also slower than the first blocks' matmuls on a wide panel.
  bool quadB = R == 4 && !pairedB && B.strides[nDim] != 1 &&
               B.strides[kDim] == 1 && quadWordsApply(B, nDim, K);
  bool staged = R > 1 && !pairedB && !sibling &&
                (quadB || B.strides[nDim] == 1 || B.strides[kDim] != 1);
  // Columns staged at a time: a bank group, or kQuadWaveBanks for words
  // (whose exact copies only DVE makes, so that the first matmuls start
  // after fewer of them).
  int64_t waveWidth =
      quadB ? std::min(groupColumns(), kQuadWaveBanks * bankColumns())
            : groupColumns();
  int64_t waveBlocks = staged && np > groupColumns()
                           ? std::min<int64_t>(kWaveBlocks, extents[mDim] / P())
                           : 0;
  for (int64_t k0 = 0; k0 < K; k0 += kBlock()) {
    int64_t kk = std::min(kBlock(), K - k0);
    SmallVector<Value> ivs =
        ivsFor(batch, Value(), nOff, indexConst(b, loc, k0));
    auto load = [&](const Access &from) -> Value {
      if (R == 1)
        return loadOperand(b, from, ivs, kDim, kk, nDim, np);
      if (&from == &B && pairedB) {
        int64_t inner = pairedB->strides[nDim];
        Value t = allocTile(b, loc, {kk / R, np, inner}, pairedB->elementType);
        tile::DmaOp::create(b, loc,
                            hbmView(b, loc, pairedB->buffer,
                                    pairedB->offsetAt(b, loc, ivs),
                                    {kk / R, np, inner},
                                    {R * pairedB->strides[kDim], inner, 1}),
                            t);
        if (!tile::isFp4Type(B.elementType))
          return t;
        // The bytes as pairs of e2m1 values.
        return tile::BitcastOp::create(
                   b, loc,
                   tile::getTileType({kk / R, np, inner},
                                     VectorType::get({2}, B.elementType),
                                     tile::MemorySpace::SBUF),
                   t)
            .getResult();
      }
      if (waveBlocks && quadB) { // filled a bank group at a time
        QuadTiles t = allocQuadTiles(b, B, kk, np);
        panel.words.push_back(t.words.front());
        return t.quads.front();
      }
      if (waveBlocks) // filled a bank group at a time (stageGroup)
        return allocTile(b, loc, {kk / R, np, R}, B.elementType);
      return loadRowGroups(b, from, ivs, kDim, kk, nDim, np).front();
    };
    panel.tiles.push_back(load(B));
    if (sibling)
      panel.tiles2.push_back(load(B2));
  }
  if (mx)
    panel.scales = loadScales(b, SB, nDim, nOff, np);
  // One bank group of a wave's B: per K block and bank, a [K/R, R, bank]
  // stage (rows of a bank's width) interleaved into the panel's tile.
  auto stageGroup = [&](int64_t g0) {
    if (quadB) {
      for (size_t kb = 0; kb < panel.words.size(); ++kb)
        fillQuadWords(
            b, B,
            ivsFor(batch, Value(), nOff, indexConst(b, loc, kb * kBlock())),
            nDim, panel.words[kb], g0, std::min(np, g0 + waveWidth));
      return;
    }
    for (size_t kb = 0; kb < panel.tiles.size(); ++kb) {
      Value t = panel.tiles[kb];
      int64_t groups = cast<MemRefType>(t.getType()).getDimSize(0);
      for (int64_t c0 = g0; c0 < std::min(np, g0 + waveWidth);
           c0 += bankColumns()) {
        int64_t cw = std::min(bankColumns(), np - c0);
        Value n = arith::AddIOp::create(b, loc, nOff, indexConst(b, loc, c0));
        SmallVector<Value> ivs =
            ivsFor(batch, Value(), n, indexConst(b, loc, kb * kBlock()));
        Value stage = allocTile(b, loc, {groups, R, cw}, B.elementType);
        tile::DmaOp::create(
            b, loc,
            hbmView(b, loc, B.buffer, B.offsetAt(b, loc, ivs), {groups, R, cw},
                    {R * B.strides[kDim], B.strides[kDim], B.strides[nDim]}),
            stage);
        interleave(b, stage, 0, t, c0, cw);
      }
    }
  };

  // Row-broadcast epilogue operands: one load per panel, not per M block
  // (each load writes every partition: a bias of 2 KB costs 256 KB).
  panelRows.assign(epilogue ? epi.operands.size() : 0, Value());
  if (epilogue) {
    unsigned rank = extents.size() - 1, fDim = rank - 1;
    for (auto [i, e] : llvm::enumerate(epi.operands)) {
      bool row = e.buffer && i + 1 < epi.operands.size() &&
                 !epi.readsProduct[i] && e.strides[fDim] != 0 &&
                 llvm::all_of(llvm::enumerate(e.strides), [&](auto s) {
                   return s.index() == fDim || s.value() == 0;
                 });
      if (!row)
        continue;
      int64_t rows = std::min(P(), extents[mDim]);
      Value t = allocTile(b, loc, {rows, np}, e.elementType);
      SmallVector<Value> at(rank);
      at[fDim] = nOff;
      tile::DmaOp::create(b, loc,
                          hbmView(b, loc, e.buffer, e.offsetAt(b, loc, at),
                                  {rows, np}, {0, e.strides[fDim]}),
                          t);
      panelRows[i] = t;
    }
  }
  if (!waveBlocks) {
    tileLoop(b, loc, extents[mDim], P(),
             [&](OpBuilder &mb, Value m, int64_t mm) {
               emitBlock(mb, batch, nOff, np, panel, m, mm);
             });
    return;
  }
  // The first block's A goes ahead of B: its transposes then wait for no
  // staging.
  SmallVector<BlockA> wave;
  wave.push_back(loadBlockA(b, batch, indexConst(b, loc, 0), P()));
  for (int64_t g0 = 0; g0 < np; g0 += waveWidth) {
    stageGroup(g0);
    for (int64_t j = 0; j < waveBlocks; ++j) {
      Value mOff = indexConst(b, loc, j * P());
      if (j == int64_t(wave.size()))
        wave.push_back(loadBlockA(b, batch, mOff, P()));
      emitGroup(b, batch, nOff, np, panel, mOff, P(), wave[j], g0, waveWidth);
    }
  }
  int64_t done = waveBlocks * P();
  tileLoop(b, loc, extents[mDim] - done, P(),
           [&](OpBuilder &mb, Value m, int64_t mm) {
             Value mOff =
                 arith::AddIOp::create(mb, loc, m, indexConst(mb, loc, done));
             emitBlock(mb, batch, nOff, np, panel, mOff, mm);
           });
}

void MatmulKernel::emit() {
  // The B panel stays in SBUF across the M loop. It may take 3/4 of SBUF:
  // the rest holds the A^T tiles, the A loads and the evacuated outputs of
  // two M blocks in flight. Wider panels mean fewer re-transposes of A.
  // With a sibling, two panels and two products per block share them.
  int64_t K = extents[kDim], N = extents[nDim];
  int64_t kBlocks = (K + kBlock() - 1) / kBlock();
  int64_t products = sibling ? 2 : 1;
  int64_t bytes = tile::storageBytes(B.elementType) * products * R;
  // An M block's A^T tiles take K / 128 x 128 columns besides the panel:
  // with a deep K more than the quarter left (an im2col convolution of
  // 2,048 channels, FCN-ResNet-50's head in f32: 144 K blocks, 74 KiB a
  // partition), which then still leaves an eighth for the loads and
  // evacuations.
  int64_t sbuf = options.sbufBytesPerPartition;
  int64_t aBytes = kBlocks * std::min(P(), extents[mDim]) * R *
                   tile::storageBytes(aMultiply);
  int64_t budget = std::min(sbuf * 3 / 4, sbuf - aBytes - sbuf / 8);
  int64_t np = std::min<int64_t>(kMaxPanelBanks / products * bankColumns(), N);
  // All of B when it fits and there are several M blocks: A is then
  // transposed once instead of once per panel. With one M block nothing is
  // saved and narrower panels let the first matmuls start sooner; with a
  // sibling it measured slower (a Llama layer's gated MLP, 230.4 -> 234.4
  // us under auto-cast).
  if (!sibling && extents[mDim] > P() && kBlocks * N * bytes <= budget)
    np = N;
  // Narrower panels down to one bank, then, for a K so deep that a bank's
  // columns of it do not fit (VGG-11's 25,088 x 4,096 classifier in f32:
  // 196 K blocks of 2 KiB a partition), halves of one.
  while (np > 1 && kBlocks * np * bytes > budget)
    np = np > bankColumns() ? np - bankColumns() : (np + 1) / 2;
  if (R > 1)
    pairedB = groupedConstant(b);
  auto panels = [&](OpBuilder &pb, Value batch) {
    tileLoop(pb, loc, N, np, [&](OpBuilder &nb, Value n, int64_t w) {
      emitPanel(nb, batch, n, w);
    });
  };
  if (bDim < 0)
    return panels(b, Value());
  tileLoop(b, loc, extents[bDim], 1,
           [&](OpBuilder &bb, Value batch, int64_t) { panels(bb, batch); });
}

LogicalResult tiling::tileMatmul(OpBuilder &b, linalg::LinalgOp op,
                                 bool zeroInit, linalg::GenericOp epilogue,
                                 const PooledMatmulInput *pooled,
                                 const TileOptions &options,
                                 linalg::MatmulOp sibling,
                                 const MxQuantizedA *quantizedA) {
  if (llvm::is_contained(op.getStaticLoopRanges(), 0)) {
    if (cast<MemRefType>(op.getDpsInits()[0].getType()).getNumElements() == 0)
      return success(); // an empty result
    return op->emitOpError("matmul with an empty contraction (K = 0) is not "
                           "supported");
  }
  MatmulKernel kernel(b, op, zeroInit, epilogue, pooled, options, sibling,
                      quantizedA);
  if (failed(kernel.analyze()))
    return failure();
  kernel.emit();
  return kernel.status;
}
