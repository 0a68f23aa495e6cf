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
// LoadStationary is paid once per bank group; B is read from HBM once.
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

  int64_t P() const { return options.partitions; }
  int64_t bankColumns() const { return options.bankColumns; }

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
  int64_t kk = std::min(P(), K - k0);
  SmallVector<Value> ivs = ivsFor(batch, mOff, Value(), indexConst(b, loc, k0));
  // A pooled tensor kept in SBUF is A^T already (M <= 128: one block).
  if (aResident)
    return {options.residents->imageColumns(b, loc, *aResident, k0, kk)};
  int64_t rowBytes = P() * tile::storageBytes(A.elementType);
  bool transposed = A.strides[mDim] != 1 && A.strides[kDim] == 1;
  int64_t group =
      options.rates.dmaMinDescriptorBytes > rowBytes && transposed
          ? llvm::divideCeil(options.rates.dmaMinDescriptorBytes, rowBytes)
          : 1;
  int64_t span = std::min(group * P(), K - k0);
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
      int64_t kk = cast<MemRefType>(a.getType()).getDimSize(0);
      if (cast<MemRefType>(a.getType()).getElementType() != aMultiply) {
        Value rounded = allocTile(b, loc, {kk, mm}, aMultiply);
        tile::CopyOp::create(b, loc, a, rounded);
        a = rounded;
      }
      aTiles.push_back(a);
      k0 += kk;
    }
  }
  SmallVector<std::pair<int64_t, int64_t>> banks;
  for (int64_t n0 = 0; n0 < np; n0 += bankColumns())
    banks.push_back({n0, std::min(bankColumns(), np - n0)});
  SmallVector<Value> accs, accs2;
  for (auto [n0, nw] : banks) {
    accs.push_back(
        allocTile(b, loc, {mm, nw}, b.getF32Type(), tile::MemorySpace::PSUM));
    if (sibling)
      accs2.push_back(
          allocTile(b, loc, {mm, nw}, b.getF32Type(), tile::MemorySpace::PSUM));
  }
  for (auto [kb, aTile] : llvm::enumerate(aTiles)) {
    int64_t kk = std::min<int64_t>(P(), K - int64_t(kb) * P());
    for (auto [i, bank] : llvm::enumerate(banks)) {
      UnitAttr accumulate = kb ? b.getUnitAttr() : UnitAttr();
      tile::MatmulOp::create(
          b, loc, aTile,
          tileSlice(b, loc, bTiles[kb], 0, kk, bank.first, bank.second),
          accs[i], accumulate);
      if (sibling)
        tile::MatmulOp::create(
            b, loc, aTile,
            tileSlice(b, loc, b2Tiles[kb], 0, kk, bank.first, bank.second),
            accs2[i], accumulate);
    }
  }
  for (auto [i, bank] : llvm::enumerate(banks))
    evacuate(b, batch, mOff, mm, nOff, bank.first, bank.second, accs[i],
             sibling ? accs2[i] : Value());
}

void MatmulKernel::emitPanel(OpBuilder &b, Value batch, Value nOff,
                             int64_t np) {
  int64_t K = extents[kDim];
  SmallVector<Value> bTiles, b2Tiles;
  for (int64_t k0 = 0; k0 < K; k0 += P()) {
    int64_t kk = std::min(P(), K - k0);
    SmallVector<Value> ivs =
        ivsFor(batch, Value(), nOff, indexConst(b, loc, k0));
    bTiles.push_back(loadOperand(b, B, ivs, kDim, kk, nDim, np));
    if (sibling)
      b2Tiles.push_back(loadOperand(b, B2, ivs, kDim, kk, nDim, np));
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
  int64_t kBlocks = (K + P() - 1) / P();
  int64_t products = sibling ? 2 : 1;
  int64_t bytes = tile::storageBytes(B.elementType) * products;
  int64_t np = std::min<int64_t>(kMaxPanelBanks / products * bankColumns(), N);
  while (np > bankColumns() &&
         kBlocks * np * bytes > options.sbufBytesPerPartition * 3 / 4)
    np -= bankColumns();
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
