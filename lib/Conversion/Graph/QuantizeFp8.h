//===- QuantizeFp8.h - --auto-cast=fp8 for matmuls of weights ---*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_QUANTIZEFP8_H
#define NKI_LIB_CONVERSION_GRAPH_QUANTIZEFP8_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {

/// The scale that maps a tensor's largest magnitude to fp8 e4m3's largest
/// finite value.
inline constexpr float kFp8E4M3Max = 448.0f;

/// --auto-cast=fp8 on `op`, C[M, N] = A[M, K] x W with A an f32 activation
/// (row-major along K), W a dense f32 constant (any layout the matmul reads)
/// and C zero-filled f32:
///   - W becomes an f8E4M3FN constant W / sW with sW = max|W| / 448 (one
///     scale for the tensor, at compile time);
///   - each row of A gets its own scale at run time: a[m] = max_k |A[m, k]|
///     (at least 1e-12), A8[m, k] = fp8(A[m, k] x 448 / a[m]);
///   - the matmul multiplies the fp8 tensors (the PE's fp8 rate) and one
///     elementwise op dequantises, C[m, n] = P[m, n] x a[m] x sW / 448,
///     a column scale that nki-tile applies while evacuating PSUM.
/// Returns false, changing nothing, when `op` is not of that form.
bool quantizeMatmulToFp8(mlir::RewriterBase &rewriter,
                         mlir::linalg::MatmulOp op);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_QUANTIZEFP8_H
