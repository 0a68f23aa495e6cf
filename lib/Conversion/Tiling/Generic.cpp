//===- Generic.cpp - Elementwise generics and reductions --------------------===//
//
// The iteration space is simplified first: parallel dims of extent 1 are
// dropped and adjacent dims that every operand walks contiguously are
// merged, so a row-major elementwise op on any rank becomes one long dim,
// which is split into [partitions, free] (as is the last dim of an
// elementwise op whose dim before it is shorter than the partitions). Then
// the last parallel dim goes on the partitions and the last dim (parallel or
// the one reduction dim) along the free axis, in chunks; other dims are
// loops.
// Operands that do not vary along the free axis are loaded once per
// partition block as [P,1] columns and used as per-partition scalars.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Kernels.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
struct Space {
  SmallVector<int64_t> extents;
  SmallVector<bool> reduction;
  SmallVector<Access> operands; // inputs then the output
};
} // namespace

/// Drops parallel dims of extent 1 (a batch of one), which would otherwise
/// stop the dims around them from merging or end up on the partitions.
static void dropUnitDims(Space &s) {
  for (int d = int(s.extents.size()) - 1; d >= 0 && s.extents.size() > 1; --d) {
    if (s.extents[d] != 1 || s.reduction[d])
      continue;
    s.extents.erase(s.extents.begin() + d);
    s.reduction.erase(s.reduction.begin() + d);
    for (Access &a : s.operands)
      if (a.buffer)
        a.strides.erase(a.strides.begin() + d);
  }
}

/// Merges adjacent dims of the same kind that every operand walks
/// contiguously.
static void mergeDims(Space &s) {
  for (int d = int(s.extents.size()) - 2; d >= 0; --d) {
    if (s.reduction[d] != s.reduction[d + 1])
      continue;
    bool contiguous = llvm::all_of(s.operands, [&](const Access &a) {
      return !a.buffer ||
             a.strides[d] == a.strides[d + 1] * s.extents[d + 1];
    });
    if (!contiguous)
      continue;
    s.extents[d] *= s.extents[d + 1];
    s.extents.erase(s.extents.begin() + d + 1);
    s.reduction.erase(s.reduction.begin() + d + 1);
    for (Access &a : s.operands) {
      if (!a.buffer)
        continue;
      a.strides[d] = a.strides[d + 1];
      a.strides.erase(a.strides.begin() + d + 1);
    }
  }
}

/// Inserts dim `d` of `extent`, walked with `strides[i]` by operand i.
static void insertDim(Space &s, unsigned d, int64_t extent, bool reduction,
                      ArrayRef<int64_t> strides) {
  s.extents.insert(s.extents.begin() + d, extent);
  s.reduction.insert(s.reduction.begin() + d, reduction);
  for (auto [a, stride] : llvm::zip_equal(s.operands, strides))
    if (a.buffer)
      a.strides.insert(a.strides.begin() + d, stride);
}

/// Emits nested loops (step 1) over `dims` and calls body with the ivs of
/// every dim (null for dims not in `dims`).
static void outerLoops(OpBuilder &b, Location loc, const Space &s,
                       ArrayRef<unsigned> dims, SmallVector<Value> &ivs,
                       function_ref<void(OpBuilder &)> body) {
  if (dims.empty())
    return body(b);
  unsigned d = dims.front();
  tileLoop(b, loc, s.extents[d], 1, [&](OpBuilder &nb, Value iv, int64_t) {
    ivs[d] = iv;
    outerLoops(nb, loc, s, dims.drop_front(), ivs, body);
  });
}

namespace {
/// Emits the tile code of one generic over a prepared space.
class GenericKernel {
public:
  GenericKernel(OpBuilder &b, linalg::GenericOp op, Space &s, unsigned pDim,
                unsigned fDim, int64_t chunk, int64_t partitions)
      : b(b), op(op), loc(op.getLoc()), s(s), pDim(pDim), fDim(fDim),
        chunk(chunk), partitions(partitions) {}

