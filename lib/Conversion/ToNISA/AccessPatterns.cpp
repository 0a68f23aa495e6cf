//===- AccessPatterns.cpp - Memref views as ISA access patterns -----------===//

#include "AccessPatterns.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace nki::tonisa {

Value getRootBuffer(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto o = dyn_cast<memref::SubViewOp>(def))
      view = o.getSource();
    else if (auto o = dyn_cast<memref::ReinterpretCastOp>(def))
      view = o.getSource();
    else if (auto o = dyn_cast<memref::CastOp>(def))
      view = o.getSource();
    else if (auto o = dyn_cast<memref::CollapseShapeOp>(def))
      view = o.getSrc();
    else if (auto o = dyn_cast<memref::ExpandShapeOp>(def))
      view = o.getSrc();
    else if (auto o = dyn_cast<tile::BitcastOp>(def))
      view = o.getSource();
    else if (llvm::isa<tile::AllocOp, memref::AllocOp, memref::GetGlobalOp>(
                 def))
      return view;
    else
      return nullptr;
  }
  return view; // a function argument
}

std::optional<int64_t> getHbmOffset(Value root) {
  IntegerAttr attr;
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                kHbmOffsetAttr);
  } else if (Operation *def = root.getDefiningOp()) {
    attr = def->getAttrOfType<IntegerAttr>(kHbmOffsetAttr);
  }
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

std::optional<isa::DType> getDType(Type type) {
  // The nisa dialect owns the dtype <-> MLIR type mapping; invert it.
  MLIRContext *ctx = type.getContext();
  // i1 is stored as a 0/1 byte.
  if (type.isInteger(1))
    return isa::DType::U8;
#define NKI_DTYPE(Name, spelling, bytes)                                       \
  if (nisa::elementTypeOf(ctx, isa::DType::Name) == type)                      \
    return isa::DType::Name;
#include "nki/ISA/DTypes.def"
  return std::nullopt;
}

namespace {

/// Drops size-1 dims and merges a dim into its outer neighbour when the
/// outer one steps exactly over it. With `keepOne`, an all-size-1 list
/// becomes the single dim (1, 1).
void mergeDims(ArrayRef<isa::Dim> dims, SmallVectorImpl<isa::Dim> &out,
               bool keepOne) {
  size_t first = out.size();
  for (isa::Dim d : dims) {
    if (d.size == 1)
      continue;
    if (out.size() > first && out.back().stride == d.stride * d.size) {
      out.back() = isa::Dim{d.stride, out.back().size * d.size};
      continue;
    }
    out.push_back(d);
  }
  if (keepOne && out.size() == first)
    out.push_back(isa::Dim{1, 1});
}

} // namespace

