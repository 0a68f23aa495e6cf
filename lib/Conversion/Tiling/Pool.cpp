//===- Pool.cpp - 2-D max and sum pooling on SBUF windows -----------------===//
//
// y[n, c, oh, ow] = max (or sum) over (kh, kw) of
// x[n, c, oh * sh + kh * dh, ow * sw + kw * dw], channels on the partitions:
//
//   for image, for 128-channel block, for band of output rows:
//     input: [c, band's input rows, W] (WindowInput.h: one run per
//            partition, padding set on chip)
//     rows:  [c, input rows, OW] = combine over kw of the input's columns
//            q * sw + kw * dw (strided views, one DVE/POOL op per tap)
//     out:   [c, band rows, OW] = combine over kh of rows r * sh + kh * dh
//     DMA out (whole rows: one run per partition)
//
// Separable, like the decomposition nki-prepare-graph would otherwise write
// (KH + KW - 2 ops instead of KH * KW - 1), but on SBUF views instead of
// element-strided HBM windows.
//
// Few channels of a resident input or of an input in HBM: bands
// of output rows side by side on the partitions, as Conv.cpp packs them
// (band j's input rows moved or loaded by DMA to partitions [j * C, (j + 1)
// * C), its output rows moved back), so that each op spans up to 128
// partitions instead of C.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Residents.h"
#include "TileUtils.h"
#include "WindowInput.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {

struct PoolShape {
  int64_t n, c, h, w, kh, kw, oh, ow, sh, sw, dh, dw;
};