  LogicalResult emit();

private:
  Value load(OpBuilder &b, const Access &a, ArrayRef<Value> ivs, int64_t pp,
             int64_t ff);
  LogicalResult emitPartitionBlock(OpBuilder &b, SmallVector<Value> ivs,
                                   int64_t pp);

  OpBuilder &b;
  linalg::GenericOp op;
  Location loc;
  Space &s;
  unsigned pDim, fDim;
  int64_t chunk, partitions;
  LogicalResult status = success();
};
} // namespace

Value GenericKernel::load(OpBuilder &b, const Access &a, ArrayRef<Value> ivs,
                          int64_t pp, int64_t ff) {
  Value offset = a.offsetAt(b, loc, ivs);
  Value view = hbmView(b, loc, a.buffer, offset, {pp, ff},
                       {a.strides[pDim], ff == 1 ? 1 : a.strides[fDim]});
  Value tile = allocTile(b, loc, {pp, ff}, a.elementType);
  tile::DmaOp::create(b, loc, view, tile);
  return tile;
}

LogicalResult GenericKernel::emitPartitionBlock(OpBuilder &b,
                                                SmallVector<Value> ivs,
                                                int64_t pp) {
  Block &body = op.getRegion().front();
  unsigned numInputs = op.getNumDpsInputs();
  Access &out = s.operands.back();
  bool isReduction = s.reduction[fDim];

  // Per-partition columns: operands constant along the free axis.
  SmallVector<TileValue> columns(s.operands.size());
  for (auto [i, a] : llvm::enumerate(s.operands)) {
    if (!a.buffer) {
      columns[i] = {TileValue::Scalar, a.scalar, {}, a.elementType};
      continue;
    }
    if (a.strides[fDim] != 0 && s.extents[fDim] != 1)
      continue;
    bool used = i < numInputs ? !body.getArgument(i).use_empty()
                              : isReduction ||
                                    !body.getArgument(i).use_empty();
    if (!used)
      continue;
    SmallVector<Value> colIvs = ivs;
    colIvs[fDim] = Value();
    columns[i] = {TileValue::Column, 0.0, load(b, a, colIvs, pp, 1),
                  a.elementType};
  }

  // Reductions: `out = combine(out, expr)`.
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = yield.getOperand(0);
  // Each chunk's sum of a mean's x / n is scaled once (sumFactor).
  ReductionBody reduction;
  std::optional<SumFactor> factor;
  if (isReduction) {
    FailureOr<ReductionBody> r = matchReductionBody(op, body, numInputs);
    if (failed(r))
      return failure();
    reduction = *r;
    if ((factor = sumFactor(reduction)))
      reduction.expr = factor->of;
  }
  Value acc = isReduction ? columns.back().tile : Value();

  tileLoop(b, loc, s.extents[fDim], chunk,
           [&](OpBuilder &nb, Value fOff, int64_t ff) {
             if (failed(status))
               return;
             SmallVector<Value> tileIvs = ivs;
             tileIvs[fDim] = fOff;
             BodyLowering lowering(nb, loc, pp, ff);
             for (auto [i, a] : llvm::enumerate(s.operands)) {
               BlockArgument arg = body.getArgument(i);
               if (!a.buffer || columns[i].tile) {
                 lowering.bind(arg, columns[i]);
                 continue;
               }
               if (arg.use_empty() || (isReduction && i == numInputs))
                 continue;
               lowering.bind(arg, {TileValue::Full, 0.0,
                                   load(nb, a, tileIvs, pp, ff),
                                   a.elementType});
             }
             if (!isReduction) {
               FailureOr<TileValue> r = lowering.lower(result);
               if (failed(r)) {
                 status = failure();
                 return;
               }
               Value tile = lowering.materializeFull(*r, r->elementType);
               Value offset = out.offsetAt(nb, loc, tileIvs);
               Value view = hbmView(nb, loc, out.buffer, offset, {pp, ff},
                                    {out.strides[pDim], out.strides[fDim]});
               tile::DmaOp::create(nb, loc, tile, view);
               return;
             }
             FailureOr<TileValue> r = lowering.lower(reduction.expr);
             FailureOr<Value> partial =
                 succeeded(r) ? lowering.reduceRows(reduction.combine, *r)
                              : FailureOr<Value>(failure());
             if (failed(partial)) {
               status = failure();
               return;
             }
             Value part = factor ? scaleBySumFactor(nb, loc, *partial, *factor)
                                 : *partial;
             tile::TensorTensorOp::create(
                 nb, loc, nb.getStringAttr(reduction.combine), acc, part, acc);
           });
  if (failed(status))
    return failure();
  if (isReduction) {
    SmallVector<Value> outIvs = ivs;
    outIvs[fDim] = Value();
    Value offset = out.offsetAt(b, loc, outIvs);
    Value view = hbmView(b, loc, out.buffer, offset, {pp, 1},
                         {out.strides[pDim], 1});
    tile::DmaOp::create(b, loc, acc, view);
  }
  return success();
}

