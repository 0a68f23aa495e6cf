//===- NKIDialect.h - The tile-level nki dialect ---------------*- C++ -*-===//
#ifndef NKI_DIALECT_NKI_NKIDIALECT_H
#define NKI_DIALECT_NKI_NKIDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "nki/Dialect/NKI/NKIOpsDialect.h.inc"
#include "nki/Dialect/NKI/NKIEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nki/Dialect/NKI/NKIAttrs.h.inc"

#define GET_OP_CLASSES
#include "nki/Dialect/NKI/NKIOps.h.inc"

namespace nki::tile {

/// Discardable attributes in the `nki.` namespace that the passes exchange,
/// named once here.
/// An argument's tensor name in the binary (inputs default to arg0, ...).
inline constexpr llvm::StringLiteral kNameAttr = "nki.name";
/// Byte offset of an HBM buffer (argument attribute on function arguments,
/// op attribute on memref.alloc / memref.get_global), set by nki-plan-memory.
inline constexpr llvm::StringLiteral kHbmOffsetAttr = "nki.hbm_offset";
/// Byte offsets of the returned buffers, on the function.
inline constexpr llvm::StringLiteral kOutputOffsetsAttr = "nki.output_offsets";
/// The element type the host sees for an argument or result (a TypeAttr:
/// i64, f64, ui8, i16, ui16, ui32) when it is wider or other than the
/// carried type, e.g. ONNX INT64 carried as i32 (docs/onnx.md).
inline constexpr llvm::StringLiteral kHostTypeAttr = "nki.host_type";
/// On a matmul --auto-cast=fp8 quantised: its weight's relative rounding
/// error ||W - sW x W8|| / ||W|| (an f64), which nki-compile --report lists.
inline constexpr llvm::StringLiteral kFp8WeightErrorAttr =
    "nki.fp8_weight_error";
/// On a function of a batch nki-split-batch looked at: a dictionary of
/// `ops` (the ops split, 0 when none), `groups`, the estimates it compared,
/// `hbm_us` (HBM time saved) and `compute_us`, and `why` nothing was split;
/// nki-compile --report prints it.
inline constexpr llvm::StringLiteral kBatchGroupsAttr = "nki.batch_groups";
/// On a function whose SBUF plan could not rotate its tiles at any window
/// and fell back to first fit or greedy-by-size (a StringAttr naming it),
/// set by nki-plan-memory: reused bytes then order the kernels' tiles one
/// after another. nki::compileModule plans again with a margin.
inline constexpr llvm::StringLiteral kSbufUnrotatedAttr = "nki.sbuf_unrotated";
/// On a function: [location, error] pairs of the matmuls --auto-cast=mxfp8
/// quantised (an MX generic may be rebuilt by linalg's folding, which
/// drops its own attributes).
inline constexpr llvm::StringLiteral kMxWeightErrorsAttr =
    "nki.mx_weight_errors";

/// On a tile op: the engine it must run on ("act", "dve" or "pool"; one of
/// those that can run it), where a kernel knows better than the
/// scheduler's earliest-finish choice: the attention kernel keeps its
/// [q, 1] softmax bookkeeping on the otherwise idle POOL, which the DVE
/// would win by the 50 ns of a cross-engine wait while it bounds the kernel.
inline constexpr llvm::StringLiteral kEngineAttr = "nki.engine";

/// On the module: the name of the target the program is compiled for (a
/// string: "trn1", "trn2"). nki-set-target (the pipeline's first pass)
/// writes it; a module without one is compiled for isa::kDefaultTarget.
/// Every pass reads the target from here (ModuleTarget.h).
inline constexpr llvm::StringLiteral kTargetAttr = "nki.target";

/// f4E2M1FN, the element type of MXFP4 data.
inline bool isFp4Type(mlir::Type elementType) {
  return llvm::isa<mlir::Float4E2M1FNType>(elementType);
}

/// vector<2xf4E2M1FN>: a byte of two e2m1 values, low nibble first (the
/// ISA's f4e2m1x2, which only matmul_mx reads).
inline bool isFp4PairType(mlir::Type elementType) {
  auto v = llvm::dyn_cast<mlir::VectorType>(elementType);
  return v && v.getShape() == llvm::ArrayRef<int64_t>{2} &&
         isFp4Type(v.getElementType());
}

/// Bytes per element of a tile of `elementType` on chip: i1 is stored as
/// one byte (0 or 1), an f4E2M1FN value as one byte (the ISA's f4e2m1) and
/// a pair of them as one byte; 0 for types the machine cannot store. HBM
/// tensors of f4E2M1FN are packed (storageBits).
inline int64_t storageBytes(mlir::Type elementType) {
  if (elementType.isInteger(1) || isFp4Type(elementType) ||
      isFp4PairType(elementType))
    return 1;
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return 0;
  return elementType.getIntOrFloatBitWidth() / 8;
}

/// Bits per element of `type`'s buffer: an HBM tensor of f4E2M1FN is
/// stored two values a byte along its innermost dim, low nibble first (how
/// MXFP4 data is exchanged, and the ISA's f4e2m1x2); otherwise
/// 8 x storageBytes.
int64_t storageBits(mlir::MemRefType type);

/// f8E4M3FN or f8E5M2: the element types of fp8 matmul inputs.
inline bool isFp8Type(mlir::Type elementType) {
  return llvm::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(elementType);
}

/// MemRefType::getStridesAndOffset, without building the affine map of an
/// identity layout (which MLIR does, and which took a tenth of the lowering
/// of large programs, whose tiles all have identity layouts).
mlir::LogicalResult getStridesAndOffset(mlir::MemRefType type,
                                        llvm::SmallVectorImpl<int64_t> &strides,
                                        int64_t &offset);

/// The on-chip memory of a memref, or nullopt for HBM (default space).
std::optional<MemorySpace> getMemorySpace(mlir::MemRefType type);
inline bool isSbuf(mlir::Type t) {
  auto m = llvm::dyn_cast<mlir::MemRefType>(t);
  return m && getMemorySpace(m) == MemorySpace::SBUF;
}
inline bool isPsum(mlir::Type t) {
  auto m = llvm::dyn_cast<mlir::MemRefType>(t);
  return m && getMemorySpace(m) == MemorySpace::PSUM;
}
inline bool isHbm(mlir::Type t) {
  auto m = llvm::dyn_cast<mlir::MemRefType>(t);
  return m && !getMemorySpace(m);
}
/// A memref type in `space` with an identity layout.
mlir::MemRefType getTileType(llvm::ArrayRef<int64_t> shape,
                             mlir::Type elementType, MemorySpace space);

} // namespace nki::tile

#endif // NKI_DIALECT_NKI_NKIDIALECT_H
