//===- NKIOps.cpp - Tile-level operation verifiers -------------------------===//
//
// Checks that hold for every target: operand memories, partition counts,
// shape agreement and the ISA's names. Limits come from the target table
// (both targets share the partition count and PE limits).
//
//===----------------------------------------------------------------------===//

#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Instruction.h"
#include "nki/ISA/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace nki::tile;
namespace isa = nki::isa;

/// The limits op verifiers check against: those of the module's target
/// (the default one where the module names none it knows; the passes
/// report a bad name).
static const isa::TargetDesc &limits(Operation *op) {
  const isa::TargetDesc *target = findTarget(op);
  return target ? *target : isa::getTarget(isa::kDefaultTarget);
}

namespace {
/// The memory and 2-D view [partitions, elements per partition] of an
/// operand.
struct TileShape {
  std::optional<MemorySpace> space;
  int64_t partitions = 1;
  int64_t free = 1;
  bool operator==(const TileShape &o) const {
    return partitions == o.partitions && free == o.free;
  }
};
} // namespace

static TileShape getShape(Value v) {
  auto type = cast<MemRefType>(v.getType());
  TileShape s;
  s.space = getMemorySpace(type);
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.empty())
    return s;
  s.partitions = shape.front();
  for (int64_t d : shape.drop_front())
    s.free *= d;
  return s;
}

static std::string describe(const TileShape &s) {
  return "[" + std::to_string(s.partitions) + ", " + std::to_string(s.free) +
         "]";
}

/// An on-chip operand: static shape, rank >= 1, 1..128 partitions, in one of
/// `allowed` memories.
static LogicalResult verifyTile(Operation *op, Value v, StringRef role,
                                bool allowSbuf, bool allowPsum) {
  auto type = cast<MemRefType>(v.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!space)
    return op->emitOpError() << role << " must be an SBUF or PSUM tile, got "
                             << type;
  if ((*space == MemorySpace::SBUF && !allowSbuf) ||
      (*space == MemorySpace::PSUM && !allowPsum))
    return op->emitOpError()
           << role << " may not be in " << stringifyMemorySpace(*space);
  if (!type.hasStaticShape() || type.getRank() < 1)
    return op->emitOpError() << role << " must have a static shape of rank "
                             << ">= 1 (partitions first), got " << type;
  int64_t partitions = type.getDimSize(0);
  if (partitions < 1 || partitions > limits(op).numPartitions)
    return op->emitOpError() << role << " has " << partitions
                             << " partitions; the limit is "
                             << limits(op).numPartitions;
  return success();
}

static LogicalResult verifySameShape(Operation *op, Value a, StringRef aRole,
                                     Value b, StringRef bRole) {
  TileShape sa = getShape(a), sb = getShape(b);
  if (!(sa == sb))
    return op->emitOpError() << aRole << " " << describe(sa) << " and "
                             << bRole << " " << describe(sb)
                             << " must have the same [partitions, elements]";
  return success();
}

static LogicalResult verifyColumn(Operation *op, Value v, StringRef role,
                                  int64_t partitions) {
  if (failed(verifyTile(op, v, role, true, true)))
    return failure();
  TileShape s = getShape(v);
  if (s.partitions != partitions || s.free != 1)
    return op->emitOpError() << role << " must be a [" << partitions
                             << ", 1] tile, got " << describe(s);
  return success();
}

static LogicalResult verifyAluName(Operation *op, StringRef name,
                                   StringRef role) {
  if (!isa::parseAluOp(std::string_view(name.data(), name.size())))
    return op->emitOpError() << "unknown " << role << " '" << name << "'";
  return success();
}

LogicalResult AllocOp::verify() {
  MemRefType type = getTile().getType();
  if (failed(verifyTile(*this, getTile(), "tile", true, true)))
    return failure();
  if (!type.getLayout().isIdentity())
    return emitOpError("tile must have the identity layout");
  int64_t bytesPerPartition =
      getShape(getTile()).free * storageBytes(type.getElementType());
  if (getMemorySpace(type) != MemorySpace::PSUM)
    return success();
  int64_t bankBytes = limits(getOperation()).psumBankBytes;
  if (bytesPerPartition > bankBytes)
    return emitOpError() << "PSUM tile of " << bytesPerPartition
                         << " bytes per partition exceeds a " << bankBytes
                         << "-byte bank";
  return success();
}

