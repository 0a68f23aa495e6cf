//===- CompactConstants.h - Keep only the parts of constants read -*- C++
//-*-===//
//
// Part of nki-gather-constants (CompactConstants.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NKI_LIB_CONVERSION_PLANNING_COMPACTCONSTANTS_H
#define NKI_LIB_CONVERSION_PLANNING_COMPACTCONSTANTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

namespace nki {

/// The linear element offsets, in row-major order of `type`'s shape, of a
/// memref view with a static strided layout; empty if it is not one.
llvm::SmallVector<int64_t> elementOffsets(mlir::MemRefType type);

/// Replaces each private constant of at least `minBytes` of which DMAs
/// read at most half, through static views and nothing else, by one that
/// holds only the regions read (each distinct region once, row-major), and
/// points the DMAs at it. Runs on straight-line tile code.
void compactPartlyReadConstants(mlir::ModuleOp module, int64_t minBytes);

} // namespace nki

#endif // NKI_LIB_CONVERSION_PLANNING_COMPACTCONSTANTS_H
