//===- TileUtils.h - Building blocks of the tiling kernels ------*- C++ -*-===//
//
// Loops over tiles with a peeled remainder (tiles have static shapes), HBM
// views as strided reinterpretations of a buffer, and tile allocation.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_TILEUTILS_H
#define NKI_LIB_CONVERSION_TILING_TILEUTILS_H

#include "Access.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace nki::tiling {

/// Calls body(b, offset, size) for the tiles covering [0, extent) in steps of
/// `step`: full tiles in an scf.for (or inline when there is one), then the
/// remainder as a peeled tile, so every tile has a static size.
void tileLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t extent,
              int64_t step,
              llvm::function_ref<void(mlir::OpBuilder &, mlir::Value, int64_t)>
                  body);

/// An affine address into an HBM buffer: elements at
/// offset + sum(iv[d] * strides[d]) over the dims of some iteration space.
struct HbmAccess {
  mlir::Value buffer;               // an HBM memref
  int64_t offset = 0;               // static element offset of `buffer`
  llvm::SmallVector<int64_t> strides; // per iteration dim, elements
};

/// `offset + sum(ivs[d] * strides[d])` as an index value.
mlir::Value linearIndex(mlir::OpBuilder &b, mlir::Location loc,
                        int64_t offset, mlir::ValueRange ivs,
                        llvm::ArrayRef<int64_t> strides);

/// A view of `v`'s buffer with a static layout: `sizes` and `strides` in
/// elements from element `offset` (all relative to the buffer `v` views;
/// a stride may be 0, a broadcast).
mlir::Value stridedView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> sizes,
                        llvm::ArrayRef<int64_t> strides, int64_t offset);

/// A view of `buffer` with the given element offset, sizes and strides
/// (memref.reinterpret_cast; offsets are absolute in the buffer).
mlir::Value hbmView(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Value buffer, mlir::Value offset,
                    llvm::ArrayRef<int64_t> sizes,
                    llvm::ArrayRef<int64_t> strides);

/// The static strides and offset (in elements) of an HBM memref, or failure
/// for a dynamic layout.
mlir::LogicalResult getStaticLayout(mlir::MemRefType type,
                                    llvm::SmallVectorImpl<int64_t> &strides,
                                    int64_t &offset);

mlir::Value allocTile(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                      tile::MemorySpace space = tile::MemorySpace::SBUF);

/// When `tile` is an SBUF tile that one instruction writes and nothing
/// else touches, re-allocates it in `elementType` so that instruction
/// stores in that type (every narrowing store rounds to nearest even) and
/// returns the new tile; else null.
mlir::Value retypeWrittenTile(mlir::OpBuilder &b, mlir::Value tile,
                              mlir::Type elementType);

/// The first partition of `view`, a static view of an nki.alloc tile of
/// the same element type; none for anything else.
std::optional<int64_t> startPartition(mlir::Value view);

/// A static-offset subview [pOff:+pSize, fOff:+fSize] of a 2-D tile.
mlir::Value tileSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
                      int64_t pOff, int64_t pSize, int64_t fOff,
                      int64_t fSize);

mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Writes [rows, cols] of `a` at iteration point `ivs` (null ivs are 0),
/// `rowDim` on the partitions and `colDim` along the free axis, into
/// `tiles`: [<= P, cols] SBUF tiles (or views) that split the rows between
/// them. One DMA per tile when the free dim is contiguous or the rows are
/// not; else, row-major the other way round, DMAs of [<= P, rows] blocks of
/// the transpose (a contiguous run per partition) and PE transposes
/// through PSUM. The DMAs cast to the tiles' element type.
void loadRows(mlir::OpBuilder &b, mlir::Location loc, int64_t P,
              const Access &a, llvm::ArrayRef<mlir::Value> ivs, int rowDim,
              int colDim, llvm::ArrayRef<mlir::Value> tiles);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_TILEUTILS_H
