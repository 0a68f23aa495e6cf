//===- Copy.cpp - memref.copy as DMAs -------------------------------------===//
//
// memref.copy between HBM buffers (from bufferized slices, pads, concats and
// results) is a DMA that never touches SBUF. Dims both sides walk
// contiguously are merged; the copy is split along its outermost dim into
// pieces of about 64 KiB so that several DMA queues share it. A copy from
// or to a tensor kept in SBUF (Residents.h) is DMAs per channel block, or
// engine copies into a view with row or column steps.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Residents.h"
#include "TileUtils.h"
#include "WindowInput.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

LogicalResult tiling::tileCopy(OpBuilder &b, Operation *op, Value src,
                               Value dst, int64_t queues,
                               ArrayRef<int64_t> permutation) {
  Location loc = op->getLoc();
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(dst.getType());
  SmallVector<int64_t> srcShape(srcType.getShape());
  if (!permutation.empty()) {
    if (permutation.size() != srcShape.size())
      return op->emitOpError("copy's permutation does not match its rank");
    srcShape = applyPermutation(srcType.getShape(), permutation);
  }
  if (!srcType.hasStaticShape() || srcShape != dstType.getShape())
    return op->emitOpError("copy needs equal static shapes");
  SmallVector<int64_t> ss, ds;
  int64_t so, dso;
  if (failed(getStaticLayout(srcType, ss, so)) ||
      failed(getStaticLayout(dstType, ds, dso)))
    return op->emitOpError("copy operands must have static layouts");
  // Read through the permutation: dst dim k walks src dim permutation[k].
  if (!permutation.empty())
    ss = applyPermutation(ss, permutation);
  SmallVector<int64_t> shape(srcShape);
  if (shape.empty()) {
    shape = {1};
    ss = {1};
    ds = {1};
  }
  // Size-1 dims walk nothing (a batch of one); then merge dims contiguous
  // on both sides.
  for (int d = int(shape.size()) - 1; d >= 0 && shape.size() > 1; --d)
    if (shape[d] == 1) {
      shape.erase(shape.begin() + d);
      ss.erase(ss.begin() + d);
      ds.erase(ds.begin() + d);
    }
  for (int d = int(shape.size()) - 2; d >= 0; --d) {
    if (ss[d] != ss[d + 1] * shape[d + 1] || ds[d] != ds[d + 1] * shape[d + 1])
      continue;
    shape[d] *= shape[d + 1];
    ss[d] = ss[d + 1];
    ds[d] = ds[d + 1];
    shape.erase(shape.begin() + d + 1);
    ss.erase(ss.begin() + d + 1);
    ds.erase(ds.begin() + d + 1);
  }
  if (shape.size() > 5)
    return op->emitOpError("copy has more than 5 non-contiguous dims");
  int64_t inner = 1;
  for (int64_t s : ArrayRef<int64_t>(shape).drop_front())
    inner *= s;
  int64_t bytes = tile::storageBytes(srcType.getElementType());
  // Split dim 0 into pieces of ~64 KiB; a single long contiguous dim is
  // reshaped to [pieces, piece] first.
  constexpr int64_t kPieceBytes = 64 * 1024;
  if (shape.size() == 1 && shape[0] * bytes > kPieceBytes) {
    int64_t piece = kPieceBytes / bytes;
    while (shape[0] % piece)
      --piece;
    shape = {shape[0] / piece, piece};
    ss = {ss[0] * piece, ss[0]};
    ds = {ds[0] * piece, ds[0]};
    inner = piece;
  }
  // Pieces of at most kPieceBytes, and one per queue while each keeps
  // kMinPieceBytes: a DMA between HBM buffers runs on one queue (the text
  // recogniser's [8, 80, 128] f32 transposes at batch 8, 320 KiB, took five).
  constexpr int64_t kMinPieceBytes = 4 * 1024;
  int64_t rowBytes = inner * bytes;
  int64_t maxRows = std::max<int64_t>(1, kPieceBytes / rowBytes);
  int64_t minRows =
      std::min(maxRows, (kMinPieceBytes + rowBytes - 1) / rowBytes);
  int64_t spread = queues > 0 ? (shape[0] + queues - 1) / queues : maxRows;
  int64_t rowsPerPiece =
      std::clamp(spread, std::max<int64_t>(1, minRows), maxRows);
  tileLoop(b, loc, shape[0], rowsPerPiece,
           [&](OpBuilder &nb, Value row, int64_t rows) {
             SmallVector<int64_t> sizes(shape);
             sizes[0] = rows;
             Value s =
                 hbmView(nb, loc, src, linearIndex(nb, loc, so, {row}, {ss[0]}),
                         sizes, ss);
             Value d =
                 hbmView(nb, loc, dst,
                         linearIndex(nb, loc, dso, {row}, {ds[0]}), sizes, ds);
             tile::DmaOp::create(nb, loc, s, d);
           });
  return success();
}