LogicalResult GenericKernel::emit() {
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d < s.extents.size(); ++d)
    if (d != pDim && d != fDim)
      outer.push_back(d);
  SmallVector<Value> ivs(s.extents.size());
  outerLoops(b, loc, s, outer, ivs, [&](OpBuilder &ob) {
    tileLoop(ob, loc, s.extents[pDim], partitions,
             [&](OpBuilder &pb, Value pOff, int64_t pp) {
               if (failed(status))
                 return;
               SmallVector<Value> blockIvs = ivs;
               blockIvs[pDim] = pOff;
               status = emitPartitionBlock(pb, blockIvs, pp);
             });
  });
  return status;
}

/// A copy whose input's innermost dim is not the output's (a transpose)
/// goes through the PE: 128x128 blocks are loaded with contiguous rows,
/// transposed into PSUM and stored with contiguous rows, instead of a DMA
/// with one-element descriptors. The transposed pair is the output's last
/// dim and the input's unit-stride dim, wherever that is (a channels-last
/// window layout back to NCHW, MaxViT's `[1, 8, 8, 7, 7, 64] -> [1, 64, 8,
/// 7, 8, 7]`, pairs the 64 channels with the last 7); the other dims loop.
static LogicalResult tryTransposeOnPE(OpBuilder &b, linalg::GenericOp op,
                                      const Space &s,
                                      const TileOptions &options) {
  unsigned n = s.extents.size();
  Block &body = op.getRegion().front();
  if (n < 2 || llvm::is_contained(s.reduction, true) ||
      s.operands.size() != 2 || !s.operands[0].buffer ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return failure();
  const Access &in = s.operands[0], &out = s.operands[1];
  unsigned fDim = n - 1;
  const int64_t *unit = llvm::find(in.strides, 1);
  if (unit == in.strides.end())
    return failure();
  unsigned pDim = unit - in.strides.begin();
  if (pDim == fDim || out.strides[fDim] != 1 ||
      in.elementType != out.elementType ||
      !isa<FloatType>(in.elementType)) // PSUM holds fp32
    return failure();
  Location loc = op.getLoc();
  int64_t P = options.partitions;
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d < fDim; ++d)
    if (d != pDim)
      outer.push_back(d);
  SmallVector<Value> ivs(n);
  outerLoops(b, loc, s, outer, ivs, [&](OpBuilder &ob) {
    tileLoop(ob, loc, s.extents[pDim], P, [&](OpBuilder &pb, Value r, int64_t rr) {
      tileLoop(pb, loc, s.extents[fDim], P,
               [&](OpBuilder &fb, Value c, int64_t cc) {
                 SmallVector<Value> blockIvs = ivs;
                 blockIvs[pDim] = r;
                 blockIvs[fDim] = c;
                 // [cc, rr]: input rows are contiguous along the output's
                 // partition dim.
                 Value src = allocTile(fb, loc, {cc, rr}, in.elementType);
                 tile::DmaOp::create(
                     fb, loc,
                     hbmView(fb, loc, in.buffer, in.offsetAt(fb, loc, blockIvs),
                             {cc, rr}, {in.strides[fDim], 1}),
                     src);
                 Value t = allocTile(fb, loc, {rr, cc}, fb.getF32Type(),
                                     tile::MemorySpace::PSUM);
                 tile::TransposeOp::create(fb, loc, src, t);
                 Value dst = allocTile(fb, loc, {rr, cc}, out.elementType);
                 tile::CopyOp::create(fb, loc, t, dst);
                 tile::DmaOp::create(
                     fb, loc, dst,
                     hbmView(fb, loc, out.buffer,
                             out.offsetAt(fb, loc, blockIvs), {rr, cc},
                             {out.strides[pDim], 1}));
               });
    });
  });
  return success();
}

