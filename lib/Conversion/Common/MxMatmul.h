//===- MxMatmul.h - The MX-scaled matmul as a linalg.generic ----*- C++ -*-===//
//
// C[m, n] += (A[m, k] x sA[m, k/32]) x (B[k, n] x sB[k/32, n]) over k: a
// matmul of OCP MX blocks (A, B MXFP8 or MXFP4 elements; sA, sB e8m0
// scales, one per 32 contraction elements), the form --auto-cast=mxfp8
// writes and a user may write, which nki-tile lowers to matmul_mx. B and sB
// may also be stored transposed, [N, K] and [N, K/32] (how MXFP4 weights
// come: an f4E2M1FN tensor packs its innermost dim two values a byte, and
// the quad row packs along K). One place builds it and recognises it, on
// tensors and on buffers alike.
//
//===----------------------------------------------------------------------===//

#ifndef NKI_CONVERSION_COMMON_MXMATMUL_H
#define NKI_CONVERSION_COMMON_MXMATMUL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace nki {

/// Contraction elements that share one scale.
inline constexpr int64_t kMxBlock = 32;

/// The generic C (+)= MX(A, sA) x MX(B, sB) on tensors, `init` C [M, N] f32;
/// A [M, K] and B [K, N] of f8E4M3FN/f8E5M2, sA [M, K/32] and sB [K/32, N]
/// of f8E8M0FNU.
mlir::Value buildMxMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                          mlir::Value aScale, mlir::Value bMat,
                          mlir::Value bScale, mlir::Value init);

/// Whether `op` is that generic: operands (A, sA, B, sB, C), loops (m, n, k)
/// with the maps above (B's and sB's either way round), fp8 (f8E4M3FN,
/// f8E5M2) or fp4 (f4E2M1FN) elements and e8m0 scales, and the body
/// c + (a x sa) x (b x sb) of the extended values. Also the form linalg's
/// folding of splat constants leaves when every sB is the same: operands
/// (A, sA, B, C) and a constant f32 power of two for sb in the body
/// (mxSplatMovingScale gives it).
bool isMxMatmul(mlir::linalg::LinalgOp op);

/// The constant moving scale of an MX matmul of the folded form.
std::optional<float> mxSplatMovingScale(mlir::linalg::LinalgOp op);

} // namespace nki

#endif // NKI_CONVERSION_COMMON_MXMATMUL_H
