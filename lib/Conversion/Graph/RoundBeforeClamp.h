//===- RoundBeforeClamp.h - A narrowing cast moved inside a clamp -*- C++
//-*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H
#define NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H

#include "mlir/IR/PatternMatch.h"

namespace nki {

/// truncf(min(max(y, lo), hi)) -> min(max(truncf(y), lo'), hi') when the
/// narrow type holds both bounds exactly, else min(truncf(max(y, lo)), hi')
/// when it holds the outer one; the same with max outermost (minimumf /
/// maximumf or the minnum / maxnum forms). Rounding to nearest even is
/// monotone and keeps those bounds, so the result is bit-identical. An
/// auto-cast ReLU6 epilogue then stores its batch norm's x * s + b in bf16
/// (a tensor_scalar from PSUM, which the ACT or the DVE runs), and the
/// clamp reads bf16, which the DVE runs at four elements a cycle instead of
/// one.
void populateRoundBeforeClampPatterns(mlir::RewritePatternSet &patterns);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_ROUNDBEFORECLAMP_H