/// A reduction over a dim that is not innermost (column sums of [R, C]) or
/// over every dim runs with the reduced dim on the partitions, so that its
/// loads are contiguous rows and all partitions work:
/// - add: the PE sums over the partitions, a ones column [k, 1] stationary
///   against the data [k, n] moving; the R blocks accumulate in one PSUM
///   row [1, n] (fp32). A constant factor of the summand (x / n of a mean)
///   is applied once to the sum.
/// - max/min: PE transposes put the reduced dim on the free axis of PSUM,
///   where the DVE reduces it.
/// A reduction over every dim splits its one merged dim into [rows, f] and
/// also reduces the f columns at the end. Returns std::nullopt when the
/// reduction is not of this kind (the caller keeps the reduced dim on the
/// free axis).
static std::optional<LogicalResult>
tryReduceOverPartitions(OpBuilder &b, linalg::GenericOp op, Space s,
                        const TileOptions &options) {
  unsigned n = s.extents.size();
  unsigned rDim = llvm::find(s.reduction, true) - s.reduction.begin();
  int64_t P = options.partitions, bankColumns = options.bankColumns;
  bool full = n == 1;
  if (full) {
    // [rows, f] with every row on a partition and f within a PSUM bank.
    int64_t total = s.extents[0];
    int64_t f = std::min<int64_t>(bankColumns, (total + P - 1) / P);
    while (total % f)
      --f;
    SmallVector<int64_t> rowStrides;
    for (Access &a : s.operands)
      rowStrides.push_back(a.buffer ? a.strides[0] * f : 0);
    s.extents[0] = f;
    insertDim(s, 0, total / f, true, rowStrides);
    n = 2;
  } else if (rDim == n - 1 || s.reduction[n - 1]) {
    return std::nullopt;
  }
  unsigned cDim = n - 1;
  // The free axis must walk the inputs' rows contiguously (else the reduced
  // dim is the contiguous one and stays on the free axis).
  unsigned numInputs = op.getNumDpsInputs();
  for (unsigned i = 0; i < numInputs && !full; ++i)
    if (s.operands[i].buffer && s.operands[i].strides[cDim] != 0 &&
        s.operands[i].strides[cDim] != 1)
      return std::nullopt;
  Block &body = op.getRegion().front();
  Value result = body.getTerminator()->getOperand(0);
  Operation *combineOp = result.getDefiningOp();
  StringRef combine = combineOp ? aluNameOf(combineOp) : "";
  if (combine != "add" && combine != "max" && combine != "min")
    return std::nullopt;
  FailureOr<ReductionBody> reduction = matchReductionBody(op, body, numInputs);
  if (failed(reduction))
    return LogicalResult(failure());
  Type exprType = BodyLowering::storageType(reduction->expr.getType());
  if (!isa<FloatType>(exprType))
    return std::nullopt;
  bool sum = combine == "add";

  // sum(e * c) and sum(e / c) are sum(e) * c and sum(e) / c (sumFactor).
  std::optional<SumFactor> factor = sumFactor(*reduction);
  Value expr = factor ? factor->of : reduction->expr;

  Location loc = op.getLoc();
  const Access &out = s.operands.back();
  int64_t R = s.extents[rDim], C = s.extents[cDim];
  Type f32 = b.getF32Type();
  // One ones column serves every block.
  Value ones;
  if (sum) {
    ones = allocTile(b, loc, {std::min(R, P), 1}, exprType);
    tile::MemsetOp::create(b, loc, ones, b.getF32FloatAttr(1.0f));
  }
  SmallVector<unsigned> outer;
  for (unsigned d = 0; d < n; ++d)
    if (d != rDim && d != cDim)
      outer.push_back(d);
  SmallVector<Value> ivs(n);
  LogicalResult status = success();
  int64_t chunk = sum || full ? bankColumns : P;
  outerLoops(b, loc, s, outer, ivs, [&](OpBuilder &ob) {
    tileLoop(ob, loc, C, chunk, [&](OpBuilder &cb, Value cOff, int64_t cc) {
      if (failed(status))
        return;
      // The reduced result: a PSUM row [1, cc] (add) or a column [m, 1].
      int64_t m = full ? 1 : cc;
      Value acc =
          sum ? allocTile(cb, loc, {1, cc}, f32, tile::MemorySpace::PSUM)
              : Value();
      for (int64_t r0 = 0; r0 < R; r0 += P) {
        int64_t k = std::min(P, R - r0);
        SmallVector<Value> tileIvs = ivs;
        tileIvs[rDim] = indexConst(cb, loc, r0);
        tileIvs[cDim] = cOff;
        BodyLowering lowering(cb, loc, k, cc);
        for (auto [i, a] : llvm::enumerate(s.operands)) {
          BlockArgument arg = body.getArgument(i);
          if (i == numInputs || arg.use_empty())
            continue;
          if (!a.buffer) {
            lowering.bind(arg,
                          {TileValue::Scalar, a.scalar, {}, a.elementType});
            continue;
          }
          bool column = a.strides[cDim] == 0 && cc != 1;
          int64_t w = column ? 1 : cc;
          Value t = allocTile(cb, loc, {k, w}, a.elementType);
          tile::DmaOp::create(
              cb, loc,
              hbmView(cb, loc, a.buffer, a.offsetAt(cb, loc, tileIvs), {k, w},
                      {a.strides[rDim], column ? 1 : a.strides[cDim]}),
              t);
          lowering.bind(arg, {column ? TileValue::Column : TileValue::Full, 0.0,
                              t, a.elementType});
        }
        FailureOr<TileValue> e = lowering.lower(expr);
        if (failed(e)) {
          status = failure();
          return;
        }
        Value data = lowering.materializeFull(*e, exprType);
        if (sum) {
          tile::MatmulOp::create(cb, loc, tileSlice(cb, loc, ones, 0, k, 0, 1),
                                 data, acc, r0 ? cb.getUnitAttr() : UnitAttr());
          continue;
        }
        if (full) {
          Value rows = allocTile(cb, loc, {k, 1}, f32);
          tile::ReduceOp::create(cb, loc, cb.getStringAttr(combine), data, rows,
                                 cb.getI64IntegerAttr(1), Value());
          data = rows;
        }
        Value t = allocTile(cb, loc, {m, k}, f32, tile::MemorySpace::PSUM);
        tile::TransposeOp::create(cb, loc, data, t);
        Value partial = allocTile(cb, loc, {m, 1}, f32);
        tile::ReduceOp::create(cb, loc, cb.getStringAttr(combine), t, partial,
                               cb.getI64IntegerAttr(1), Value());
        if (acc)
          tile::TensorTensorOp::create(cb, loc, cb.getStringAttr(combine), acc,
                                       partial, acc);
        else
          acc = partial;
      }
      if (sum && full) {
        Value total = allocTile(cb, loc, {1, 1}, f32);
        tile::ReduceOp::create(cb, loc, cb.getStringAttr("add"), acc, total,
                               cb.getI64IntegerAttr(1), Value());
        acc = total;
      }
      // A sum is a row [1, m], a max or min a column [m, 1].
      SmallVector<int64_t> shape =
          sum ? SmallVector<int64_t>{1, m} : SmallVector<int64_t>{m, 1};
      if (factor)
        acc = scaleBySumFactor(cb, loc, acc, *factor);
      // Combined with the output's initial value and stored.
      SmallVector<Value> outIvs = ivs;
      outIvs[cDim] = cOff;
      int64_t stride = full ? 1 : out.strides[cDim];
      SmallVector<int64_t> strides = sum ? SmallVector<int64_t>{1, stride}
                                         : SmallVector<int64_t>{stride, 1};
      Value view = hbmView(cb, loc, out.buffer, out.offsetAt(cb, loc, outIvs),
                           shape, strides);
      Value init = allocTile(cb, loc, shape, out.elementType);
      tile::DmaOp::create(cb, loc, view, init);
      Value res = allocTile(cb, loc, shape, out.elementType);
      tile::TensorTensorOp::create(cb, loc, cb.getStringAttr(combine), init,
                                   acc, res);
      tile::DmaOp::create(cb, loc, res, view);
    });
  });
  return status;
}

