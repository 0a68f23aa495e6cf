//===- Liveness.cpp - Tiles and their live ranges -------------------------===//
//
// After nki-unroll a function is one block of tile ops, so liveness is a
// pair of positions: a tile occupies its bytes from the first op that reads
// or writes it to the last one. Views (subview, cast, reshapes) only name
// bytes of the tile, so the ops that use a view count as uses of the tile
// and the view ops themselves do not.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace nki::planning {

LogicalResult checkStraightLine(func::FuncOp func) {
  Region &body = func.getBody();
  if (!body.hasOneBlock())
    return emitError(func.getLoc())
           << "function @" << func.getName() << " has "
           << body.getBlocks().size()
           << " blocks; memory planning needs straight-line tile code (run "
              "nki-unroll first)";
  for (Operation &op : body.front())
    if (op.getNumRegions() != 0)
      return emitError(op.getLoc())
             << "'" << op.getName()
             << "' is control flow; memory planning needs straight-line tile "
                "code (run nki-unroll first)";
  return success();
}

/// The ops that touch the bytes of `value`, looking through views of it.
static void collectAccesses(Value value, SmallVectorImpl<Operation *> &out) {
  for (Operation *user : value.getUsers()) {
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (view && view.getViewSource() == value) {
      for (Value result : user->getResults())
        collectAccesses(result, out);
      continue;
    }
    out.push_back(user);
  }
}

/// Bytes per partition of the tile `alloc` allocates, or failure after an
/// error at it. The nki.alloc verifier has already checked the rest: a
/// static, row-major tile in SBUF or PSUM of 1 to 128 partitions, and a PSUM
/// tile within one bank.
static FailureOr<int64_t> tileBytes(tile::AllocOp alloc,
                                    tile::MemorySpace space,
                                    const isa::TargetDesc &target) {
  MemRefType type = alloc.getType();
  Type elementType = type.getElementType();
  // Saturating, so that absurd shapes report as too large, not as garbage.
  uint64_t bytes = tile::storageBytes(elementType);
  if (!bytes)
    return alloc.emitOpError() << "allocates a tile of " << elementType
                               << ", which has no whole-byte size";
  for (int64_t dim : type.getShape().drop_front())
    bytes = llvm::SaturatingMultiply(bytes, uint64_t(dim));
  if (bytes == 0)
    return alloc.emitOpError()
           << "allocates " << type << ", which has no elements";
  assert((space == tile::MemorySpace::SBUF ||
          bytes <= uint64_t(target.psumBankBytes)) &&
         "the nki.alloc verifier keeps PSUM tiles within a bank");
  if (space == tile::MemorySpace::SBUF &&
      bytes > uint64_t(target.sbufBytesPerPartition))
    return alloc.emitOpError()
           << "allocates " << type << ": " << bytes
           << " bytes per partition, more than the "
           << target.sbufBytesPerPartition << " bytes of an SBUF partition on "
           << target.name;
  return int64_t(bytes);
}

FailureOr<std::vector<TileBuffer>> collectTiles(func::FuncOp func,
                                                const isa::TargetDesc &target) {
  Block &block = func.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = int64_t(i);

  std::vector<TileBuffer> tiles;
  bool ok = true;
  for (auto alloc : block.getOps<tile::AllocOp>()) {
    // The verifier guarantees SBUF or PSUM.
    tile::MemorySpace space = *tile::getMemorySpace(alloc.getType());
    FailureOr<int64_t> size = tileBytes(alloc, space, target);
    if (failed(size)) {
      ok = false;
      continue;
    }
    SmallVector<Operation *> accesses;
    collectAccesses(alloc.getResult(), accesses);
    // An unused tile still gets a valid offset: one position, its own.
    int64_t start = position.lookup(alloc), end = start;
    if (!accesses.empty()) {
      start = std::numeric_limits<int64_t>::max();
      end = 0;
      for (Operation *user : accesses) {
        int64_t at = position.lookup(block.findAncestorOpInBlock(*user));
        start = std::min(start, at);
        end = std::max(end, at);
      }
    }
    tiles.push_back(TileBuffer{alloc, space, *size, start, end});
  }
  if (!ok)
    return failure();
  return tiles;
}

} // namespace nki::planning
