//===- Conv.cpp - 2-D convolutions as implicit GEMM on the PE -------------===//
//
// The generic of Conv/ConvGeneric.h, y[n, f, oh, ow] += x[n, c, oh * sh +
// kh * dh, ow * sw + kw * dw] * w[c, kh, kw, f], with channels on the
// partitions:
//
//   filter: per 128-channel block one SBUF tile [c, KH * KW * F], loaded
//           once (one contiguous run per partition)
//   for image n, for band of output rows (its input rows fit SBUF):
//     input: per channel block one tile [c, band rows, W] (one run per
//            partition: a band of whole rows is contiguous in NCHW)
//     for F block (<= 128 filters), for a group of <= 4 chunks (each <= 512
//     output pixels, one PSUM bank):
//       for channel block, for tap (kh, kw), for chunk:
//         matmul(stationary = filter[c, tap, F block],
//                moving = input[c, r * sh + kh * dh, q * sw + kw * dw]
//                         (a strided window: the tap's shift),
//                acc[chunk])                  all taps accumulate in PSUM
//       evacuate each chunk (copy, the old output added, or the fused
//       epilogue: bias, activation, residual) and DMA it out
//
// No im2col: the input is read from HBM once per band, the filter once. A
// zero-padded input (tensor.pad before bufferization: a filled buffer with
// the source copied into its middle) is read from the source, and the
// band's border is set on chip. A
// stationary tile serves the group's chunks before the next, so the PE's
// LoadStationary is paid once per group.
//
//===----------------------------------------------------------------------===//

#include "../Conv/ConvGeneric.h"
#include "Access.h"
#include "BodyLowering.h"
#include "Kernels.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
constexpr int64_t kBankColumns = 512; // fp32 columns in one PSUM bank
constexpr int64_t kChunksPerGroup = 4;

struct Layout {
  Value buffer;
  int64_t offset = 0;
  SmallVector<int64_t> strides;
};

struct ConvKernel {
  OpBuilder &b;
  linalg::GenericOp op;
  const conv::ConvGeneric &g;
  const ConvPadding *pad;
  bool zeroInit;
  linalg::GenericOp epilogue;
  const TileOptions &options;
  Location loc;
  Layout src; // the unpadded input when `pad`

  Layout x, w, y;
  Type elt;
  SmallVector<Access> epi;
  SmallVector<bool> epiReadsProduct;
  int64_t cBlocks = 0, fBlocks = 0, bandRows = 0, chunkRows = 0, chunkCols = 0;
  LogicalResult status = success();

  int64_t P() const { return numPartitions(); }
  int64_t cbAt(int64_t i) const { return std::min(P(), g.c - i * P()); }
  int64_t fbAt(int64_t i) const { return std::min(P(), g.f - i * P()); }
  int64_t inRows(int64_t outRows) const {
    return (outRows - 1) * g.strideH + (g.kh - 1) * g.dilationH + 1;
  }

  LogicalResult analyze();
  void emit();
  void emitBand(OpBuilder &b, int64_t n, int64_t oh0, int64_t rows,
                ArrayRef<Value> filters);
  void loadInput(OpBuilder &b, int64_t n, int64_t c0, int64_t cs, int64_t h0,
                 int64_t rows, Value tile);
  void evacuate(OpBuilder &b, int64_t n, int64_t f0, int64_t fb, int64_t oh,
                int64_t ow0, int64_t rc, int64_t wc, Value acc);
  Value hbm(OpBuilder &b, const Layout &l, ArrayRef<Value> ivs,
            ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    return hbmView(b, loc, l.buffer,
                   linearIndex(b, loc, l.offset, ivs, l.strides), sizes,
                   strides);
  }
};

FailureOr<Layout> layoutOf(Operation *op, Value v) {
  Layout l;
  l.buffer = v;
  if (failed(
          getStaticLayout(cast<MemRefType>(v.getType()), l.strides, l.offset)))
    return op->emitOpError("convolution operand has a dynamic layout");
  return l;
}
} // namespace