/// The free-axis chunk of an elementwise or reduction kernel: at most
/// options.freeChunk, and small enough that the tiles one chunk iteration
/// holds at once fit in SBUF twice (the next iteration's loads overlap this
/// one's compute) within 3/4 of SBUF, leaving room for columns. The tiles
/// held at once are the most body values live at one point (every full
/// input is loaded before the body runs) plus the stored result, each
/// counted at 4 bytes an element. A max over 200 window slices (a pooling
/// window) thus gets chunks of about 200 elements instead of overflowing.
static int64_t fitFreeChunk(linalg::GenericOp op, const TileOptions &options) {
  if (options.sbufBytesPerPartition <= 0)
    return options.freeChunk;
  Block &body = op.getRegion().front();
  DenseMap<Value, Operation *> lastUser;
  for (Operation &o : body)
    for (Value v : o.getOperands())
      lastUser[v] = &o;
  int64_t live = 0;
  for (BlockArgument arg : body.getArguments())
    if (lastUser.count(arg))
      ++live;
  int64_t peak = live;
  for (Operation &o : body) {
    live += o.getNumResults();
    peak = std::max(peak, live);
    DenseSet<Value> seen;
    for (Value v : o.getOperands())
      if (seen.insert(v).second && lastUser.lookup(v) == &o &&
          (isa<BlockArgument>(v) ? v.getParentBlock() == &body
                                 : v.getDefiningOp()->getBlock() == &body))
        --live;
  }
  int64_t bytesPerElement = 4 * (peak + 1);
  int64_t fit = options.sbufBytesPerPartition * 3 / 4 / (2 * bytesPerElement);
  return std::max<int64_t>(1, std::min(options.freeChunk, fit));
}

