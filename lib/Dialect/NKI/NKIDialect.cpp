//===- NKIDialect.cpp - The tile-level nki dialect ------------------------===//

#include "nki/Dialect/NKI/NKIDialect.h"

#include "nki/Dialect/NKI/ModuleTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nki::tile;

#include "nki/Dialect/NKI/NKIOpsDialect.cpp.inc"
#include "nki/Dialect/NKI/NKIEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "nki/Dialect/NKI/NKIAttrs.cpp.inc"

void NKIDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nki/Dialect/NKI/NKIAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nki/Dialect/NKI/NKIOps.cpp.inc"
      >();
}

const nki::isa::TargetDesc *nki::tile::findTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  Attribute attr = module ? module->getAttr(kTargetAttr) : Attribute();
  if (!attr)
    return &isa::getTarget(isa::kDefaultTarget);
  auto name = dyn_cast<StringAttr>(attr);
  return name ? isa::lookupTarget(name.getValue()) : nullptr;
}

FailureOr<const nki::isa::TargetDesc *> nki::tile::getTarget(Operation *op) {
  if (const isa::TargetDesc *target = findTarget(op))
    return target;
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  return module.emitError()
         << "unknown target " << module->getAttr(kTargetAttr) << " in '"
         << kTargetAttr << "' (expected " << isa::knownTargetNames() << ")";
}

LogicalResult nki::tile::getStridesAndOffset(MemRefType type,
                                             SmallVectorImpl<int64_t> &strides,
                                             int64_t &offset) {
  // Views' layouts are strided: read them directly (asking a strided
  // layout whether it is the identity builds its affine map).
  if (auto strided = llvm::dyn_cast<StridedLayoutAttr>(type.getLayout())) {
    strides.assign(strided.getStrides().begin(), strided.getStrides().end());
    offset = strided.getOffset();
    return success();
  }
  if (!type.getLayout().isIdentity())
    return type.getStridesAndOffset(strides, offset);
  // Row-major: suffix products of the shape.
  strides.assign(type.getRank(), 1);
  for (int64_t d = type.getRank() - 2; d >= 0; --d) {
    int64_t size = type.getDimSize(d + 1);
    strides[d] = ShapedType::isDynamic(size) ||
                         ShapedType::isDynamic(strides[d + 1])
                     ? ShapedType::kDynamic
                     : strides[d + 1] * size;
  }
  offset = 0;
  return success();
}

std::optional<MemorySpace> nki::tile::getMemorySpace(MemRefType type) {
  if (auto attr = llvm::dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return attr.getValue();
  return std::nullopt;
}

int64_t nki::tile::storageBits(MemRefType type) {
  if (!getMemorySpace(type) && isFp4Type(type.getElementType()))
    return 4;
  return 8 * storageBytes(type.getElementType());
}

MemRefType nki::tile::getTileType(ArrayRef<int64_t> shape, Type elementType,
                                  MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(elementType.getContext(), space));
}
