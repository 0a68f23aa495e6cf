//===- TileUtils.cpp - Building blocks of the tiling kernels --------------===//

#include "TileUtils.h"

#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace nki;

Value tiling::indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

void tiling::tileLoop(OpBuilder &b, Location loc, int64_t extent, int64_t step,
                      function_ref<void(OpBuilder &, Value, int64_t)> body) {
  int64_t full = extent / step, rest = extent % step;
  if (full == 1) {
    body(b, indexConst(b, loc, 0), step);
  } else if (full > 1) {
    auto loop = scf::ForOp::create(b, loc, indexConst(b, loc, 0),
                                   indexConst(b, loc, full * step),
                                   indexConst(b, loc, step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(b, loop.getInductionVar(), step);
  }
  if (rest)
    body(b, indexConst(b, loc, full * step), rest);
}

Value tiling::linearIndex(OpBuilder &b, Location loc, int64_t offset,
                          ValueRange ivs, ArrayRef<int64_t> strides) {
  Value acc = indexConst(b, loc, offset);
  for (auto [iv, stride] : llvm::zip_equal(ivs, strides)) {
    if (stride == 0)
      continue;
    Value term = stride == 1 ? iv
                             : arith::MulIOp::create(
                                   b, loc, iv, indexConst(b, loc, stride));
    acc = arith::AddIOp::create(b, loc, acc, term);
  }
  return acc;
}

Value tiling::stridedView(OpBuilder &b, Location loc, Value v,
                          ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                          int64_t offset) {
  auto type = cast<MemRefType>(v.getType());
  auto layout = StridedLayoutAttr::get(b.getContext(), offset, strides);
  auto viewType = MemRefType::get(sizes, type.getElementType(), layout,
                                  type.getMemorySpace());
  SmallVector<OpFoldResult> sizeOfr, strideOfr;
  for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
    sizeOfr.push_back(b.getIndexAttr(size));
    strideOfr.push_back(b.getIndexAttr(stride));
  }
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, v, b.getIndexAttr(offset), sizeOfr, strideOfr);
}

Value tiling::hbmView(OpBuilder &b, Location loc, Value buffer, Value offset,
                      ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto source = cast<MemRefType>(buffer.getType());
  auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                       strides);
  auto type = MemRefType::get(sizes, source.getElementType(), layout,
                              source.getMemorySpace());
  SmallVector<OpFoldResult> sizeOfr, strideOfr;
  for (int64_t s : sizes)
    sizeOfr.push_back(b.getIndexAttr(s));
  for (int64_t s : strides)
    strideOfr.push_back(b.getIndexAttr(s));
  return memref::ReinterpretCastOp::create(b, loc, type, buffer,
                                           OpFoldResult(offset), sizeOfr,
                                           strideOfr);
}

