//===- WindowInput.cpp - Input bands of windowed kernels ------------------===//

#include "WindowInput.h"

#include "TileUtils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

FailureOr<HbmLayout> tiling::hbmLayoutOf(Operation *op, Value v) {
  HbmLayout l;
  l.buffer = v;
  if (failed(
          getStaticLayout(cast<MemRefType>(v.getType()), l.strides, l.offset)))
    return op->emitOpError("window operand has a dynamic layout");
  return l;
}

LogicalResult WindowInput::init(Operation *op, Value x, const ConvPadding *p,
                                int64_t w, const Residents *r) {
  pad = p;
  width = w;
  residents = r;
  if (residents)
    resident = residents->lookup(pad ? pad->source : x);
  FailureOr<HbmLayout> l = hbmLayoutOf(op, pad ? pad->source : x);
  if (failed(l))
    return failure();
  (pad ? source : padded) = *l;
  const HbmLayout &rows = pad ? source : padded;
  if (rows.strides[3] != 1 || rows.strides[2] != (pad ? pad->width : width))
    return op->emitOpError("window input must be row-major");
  return success();
}

Value tiling::windowOf(OpBuilder &b, Location loc, Value tile, int64_t cs,
                       int64_t r0, int64_t rn, int64_t rs, int64_t q0,
                       int64_t qn, int64_t qs, int64_t p0) {
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(p0), b.getIndexAttr(r0),
                                       b.getIndexAttr(q0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(cs), b.getIndexAttr(rn),
                                     b.getIndexAttr(qn)};
  SmallVector<OpFoldResult> steps = {b.getIndexAttr(1), b.getIndexAttr(rs),
                                     b.getIndexAttr(qs)};
  return memref::SubViewOp::create(b, loc, tile, offsets, sizes, steps);
}

Value tiling::imagesWindowOf(OpBuilder &b, Location loc, Value tile,
                             int64_t cs, int64_t img, int64_t imgs, int64_t r0,
                             int64_t rn, int64_t rs, int64_t q0, int64_t qn,
                             int64_t qs) {
  SmallVector<int64_t> offsets = {0, img, r0, q0}, sizes = {cs, imgs, rn, qn},
                       steps = {1, 1, rs, qs};
  SmallVector<int64_t> shape = {cs, rn, qn};
  if (imgs > 1)
    shape.insert(shape.begin() + 1, imgs);
  auto type = memref::SubViewOp::inferRankReducedResultType(
      shape, cast<MemRefType>(tile.getType()), offsets, sizes, steps);
  return memref::SubViewOp::create(b, loc, type, tile, offsets, sizes, steps);
}

Value WindowInput::band(OpBuilder &b, Location loc, int64_t n, int64_t c0,
                        int64_t cs, int64_t h0, int64_t rows, Type type,
                        int64_t images) const {
  SmallVector<int64_t> shape = {cs, rows, width};
  if (images > 1)
    shape.insert(shape.begin() + 1, images);
  if (resident) {
    Value v = residentRows(b, loc, n, c0, cs, h0, rows, 1, 0, images);
    if (cast<MemRefType>(v.getType()).getElementType() == type)
      return v;
    // Kept in another type (an f32 tensor a bf16 convolution reads): copied
    // in pieces of about a chunk (rows of one image, or whole small
    // images), so that a chunk's matmuls wait for the rows they read, not
    // for the whole band.
    Value t = allocTile(b, loc, shape, type);
    int64_t perRow = std::max<int64_t>(width, 1);
    int64_t pieceRows =
        std::clamp<int64_t>(kCastPieceElements / perRow, 1, rows);
    int64_t pieceImages =
        pieceRows < rows ? 1
                         : std::clamp<int64_t>(
                               kCastPieceElements / (rows * perRow), 1, images);
    for (int64_t i = 0; i < images; i += pieceImages)
      for (int64_t r = 0; r < rows; r += pieceRows) {
        int64_t k = std::min(pieceImages, images - i);
        int64_t m = std::min(pieceRows, rows - r);
        tile::CopyOp::create(
            b, loc, residentRows(b, loc, n + i, c0, cs, h0 + r, m, 1, 0, k),
            images == 1
                ? windowOf(b, loc, t, cs, r, m, 1, 0, width, 1)
                : imagesWindowOf(b, loc, t, cs, i, k, r, m, 1, 0, width, 1));
      }
    return t;
  }
  Value t = allocTile(b, loc, shape, type);
  for (int64_t i = 0; i < images; ++i)
    loadBand(b, loc, n + i, c0, cs, h0, rows,
             images == 1 ? t
                         : imagesWindowOf(b, loc, t, cs, i, 1, 0, rows, 1, 0,
                                          width, 1));
  return t;
}