LogicalResult DmaOp::verify() {
  for (auto [v, role] : {std::pair{getSrc(), "source"}, {getDst(), "dest"}})
    if (isPsum(v.getType()))
      return emitOpError() << role << " may not be in PSUM (DMA never "
                           << "touches PSUM)";
  auto src = cast<MemRefType>(getSrc().getType());
  auto dst = cast<MemRefType>(getDst().getType());
  if (!src.hasStaticShape() || !dst.hasStaticShape())
    return emitOpError("operands must have static shapes");
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError() << "source has " << src.getNumElements()
                         << " elements but destination has "
                         << dst.getNumElements();
  return success();
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyTile(*this, getStationary(), "stationary", true, false)) ||
      failed(verifyTile(*this, getMoving(), "moving", true, false)) ||
      failed(verifyTile(*this, getAcc(), "accumulator", false, true)))
    return failure();
  TileShape s = getShape(getStationary()), m = getShape(getMoving()),
            a = getShape(getAcc());
  if (getRows() != 1 && getRows() != 2)
    return emitOpError() << "rows = " << getRows()
                         << "; 1, or 2 for the fp8 double row";
  if (getRows() == 2) {
    for (auto [v, role] : {std::pair{getStationary(), "stationary"},
                           std::pair{getMoving(), "moving"}}) {
      auto type = cast<MemRefType>(v.getType());
      if (!isFp8Type(type.getElementType()))
        return emitOpError() << "rows 2 (fp8 double row) needs fp8 sources; "
                             << role << " is " << type.getElementType();
      if (type.getRank() != 3 || type.getDimSize(2) != 2)
        return emitOpError() << "rows 2 (fp8 double row) needs " << role
                             << " as [K/2, columns, 2], got " << type;
    }
    // Columns, not elements: each is two contraction rows.
    s.free /= 2;
    m.free /= 2;
  }
  if (s.partitions != m.partitions)
    return emitOpError() << "stationary K=" << s.partitions
                         << " differs from moving K=" << m.partitions;
  if (s.free > limits(getOperation()).matmulMaxM)
    return emitOpError() << "M=" << s.free << " exceeds "
                         << limits(getOperation()).matmulMaxM;
  if (m.free > limits(getOperation()).matmulMaxN)
    return emitOpError() << "N=" << m.free << " exceeds "
                         << limits(getOperation()).matmulMaxN;
  if (a.partitions != s.free || a.free != m.free)
    return emitOpError() << "accumulator " << describe(a) << " must be [M="
                         << s.free << ", N=" << m.free << "]";
  if (!cast<MemRefType>(getAcc().getType()).getElementType().isF32())
    return emitOpError("accumulator must be f32");
  return success();
}

Value BitcastOp::getViewSource() { return getSource(); }

LogicalResult BitcastOp::verify() {
  auto from = cast<MemRefType>(getSource().getType());
  auto to = cast<MemRefType>(getResult().getType());
  if (!from.hasStaticShape() || !to.hasStaticShape() ||
      !from.getLayout().isIdentity() || !to.getLayout().isIdentity())
    return emitOpError("needs static shapes and identity layouts");
  if (from.getMemorySpace() != to.getMemorySpace())
    return emitOpError("may not change the memory space");
  // In bits: an HBM f4E2M1FN tensor is packed two values a byte.
  int64_t fromBits = storageBits(from), toBits = storageBits(to);
  if (!fromBits || !toBits || from.getRank() != to.getRank() ||
      from.getRank() < 1)
    return emitOpError() << "cannot view " << from << " as " << to;
  for (int64_t d = 0; d + 1 < from.getRank(); ++d)
    if (from.getDimSize(d) != to.getDimSize(d))
      return emitOpError() << "changes dim " << d << " (" << from.getDimSize(d)
                           << " to " << to.getDimSize(d)
                           << "); only the innermost dim rescales";
  if (from.getShape().back() * fromBits != to.getShape().back() * toBits)
    return emitOpError() << "innermost dim holds "
                         << from.getShape().back() * fromBits
                         << " bits in the source but "
                         << to.getShape().back() * toBits << " in the result";
  return success();
}