template <typename PoolOp> PoolShape shapeOf(PoolOp op) {
  auto xs = cast<MemRefType>(op.getInputs()[0].getType()).getShape();
  auto ks = cast<MemRefType>(op.getInputs()[1].getType()).getShape();
  auto ys = cast<MemRefType>(op.getOutputs()[0].getType()).getShape();
  SmallVector<int64_t> s(op.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> d(op.getDilations().template getValues<int64_t>());
  return {xs[0], xs[1], xs[2], xs[3], ks[0], ks[1],
          ys[2], ys[3], s[0],  s[1],  d[0],  d[1]};
}

/// Combines `windows` (views of one shape) into `dst`, a view of a tile.
void reduce(OpBuilder &b, Location loc, StringRef combine,
            ArrayRef<Value> windows, Value dst) {
  if (windows.size() == 1) {
    tile::CopyOp::create(b, loc, windows[0], dst);
    return;
  }
  tile::TensorTensorOp::create(b, loc, combine, windows[0], windows[1], dst);
  for (Value v : windows.drop_front(2))
    tile::TensorTensorOp::create(b, loc, combine, dst, v, dst);
}

/// The input rows of `rows` output rows.
int64_t inRowsOf(const PoolShape &g, int64_t rows) {
  return (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
}

/// Combines the [cs, ir, W] input band `in` into `result` ([cs, rb, OW]):
/// over kw into a row tile, then over kh.
void combineBand(OpBuilder &b, Location loc, const PoolShape &g,
                 StringRef combine, Value in, int64_t cs, int64_t rb, Type work,
                 Value result) {
  int64_t ir = inRowsOf(g, rb);
  Value rows = allocTile(b, loc, {cs, ir, g.ow}, work);
  SmallVector<Value> cols;
  for (int64_t k = 0; k < g.kw; ++k)
    cols.push_back(windowOf(b, loc, in, cs, 0, ir, 1, k * g.dw, g.ow, g.sw));
  reduce(b, loc, combine, cols, rows);
  SmallVector<Value> rowWindows;
  for (int64_t k = 0; k < g.kh; ++k)
    rowWindows.push_back(
        windowOf(b, loc, rows, cs, k * g.dh, rb, g.sh, 0, g.ow, 1));
  reduce(b, loc, combine, rowWindows, result);
}

/// How many bands of output rows go side by side: the most that fit the
/// partitions and divide OH, when the vector time they save exceeds what
/// moving the input's (and a resident output's) rows costs. 1: no
/// packing.
int64_t chooseBands(const PoolShape &g, const WindowInput &input,
                    bool residentOut, int64_t bytes,
                    const TileOptions &options) {
  const TileOptions::Rates &t = options.rates;
  int64_t P = options.partitions;
  // An input in HBM is loaded onto the bands' partitions for the same
  // bytes, a run a partition and band. (With several images this was
  // once kept from ResNet-50's stem pool at batch 8, whose band loads held
  // up the DMA queues the next layers needed, 2,525 -> 7,664 us; that pool
  // is now fused into the stem or reads a resident input, and no benchmark
  // program changes. The OCR recogniser's 32-channel 48 x 320 pool at
  // batch 8 took 160 us of the DVE's and POOL's time on 32 partitions:
  // 355.5 -> 336.6 us under auto-cast.)
  if (!options.packBands || g.c > P / 2 || !t.dveClockMHz || !t.dmaQueues)
    return 1;
  int64_t bands = P / g.c;
  while (bands > 1 && g.oh % bands)
    --bands;
  if (bands == 1)
    return 1;
  // Per partition: the row pass reads KW views of IR x OW, the column pass
  // KH views of OH x OW (two inputs a cycle each, the first op of a pass),
  // the DVE and the POOL sharing the bands.
  auto vectorNs = [&](int64_t j) {
    double elements =
        double(g.n) * double(g.kw * inRowsOf(g, g.oh) + g.kh * g.oh) * g.ow;
    return elements / double(2 * j) * 1000.0 / double(t.dveClockMHz);
  };
  // A resident input, and a resident output, move once more by DMA: their
  // bytes, and the completion latency of a transfer that the next step
  // waits for. (An input in HBM is loaded anyway.)
  double dmaBytes =
             input.resident
                 ? double(g.n * g.c) *
                       double(inRowsOf(g, g.oh) + (bands - 1) * (g.kh - g.sh)) *
                       double(input.width * bytes)
                 : 0.0,
         hops = input.resident ? 1 : 0;
  if (residentOut) {
    dmaBytes += double(g.n * g.c * g.oh) *
                double(std::max(g.ow * bytes, t.dmaMinDescriptorBytes));
    ++hops;
  }
  // The groups of rows pipeline the transfers with the ops.
  double packedNs =
      std::max(vectorNs(bands),
               dmaBytes / double(t.dmaQueues * t.dmaBytesPerNs)) +
      hops * double(t.dmaLatencyNs);
  return packedNs < vectorNs(1) ? bands : 1;
}

/// The packed kernel: per image and group of rows of every band, one
/// [bands * C, ir, W] input tile moved from the resident input (its border
/// is the padding) or loaded from HBM (the border set first), the ops over
/// all of it, and the result's bands moved to the output (resident or
/// HBM).
LogicalResult tilePacked(OpBuilder &b, linalg::LinalgOp op, const PoolShape &g,
                         StringRef combine, const WindowInput &input,
                         Value yBuffer, const HbmLayout &y,
                         std::optional<ResidentRef> out, Type work,
                         int64_t bands, const TileOptions &options) {
  Location loc = op.getLoc();
  int64_t bandH = g.oh / bands, parts = bands * g.c;
  // Groups of rows of at most kMaxPackedElements per partition: the DMAs
  // of the next group overlap the ops of this one.
  constexpr int64_t kMaxPackedElements = 1024;
  int64_t groupRows = bandH;
  while (groupRows > 1 && inRowsOf(g, groupRows) * g.ow > kMaxPackedElements)
    groupRows = (groupRows + 1) / 2;
  int64_t bytes = tile::storageBytes(work);
  if (2 * bytes *
          (inRowsOf(g, groupRows) * (input.width + g.ow) + groupRows * g.ow) >
      options.sbufBytesPerPartition / 2)
    return op->emitOpError("pooling input rows do not fit in SBUF");
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oh0 = 0; oh0 < bandH; oh0 += groupRows) {
      int64_t rb = std::min(groupRows, bandH - oh0), ir = inRowsOf(g, rb);
      Value in = allocTile(b, loc, {parts, ir, input.width}, work);
      // From HBM: the padding's value everywhere first (one op on every
      // band's partitions), the source's rows over it.
      if (!input.resident && input.pad)
        tile::MemsetOp::create(b, loc, in,
                               b.getF32FloatAttr(float(input.pad->value)));
      for (int64_t j = 0; j < bands; ++j) {
        int64_t h0 = (oh0 + j * bandH) * g.sh;
        if (!input.resident) {
          input.loadBand(b, loc, n, 0, g.c, h0, ir, in, j * g.c,
                         /*rowStep=*/1, /*fillBorder=*/false);
          continue;
        }
        int64_t pieces = loadPieces(ir * input.width * bytes);
        int64_t rs = (ir + pieces - 1) / pieces;
        for (int64_t r = 0; r < ir; r += rs) {
          int64_t m = std::min(rs, ir - r);
          tile::DmaOp::create(
              b, loc, input.residentRows(b, loc, n, 0, g.c, h0 + r, m, 1),
              windowOf(b, loc, in, g.c, r, m, 1, 0, input.width, 1, j * g.c));
        }
      }
      Value result = allocTile(b, loc, {parts, rb, g.ow}, work);
      combineBand(b, loc, g, combine, in, parts, rb, work, result);
      for (int64_t j = 0; j < bands; ++j) {
        Value src =
            windowOf(b, loc, result, g.c, 0, rb, 1, 0, g.ow, 1, j * g.c);
        int64_t h = oh0 + j * bandH;
        Value dst =
            out ? options.residents->view(b, loc, *out, n, 0, g.c, h, rb, 1, 0,
                                          g.ow, 1)
                : hbmView(b, loc, yBuffer,
                          indexConst(b, loc,
                                     y.offset + n * y.strides[0] +
                                         h * y.strides[2]),
                          {g.c, rb, g.ow}, {y.strides[1], y.strides[2], 1});
        tile::DmaOp::create(b, loc, src, dst);
      }
    }
  return success();
}

} // namespace

