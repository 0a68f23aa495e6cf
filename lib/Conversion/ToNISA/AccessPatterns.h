//===- AccessPatterns.h - Memref views as ISA access patterns --*- C++ -*-===//
//
// A tile-op operand is a view (subview, reinterpret_cast, cast, reshape) of a
// root buffer: a planned nki.alloc in SBUF/PSUM or an HBM buffer placed by
// memory planning (`nki.hbm_offset`). The view's static strides and offset
// are absolute in the root, so the access pattern follows from its type and
// the root's placement alone, without replaying the view chain.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_ACCESSPATTERNS_H
#define NKI_LIB_CONVERSION_TONISA_ACCESSPATTERNS_H

#include "nki/ISA/Instruction.h"
#include "nki/ISA/Target.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Support/LLVM.h"

#include <optional>

namespace nki::tonisa {

/// The attribute memory planning puts on HBM roots (NKIDialect.h).
using tile::kHbmOffsetAttr;

/// The buffer a view is carved from, or null when the chain reaches an op
/// that is not a view.
mlir::Value getRootBuffer(mlir::Value view);

/// The placement of an HBM root: its `nki.hbm_offset`, or nullopt.
std::optional<int64_t> getHbmOffset(mlir::Value root);

/// The ISA element type of `type`, or nullopt for one the machine lacks.
std::optional<isa::DType> getDType(mlir::Type type);

/// How free dimensions may be simplified.
enum class DimMerging {
  /// Drop size-1 dims and merge contiguous neighbours (elementwise ops, DMA).
  Merge,
  /// Keep every free dim as written: the op indexes them (iota,
  /// affine_select).
  Keep,
};

/// The access pattern of operand `view` of `op`, named `role` in errors.
/// With `splitBeforeTrailing` = k > 0 the last k free dims are merged only
/// among themselves (a reduction's axes); `*trailingDims` then receives how
/// many dims they became. Emits an error at `op` and returns nullopt when
/// the view cannot be expressed (unplanned root, dynamic layout, too many
/// dims, a partition stride that is not the root's pitch, ...).
std::optional<isa::AccessPattern> getAccessPattern(
    const isa::TargetDesc &target, mlir::Operation *op, llvm::StringRef role,
    mlir::Value view, DimMerging merging = DimMerging::Merge,
    unsigned splitBeforeTrailing = 0, unsigned *trailingDims = nullptr);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_ACCESSPATTERNS_H