LogicalResult MatmulMxOp::verify() {
  if (failed(verifyTile(*this, getStationary(), "stationary", true, false)) ||
      failed(verifyTile(*this, getMoving(), "moving", true, false)) ||
      failed(verifyTile(*this, getStationaryScale(), "stationary scale", true,
                        false)) ||
      failed(
          verifyTile(*this, getMovingScale(), "moving scale", true, false)) ||
      failed(verifyTile(*this, getAcc(), "accumulator", false, true)))
    return failure();
  int64_t columns[2];
  for (auto [i, v, scale, role] :
       {std::tuple{0, getStationary(), getStationaryScale(), "stationary"},
        std::tuple{1, getMoving(), getMovingScale(), "moving"}}) {
    auto type = cast<MemRefType>(v.getType());
    bool fp4 = isFp4PairType(type.getElementType());
    if (!isFp8Type(type.getElementType()) && !fp4)
      return emitOpError() << role << " must be MXFP8 (f8E4M3FN or f8E5M2) "
                           << "or MXFP4 (vector<2xf4E2M1FN>, two values a "
                           << "byte), got " << type.getElementType();
    int64_t inner = fp4 ? 2 : 4;
    if (type.getRank() != 3 || type.getDimSize(2) != inner)
      return emitOpError() << role << " must be [K/4, columns, " << inner
                           << "], got " << type;
    if (type.getDimSize(0) % 8)
      return emitOpError() << role << " has " << type.getDimSize(0)
                           << " partitions; a multiple of 8 is needed (a "
                           << "scale covers 8 partitions x 4 rows)";
    columns[i] = type.getDimSize(1);
    auto scaleType = cast<MemRefType>(scale.getType());
    if (!llvm::isa<Float8E8M0FNUType>(scaleType.getElementType()))
      return emitOpError() << role << " scale must be f8E8M0FNU, got "
                           << scaleType.getElementType();
    TileShape ss = getShape(scale);
    if (ss.partitions * 8 != type.getDimSize(0) || ss.free != columns[i])
      return emitOpError() << role << " scale " << describe(ss)
                           << " must be [K/32=" << type.getDimSize(0) / 8
                           << ", " << columns[i] << "]";
  }
  TileShape s = getShape(getStationary()), m = getShape(getMoving()),
            a = getShape(getAcc());
  if (s.partitions != m.partitions)
    return emitOpError() << "stationary K/4=" << s.partitions
                         << " differs from moving K/4=" << m.partitions;
  if (columns[0] > limits(getOperation()).matmulMaxM)
    return emitOpError() << "M=" << columns[0] << " exceeds "
                         << limits(getOperation()).matmulMaxM;
  if (columns[1] > limits(getOperation()).matmulMaxN)
    return emitOpError() << "N=" << columns[1] << " exceeds "
                         << limits(getOperation()).matmulMaxN;
  if (a.partitions != columns[0] || a.free != columns[1])
    return emitOpError() << "accumulator " << describe(a)
                         << " must be [M=" << columns[0] << ", N=" << columns[1]
                         << "]";
  if (!cast<MemRefType>(getAcc().getType()).getElementType().isF32())
    return emitOpError("accumulator must be f32");
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(verifyTile(*this, getSrc(), "source", true, false)) ||
      failed(verifyTile(*this, getDst(), "destination", false, true)))
    return failure();
  TileShape s = getShape(getSrc()), d = getShape(getDst());
  if (s.free > limits(getOperation()).transposeMaxF)
    return emitOpError() << "source free size " << s.free << " exceeds "
                         << limits(getOperation()).transposeMaxF;
  if (d.partitions != s.free || d.free != s.partitions)
    return emitOpError() << "destination " << describe(d) << " must be "
                         << describe({std::nullopt, s.free, s.partitions});
  return success();
}

LogicalResult ActivationOp::verify() {
  if (!isa::parseActFunc(std::string_view(getFunc().data(), getFunc().size())))
    return emitOpError() << "unknown activation function '" << getFunc()
                         << "'";
  if (failed(verifyTile(*this, getSrc(), "source", true, true)) ||
      failed(verifyTile(*this, getDst(), "destination", true, true)) ||
      failed(verifySameShape(*this, getSrc(), "source", getDst(),
                             "destination")))
    return failure();
  int64_t p = getShape(getSrc()).partitions;
  for (auto [v, role] : {std::pair{getScaleTile(), "scale"},
                         {getBiasTile(), "bias"}, {getAccum(), "accum"}})
    if (v && failed(verifyColumn(*this, v, role, p)))
      return failure();
  return success();
}

LogicalResult TensorTensorOp::verify() {
  if (failed(verifyAluName(*this, getOp(), "ALU op")) ||
      failed(verifyTile(*this, getLhs(), "lhs", true, true)) ||
      failed(verifyTile(*this, getRhs(), "rhs", true, true)) ||
      failed(verifyTile(*this, getDst(), "destination", true, true)) ||
      failed(verifySameShape(*this, getLhs(), "lhs", getDst(),
                             "destination")) ||
      failed(verifySameShape(*this, getRhs(), "rhs", getDst(),
                             "destination")))
    return failure();
  if (isPsum(getLhs().getType()) && isPsum(getRhs().getType()))
    return emitOpError("at most one input may be in PSUM");
  return success();
}