LogicalResult tiling::getStaticLayout(MemRefType type,
                                      SmallVectorImpl<int64_t> &strides,
                                      int64_t &offset) {
  if (failed(tile::getStridesAndOffset(type, strides, offset)))
    return failure();
  if (ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  return success();
}

Value tiling::retypeWrittenTile(OpBuilder &b, Value tile, Type elementType) {
  auto alloc = tile.getDefiningOp<tile::AllocOp>();
  if (!alloc || tile::isPsum(tile.getType()) || !tile.hasOneUse())
    return {};
  auto writer = dyn_cast<MemoryEffectOpInterface>(*tile.getUsers().begin());
  if (!writer || !writer.getEffectOnValue<MemoryEffects::Write>(tile) ||
      writer.getEffectOnValue<MemoryEffects::Read>(tile))
    return {};
  auto type = cast<MemRefType>(tile.getType());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(alloc);
  Value t = allocTile(b, alloc.getLoc(), type.getShape(), elementType);
  tile.replaceAllUsesWith(t);
  alloc->erase();
  return t;
}

Value tiling::allocTile(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type elementType, tile::MemorySpace space) {
  return tile::AllocOp::create(b, loc,
                               tile::getTileType(shape, elementType, space),
                               IntegerAttr());
}

std::optional<int64_t> tiling::startPartition(Value view) {
  Value root = view;
  while (auto v = root.getDefiningOp<ViewLikeOpInterface>())
    root = v.getViewSource();
  auto alloc = root.getDefiningOp<tile::AllocOp>();
  auto type = cast<MemRefType>(view.getType());
  auto rootType = cast<MemRefType>(root.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!alloc || type.getElementType() != rootType.getElementType() ||
      rootType.getRank() == 0 || !rootType.getLayout().isIdentity() ||
      failed(tile::getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  int64_t pitch = 1;
  for (int64_t d : rootType.getShape().drop_front())
    pitch *= d;
  return offset / pitch;
}

Value tiling::tileSlice(OpBuilder &b, Location loc, Value tile, int64_t pOff,
                        int64_t pSize, int64_t fOff, int64_t fSize) {
  auto type = cast<MemRefType>(tile.getType());
  if (pOff == 0 && fOff == 0 && type.getDimSize(0) == pSize &&
      type.getDimSize(1) == fSize)
    return tile;
  SmallVector<int64_t> offsets = {pOff, fOff}, sizes = {pSize, fSize},
                       strides = {1, 1};
  return memref::SubViewOp::create(b, loc, tile, offsets, sizes, strides);
}

void tiling::loadRows(OpBuilder &b, Location loc, int64_t P, const Access &a,
                      ArrayRef<Value> ivs, int rowDim, int colDim,
                      ArrayRef<Value> tiles) {
  auto shapeOf = [](Value t) { return cast<MemRefType>(t.getType()); };
  int64_t cols = shapeOf(tiles.front()).getDimSize(1), rows = 0;
  for (Value t : tiles)
    rows += shapeOf(t).getDimSize(0);
  Type type = shapeOf(tiles.front()).getElementType();
  // ivs with `delta` added to dim `d`.
  auto shifted = [&](int d, int64_t delta) {
    SmallVector<Value> out(ivs.begin(), ivs.end());
    if (delta == 0 && out[d])
      return out;
    Value dv = indexConst(b, loc, delta);
    out[d] =
        out[d] ? arith::AddIOp::create(b, loc, out[d], dv).getResult() : dv;
    return out;
  };
  if (a.strides[colDim] == 1 || a.strides[rowDim] != 1) {
    int64_t r0 = 0;
    for (Value t : tiles) {
      int64_t rn = shapeOf(t).getDimSize(0);
      tile::DmaOp::create(
          b, loc,
          hbmView(b, loc, a.buffer, a.offsetAt(b, loc, shifted(rowDim, r0)),
                  {rn, cols}, {a.strides[rowDim], a.strides[colDim]}),
          t);
      r0 += rn;
    }
    return;
  }
  for (int64_t c0 = 0; c0 < cols; c0 += P) {
    int64_t cw = std::min(P, cols - c0);
    Value src = allocTile(b, loc, {cw, rows}, type);
    tile::DmaOp::create(
        b, loc,
        hbmView(b, loc, a.buffer, a.offsetAt(b, loc, shifted(colDim, c0)),
                {cw, rows}, {a.strides[colDim], a.strides[rowDim]}),
        src);
    int64_t r0 = 0;
    for (Value t : tiles) {
      int64_t rn = shapeOf(t).getDimSize(0);
      Value ps =
          allocTile(b, loc, {rn, cw}, b.getF32Type(), tile::MemorySpace::PSUM);
      tile::TransposeOp::create(
          b, loc,
          tiles.size() == 1 ? src : tileSlice(b, loc, src, 0, cw, r0, rn), ps);
      tile::CopyOp::create(b, loc, ps, tileSlice(b, loc, t, 0, rn, c0, cw));
      r0 += rn;
    }
  }
}
