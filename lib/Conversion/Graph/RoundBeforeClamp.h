//===- RoundBeforeClamp.h - A narrowing cast moved inside a clamp -*- C++
//-*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H
#define NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H

#include "mlir/IR/PatternMatch.h"

namespace nki {

/// truncf(min(max(y, lo), hi)) -> min(truncf(max(y, lo)), hi'), and the same
/// with max outermost (minimumf / maximumf or the minnum / maxnum forms),
/// when the outer bound is a constant that the narrow type holds exactly.
/// Rounding to nearest even is monotone and keeps that bound, so the result
/// is bit-identical. An auto-cast ReLU6 epilogue then stores its ReLU in
/// bf16 straight from the ACT, and the clamp at 6 reads bf16, which the DVE
/// runs at four elements a cycle instead of one.
void populateRoundBeforeClampPatterns(mlir::RewritePatternSet &patterns);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H
