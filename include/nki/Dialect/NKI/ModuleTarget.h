//===- ModuleTarget.h - The target a module is compiled for ----*- C++ -*-===//
//
// The one way passes learn the target: the module's `nki.target`
// attribute (tile::kTargetAttr), read here, with the one diagnostic for a
// name that is not a target. A separate header from NKIDialect.h, which
// files that say `isa<...>` inside namespace nki include: naming
// nki::isa there would make that ambiguous.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NKI_MODULETARGET_H
#define NKI_DIALECT_NKI_MODULETARGET_H

#include "nki/ISA/Target.h"

#include "mlir/IR/Operation.h"

namespace nki::tile {

/// The target `op`'s module names in kTargetAttr, the default one when it
/// names none; null when the attribute is not the name of a known target.
const isa::TargetDesc *findTarget(mlir::Operation *op);

/// findTarget, or failure after the one diagnostic for a bad target, at
/// the module: "unknown target "trn9" in 'nki.target' (expected trn1 or
/// trn2)".
mlir::FailureOr<const isa::TargetDesc *> getTarget(mlir::Operation *op);

} // namespace nki::tile

#endif // NKI_DIALECT_NKI_MODULETARGET_H