LogicalResult ConvKernel::analyze() {
  FailureOr<Layout> lx = layoutOf(op, op.getDpsInputs()[0]),
                    lw = layoutOf(op, op.getDpsInputs()[1]),
                    ly = layoutOf(op, op.getDpsInits()[0]);
  if (failed(lx) || failed(lw) || failed(ly))
    return failure();
  x = *lx;
  w = *lw;
  y = *ly;
  if (pad) {
    FailureOr<Layout> ls = layoutOf(op, pad->source);
    if (failed(ls))
      return failure();
    src = *ls;
    if (src.strides[3] != 1 || src.strides[2] != pad->width)
      return op->emitOpError("convolution input must be row-major");
  }
  elt = cast<MemRefType>(x.buffer.getType()).getElementType();
  // The filter rows and the input rows must be contiguous.
  if (w.strides[3] != 1 || w.strides[2] != g.f || w.strides[1] != g.kw * g.f ||
      (!pad && (x.strides[3] != 1 || x.strides[2] != g.w)) || y.strides[3] != 1)
    return op->emitOpError("convolution operands must be row-major");
  cBlocks = (g.c + P() - 1) / P();
  fBlocks = (g.f + P() - 1) / P();
  int64_t bytes = tile::storageBytes(elt);
  int64_t filterBytes = cBlocks * g.kh * g.kw * g.f * bytes;
  // Two bands in flight beside the filter, with half of SBUF left for the
  // evacuated chunks and the epilogue's operands.
  int64_t budget = options.sbufBytesPerPartition / 2 - filterBytes;
  bandRows = g.oh;
  while (bandRows > 1 && 2 * cBlocks * inRows(bandRows) * g.w * bytes > budget)
    bandRows = (bandRows + 1) / 2;
  if (2 * cBlocks * inRows(bandRows) * g.w * bytes > budget)
    return op->emitOpError("convolution input rows do not fit in SBUF");

  if (epilogue) {
    for (OpOperand &operand : epilogue->getOpOperands()) {
      FailureOr<Access> e = analyzeOperand(epilogue, operand);
      if (failed(e))
        return failure();
      epiReadsProduct.push_back(operand.get() == op.getDpsInits()[0] &&
                                operand.getOperandNumber() <
                                    epilogue.getNumDpsInputs());
      epi.push_back(*e);
    }
  }
  // A chunk of whole output rows is one free dim of every operand when the
  // rows are consecutive in memory; otherwise a chunk is part of one row.
  bool rowsMerge = y.strides[2] == g.ow;
  for (const Access &e : epi)
    if (e.buffer && e.strides[2] != g.ow * e.strides[3])
      rowsMerge = false;
  if (g.ow <= kBankColumns && rowsMerge) {
    chunkCols = g.ow;
    chunkRows = std::min(bandRows, kBankColumns / g.ow);
  } else {
    chunkCols = std::min(g.ow, kBankColumns);
    chunkRows = 1;
  }
  return success();
}

