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
// [p, j, r] is row 2p + r (loadPairs). A panel of B is loaded row pair by
// row pair ([K/2, 2, columns], contiguous in HBM) and interleaved on chip,
// or, for a constant B, loaded as it is from a copy stored as row pairs
// (pairedConstant); A^T blocks are PE transposes of every other row of a
// row-major A block.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Epilogue.h"
#include "Kernels.h"
#include "Match.h"
#include "Residents.h"
#include "TileUtils.h"

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

struct MatmulKernel {
  MatmulKernel(OpBuilder &b, linalg::LinalgOp op, bool zeroInit,
               linalg::GenericOp epilogue, const PooledMatmulInput *pooled,
               const TileOptions &options, linalg::MatmulOp sibling)
      : b(b), op(op), loc(op.getLoc()), zeroInit(zeroInit), epilogue(epilogue),
        pooled(pooled), options(options), sibling(sibling) {}

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

  /// Contraction rows a partition: 2 for fp8 double-row matmuls.
  int64_t R = 1;
  /// A constant B of a double-row matmul stored as row pairs,
  /// [K/2, N, 2] (pairedConstant): its tiles load without interleaving.
  std::optional<Access> pairedB;

  int64_t P() const { return options.partitions; }
  int64_t bankColumns() const { return options.bankColumns; }
  /// Contraction rows of one K block (one matmul).
  int64_t kBlock() const { return P() * R; }

  LogicalResult analyze();
  void emit();
  void emitPanel(OpBuilder &b, Value batch, Value nOff, int64_t np);
  void emitBlock(OpBuilder &b, Value batch, Value nOff, int64_t np,
                 ArrayRef<Value> bTiles, ArrayRef<Value> b2Tiles, Value mOff,
                 int64_t mm);
  void evacuate(OpBuilder &b, Value batch, Value mOff, int64_t mm, Value nOff,
                int64_t n0, int64_t nw, Value acc, Value acc2);
  /// A [rows, cols] tile of `a` at iteration point (ivs) with `rowDim` on
  /// partitions and `colDim` along the free axis (loadRows).
  Value loadOperand(OpBuilder &b, const Access &a, ArrayRef<Value> ivs,
                    int rowDim, int64_t rows, int colDim, int64_t cols);
  /// `a` row-major along `rowDim` as [rows, cols] tiles of at most P rows
  /// each (one per P rows; loadRows).
  SmallVector<Value> loadTransposed(OpBuilder &b, const Access &a,
                                    ArrayRef<Value> ivs, int rowDim,
                                    int64_t rows, int colDim, int64_t cols);
  /// `a`'s [rows, cols] at ivs as double-row tiles [kk/2, cols, 2], one per
  /// K block of the rows (element [p, j, r] is row 2p + r of the block).
  SmallVector<Value> loadPairs(OpBuilder &b, const Access &a,
                               ArrayRef<Value> ivs, int rowDim, int64_t rows,
                               int colDim, int64_t cols);
  /// pairedB for a row-major constant B: a global holding B's row pairs
  /// side by side, made once per constant.
  std::optional<Access> pairedConstant(OpBuilder &b);
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

LogicalResult MatmulKernel::analyze() {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
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
    // Same shape and identity layout: only the buffer and type differ.
    A.buffer = pooled->source;
    A.elementType =
        cast<MemRefType>(pooled->source.getType()).getElementType();
    if (options.residents)
      aResident = options.residents->lookup(pooled->source);
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
                                int colDim, int64_t cols) {
  Value tile = allocTile(b, loc, {rows, cols}, a.elementType);
  loadRows(b, loc, P(), a, ivs, rowDim, colDim, tile);
  return tile;
}

SmallVector<Value> MatmulKernel::loadTransposed(OpBuilder &b, const Access &a,
                                                ArrayRef<Value> ivs, int rowDim,
                                                int64_t rows, int colDim,
                                                int64_t cols) {
  SmallVector<Value> tiles;
  for (int64_t r0 = 0; r0 < rows; r0 += P())
    tiles.push_back(
        allocTile(b, loc, {std::min(P(), rows - r0), cols}, a.elementType));
  loadRows(b, loc, P(), a, ivs, rowDim, colDim, tiles);
  return tiles;
}

SmallVector<Value> MatmulKernel::loadPairs(OpBuilder &b, const Access &a,
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
  SmallVector<Value> tiles;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock())
    tiles.push_back(allocTile(
        b, loc, {std::min(kBlock(), rows - r0) / 2, cols, 2}, a.elementType));
  auto pairsOf = [&](Value t) {
    return cast<MemRefType>(t.getType()).getDimSize(0);
  };
  if (a.strides[colDim] == 1 || a.strides[rowDim] != 1) {
    // Row pairs side by side ([K/2, 2, cols]: 2 x cols contiguous bytes a
    // partition when the columns are a whole row), then interleaved by
    // copies of at most a bank's columns, which the engines share.
    int64_t r0 = 0;
    for (Value t : tiles) {
      int64_t pairs = pairsOf(t);
      Value stage = allocTile(b, loc, {pairs, 2, cols}, a.elementType);
      SmallVector<Value> at = shifted(rowDim, r0);
      tile::DmaOp::create(b, loc,
                          hbmView(b, loc, a.buffer, a.offsetAt(b, loc, at),
                                  {pairs, 2, cols},
                                  {2 * a.strides[rowDim], a.strides[rowDim],
                                   a.strides[colDim]}),
                          stage);
      for (int64_t c0 = 0; c0 < cols; c0 += bankColumns())
        for (int64_t r = 0; r < 2; ++r) {
          int64_t cw = std::min(bankColumns(), cols - c0);
          tile::CopyOp::create(b, loc, view(stage, {0, r, c0}, {pairs, 1, cw}),
                               view(t, {0, c0, r}, {pairs, cw, 1}));
        }
      r0 += 2 * pairs;
    }
    return tiles;
  }
  // Rows contiguous (a row-major A): [cw, rows] blocks with the columns on
  // the partitions, and two PE transposes a K block, one of its even rows
  // and one of its odd rows.
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
      for (int64_t r = 0; r < 2; ++r) {
        Value ps = allocTile(b, loc, {pairs, cw}, b.getF32Type(),
                             tile::MemorySpace::PSUM);
        Value rowsOf = memref::SubViewOp::create(
            b, loc, src, ArrayRef<int64_t>{0, r0 + r},
            ArrayRef<int64_t>{cw, pairs}, ArrayRef<int64_t>{1, 2});
        tile::TransposeOp::create(b, loc, rowsOf, ps);
        tile::CopyOp::create(b, loc, ps, view(t, {0, c0, r}, {pairs, cw, 1}));
      }
      r0 += 2 * pairs;
    }
  }
  return tiles;
}

