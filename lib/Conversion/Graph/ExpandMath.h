//===- ExpandMath.h - Math functions in terms of the engines' ---*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_EXPANDMATH_H
#define NKI_LIB_CONVERSION_GRAPH_EXPANDMATH_H

#include "mlir/IR/Operation.h"

namespace nki {
/// Rewrites math ops without an engine instruction (floor, ceil, trunc,
/// round, tan, sinh, cosh, asinh, acosh, atanh, atan, asin, acos, exp2,
/// log2, log10, log1p, expm1, arith.remf) under `root` into ones with,
/// after making fptosi/fptoui truncate as MLIR defines them (the device
/// rounds).
mlir::LogicalResult expandMathFunctions(mlir::Operation *root);
} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_EXPANDMATH_H
