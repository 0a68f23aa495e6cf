//===- Access.h - How a linalg operand walks its buffer ---------*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_TILING_ACCESS_H
#define NKI_LIB_CONVERSION_TILING_ACCESS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace nki::tiling {

/// One operand of a linalg op over its iteration space: the element at
/// iteration point i is at offset + sum(strides[d] * i[d]) of `buffer`.
/// Broadcast dims have stride 0. A scalar operand has no buffer.
struct Access {
  mlir::Value buffer;
  double scalar = 0.0;
  mlir::Type elementType;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;

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