std::optional<Access> MatmulKernel::pairedConstant(OpBuilder &b) {
  int64_t K = extents[kDim], N = extents[nDim];
  auto get = B.buffer.getDefiningOp<memref::GetGlobalOp>();
  if (!get || bDim >= 0 || B.offset != 0 || B.strides[kDim] != N ||
      B.strides[nDim] != 1 ||
      cast<MemRefType>(get.getType()).getNumElements() != K * N)
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  auto dense =
      global ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
             : DenseElementsAttr();
  if (!global || !global.getConstant() || !dense || dense.isSplat())
    return std::nullopt;
  std::string name = (global.getSymName() + "_pairs").str();
  auto module = global->getParentOfType<ModuleOp>();
  auto type = MemRefType::get({K / 2, N, 2}, B.elementType);
  if (!SymbolTable::lookupSymbolIn(module, name)) {
    // Row k of B at [k / 2, n, k % 2].
    ArrayRef<char> in = dense.getRawData();
    SmallVector<char> out(in.size());
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        out[(k / 2) * 2 * N + n * 2 + k % 2] = in[k * N + n];
    OpBuilder gb(global);
    gb.setInsertionPointAfter(global);
    auto tensorType = RankedTensorType::get(type.getShape(), B.elementType);
    memref::GlobalOp::create(
        gb, global.getLoc(), name, gb.getStringAttr("private"), type,
        DenseElementsAttr::getFromRawBuffer(tensorType, out),
        /*constant=*/true, global.getAlignmentAttr());
  }
  Access paired = B;
  paired.buffer = memref::GetGlobalOp::create(b, loc, type, name);
  // Even rows k start at k / 2 x 2N = k x N; column n at 2n.
  paired.strides[kDim] = N;
  paired.strides[nDim] = 2;
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
  if (R == 2)
    return loadPairs(b, A, ivs, kDim, span, mDim, mm);
  return span <= P()
             ? SmallVector<Value>{loadOperand(b, A, ivs, kDim, kk, mDim, mm)}
             : loadTransposed(b, A, ivs, kDim, span, mDim, mm);
}

