//===- PackedLayout.h - A resident tensor in its reader's tile -*- C++ -*-===//
//
// Shared by the residents plan (Residents.h), which keeps tensors in this
// layout, and the convolution kernel (Kernels.h), which chooses it.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_PACKEDLAYOUT_H
#define NKI_LIB_CONVERSION_TILING_PACKEDLAYOUT_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace nki::tiling {

/// A resident tensor kept in the packed input tile of the one convolution
/// that reads it (bands or stacked rows side by side on the partitions,
/// Conv.cpp's emitBand), which then reads it in place instead of copying
/// rows into band tiles; its writers copy their rows there by DMA. The
/// tile is [blocks * C, N, rows, width]: partition block k (channels at
/// partitions k * C..) holds at tile row r and column q the reader's padded
/// input row rowAt[k] + r * rowStep and padded column q (tensor row h is
/// padded row h + top, column w padded column w + left); padding and rows
/// past the input hold the tensor's padValue. `bands`, `stack` and
/// `foldRows` are the reader's choice (ConvBands.cpp's chooseBands), which its
/// kernel takes again.
struct PackedLayout {
  mlir::Operation *reader = nullptr;
  int64_t rows = 0, width = 0, rowStep = 1, top = 0, left = 0;
  llvm::SmallVector<int64_t> rowAt;
  int64_t bands = 1, stack = 1;
  bool foldRows = false;
  /// Whether a writer's last rows may go there by engine copies
  /// (Residents::write): not for a depthwise reader, whose taps keep the
  /// vector engines busy (MobileNetV2's stem into features.1: 1 us slower
  /// in f32 at batch 1).
  bool engineCopies = true;
};

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_PACKEDLAYOUT_H
