//===- InterleavePhases.h - The phase index of an interleave ----*- C++ -*-===//
//
// nki-interleave-phases builds, and nki-tile's upsample kernel matches, a
// generic over [N, C, H, W] reading phase tensors stacked as [fh * fw, N, C,
// H / fh, W / fw]; this is the stacked index of output (h, w), dims 2 and
// 3 of the generic.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H
#define NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H

#include "mlir/IR/AffineExpr.h"

namespace nki {

/// (h mod fh) * fw + w mod fw.
inline mlir::AffineExpr interleavedPhase(mlir::MLIRContext *ctx, int64_t fh,
                                         int64_t fw) {
  return mlir::getAffineDimExpr(2, ctx) % fh * fw +
         mlir::getAffineDimExpr(3, ctx) % fw;
}

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H