std::optional<isa::AccessPattern>
getAccessPattern(const isa::TargetDesc &target, Operation *op, StringRef role,
                 Value view, DimMerging merging, unsigned splitBeforeTrailing,
                 unsigned *trailingDims) {
  auto fail = [&]() {
    return op->emitOpError() << "operand '" << role << "' ";
  };
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return fail() << "is not a memref", std::nullopt;
  Value root = getRootBuffer(view);
  if (!root)
    return fail() << "is not a view of an nki.alloc, an HBM allocation, a "
                     "global or a function argument",
           std::nullopt;
  SmallVector<int64_t> strides;
  int64_t elemOffset;
  if (!type.hasStaticShape() ||
      failed(tile::getStridesAndOffset(type, strides, elemOffset)) ||
      ShapedType::isDynamic(elemOffset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return fail() << "has a dynamic shape or layout " << type
                  << " (run nki-unroll first)",
           std::nullopt;
  std::optional<isa::DType> dtype = getDType(type.getElementType());
  if (!dtype)
    return fail() << "has element type " << type.getElementType()
                  << ", which the machine does not support",
           std::nullopt;
  int64_t elemBytes = isa::dtypeBytes(*dtype);

  isa::AccessPattern ap;
  ap.dtype = *dtype;
  SmallVector<isa::Dim> free;
  unsigned firstFree = 0;
  auto rootType = cast<MemRefType>(root.getType());
  std::optional<tile::MemorySpace> space = tile::getMemorySpace(rootType);
  if (space) {
    auto alloc = root.getDefiningOp<tile::AllocOp>();
    if (!alloc)
      return fail() << "is in SBUF/PSUM but not carved from an nki.alloc",
             std::nullopt;
    if (!alloc.getOffset())
      return fail() << "is a tile without a planned 'offset' (run "
                       "nki-plan-memory first)",
             std::nullopt;
    if (type.getRank() == 0 || rootType.getRank() == 0 ||
        !rootType.getLayout().isIdentity())
      return fail() << "is carved from a tile " << rootType
                    << " that has no partition dimension or a non-identity "
                       "layout",
             std::nullopt;
    // In bytes: a view through nki.bitcast counts other elements than the
    // tile it is carved from.
    int64_t pitch = tile::storageBytes(rootType.getElementType());
    for (int64_t d : rootType.getShape().drop_front())
      pitch *= d;
    int64_t byteOffset = elemOffset * elemBytes;
    if (type.getDimSize(0) > 1 && strides[0] * elemBytes != pitch)
      return fail() << "steps over partitions with stride " << strides[0]
                    << " but the tile's partition pitch is "
                    << pitch / elemBytes << " elements",
             std::nullopt;
    ap.memory = *space == tile::MemorySpace::PSUM ? isa::Memory::PSUM
                                                  : isa::Memory::SBUF;
    ap.startPartition = int32_t(byteOffset / pitch);
    ap.numPartitions = int32_t(type.getDimSize(0));
    ap.offset = *alloc.getOffset() + byteOffset % pitch;
    firstFree = 1;
  } else {
    if (tile::storageBits(type) != 8 * elemBytes)
      return fail() << "is an HBM view of " << type.getElementType()
                    << ", stored two values a byte; read it through "
                       "nki.bitcast as bytes",
             std::nullopt;
    std::optional<int64_t> base = getHbmOffset(root);
    if (!base)
      return fail() << "is in HBM but its buffer has no '" << kHbmOffsetAttr
                    << "' (run nki-plan-memory first)",
             std::nullopt;
    ap.memory = isa::Memory::HBM;
    ap.startPartition = 0;
    ap.numPartitions = 1;
    ap.offset = *base + elemOffset * elemBytes;
  }

  SmallVector<isa::Dim> dims;
  for (unsigned d = firstFree; d < type.getRank(); ++d)
    dims.push_back(isa::Dim{strides[d], type.getDimSize(d)});
  if (merging == DimMerging::Keep) {
    free = dims;
    if (free.empty())
      free.push_back(isa::Dim{1, 1});
  } else {
    unsigned split =
        splitBeforeTrailing
            ? std::max<int64_t>(0, int64_t(dims.size()) - splitBeforeTrailing)
            : dims.size();
    ArrayRef<isa::Dim> all(dims);
    mergeDims(all.take_front(split), free, /*keepOne=*/false);
    size_t kept = free.size();
    mergeDims(all.drop_front(split), free,
              /*keepOne=*/splitBeforeTrailing > 0 || free.empty());
    if (trailingDims)
      *trailingDims = unsigned(free.size() - kept);
  }
  int64_t maxDims = space ? target.maxFreeDimsOnChip : target.maxDimsHbm;
  if (int64_t(free.size()) > maxDims)
    return fail() << "needs " << free.size() << " " << (space ? "free " : "")
                  << "dimensions after merging but "
                  << (space ? "SBUF/PSUM" : "HBM") << " access patterns have "
                  << "at most " << maxDims,
           std::nullopt;
  ap.rank = uint8_t(free.size());
  llvm::copy(free, ap.dims.begin());
  return ap;
}

} // namespace nki::tonisa
