//===- WindowInput.h - Input bands of windowed kernels ----------*- C++ -*-===//
//
// Convolutions and poolings read an NCHW input in bands of whole rows with
// the channels on the partitions: a [channels, rows, W] SBUF tile per band,
// loaded in one run per partition and row range, or, for a padded input
// whose padding nki-tile absorbed (ConvPadding), with the source's rows in
// the middle and the border set on chip.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_WINDOWINPUT_H
#define NKI_LIB_CONVERSION_TILING_WINDOWINPUT_H

#include "Kernels.h"
#include "Residents.h"

#include "mlir/IR/Builders.h"

#include <algorithm>

namespace nki::tiling {

/// An HBM buffer with its static element offset and strides.
struct HbmLayout {
  mlir::Value buffer;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
};

/// The layout of `v`, or a diagnostic at `op` for a dynamic one.
mlir::FailureOr<HbmLayout> hbmLayoutOf(mlir::Operation *op, mlir::Value v);

/// Where a windowed kernel's input comes from: `padded` ([N, C, H, W] as
/// the kernel indexes it), or, with `pad`, `source` placed inside it.
struct WindowInput {
  HbmLayout padded, source;
  const ConvPadding *pad = nullptr;
  int64_t width = 0; // W of the padded input (the source's when trimCols)
  /// Bands hold the source's columns only (`width` is the source's): a
  /// band of rows then loads in one run a partition, where a padded row
  /// of a few hundred bytes was a DMA descriptor of its own (and cost 512
  /// bytes' time). The kernel's taps skip the border columns instead
  /// (ConvKernel::trimmed). Only for a non-resident padded input.
  bool trimCols = false;
  void trimColumns() {
    trimCols = true;
    width = pad->width;
  }
  /// The input stays in SBUF (Residents.h): bands are views of it.
  const Residents *residents = nullptr;
  std::optional<ResidentRef> resident;
  /// The element type of the HBM buffer the input loads from.
  mlir::Type hbmElementType() const {
    return mlir::cast<mlir::MemRefType>(
               (pad ? source : padded).buffer.getType())
        .getElementType();
  }
  /// Checks that the rows are contiguous (diagnostic at `op`).
  mlir::LogicalResult init(mlir::Operation *op, mlir::Value x,
                           const ConvPadding *pad, int64_t width,
                           const Residents *residents);
  /// The [cs, rows, width] band of padded rows h0, h0 + 1, ... of channels
  /// [c0, c0 + cs) of image n, in `type`: a view of the resident input
  /// (copied in pieces of at most kCastPieceElements a partition when it is
  /// kept in another type), else a tile loaded by
  /// loadBand; for more `images`, those of images n, n + 1, ... in one
  /// [cs, images, rows, width] view or tile.
  mlir::Value band(mlir::OpBuilder &b, mlir::Location loc, int64_t n,
                   int64_t c0, int64_t cs, int64_t h0, int64_t rows,
                   mlir::Type type, int64_t images = 1) const;
  /// The [cs, rows, width - colShift] view of padded rows h0, h0 +
  /// rowStep, ... from padded column colShift of a resident input (its
  /// border is the padding).
  mlir::Value residentRows(mlir::OpBuilder &b, mlir::Location loc, int64_t n,
                           int64_t c0, int64_t cs, int64_t h0, int64_t rows,
                           int64_t rowStep, int64_t colShift = 0,
                           int64_t images = 1) const;
  /// Loads padded rows h0, h0 + rowStep, ... (`rows` of them) of channels
  /// [c0, c0 + cs) of image n into partitions [p0, p0 + cs) of `tile`
  /// ([P, rows, width]), tile column q holding padded column q + colShift
  /// (the last colShift columns are not written). With `fillBorder` the
  /// padding is set too (only for p0 = 0: the engines' start-partition
  /// rule; and colShift 0); otherwise the caller sets it for the whole tile
  /// first.
  void loadBand(mlir::OpBuilder &b, mlir::Location loc, int64_t n, int64_t c0,
                int64_t cs, int64_t h0, int64_t rows, mlir::Value tile,
                int64_t p0 = 0, int64_t rowStep = 1, bool fillBorder = true,
                int64_t colShift = 0) const;
};

/// The static-offset subview [p0:+cs, r0:+rn (step rs), q0:+qn (step qs)]
/// of a [P, rows, cols] tile.
mlir::Value windowOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
                     int64_t cs, int64_t r0, int64_t rn, int64_t rs, int64_t q0,
                     int64_t qn, int64_t qs, int64_t p0 = 0);

/// windowOf() of images [img, img + imgs) of a [P, images, rows, cols]
/// tile: [cs, imgs, rn, qn], or [cs, rn, qn] for one image.
mlir::Value imagesWindowOf(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value tile, int64_t cs, int64_t img,
                           int64_t imgs, int64_t r0, int64_t rn, int64_t rs,
                           int64_t q0, int64_t qn, int64_t qs);

/// Elements a partition a piece of a resident band's copy into another
/// type holds at most (a PSUM bank's fp32 columns: about one chunk): whole
/// rows of one image up to it (one row when a row is longer), or whole
/// small images.
constexpr int64_t kCastPieceElements = 512;

/// Loads are split into at most kMaxLoadPieces DMAs of at least
/// kMinLoadPieceBytes per partition: nki-schedule spreads one DMA over at
/// most four queues (by partitions), so a wide filter or a large band needs
/// several DMAs to use all sixteen.
constexpr int64_t kMaxLoadPieces = 4;
constexpr int64_t kMinLoadPieceBytes = 2048;
/// The number of DMAs for a transfer of `bytes` per partition.
inline int64_t loadPieces(int64_t bytes) {
  return std::clamp<int64_t>(bytes / kMinLoadPieceBytes, 1, kMaxLoadPieces);
}

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_WINDOWINPUT_H
