//===- QuantizeMx.h - --auto-cast=mxfp8 for matmuls of weights --*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H
#define NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {

/// The MX scale of a block whose largest magnitude is `amax`: e8m0 of
/// amax x 1.5 / 448 (the nearest power of two, ties to the even code), at
/// least amax / 448, so the block's values divide into e4m3 without
/// saturating, and below amax / 224.
inline constexpr float kMxScaleFactor = 1.5f / 448.0f;

/// --auto-cast=mxfp8 on `op`, C[M, N] = A[M, K] x W with A an f32 activation
/// (row-major along K), W a dense f32 constant read as [K, N] or [N, K], C
/// zero-filled f32 and K a multiple of 32:
///   - W becomes e4m3 blocks with an e8m0 scale per 32 rows of a column
///     (sW[j, n] from max |W[32j .. 32j + 31, n]|), at compile time;
///   - A gets a scale per 32 elements of a row at run time: the block
///     maximum (a reduction over the innermost of A viewed [M, K/32, 32]),
///     its e8m0 scale sA, and A8 = e4m3(A / sA);
///   - the MX matmul (Common/MxMatmul.h) applies both scales in the PE
///     (matmul_mx), so nothing dequantises after it.
/// Its weight's relative rounding error goes to the function's
/// nki.mx_weight_errors (kMxWeightErrorsAttr).
/// Returns false, changing nothing, when `op` is not of that form.
bool quantizeMatmulToMx(mlir::RewriterBase &rewriter,
                        mlir::linalg::MatmulOp op);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H