Value WindowInput::residentRows(OpBuilder &b, Location loc, int64_t n,
                                int64_t c0, int64_t cs, int64_t h0,
                                int64_t rows, int64_t rowStep, int64_t colShift,
                                int64_t images) const {
  // Padded coordinates are the resident tensor's shifted by this reader's
  // padding (the tensor's border is at least as wide).
  int64_t top = pad ? pad->top : 0, left = pad ? pad->left : 0;
  return residents->view(b, loc, *resident, n, c0, cs, h0 - top, rows, rowStep,
                         colShift - left, width - colShift, 1, images);
}

void WindowInput::loadBand(OpBuilder &b, Location loc, int64_t n, int64_t c0,
                           int64_t cs, int64_t h0, int64_t rows, Value tile,
                           int64_t p0, int64_t rowStep, bool fillBorder,
                           int64_t colShift) const {
  assert((!fillBorder || colShift == 0) && "a shifted band's border is set "
                                           "by the caller");
  Type elt = cast<MemRefType>(tile.getType()).getElementType();
  // Tile rows [r0, r0 + rn) from source rows srcRow, srcRow + rowStep, ...
  // (from column srcCol) of `l` at column q0, in a few DMAs (a DMA may cast
  // to the tile's type).
  auto loadRows = [&](const HbmLayout &l, int64_t srcRow, int64_t r0,
                      int64_t rn, int64_t q0, int64_t w, int64_t srcCol) {
    int64_t rowBytes = w * tile::storageBytes(elt);
    int64_t pieces = loadPieces(rn * rowBytes);
    int64_t step = (rn + pieces - 1) / pieces;
    for (int64_t r = 0; r < rn; r += step) {
      int64_t m = std::min(step, rn - r);
      Value view = hbmView(
          b, loc, l.buffer,
          indexConst(b, loc,
                     l.offset + n * l.strides[0] + c0 * l.strides[1] +
                         (srcRow + r * rowStep) * l.strides[2] + srcCol),
          {cs, m, w}, {l.strides[1], l.strides[2] * rowStep, 1});
      tile::DmaOp::create(
          b, loc, view, windowOf(b, loc, tile, cs, r0 + r, m, 1, q0, w, 1, p0));
    }
  };
  if (!pad)
    return loadRows(padded, h0, 0, rows, 0, width - colShift, colShift);
  // Tile row r is padded row h0 + r * rowStep; those in [top, top + height)
  // are the source's, in the middle columns; the border is the padding.
  int64_t top = pad->top, left = trimCols ? 0 : pad->left;
  auto ceilDiv = [](int64_t a, int64_t d) {
    return a <= 0 ? 0 : (a + d - 1) / d;
  };
  int64_t ra = std::min(rows, ceilDiv(top - h0, rowStep));
  int64_t rb = std::min(rows, ceilDiv(top + pad->height - h0, rowStep));
  auto fill = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (fillBorder && rn > 0 && qn > 0)
      tile::MemsetOp::create(b, loc,
                             windowOf(b, loc, tile, cs, r0, rn, 1, q0, qn, 1),
                             b.getF32FloatAttr(float(pad->value)));
  };
  if (ra >= rb) {
    fill(0, rows, 0, width);
    return;
  }
  fill(0, ra, 0, width);
  fill(rb, rows - rb, 0, width);
  fill(ra, rb - ra, 0, left);
  fill(ra, rb - ra, left + pad->width, width - left - pad->width);
  // The source's columns from tile column left - colShift (those before
  // tile column 0 are not loaded).
  int64_t skip = std::max<int64_t>(0, colShift - left);
  if (skip < pad->width)
    loadRows(source, h0 + ra * rowStep - top, ra, rb - ra,
             left - colShift + skip, pad->width - skip, skip);
}
