//===- Epilogue.h - Elementwise consumers on PSUM tiles ---------*- C++ -*-===//
//
// Matmul and convolution kernels compute the elementwise generic that reads
// their product (bias, activation, residual add) while they evacuate a PSUM
// tile, so the product never goes to HBM. Both bind the generic's operands
// the same way; only how an operand's tile is loaded differs.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_EPILOGUE_H
#define NKI_LIB_CONVERSION_TILING_EPILOGUE_H

#include "Access.h"
#include "BodyLowering.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace nki::tiling {

/// The epilogue's operands (inputs, then the output) and which of them name
/// the product.
struct Epilogue {
  mlir::linalg::GenericOp op;
  llvm::SmallVector<Access> operands;
  llvm::SmallVector<bool> readsProduct;

  /// Analyzes `op`, whose inputs naming `product` read the PSUM tile.
  mlir::LogicalResult analyze(mlir::linalg::GenericOp op, mlir::Value product);

  /// Binds the operands in `lowering` (the product, rounded to
  /// `productType` first when that is narrower than fp32; scalars;
  /// `load(access)` for the others, which returns the tile and whether it
  /// is a [P, 1] column), lowers the body and returns its result as a full
  /// SBUF tile of [partitions, cols] (copied out of PSUM when it is the
  /// accumulator itself), ready to be stored through operands.back().
  /// With `roundOnStore` a final float rounding (`arith.truncf`, the bf16
  /// a tensor is stored in under auto-cast) is left to the store: the
  /// result is the wider tile, which the caller's store rounds.
  mlir::FailureOr<mlir::Value>
  compute(mlir::OpBuilder &b, mlir::Location loc, BodyLowering &lowering,
          TileValue product, mlir::Value acc, mlir::Type productType,
          int64_t partitions, int64_t cols,
          llvm::function_ref<std::pair<mlir::Value, bool>(const Access &)> load,
          bool roundOnStore = false);
};

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_EPILOGUE_H