LogicalResult tiling::tileGeneric(OpBuilder &b, linalg::GenericOp op,
                                  const TileOptions &options) {
  if (op.getNumDpsInits() != 1)
    return op.emitOpError("generics with ") << op.getNumDpsInits()
                                            << " outputs are not supported";
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op.emitOpError("dynamic loop ranges are not supported");
  Space s;
  s.extents.assign(ranges.begin(), ranges.end());
  if (llvm::is_contained(ranges, 0))
    return success(); // nothing to compute
  for (utils::IteratorType t : op.getIteratorTypesArray())
    s.reduction.push_back(t == utils::IteratorType::reduction);
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<Access> a = analyzeOperand(op, operand);
    if (failed(a))
      return failure();
    s.operands.push_back(*a);
  }
  if (!s.operands.back().buffer)
    return op.emitOpError("output must be a memref");
  if (s.extents.empty()) // rank 0: one element on one partition
    insertDim(s, 0, 1, false, SmallVector<int64_t>(s.operands.size(), 0));
  dropUnitDims(s);
  mergeDims(s);

  if (succeeded(tryTransposeOnPE(b, op, s, options)))
    return success();
  int64_t chunk = fitFreeChunk(op, options);
  unsigned numReductions = llvm::count(s.reduction, true);
  SmallVector<int64_t> zeros(s.operands.size(), 0);
  if (numReductions == 0) {
    // The last dim is split onto the partitions when it is the only one, or
    // when the dim before it is too short to fill them (a [heads, S * d]
    // rotary embedding would otherwise run on `heads` partitions) and the
    // split leaves more than one element a partition: a last dim of 128
    // features after 80 steps would run step by step, [128, 1] at a time
    // (a transformer encoder's residual add at batch 8, 640 instructions of
    // each kind where [80, 128] takes eight).
    unsigned last = s.extents.size() - 1;
    int64_t len = s.extents[last], P = options.partitions;
    if (last == 0 || (s.extents[last - 1] < P && len % P == 0 && len > P)) {
      // Preferably [blocks, partitions, free] with every tile a contiguous
      // block of HBM (its DMA hull is exact, so tiles do not look dependent
      // to the scheduler); else [partitions, free].
      int64_t f = len % P == 0 ? std::min(len / P, chunk) : 0;
      while (f > 0 && (len / P) % f)
        --f;
      if (f > 0 && f >= std::min<int64_t>(len / P, 256)) {
        SmallVector<int64_t> pStrides, bStrides;
        for (Access &a : s.operands) {
          pStrides.push_back(a.buffer ? a.strides[last] * f : 0);
          bStrides.push_back(a.buffer ? a.strides[last] * f * P : 0);
        }
        s.extents[last] = f;
        insertDim(s, last, P, false, pStrides);
        insertDim(s, last, len / (P * f), false, bStrides);
      } else {
        int64_t p = std::min<int64_t>(len, P);
        while (len % p)
          --p;
        SmallVector<int64_t> outerStrides;
        for (Access &a : s.operands)
          outerStrides.push_back(a.buffer ? a.strides[last] * (len / p) : 0);
        s.extents[last] = len / p;
        insertDim(s, last, p, false, outerStrides);
      }
    }
    unsigned n = s.extents.size();
    return GenericKernel(b, op, s, n - 2, n - 1, chunk, options.partitions)
        .emit();
  }
  if (std::optional<LogicalResult> r =
          tryReduceOverPartitions(b, op, s, options))
    return *r;
  // Reduction: the reduction dim last, the last parallel dim on partitions.
  // Reduced dims that do not merge (an operand broadcast along one of them:
  // a sum of x / rowsum(x) over [rows, cols]) leave all but the longest to
  // outer loops, each of which combines its partial result with the
  // output's (stored by the one before).
  unsigned fDim = llvm::find(s.reduction, true) - s.reduction.begin();
  for (unsigned d = fDim + 1; d < s.extents.size(); ++d)
    if (s.reduction[d] && s.extents[d] > s.extents[fDim])
      fDim = d;
  int pDim = -1;
  for (unsigned d = 0; d < s.extents.size(); ++d)
    if (!s.reduction[d])
      pDim = d;
  if (pDim < 0) {
    insertDim(s, 0, 1, false, zeros);
    pDim = 0;
    ++fDim;
  }
  return GenericKernel(b, op, s, pDim, fDim, chunk, options.partitions).emit();
}
