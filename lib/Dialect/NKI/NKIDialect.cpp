//===- NKIDialect.cpp - The tile-level nki dialect ------------------------===//

#include "nki/Dialect/NKI/NKIDialect.h"

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

LogicalResult nki::tile::getStridesAndOffset(MemRefType type,
                                             SmallVectorImpl<int64_t> &strides,
                                             int64_t &offset) {
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

MemRefType nki::tile::getTileType(ArrayRef<int64_t> shape, Type elementType,
                                  MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(elementType.getContext(), space));
}