void ConvKernel::evacuate(OpBuilder &b, int64_t n, int64_t f0, int64_t fb,
                          int64_t oh, int64_t ow0, int64_t rc, int64_t wc,
                          Value acc) {
  int64_t cols = rc * wc;
  SmallVector<Value> ivs = {indexConst(b, loc, n), indexConst(b, loc, f0),
                            indexConst(b, loc, oh), indexConst(b, loc, ow0)};
  // [fb, rc * wc] of a 4-D operand: partitions along f, the chunk's pixels
  // along the free axis (whole rows merge; else rc == 1).
  auto view2d = [&](Value buffer, int64_t offset, ArrayRef<int64_t> strides,
                    int64_t width) {
    Layout v{buffer, offset, SmallVector<int64_t>(strides)};
    int64_t free = width == 1 ? 1 : strides[3];
    return hbm(b, v, ivs, {fb, width}, {strides[1], free});
  };
  BodyLowering lowering(b, loc, fb, cols);
  TileValue product{TileValue::Full, 0.0, acc, b.getF32Type()};
  if (!zeroInit) {
    Value old = allocTile(b, loc, {fb, cols}, elt);
    tile::DmaOp::create(b, loc, view2d(y.buffer, y.offset, y.strides, cols),
                        old);
    product =
        *lowering.binary("add", product, {TileValue::Full, 0.0, old, elt}, elt);
  }
  if (!epilogue) {
    Value out = lowering.materializeFull(product, elt);
    if (out == acc) {
      out = allocTile(b, loc, {fb, cols}, elt);
      tile::CopyOp::create(b, loc, acc, out);
    }
    tile::DmaOp::create(b, loc, out,
                        view2d(y.buffer, y.offset, y.strides, cols));
    return;
  }
  Block &body = epilogue.getRegion().front();
  for (auto [i, e] : llvm::enumerate(epi)) {
    BlockArgument arg = body.getArgument(i);
    if (epiReadsProduct[i]) {
      TileValue p = product;
      if (!elt.isF32() && p.tile == acc) {
        // The product is rounded to the conv's type before the epilogue.
        Value r = allocTile(b, loc, {fb, cols}, elt);
        tile::CopyOp::create(b, loc, acc, r);
        p = {TileValue::Full, 0.0, r, elt};
      }
      lowering.bind(arg, p);
      continue;
    }
    if (!e.buffer) {
      lowering.bind(arg, {TileValue::Scalar, e.scalar, {}, e.elementType});
      continue;
    }
    if (arg.use_empty() || i == epi.size() - 1)
      continue;
    bool column = e.strides[2] == 0 && e.strides[3] == 0;
    int64_t width = column ? 1 : cols;
    Value t = allocTile(b, loc, {fb, width}, e.elementType);
    tile::DmaOp::create(b, loc, view2d(e.buffer, e.offset, e.strides, width),
                        t);
    lowering.bind(arg, {column ? TileValue::Column : TileValue::Full, 0.0, t,
                        e.elementType});
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  FailureOr<TileValue> r = lowering.lower(yield.getOperand(0));
  if (failed(r)) {
    status = failure();
    return;
  }
  const Access &out = epi.back();
  Value t = lowering.materializeFull(*r, r->elementType);
  if (t == acc) {
    t = allocTile(b, loc, {fb, cols}, out.elementType);
    tile::CopyOp::create(b, loc, acc, t);
  }
  tile::DmaOp::create(b, loc, t,
                      view2d(out.buffer, out.offset, out.strides, cols));
}

void ConvKernel::loadInput(OpBuilder &b, int64_t n, int64_t c0, int64_t cs,
                           int64_t h0, int64_t rows, Value tile) {
  auto region = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(r0),
                                         b.getIndexAttr(q0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(cs), b.getIndexAttr(rn),
                                       b.getIndexAttr(qn)};
    SmallVector<OpFoldResult> steps(3, b.getIndexAttr(1));
    return memref::SubViewOp::create(b, loc, tile, offsets, sizes, steps);
  };
  if (!pad) {
    // A band of whole rows: one contiguous run per partition.
    Value view = hbmView(b, loc, x.buffer,
                         indexConst(b, loc,
                                    x.offset + n * x.strides[0] +
                                        c0 * x.strides[1] + h0 * x.strides[2]),
                         {cs, rows, g.w}, {x.strides[1], x.strides[2], 1});
    tile::DmaOp::create(b, loc, view, tile);
    return;
  }
  // The padded rows [h0, h0 + rows): the source's rows go to the middle
  // columns, the border is set to the padding value.
  int64_t top = pad->top, left = pad->left;
  int64_t ra = std::max(h0, top), rb = std::min(h0 + rows, top + pad->height);
  float value = float(pad->value);
  auto fill = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (rn > 0 && qn > 0)
      tile::MemsetOp::create(b, loc, region(r0, rn, q0, qn),
                             b.getF32FloatAttr(value));
  };
  if (ra >= rb) {
    fill(0, rows, 0, g.w);
    return;
  }
  fill(0, ra - h0, 0, g.w);
  fill(rb - h0, h0 + rows - rb, 0, g.w);
  fill(ra - h0, rb - ra, 0, left);
  fill(ra - h0, rb - ra, left + pad->width, g.w - left - pad->width);
  Value view =
      hbmView(b, loc, src.buffer,
              indexConst(b, loc,
                         src.offset + n * src.strides[0] + c0 * src.strides[1] +
                             (ra - top) * src.strides[2]),
              {cs, rb - ra, pad->width}, {src.strides[1], src.strides[2], 1});
  tile::DmaOp::create(b, loc, view, region(ra - h0, rb - ra, left, pad->width));
}

