//===- Access.h - How a linalg operand walks its buffer ---------*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_TILING_ACCESS_H
#define NKI_LIB_CONVERSION_TILING_ACCESS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace nki::tiling {

/// One operand of a linalg op over its iteration space: the element at
/// iteration point i is at offset + sum(strides[d] * i[d]) of `buffer`.
/// Broadcast dims have stride 0. A scalar operand has no buffer.
///
/// One dim, `splitDim`, may walk two dims of the buffer: index i of it is
/// at (i / splitCount) * strides[splitDim] + (i % splitCount) *
/// splitStride (attention's batch of [images, heads] read from a
/// sequence-first [S, N, heads * d] projection, where an image's heads sit
/// side by side and the images a row apart). Only the attention matcher
/// makes one; code that reads strides[splitDim] as the dim's one step must
/// check `splitDim` first.
struct Access {
  mlir::Value buffer;
  double scalar = 0.0;
  mlir::Type elementType;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
  int splitDim = -1;
  int64_t splitCount = 1, splitStride = 0;

  /// The offset that index i of dim d adds.
  int64_t step(int d, int64_t i) const {
    if (d != splitDim)
      return i * strides[d];
    return i / splitCount * strides[d] + i % splitCount * splitStride;
  }

  /// offset + sum(ivs[d] * strides[d]) over the dims whose iv is non-null.
  mlir::Value offsetAt(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<mlir::Value> ivs) const;
};

/// The access of `operand` of `op`: indexing map results must be dims or
/// constants; scalar operands must be constants.
mlir::FailureOr<Access> analyzeOperand(mlir::linalg::LinalgOp op,
                                       mlir::OpOperand &operand);

/// analyzeOperand without diagnostics, for matchers asking whether an op
/// fits a pattern.
std::optional<Access> probeOperand(mlir::linalg::LinalgOp op,
                                   mlir::OpOperand &operand);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_ACCESS_H
