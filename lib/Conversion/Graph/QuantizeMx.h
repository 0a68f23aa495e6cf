//===- QuantizeMx.h - --auto-cast=mxfp8/mxfp4 for weights' matmuls -*- C++
//-*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H
#define NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {

/// The MX element formats of --auto-cast: MXFP8 (e4m3) or MXFP4 (e2m1).
enum class MxFormat { Fp8, Fp4 };

/// The MX scale of a block whose largest magnitude is `amax`: e8m0 of
/// amax x 1.5 / (the format's largest value: 448 for e4m3, 6 for e2m1),
/// the nearest power of two with ties to the even code, at least
/// amax / largest, so the block's values divide into the format without
/// saturating, and below 2 amax / largest.
float mxScaleFactor(MxFormat format);

/// --auto-cast=mxfp8 or mxfp4 on `op`, C[M, N] = A[M, K] x W with A an f32
/// activation (row-major along K), W a dense f32 constant read as [K, N] or
/// [N, K], C zero-filled f32 and K a multiple of 32:
///   - W becomes e4m3 (e2m1) blocks with an e8m0 scale per 32 rows of a
///     column (sW[j, n] from max |W[32j .. 32j + 31, n]|), at compile time;
///   - A gets a scale per 32 elements of a row at run time: the block
///     maximum (a reduction over the innermost of A viewed [M, K/32, 32]),
///     its e8m0 scale sA, and Aq = e4m3(A / sA) (e2m1);
///   - the MX matmul (Common/MxMatmul.h) applies both scales in the PE
///     (matmul_mx), so nothing dequantises after it.
/// Its weight's relative rounding error goes to the function's
/// nki.mx_weight_errors (kMxWeightErrorsAttr).
/// Returns false, changing nothing, when `op` is not of that form.
bool quantizeMatmulToMx(mlir::RewriterBase &rewriter, mlir::linalg::MatmulOp op,
                        MxFormat format);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_QUANTIZEMX_H