void ConvKernel::emitBand(OpBuilder &b, int64_t n, int64_t oh0, int64_t rows,
                          ArrayRef<Value> filters) {
  int64_t ir = inRows(rows);
  SmallVector<Value> inputs;
  for (int64_t cb = 0; cb < cBlocks; ++cb) {
    int64_t cs = cbAt(cb);
    Value t = allocTile(b, loc, {cs, ir, g.w}, elt);
    loadInput(b, n, cb * P(), cs, oh0 * g.strideH, ir, t);
    inputs.push_back(t);
  }
  // Chunks: [rc rows, wc columns] of output pixels at (r0, q0) in the band.
  struct Chunk {
    int64_t r0, rc, q0, wc;
  };
  SmallVector<Chunk> chunks;
  for (int64_t r0 = 0; r0 < rows; r0 += chunkRows)
    for (int64_t q0 = 0; q0 < g.ow; q0 += chunkCols)
      chunks.push_back({r0, std::min(chunkRows, rows - r0), q0,
                        std::min(chunkCols, g.ow - q0)});
  int64_t taps = g.kh * g.kw;
  for (int64_t fbk = 0; fbk < fBlocks; ++fbk) {
    int64_t f0 = fbk * P(), fb = fbAt(fbk);
    for (size_t c0 = 0; c0 < chunks.size(); c0 += kChunksPerGroup) {
      ArrayRef<Chunk> group = ArrayRef<Chunk>(chunks).slice(
          c0, std::min<size_t>(kChunksPerGroup, chunks.size() - c0));
      SmallVector<Value> accs;
      for (const Chunk &ch : group)
        accs.push_back(allocTile(b, loc, {fb, ch.rc * ch.wc}, b.getF32Type(),
                                 tile::MemorySpace::PSUM));
      for (int64_t cb = 0; cb < cBlocks; ++cb) {
        int64_t cs = cbAt(cb);
        for (int64_t tap = 0; tap < taps; ++tap) {
          int64_t kh = tap / g.kw, kw = tap % g.kw;
          Value stationary =
              tileSlice(b, loc, filters[cb], 0, cs, tap * g.f + f0, fb);
          bool first = cb == 0 && tap == 0;
          for (auto [ch, acc] : llvm::zip_equal(group, accs)) {
            SmallVector<OpFoldResult> offsets = {
                b.getIndexAttr(0),
                b.getIndexAttr(ch.r0 * g.strideH + kh * g.dilationH),
                b.getIndexAttr(ch.q0 * g.strideW + kw * g.dilationW)};
            SmallVector<OpFoldResult> sizes = {b.getIndexAttr(cs),
                                               b.getIndexAttr(ch.rc),
                                               b.getIndexAttr(ch.wc)};
            SmallVector<OpFoldResult> steps = {b.getIndexAttr(1),
                                               b.getIndexAttr(g.strideH),
                                               b.getIndexAttr(g.strideW)};
            Value moving = memref::SubViewOp::create(b, loc, inputs[cb],
                                                     offsets, sizes, steps);
            tile::MatmulOp::create(b, loc, stationary, moving, acc,
                                   first ? UnitAttr() : b.getUnitAttr());
          }
        }
      }
      for (auto [ch, acc] : llvm::zip_equal(group, accs))
        evacuate(b, n, f0, fb, oh0 + ch.r0, ch.q0, ch.rc, ch.wc, acc);
    }
  }
}

void ConvKernel::emit() {
  SmallVector<Value> filters;
  int64_t row = g.kh * g.kw * g.f;
  for (int64_t cb = 0; cb < cBlocks; ++cb) {
    int64_t cs = cbAt(cb);
    Value t = allocTile(b, loc, {cs, row}, elt);
    tile::DmaOp::create(
        b, loc,
        hbmView(b, loc, w.buffer,
                indexConst(b, loc, w.offset + cb * P() * w.strides[0]),
                {cs, row}, {w.strides[0], 1}),
        t);
    filters.push_back(t);
  }
  // Static loops: nki-unroll would unroll them anyway, and the padding's
  // border differs from band to band.
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh0 = 0; oh0 < g.oh; oh0 += bandRows)
      emitBand(b, n, oh0, std::min(bandRows, g.oh - oh0), filters);
}

LogicalResult tiling::tileConv(OpBuilder &b, linalg::GenericOp op,
                               const conv::ConvGeneric &g,
                               const ConvPadding *pad, bool zeroInit,
                               linalg::GenericOp epilogue,
                               const TileOptions &options) {
  ConvKernel kernel{b,        op,      g,           pad,     zeroInit,
                    epilogue, options, op.getLoc(), Layout{}};
  if (failed(kernel.analyze()))
    return failure();
  kernel.emit();
  return kernel.status;
}