LogicalResult tiling::tilePool(OpBuilder &b, linalg::LinalgOp op, bool isMax,
                               const ConvPadding *pad, bool identityInit,
                               const TileOptions &options) {
  Location loc = op.getLoc();
  PoolShape g = isMax ? shapeOf(cast<linalg::PoolingNchwMaxOp>(op))
                      : shapeOf(cast<linalg::PoolingNchwSumOp>(op));
  Value x = op.getDpsInputs()[0];
  Type elt = cast<MemRefType>(x.getType()).getElementType();
  WindowInput input;
  if (failed(input.init(op, x, pad, g.w, options.residents)))
    return failure();
  FailureOr<HbmLayout> y = hbmLayoutOf(op, op.getDpsInits()[0]);
  if (failed(y))
    return failure();
  if (y->strides[3] != 1 || y->strides[2] != g.ow)
    return op->emitOpError("pooling output must be row-major");
  StringRef combine = isMax ? "max" : "add";
  // A max of rounded values is the rounded max: a resident input kept in a
  // narrower type (Residents.cpp) is combined in that type, not copied
  // into the output's first. Sums combine in the output's type.
  Type inType = elt;
  if (isMax && input.resident)
    inType = cast<MemRefType>(input.resident->tensor->tile.getType())
                 .getElementType();
  Type work = isMax ? inType : elt;
  int64_t P = options.partitions, bytes = tile::storageBytes(elt);
  auto inRows = [&](int64_t rows) { return inRowsOf(g, rows); };
  // A band's tiles (input, rows, output) twice over within half of SBUF.
  auto bandBytes = [&](int64_t rows) {
    return bytes * (inRows(rows) * (g.w + g.ow) + rows * g.ow);
  };
  // Only the row and output tiles of a resident input's band are new. At
  // most kMaxBandElements per partition a band: a whole image in one band
  // is one chain of ops on one engine (ResNet-50's 112x112 max pool: 32 us
  // on the POOL while the DVE waited); in bands, DVE and POOL share them.
  constexpr int64_t kMaxBandElements = 2048;
  int64_t bandRows = g.oh;
  while (bandRows > 1 && inRows(bandRows) * g.ow > kMaxBandElements)
    bandRows = (bandRows + 1) / 2;
  while (!input.resident && bandRows > 1 &&
         2 * bandBytes(bandRows) > options.sbufBytesPerPartition / 2)
    bandRows = (bandRows + 1) / 2;
  if (!input.resident &&
      2 * bandBytes(bandRows) > options.sbufBytesPerPartition / 2)
    return op->emitOpError("pooling input rows do not fit in SBUF");
  std::optional<ResidentRef> out =
      options.residents ? options.residents->lookup(op.getDpsInits()[0])
                        : std::nullopt;
  int64_t bands = identityInit ? chooseBands(g, input, bool(out),
                                             tile::storageBytes(work), options)
                               : 1;
  if (bands > 1)
    return tilePacked(b, op, g, combine, input, y->buffer, *y, out, work, bands,
                      options);

  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c0 = 0; c0 < g.c; c0 += P) {
      int64_t cs = std::min(P, g.c - c0);
      for (int64_t oh0 = 0; oh0 < g.oh; oh0 += bandRows) {
        int64_t rb = std::min(bandRows, g.oh - oh0), ir = inRows(rb);
        Value in = input.band(b, loc, n, c0, cs, oh0 * g.sh, ir, inType);
        // A resident output is written in place (combined with its old
        // value when the init takes part).
        Value view = out ? options.residents->view(b, loc, *out, n, c0, cs, oh0,
                                                   rb, 1, 0, g.ow, 1)
                         : Value();
        Value result = view && identityInit
                           ? view
                           : allocTile(b, loc, {cs, rb, g.ow}, elt);
        combineBand(b, loc, g, combine, in, cs, rb, work, result);
        if (view) {
          if (!identityInit)
            tile::TensorTensorOp::create(b, loc, combine, result, view, view);
          continue;
        }
        Value dst =
            hbmView(b, loc, y->buffer,
                    indexConst(b, loc,
                               y->offset + n * y->strides[0] +
                                   c0 * y->strides[1] + oh0 * y->strides[2]),
                    {cs, rb, g.ow}, {y->strides[1], y->strides[2], 1});
        if (!identityInit) {
          // The init takes part: combine the old output in.
          Value old = allocTile(b, loc, {cs, rb, g.ow}, elt);
          tile::DmaOp::create(b, loc, dst, old);
          tile::TensorTensorOp::create(b, loc, combine, result, old, result);
        }
        tile::DmaOp::create(b, loc, result, dst);
      }
    }
  return success();
}