bool tiling::movesRowsByDma(linalg::TransposeOp t, const TileOptions &options) {
  ArrayRef<int64_t> perm = t.getPermutation();
  auto in = dyn_cast<MemRefType>(t.getInput().getType());
  auto out = dyn_cast<MemRefType>(t.getInit().getType());
  int64_t rank = int64_t(perm.size());
  if (rank == 0 || perm.back() != rank - 1 || !in || !out ||
      !in.hasStaticShape() || options.rates.dmaMinDescriptorBytes <= 0)
    return false;
  if (options.residents && (options.residents->lookup(t.getInput()) ||
                            options.residents->lookup(t.getInit())))
    return false;
  SmallVector<int64_t> inStrides, outStrides;
  int64_t offset;
  for (auto [type, strides] :
       {std::make_pair(in, &inStrides), std::make_pair(out, &outStrides)})
    if (!tile::isHbm(type) || failed(getStaticLayout(type, *strides, offset)) ||
        strides->back() != 1)
      return false;
  // A row: the trailing dims the permutation keeps, contiguous on both
  // sides (tileCopy merges them into one run): ShuffleNet's channel
  // shuffle ([N, g, C/g, H, W] -> [N, C/g, g, H, W]) keeps H x W, not only
  // W (28 f32 at 28 x 28, under a descriptor's minimum).
  int64_t row = 1;
  for (int64_t d = rank - 1; d >= 0 && perm[d] == d; --d) {
    if (inStrides[d] != row || outStrides[d] != row)
      break;
    row *= in.getShape()[d];
  }
  return row * tile::storageBytes(in.getElementType()) >=
         options.rates.dmaMinDescriptorBytes;
}

LogicalResult tiling::tileResidentCopy(OpBuilder &b, Operation *op, Value src,
                                       Value dst, const Residents &residents) {
  // A copy of [N, C, H, W] into (or out of) a tensor kept in SBUF, such as
  // a concat's part: one DMA per image and run of channels that stays in
  // one partition block on both sides (a DMA may move partitions; the
  // engines may not). An HBM side is read or written in rows.
  Location loc = op->getLoc();
  std::optional<ResidentRef> rs = residents.lookup(src),
                             rd = residents.lookup(dst);
  auto type = cast<MemRefType>(src.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t N = shape[0], C = shape[1], H = shape[2], W = shape[3];
  int64_t P = residents.partitions;
  int64_t bytes = tile::storageBytes(type.getElementType());
  auto side = [&](Value v, const std::optional<ResidentRef> &r, int64_t n,
                  int64_t c, int64_t cs, int64_t h, int64_t rows) -> Value {
    if (r)
      return residents.view(b, loc, *r, n, c, cs, h, rows, 1, 0, W, 1);
    SmallVector<int64_t> strides;
    int64_t offset;
    (void)getStaticLayout(cast<MemRefType>(v.getType()), strides, offset);
    return hbmView(
        b, loc, v,
        indexConst(b, loc,
                   offset + n * strides[0] + c * strides[1] + h * strides[2]),
        {cs, rows, W}, {strides[1], strides[2], strides[3]});
  };
  auto blockLeft = [&](const std::optional<ResidentRef> &r, int64_t c) {
    return r ? P - (r->c + c) % P : C;
  };
  // A destination with row or column steps (a phase of an upsampled or
  // transposed convolution's result, inserted where another phase's
  // result is used again) is written by an engine copy: a DMA would take a
  // descriptor per element. Its source is read on the destination's
  // partitions: in place when it is kept there, else loaded first.
  if (rd && (rd->rowStep != 1 || rd->colStep != 1)) {
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C;) {
        int64_t cs = std::min({C - c, blockLeft(rs, c), blockLeft(rd, c), P});
        int64_t p0 = (rd->c + c) % P;
        Value from;
        if (rs && (rs->c + c) % P == p0) {
          from = side(src, rs, n, c, cs, 0, H);
        } else {
          Value staged =
              allocTile(b, loc, {p0 + cs, H, W}, type.getElementType());
          from = memref::SubViewOp::create(
              b, loc, staged, SmallVector<int64_t>{p0, 0, 0},
              SmallVector<int64_t>{cs, H, W}, SmallVector<int64_t>{1, 1, 1});
          tile::DmaOp::create(b, loc, side(src, rs, n, c, cs, 0, H), from);
        }
        tile::CopyOp::create(b, loc, from, side(dst, rd, n, c, cs, 0, H));
        c += cs;
      }
    return success();
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C;) {
      int64_t cs = std::min({C - c, blockLeft(rs, c), blockLeft(rd, c), P});
      // In row pieces: a DMA spreads over at most four queues.
      int64_t pieces = loadPieces(H * W * bytes);
      int64_t step = (H + pieces - 1) / pieces;
      for (int64_t h = 0; h < H; h += step) {
        int64_t rows = std::min(step, H - h);
        tile::DmaOp::create(b, loc, side(src, rs, n, c, cs, h, rows),
                            side(dst, rd, n, c, cs, h, rows));
      }
      c += cs;
    }
  return success();
}
