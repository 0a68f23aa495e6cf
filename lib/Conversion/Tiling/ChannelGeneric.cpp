//===- ChannelGeneric.cpp - Elementwise ops on SBUF-resident tensors ------===//
//
// An elementwise generic over [N, C, H, W] whose operands are whole tensors
// of that shape, per-channel values ([C, 1, 1], [N, C, 1, 1]) or scalars,
// with the channels on the partitions: the layout of the tensors kept in
// SBUF between convolutions (Residents.h), so that a BatchNormalization +
// activation the convolution could not absorb (after a depthwise
// convolution split into channel blocks, a squeeze-and-excitation scale)
// reads and writes them in place.
//
//   for image n, block of 128 channels, chunk of whole rows (<= free chunk):
//     resident operands: views of their SBUF tiles; others: one DMA each
//     per-channel operands: one [P, 1] column per image and block
//     the body, one instruction per op; the result into the output's tile
//     (the last instruction writes there) or stored by DMA
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Kernels.h"
#include "Residents.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
enum class Kind { Scalar, Column, Full };

/// How each operand of `op` (a generic over [N, C, H, W]) varies: not at
/// all, per channel (and image), or fully with contiguous rows; nothing
/// when one does otherwise.
std::optional<SmallVector<Kind>> classify(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumReductionLoops() != 0)
    return std::nullopt;
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!out || !out.hasStaticShape() || out.getShape()[3] > 2048 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  SmallVector<Kind> kinds;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (!operand.get().getDefiningOp<arith::ConstantOp>())
        return std::nullopt;
      kinds.push_back(Kind::Scalar);
      continue;
    }
    SmallVector<int64_t> memStrides;
    int64_t offset;
    if (failed(getStaticLayout(type, memStrides, offset)))
      return std::nullopt;
    int64_t strides[4] = {0, 0, 0, 0};
    for (auto [r, e] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        strides[d.getPosition()] += memStrides[r];
      else if (!isa<AffineConstantExpr>(e))
        return std::nullopt;
    }
    if (strides[2] == 0 && strides[3] == 0)
      kinds.push_back(Kind::Column);
    else if (strides[3] == 1 && strides[2] == out.getShape()[3] &&
             strides[1] != 0)
      kinds.push_back(Kind::Full);
    else
      return std::nullopt;
  }
  return kinds;
}
} // namespace

bool tiling::isChannelGeneric(linalg::GenericOp op) {
  return classify(op).has_value();
}

LogicalResult tiling::tileChannelGeneric(OpBuilder &b, linalg::GenericOp op,
                                         const TileOptions &options) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape =
      cast<MemRefType>(op.getDpsInits()[0].getType()).getShape();
  int64_t N = shape[0], C = shape[1], H = shape[2], W = shape[3];
  std::optional<SmallVector<Kind>> kinds = classify(op);
  if (!kinds)
    return op->emitOpError("is not an elementwise op over [N, C, H, W] with "
                           "per-channel or row-major operands");
  SmallVector<Access> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<Access> a = analyzeOperand(op, operand);
    if (failed(a))
      return failure();
    operands.push_back(*a);
  }
  const Residents *residents = options.residents;
  auto residentOf = [&](const Access &a) -> std::optional<ResidentRef> {
    return residents && a.buffer ? residents->lookup(a.buffer) : std::nullopt;
  };
  Block &body = op.getRegion().front();
  unsigned outArg = op.getNumDpsInputs();
  const Access &out = operands.back();
  std::optional<ResidentRef> outRes = residentOf(out);
  int64_t P = numPartitions();
  int64_t chunkRows = std::clamp<int64_t>(options.freeChunk / W, 1, H);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c0 = 0; c0 < C; c0 += P) {
      int64_t cs = std::min(P, C - c0);
      // Per-channel operands: one column per image and block.
      SmallVector<Value> columns(operands.size());
      for (auto [i, a] : llvm::enumerate(operands))
        if ((*kinds)[i] == Kind::Column && !body.getArgument(i).use_empty()) {
          columns[i] = allocTile(b, loc, {cs, 1}, a.elementType);
          tile::DmaOp::create(b, loc,
                              hbmView(b, loc, a.buffer,
                                      indexConst(b, loc,
                                                 a.offset + n * a.strides[0] +
                                                     c0 * a.strides[1]),
                                      {cs, 1}, {a.strides[1], 1}),
                              columns[i]);
        }
      for (int64_t r0 = 0; r0 < H; r0 += chunkRows) {
        int64_t rc = std::min(chunkRows, H - r0), cols = rc * W;
        auto fullView = [&](const Access &a) -> Value {
          if (std::optional<ResidentRef> r = residentOf(a))
            return residents->view(b, loc, *r, n, c0, cs, r0, rc, 1, 0, W, 1);
          return {};
        };
        auto hbmChunk = [&](const Access &a) {
          return hbmView(b, loc, a.buffer,
                         indexConst(b, loc,
                                    a.offset + n * a.strides[0] +
                                        c0 * a.strides[1] + r0 * a.strides[2]),
                         {cs, cols}, {a.strides[1], 1});
        };
        Value dst = outRes ? fullView(out) : Value();
        BodyLowering lowering(b, loc, cs, cols);
        for (auto [i, a] : llvm::enumerate(operands)) {
          BlockArgument arg = body.getArgument(i);
          if (arg.use_empty())
            continue;
          if ((*kinds)[i] == Kind::Scalar) {
            lowering.bind(arg,
                          {TileValue::Scalar, a.scalar, {}, a.elementType});
            continue;
          }
          if ((*kinds)[i] == Kind::Column) {
            lowering.bind(arg,
                          {TileValue::Column, 0.0, columns[i], a.elementType});
            continue;
          }
          Value t = i == outArg && dst ? dst : fullView(a);
          if (!t) {
            t = allocTile(b, loc, {cs, cols}, a.elementType);
            tile::DmaOp::create(b, loc, hbmChunk(a), t);
          }
          lowering.bind(arg, {TileValue::Full, 0.0, t, a.elementType});
        }
        auto yield = cast<linalg::YieldOp>(body.getTerminator());
        FailureOr<TileValue> r = lowering.lower(yield.getOperand(0));
        if (failed(r))
          return failure();
        Value t = lowering.materializeFull(*r, out.elementType);
        if (!dst) {
          tile::DmaOp::create(b, loc, t, hbmChunk(out));
          continue;
        }
        // The instruction that made a fresh tile writes the output's
        // instead; a value that is an operand's tile is copied.
        auto alloc = t.getDefiningOp<tile::AllocOp>();
        if (alloc && cast<MemRefType>(t.getType()).getElementType() ==
                         cast<MemRefType>(dst.getType()).getElementType()) {
          t.replaceAllUsesWith(dst);
          alloc->erase();
        } else if (t != dst) {
          tile::CopyOp::create(b, loc, t, dst);
        }
      }
    }
  return success();
}