void MatmulKernel::emitBlock(OpBuilder &b, Value batch, Value nOff, int64_t np,
                             ArrayRef<Value> bTiles, ArrayRef<Value> b2Tiles,
                             Value mOff, int64_t mm) {
  int64_t K = extents[kDim];
  // Stationary tiles A^T [k, m] for every K block.
  SmallVector<Value> aTiles;
  for (int64_t k0 = 0; k0 < K;) {
    for (Value a : loadATiles(b, batch, mOff, mm, k0)) {
      int64_t kk = cast<MemRefType>(a.getType()).getDimSize(0) * R;
      if (cast<MemRefType>(a.getType()).getElementType() != aMultiply) {
        Value rounded = allocTile(b, loc, {kk, mm}, aMultiply);
        tile::CopyOp::create(b, loc, a, rounded);
        a = rounded;
      }
      aTiles.push_back(a);
      k0 += kk;
    }
  }
  // The panel's banks, at most kMaxPanelBanks / products of them at once
  // (the A^T tiles serve them all).
  int64_t perGroup = kMaxPanelBanks / (sibling ? 2 : 1);
  for (int64_t g0 = 0; g0 < np; g0 += perGroup * bankColumns()) {
    SmallVector<std::pair<int64_t, int64_t>> banks;
    for (int64_t n0 = g0; n0 < std::min(np, g0 + perGroup * bankColumns());
         n0 += bankColumns())
      banks.push_back({n0, std::min(bankColumns(), np - n0)});
    SmallVector<Value> accs, accs2;
    for (auto [n0, nw] : banks) {
      accs.push_back(
          allocTile(b, loc, {mm, nw}, b.getF32Type(), tile::MemorySpace::PSUM));
      if (sibling)
        accs2.push_back(allocTile(b, loc, {mm, nw}, b.getF32Type(),
                                  tile::MemorySpace::PSUM));
    }
    for (auto [kb, aTile] : llvm::enumerate(aTiles)) {
      int64_t kk = std::min<int64_t>(kBlock(), K - int64_t(kb) * kBlock());
      for (auto [i, bank] : llvm::enumerate(banks)) {
        UnitAttr accumulate = kb ? b.getUnitAttr() : UnitAttr();
        auto emitMatmul = [&](ArrayRef<Value> from, Value acc) {
          Value moving =
              R == 1
                  ? tileSlice(b, loc, from[kb], 0, kk, bank.first, bank.second)
                  : memref::SubViewOp::create(
                        b, loc, from[kb], ArrayRef<int64_t>{0, bank.first, 0},
                        ArrayRef<int64_t>{kk / 2, bank.second, 2},
                        ArrayRef<int64_t>{1, 1, 1})
                        .getResult();
          tile::MatmulOp::create(b, loc, aTile, moving, acc, accumulate,
                                 b.getI64IntegerAttr(R));
        };
        emitMatmul(bTiles, accs[i]);
        if (sibling)
          emitMatmul(b2Tiles, accs2[i]);
      }
    }
    for (auto [i, bank] : llvm::enumerate(banks))
      evacuate(b, batch, mOff, mm, nOff, bank.first, bank.second, accs[i],
               sibling ? accs2[i] : Value());
  }
}

void MatmulKernel::emitPanel(OpBuilder &b, Value batch, Value nOff,
                             int64_t np) {
  int64_t K = extents[kDim];
  SmallVector<Value> bTiles, b2Tiles;
  for (int64_t k0 = 0; k0 < K; k0 += kBlock()) {
    int64_t kk = std::min(kBlock(), K - k0);
    SmallVector<Value> ivs =
        ivsFor(batch, Value(), nOff, indexConst(b, loc, k0));
    auto load = [&](const Access &from) {
      if (R == 1)
        return loadOperand(b, from, ivs, kDim, kk, nDim, np);
      if (&from == &B && pairedB) {
        Value t = allocTile(b, loc, {kk / 2, np, 2}, B.elementType);
        tile::DmaOp::create(b, loc,
                            hbmView(b, loc, pairedB->buffer,
                                    pairedB->offsetAt(b, loc, ivs),
                                    {kk / 2, np, 2}, {2 * extents[nDim], 2, 1}),
                            t);
        return t;
      }
      return loadPairs(b, from, ivs, kDim, kk, nDim, np).front();
    };
    bTiles.push_back(load(B));
    if (sibling)
      b2Tiles.push_back(load(B2));
  }
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
  tileLoop(b, loc, extents[mDim], P(), [&](OpBuilder &mb, Value m, int64_t mm) {
    emitBlock(mb, batch, nOff, np, bTiles, b2Tiles, m, mm);
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
  int64_t budget = options.sbufBytesPerPartition * 3 / 4;
  int64_t np = std::min<int64_t>(kMaxPanelBanks / products * bankColumns(), N);
  // All of B when it fits and there are several M blocks: A is then
  // transposed once instead of once per panel. With one M block nothing is
  // saved and narrower panels let the first matmuls start sooner; with a
  // sibling it measured slower (a Llama layer's gated MLP, 230.4 -> 234.4
  // us under auto-cast).
  if (!sibling && extents[mDim] > P() && kBlocks * N * bytes <= budget)
    np = N;
  while (np > bankColumns() && kBlocks * np * bytes > budget)
    np -= bankColumns();
  if (R == 2)
    pairedB = pairedConstant(b);
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
                                 linalg::MatmulOp sibling) {
  if (llvm::is_contained(op.getStaticLoopRanges(), 0)) {
    if (cast<MemRefType>(op.getDpsInits()[0].getType()).getNumElements() == 0)
      return success(); // an empty result
    return op->emitOpError("matmul with an empty contraction (K = 0) is not "
                           "supported");
  }
  MatmulKernel kernel(b, op, zeroInit, epilogue, pooled, options, sibling);
  if (failed(kernel.analyze()))
    return failure();
  kernel.emit();
  return kernel.status;
}