LogicalResult TensorScalarOp::verify() {
  if (failed(verifyAluName(*this, getOp0(), "op0")) ||
      failed(verifyAluName(*this, getOp1(), "op1")) ||
      failed(verifyTile(*this, getSrc(), "source", true, true)) ||
      failed(verifyTile(*this, getDst(), "destination", true, true)) ||
      failed(verifySameShape(*this, getSrc(), "source", getDst(),
                             "destination")))
    return failure();
  int64_t p = getShape(getSrc()).partitions;
  for (auto [v, role] : {std::pair{getScalar0(), "s0"}, {getScalar1(), "s1"}})
    if (v && failed(verifyColumn(*this, v, role, p)))
      return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  StringRef op = getOp();
  if (op != "add" && op != "max" && op != "min")
    return emitOpError() << "reduction must be add, max or min, got '" << op
                         << "'";
  if (failed(verifyTile(*this, getSrc(), "source", true, true)) ||
      failed(verifyTile(*this, getDst(), "destination", true, true)))
    return failure();
  auto src = cast<MemRefType>(getSrc().getType());
  int64_t axes = getAxes();
  if (axes < 1 || axes >= src.getRank())
    return emitOpError() << "axes=" << axes << " must be in [1, "
                         << src.getRank() - 1 << "]";
  int64_t kept = 1;
  for (int64_t d : src.getShape().drop_front().drop_back(axes))
    kept *= d;
  TileShape s = getShape(getSrc()), d = getShape(getDst());
  if (d.partitions != s.partitions || d.free != kept)
    return emitOpError() << "destination " << describe(d) << " must be "
                         << describe({std::nullopt, s.partitions, kept});
  if (Value scratch = getScratch()) {
    if (failed(verifyTile(*this, scratch, "scratch", true, true)))
      return failure();
    TileShape t = getShape(scratch);
    if (op != "add" || kept != 1)
      return emitOpError() << "a scratch tile is for a sum over every free "
                              "dim, not '"
                           << op << "' over " << axes << " of "
                           << src.getRank() - 1;
    if (t.partitions != s.partitions || t.free != s.free)
      return emitOpError() << "scratch " << describe(t) << " must be "
                           << describe({std::nullopt, s.partitions, s.free});
  }
  return success();
}

LogicalResult CopyOp::verify() {
  if (failed(verifyTile(*this, getSrc(), "source", true, true)) ||
      failed(verifyTile(*this, getDst(), "destination", true, true)))
    return failure();
  return verifySameShape(*this, getSrc(), "source", getDst(), "destination");
}

LogicalResult MemsetOp::verify() {
  return verifyTile(*this, getDst(), "destination", true, true);
}

LogicalResult SelectOp::verify() {
  for (auto [v, role] : {std::pair{getPred(), "predicate"},
                         {getOnTrue(), "on_true"}, {getOnFalse(), "on_false"}})
    if (failed(verifyTile(*this, v, role, true, true)) ||
        failed(verifySameShape(*this, v, role, getDst(), "destination")))
      return failure();
  return verifyTile(*this, getDst(), "destination", true, true);
}

static LogicalResult verifyCoefs(Operation *op, Value dst,
                                 ArrayRef<int64_t> coefs) {
  auto type = cast<MemRefType>(dst.getType());
  if (int64_t(coefs.size()) != type.getRank() - 1)
    return op->emitOpError() << "needs one coefficient per free dim ("
                             << type.getRank() - 1 << "), got "
                             << coefs.size();
  return success();
}

LogicalResult IotaOp::verify() {
  if (failed(verifyTile(*this, getDst(), "destination", true, false)))
    return failure();
  return verifyCoefs(*this, getDst(), getCoefs());
}

LogicalResult AffineSelectOp::verify() {
  if (failed(verifyAluName(*this, getCmp(), "comparison")))
    return failure();
  if (failed(verifyTile(*this, getSrc(), "source", true, false)) ||
      failed(verifyTile(*this, getDst(), "destination", true, false)) ||
      failed(verifySameShape(*this, getSrc(), "source", getDst(),
                             "destination")))
    return failure();
  return verifyCoefs(*this, getDst(), getCoefs());
}

// Every tile op folds memref.cast into its operands.
#define NKI_FOLD_CASTS(Op)                                                     \
  LogicalResult Op::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &) {       \
    return memref::foldMemRefCast(*this);                                      \
  }
NKI_FOLD_CASTS(DmaOp)
NKI_FOLD_CASTS(MatmulOp)
NKI_FOLD_CASTS(MatmulMxOp)
NKI_FOLD_CASTS(TransposeOp)
NKI_FOLD_CASTS(ActivationOp)
NKI_FOLD_CASTS(TensorTensorOp)
NKI_FOLD_CASTS(TensorScalarOp)
NKI_FOLD_CASTS(ReduceOp)
NKI_FOLD_CASTS(CopyOp)
NKI_FOLD_CASTS(MemsetOp)
NKI_FOLD_CASTS(SelectOp)
NKI_FOLD_CASTS(IotaOp)
NKI_FOLD_CASTS(AffineSelectOp)
#undef NKI_FOLD_CASTS

#define GET_OP_CLASSES
#include "nki/Dialect/NKI/NKIOps.cpp.inc"
