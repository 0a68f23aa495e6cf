//===- Lowering.cpp - One nki tile op as ISA instructions -----------------===//

#include "Lowering.h"

#include "AccessPatterns.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Cost.h"
#include "nki/ISA/Verify.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/TypeSwitch.h"

#include <string>

using namespace mlir;

namespace nki::tonisa {

namespace {

/// Builds the instruction of one op; `ok` turns false once an operand failed
/// (its error is already emitted).
class InstBuilder {
public:
  // The instruction's `loc` stays empty: its nisa op carries the op's
  // location itself (LoweredInst::loc), and diagnostics here name the op.
  InstBuilder(const isa::TargetDesc &target, Operation *op)
      : target(target), op(op) {}

  void set(isa::AccessPattern &field, StringRef role, Value view,
           DimMerging merging = DimMerging::Merge,
           unsigned splitBeforeTrailing = 0) {
    if (auto ap = getAccessPattern(target, op, role, view, merging,
                                   splitBeforeTrailing))
      field = *ap;
    else
      ok = false;
  }
  /// A [P,1] tile when given, else the immediate.
  void setScalar(isa::ScalarOperand &field, StringRef role, Value tile,
                 float imm) {
    field.isImmediate = !tile;
    field.imm = imm;
    if (tile)
      set(field.ap, role, tile);
  }
  void setAlu(isa::AluOp &field, StringRef name) {
    if (std::optional<isa::AluOp> alu = isa::parseAluOp(name.str()))
      field = *alu;
    else
      fail() << "unknown ALU operation '" << name << "'";
  }
  void setAffine(int64_t offset, int64_t pcoef, ArrayRef<int64_t> coefs) {
    if (coefs.size() > inst.affine.freeCoefs.size()) {
      fail() << "has " << coefs.size() << " free coefficients; at most "
             << inst.affine.freeCoefs.size();
      return;
    }
    inst.affine.offset = offset;
    inst.affine.partitionCoef = pcoef;
    llvm::copy(coefs, inst.affine.freeCoefs.begin());
  }
  InFlightDiagnostic fail() {
    ok = false;
    return op->emitOpError();
  }

  const isa::TargetDesc &target;
  Operation *op;
  isa::Instruction inst;
  bool ok = true;
};

/// The identity activation that copies on ACT (ACT, unlike POOL, may read
/// PSUM, so it can evacuate matmul results next to DVE).
isa::Instruction copyOnAct(const isa::Instruction &copy) {
  isa::Instruction act = copy;
  act.opcode = isa::Opcode::Activation;
  act.func = isa::ActFunc::Identity;
  act.scalar0 = isa::ScalarOperand{true, 1.0f, {}};
  act.scalar1 = isa::ScalarOperand{true, 0.0f, {}};
  return act;
}

/// A tensor_scalar that is one multiply or add by an immediate or a [P,1]
/// column, a multiply then an add (x * scale + bias, a batch norm), or a
/// max with 0 (relu) is also an ACT activation with that scale and bias, so
/// the scheduler can balance DVE, POOL and ACT (row-wise kernels such as
/// layernorm are otherwise DVE-bound; convolution epilogues leave the ACT
/// idle). The ACT rounds the product and the sum as the DVE does. Same
/// operands, same accesses.
std::optional<isa::Instruction> scalarOpOnAct(const isa::Instruction &ts) {
  if (ts.opcode != isa::Opcode::TensorScalar || ts.reverse0)
    return std::nullopt;
  isa::Instruction act = ts;
  act.opcode = isa::Opcode::Activation;
  act.func = isa::ActFunc::Identity;
  act.alu0 = act.alu1 = isa::AluOp::Bypass;
  isa::ScalarOperand one{true, 1.0f, {}}, zero{true, 0.0f, {}};
  if (ts.alu1 != isa::AluOp::Bypass) {
    if (ts.alu0 != isa::AluOp::Mul || ts.alu1 != isa::AluOp::Add ||
        ts.reverse1)
      return std::nullopt;
    act.scalar0 = ts.scalar0;
    act.scalar1 = ts.scalar1;
    return act;
  }
  switch (ts.alu0) {
  case isa::AluOp::Max:
    if (!ts.scalar0.isImmediate || ts.scalar0.imm != 0.0f)
      return std::nullopt;
    act.func = isa::ActFunc::Relu;
    act.scalar0 = one;
    act.scalar1 = zero;
    return act;
  case isa::AluOp::Mul:
    act.scalar0 = ts.scalar0;
    act.scalar1 = zero;
    return act;
  case isa::AluOp::Add:
    act.scalar0 = one;
    act.scalar1 = ts.scalar0;
    return act;
  case isa::AluOp::Sub:
    if (!ts.scalar0.isImmediate)
      return std::nullopt;
    act.scalar0 = one;
    act.scalar1 = isa::ScalarOperand{true, -ts.scalar0.imm, {}};
    return act;
  default:
    return std::nullopt;
  }
}

/// An identity activation (x * scale + bias) or a relu of x + bias
/// without an accumulator is also a DVE tensor_scalar, so the scheduler can
/// balance the ACT and the DVE (convolutions' PSUM evacuations leave the
/// ACT the busiest engine of MobileNetV2's expansions; in SBUF a bf16 pass
/// runs at the DVE's 2-byte rate). Both round the product, then the sum;
/// same operands, same accesses.
std::optional<isa::Instruction> activationOnDve(const isa::Instruction &act) {
  if (act.opcode != isa::Opcode::Activation || act.hasAccum)
    return std::nullopt;
  bool unitScale = act.scalar0.isImmediate && act.scalar0.imm == 1.0f;
  isa::Instruction ts = act;
  ts.opcode = isa::Opcode::TensorScalar;
  ts.func = isa::ActFunc::Identity;
  ts.reverse0 = ts.reverse1 = false;
  bool relu = act.func == isa::ActFunc::Relu;
  if (!relu && act.func != isa::ActFunc::Identity)
    return std::nullopt;
  if (unitScale) {
    // x + bias, then max with 0 for a relu.
    ts.alu0 = isa::AluOp::Add;
    ts.scalar0 = act.scalar1;
    ts.alu1 = relu ? isa::AluOp::Max : isa::AluOp::Bypass;
    ts.scalar1 = isa::ScalarOperand{true, 0.0f, {}};
    return ts;
  }
  if (relu) // relu(x * scale + bias) is three ALU ops
    return std::nullopt;
  ts.alu0 = isa::AluOp::Mul;
  ts.alu1 = isa::AluOp::Add;
  return ts; // scalar0 the scale, scalar1 the bias, as the ACT's
}

/// DMAs within SBUF are split into transfers of this many partitions
/// (splitDma). 16 (as fine as dependences are tracked) made the
/// descriptor-bound transfers of EfficientNet-B0 3 % faster for 50 % more
/// instructions; 8 moved the benchmark's rows by -1 to +1 %. Transfers
/// from or to HBM are split finer (hbmPartitionBlock).
constexpr int32_t kPartitionBlock = 32;
/// Dependences are tracked per block of this many partitions, and within a
/// block per partition (the access's lanes, Dependences.h): tiles in
/// disjoint partitions never depend on each other (the 3-partition loads
/// of a stem's bands packed side by side were ordered one after another
/// when a whole block was one memory), yet an operand is at most eight
/// intervals.
constexpr int32_t kDependenceBlock = 16;
static_assert(kDependenceBlock <= 16, "a lane per partition of a block");
/// Memory ids: HBM, then SBUF blocks, then PSUM blocks.
constexpr uint32_t kMaxBlocks = 128 / kDependenceBlock;
/// An HBM access is at most this many intervals (addAccess).
constexpr int64_t kMaxHbmPieces = 128;
/// An SBUF or PSUM access is at most this many intervals per partition
/// block (addAccess).
constexpr int64_t kMaxOnChipPieces = 16;

/// The byte intervals an access pattern touches: one per index of its outer
/// dims whose steps leave a gap after the bytes below them, up to
/// `maxPieces`; else its hull. Calls f(begin, end) for each; none when out
/// of bounds.
template <typename F>
void forEachPiece(const isa::AccessPattern &ap, int64_t maxPieces, F &&f) {
  int64_t eb = isa::dtypeBytes(ap.dtype);
  int64_t lo = 0, hi = 0; // element offsets of the first and last element
  for (int d = 0; d < ap.rank; ++d) {
    int64_t span = ap.dims[d].stride * (ap.dims[d].size - 1);
    (span < 0 ? lo : hi) += span;
  }
  int64_t begin = ap.offset + lo * eb, end = ap.offset + (hi + 1) * eb;
  if (begin < 0 || end <= begin)
    return; // out of bounds: the ISA verifier rejected it already
  auto spanFrom = [&](int from) {
    int64_t span = 0;
    for (int d = from; d < ap.rank; ++d)
      span += ap.dims[d].stride * (ap.dims[d].size - 1);
    return span;
  };
  int split = 0;
  int64_t pieces = 1;
  for (; lo == 0 && split < ap.rank; ++split) {
    const isa::Dim &dim = ap.dims[split];
    if ((dim.size > 1 && dim.stride <= spanFrom(split + 1) + 1) ||
        pieces * dim.size > maxPieces)
      break;
    pieces *= dim.size;
  }
  if (split == 0) {
    f(begin, end);
    return;
  }
  // The dims before `split`, walked as an odometer; each piece spans the
  // `below + 1` elements of the dims after them.
  int64_t below = spanFrom(split);
  std::array<int64_t, isa::AccessPattern::kMaxDims> index{};
  for (int64_t p = 0; p < pieces; ++p) {
    int64_t at = ap.offset;
    for (int d = 0; d < split; ++d)
      at += index[d] * ap.dims[d].stride * eb;
    f(at, at + (below + 1) * eb);
    for (int d = split - 1; d >= 0 && ++index[d] == ap.dims[d].size; --d)
      index[d] = 0;
  }
}

/// `ap`'s intervals, read or written; in SBUF and PSUM split into pieces only
/// when `pieces` (a DMA's operand).
void addAccess(std::vector<sched::MemoryAccess> &out,
               const isa::AccessPattern &ap, bool isWrite,
               bool pieces = false) {
  if (ap.memory == isa::Memory::HBM) {
    // Any gap splits (a band of rows of several channels): the bounding
    // interval of one band would overlap every other band's and order all
    // of a tensor's stores one after another. A dim whose step just clears
    // the bytes below it (whole rows) is contiguous: one interval, not a
    // run per row for the analysis to keep.
    forEachPiece(ap, kMaxHbmPieces, [&](int64_t begin, int64_t end) {
      out.push_back(
          sched::MemoryAccess{0, uint64_t(begin), uint64_t(end), isWrite});
    });
    return;
  }
  uint32_t base = ap.memory == isa::Memory::SBUF ? 1 : 1 + kMaxBlocks;
  int32_t first = ap.startPartition / kDependenceBlock;
  int32_t last = (ap.startPartition + ap.numPartitions - 1) / kDependenceBlock;
  // Partitions beyond the machine's are rejected by the ISA verifier; keep
  // their ids apart from the next memory's anyway.
  int32_t p0 = ap.startPartition, p1 = ap.startPartition + ap.numPartitions;
  // On chip only a DMA's rows split (every q-th row of stacked rows, copied
  // block by block: their hulls interleave and had ordered a layer's row
  // copies one after another); the compute instructions, most of the
  // program, keep one interval (their pieces cost compile time and
  // bought nothing).
  forEachPiece(
      ap, pieces ? kMaxOnChipPieces : 1, [&](int64_t begin, int64_t end) {
        for (int32_t b = std::max(first, 0);
             b <= std::min<int32_t>(last, kMaxBlocks - 1); ++b) {
          int32_t lo = std::max(p0 - b * kDependenceBlock, 0);
          int32_t hi = std::min(p1 - b * kDependenceBlock, kDependenceBlock);
          uint16_t lanes = uint16_t(((1u << hi) - 1) & ~((1u << lo) - 1));
          out.push_back(sched::MemoryAccess{base + uint32_t(b), uint64_t(begin),
                                            uint64_t(end), isWrite, lanes});
        }
      });
}

/// A transfer that costs a queue at least this much (each partition's run
/// at least a descriptor) between a tile of more than one partition block
/// (starting at a block boundary) and an HBM window, or within SBUF, is
/// split into one transfer per block (the last may be shorter), which the
/// scheduler spreads over queues: each queue moves a part of the bytes,
/// and the completion latencies overlap.
constexpr int64_t kMinSplitDmaBytes = 32 * 1024;

/// The partitions of one part of a transfer from or to HBM: as many as
/// let a tile of every partition spread over every queue (8 on the
/// targets of the machine model). Blocks of 32 left four queues to a
/// transfer that the next step waits for: BERT's [128, 3,072] f32 bias
/// row, broadcast to every partition, took 17.1 us on each of four queues
/// on the layer's critical path (182.3 -> 176.2 us under auto-cast with
/// blocks of 8, the text recogniser at batch 8 254.4 -> 235.6; blocks of
/// 4 gained at most 1 % more for a third more transfers).
static int32_t hbmPartitionBlock(const isa::TargetDesc &target) {
  return std::max<int32_t>(1, target.numPartitions / target.numDmaQueues);
}

/// A transfer within SBUF that keeps a queue busy longer than this is cut
/// along its rows too (row-sized descriptors: band-packed tiles moved
/// onto or off their partitions, concat parts with a border), into pieces
/// of about kRowPieceBusyPs each, at most kMaxRowPieces.
constexpr int64_t kMaxRowBusyPs = 1'000'000;
constexpr int64_t kRowPieceBusyPs = 500'000;
constexpr int64_t kMaxRowPieces = 8;

/// Elements [begin, begin + count) of each partition of `ap`, when they are
/// whole blocks of its outermost free dim.
std::optional<isa::AccessPattern> rowRange(const isa::AccessPattern &ap,
                                           int64_t begin, int64_t count) {
  if (ap.rank < 1)
    return std::nullopt;
  int64_t inner = 1;
  for (int d = 1; d < ap.rank; ++d)
    inner *= ap.dims[d].size;
  if (begin % inner || count % inner)
    return std::nullopt;
  isa::AccessPattern r = ap;
  r.dims[0].size = count / inner;
  r.offset += begin / inner * ap.dims[0].stride * isa::dtypeBytes(ap.dtype);
  return r;
}

/// `inst` cut into `n` pieces of whole outer rows of both sides, or
/// nothing when its patterns cannot be cut so.
SmallVector<isa::Instruction, 4> cutRows(const isa::Instruction &inst,
                                         int64_t n) {
  SmallVector<isa::Instruction, 4> pieces;
  int64_t rows = inst.dst.rank ? inst.dst.dims[0].size : 1;
  int64_t inner = inst.dst.elementsPerPartition() / rows;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r0 = rows * i / n, r1 = rows * (i + 1) / n;
    std::optional<isa::AccessPattern> dst =
        rowRange(inst.dst, r0 * inner, (r1 - r0) * inner);
    std::optional<isa::AccessPattern> src =
        rowRange(inst.src0, r0 * inner, (r1 - r0) * inner);
    if (!dst || !src)
      return {};
    isa::Instruction piece = inst;
    piece.dst = *dst;
    piece.src0 = *src;
    pieces.push_back(piece);
  }
  return pieces;
}

/// A transfer within SBUF cut into pieces of whole outer rows of both
/// sides when it costs its queue more than kMaxRowBusyPs, else itself.
/// Never into more pieces than keep its queue time: cutting a contiguous
/// run below a descriptor's minimum (a [32, 260] f32 copy in three pieces
/// of 87 elements, 348 bytes each paid as 512) costs more than it spreads.
SmallVector<isa::Instruction, 4> splitRows(const isa::Instruction &inst,
                                           const isa::TargetDesc &target) {
  isa::DmaDescriptorStats stats = isa::dmaDescriptors(target, inst);
  int64_t busy = isa::dmaBusyPs(target, stats);
  int64_t rows = inst.dst.rank ? inst.dst.dims[0].size : 1;
  int64_t n = std::min(
      {(busy + kRowPieceBusyPs - 1) / kRowPieceBusyPs, kMaxRowPieces, rows});
  int64_t whole = stats.chargedBytes;
  for (; busy > kMaxRowBusyPs && n >= 2; --n) {
    SmallVector<isa::Instruction, 4> pieces = cutRows(inst, n);
    if (pieces.empty())
      break;
    int64_t charged = 0;
    for (const isa::Instruction &piece : pieces)
      charged += isa::dmaDescriptors(target, piece).chargedBytes;
    if (charged <= whole)
      return pieces;
  }
  return {inst};
}

/// `inst` as transfers of one partition block each (of its destination,
/// for one within SBUF, then in pieces of rows when that is still dear),
/// or just `inst` when it is small or its HBM side cannot be cut along the
/// partitions (the HBM
/// pattern must step over the tile's partitions with its outermost dim, or
/// be one dim covering them all).
SmallVector<isa::Instruction, 4> splitDma(const isa::Instruction &inst,
                                          const isa::TargetDesc &target) {
  SmallVector<isa::Instruction, 4> parts;
  bool dstOnChip = inst.dst.memory != isa::Memory::HBM;
  bool srcOnChip = inst.src0.memory != isa::Memory::HBM;
  // Within HBM (a reshape or concat that bufferization left as a copy):
  // pieces of whole rows, as within SBUF.
  if (!dstOnChip && !srcOnChip)
    return splitRows(inst, target);
  const isa::AccessPattern &chip = dstOnChip ? inst.dst : inst.src0;
  int64_t p = chip.numPartitions, f = chip.elementsPerPartition();
  // What the transfer costs a queue: a descriptor per partition at least
  // (a [C, 1] column is C descriptors of 4 bytes, each paid as 512).
  int64_t run = f * isa::dtypeBytes(chip.dtype);
  int64_t cost = p * std::max<int64_t>(run, target.dmaMinDescriptorBytes);
  // Within SBUF (partitions moved to others): both sides cut alike.
  if (dstOnChip && srcOnChip) {
    int64_t block = kPartitionBlock;
    if (inst.src0.numPartitions != p || p <= block ||
        cost < kMinSplitDmaBytes)
      return splitRows(inst, target);
    for (int64_t first = 0; first < p; first += block) {
      isa::Instruction part = inst;
      for (isa::AccessPattern *ap : {&part.dst, &part.src0}) {
        ap->startPartition += int32_t(first);
        ap->numPartitions = int32_t(std::min<int64_t>(block, p - first));
      }
      parts.append(splitRows(part, target));
    }
    return parts;
  }
  // Between HBM and a tile.
  const isa::AccessPattern &hbm = dstOnChip ? inst.src0 : inst.dst;
  int64_t block = hbmPartitionBlock(target);
  if (chip.startPartition % block || p <= block || cost < kMinSplitDmaBytes ||
      hbm.rank < 1) {
    parts.push_back(inst);
    return parts;
  }
  int64_t inner = 1;
  for (int d = 1; d < hbm.rank; ++d)
    inner *= hbm.dims[d].size;
  // The HBM dims[0] elements that one partition occupies.
  isa::Dim outer = hbm.dims[0];
  int64_t perPartition;
  if (hbm.rank == 1 && outer.size == p * f)
    perPartition = f;
  else if (outer.size == p && inner == f)
    perPartition = 1;
  else {
    parts.push_back(inst);
    return parts;
  }
  // Blocks of `block` partitions; the last one may be shorter.
  for (int64_t first = 0; first < p; first += block) {
    int64_t rows = std::min<int64_t>(block, p - first);
    isa::Instruction part = inst;
    isa::AccessPattern &partChip = dstOnChip ? part.dst : part.src0;
    isa::AccessPattern &partHbm = dstOnChip ? part.src0 : part.dst;
    partChip.startPartition += int32_t(first);
    partChip.numPartitions = int32_t(rows);
    partHbm.dims[0].size = rows * perPartition;
    partHbm.offset +=
        first * perPartition * outer.stride * isa::dtypeBytes(hbm.dtype);
    parts.push_back(std::move(part));
  }
  return parts;
}

} // namespace

const std::vector<sched::MemoryAccess> &
accessesOf(const LoweredInst &op, std::vector<sched::MemoryAccess> &scratch) {
  if (!op.accessesFromForm)
    return op.accesses;
  scratch = getAccesses(op.forms.front().unpack());
  return scratch;
}

std::vector<sched::MemoryAccess> getAccesses(const isa::Instruction &inst) {
  std::vector<sched::MemoryAccess> out;
  bool dma = inst.opcode == isa::Opcode::DmaCopy;
  auto read = [&](const isa::AccessPattern &ap) {
    addAccess(out, ap, false, dma);
  };
  auto readScalar = [&](const isa::ScalarOperand &s) {
    if (!s.isImmediate)
      read(s.ap);
  };
  using isa::Opcode;
  switch (inst.opcode) {
  case Opcode::Matmul:
    read(inst.src0);
    read(inst.src1);
    if (!inst.start)
      read(inst.dst); // accumulates into it
    break;
  case Opcode::MatmulMx:
    read(inst.src0);
    read(inst.src1);
    read(inst.src2);
    read(inst.src3);
    if (!inst.start)
      read(inst.dst);
    break;
  case Opcode::Activation:
    read(inst.src0);
    readScalar(inst.scalar0);
    readScalar(inst.scalar1);
    if (inst.hasAccum)
      addAccess(out, inst.accum, true);
    break;
  case Opcode::TensorTensor:
    read(inst.src0);
    read(inst.src1);
    break;
  case Opcode::TensorScalar:
    read(inst.src0);
    readScalar(inst.scalar0);
    readScalar(inst.scalar1);
    break;
  case Opcode::Select:
    read(inst.src0);
    read(inst.src1);
    read(inst.src2);
    break;
  case Opcode::Memset:
  case Opcode::Iota:
    break;
  case Opcode::Transpose:
  case Opcode::TensorReduce:
  case Opcode::TensorCopy:
  case Opcode::Transpose32:
  case Opcode::AffineSelect:
  case Opcode::DmaCopy:
    read(inst.src0);
    break;
  }
  addAccess(out, inst.dst, true, dma);
  // Kept for every instruction until the dependences are computed: without
  // the slack of its growth (up to 128 row intervals per HBM operand).
  out.shrink_to_fit();
  return out;
}

LogicalResult lowerTileOp(const isa::TargetDesc &target, Operation *op,
                          std::vector<LoweredInst> &out) {
  using isa::Opcode;
  InstBuilder b(target, op);
  isa::Instruction &inst = b.inst;
  // Streams that may run the op, most preferred first (the first one's
  // verifier message is reported when none accepts it).
  SmallVector<isa::Engine, 3> engines;
  bool alsoOnAct = false;
  std::optional<isa::Instruction> onAct; // another form on the ACT

  bool known =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case([&](tile::DmaOp o) {
            inst.opcode = Opcode::DmaCopy;
            b.set(inst.src0, "src", o.getSrc());
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DMA};
            return true;
          })
          .Case([&](tile::MatmulOp o) {
            inst.opcode = Opcode::Matmul;
            // A double row's innermost (row) dim stays its own dim.
            inst.rows = uint8_t(o.getRows());
            unsigned rowDims = inst.rows > 1 ? 1 : 0;
            b.set(inst.src0, "stationary", o.getStationary(), DimMerging::Merge,
                  rowDims);
            b.set(inst.src1, "moving", o.getMoving(), DimMerging::Merge,
                  rowDims);
            b.set(inst.dst, "acc", o.getAcc());
            inst.start = !o.getAccumulate();
            engines = {isa::Engine::PE};
            return true;
          })
          .Case([&](tile::MatmulMxOp o) {
            inst.opcode = Opcode::MatmulMx;
            // The quad's innermost (row) dim stays its own dim.
            b.set(inst.src0, "stationary", o.getStationary(), DimMerging::Merge,
                  1);
            b.set(inst.src1, "moving", o.getMoving(), DimMerging::Merge, 1);
            b.set(inst.src2, "stationary_scale", o.getStationaryScale());
            b.set(inst.src3, "moving_scale", o.getMovingScale());
            b.set(inst.dst, "acc", o.getAcc());
            inst.start = !o.getAccumulate();
            engines = {isa::Engine::PE};
            return true;
          })
          .Case([&](tile::TransposeOp o) {
            inst.opcode = Opcode::Transpose;
            b.set(inst.src0, "src", o.getSrc());
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::PE};
            return true;
          })
          .Case([&](tile::ActivationOp o) {
            inst.opcode = Opcode::Activation;
            if (std::optional<isa::ActFunc> f =
                    isa::parseActFunc(o.getFunc().str()))
              inst.func = *f;
            else
              b.fail() << "unknown activation function '" << o.getFunc() << "'";
            b.set(inst.src0, "src", o.getSrc());
            b.set(inst.dst, "dst", o.getDst());
            b.setScalar(inst.scalar0, "scale", o.getScaleTile(),
                        o.getScale().convertToFloat());
            b.setScalar(inst.scalar1, "bias", o.getBiasTile(),
                        o.getBias().convertToFloat());
            if (Value accum = o.getAccum()) {
              inst.hasAccum = true;
              b.set(inst.accum, "accum", accum);
            }
            engines = {isa::Engine::ACT};
            return true;
          })
          .Case([&](tile::TensorTensorOp o) {
            inst.opcode = Opcode::TensorTensor;
            b.setAlu(inst.alu0, o.getOp());
            b.set(inst.src0, "lhs", o.getLhs());
            b.set(inst.src1, "rhs", o.getRhs());
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DVE, isa::Engine::POOL};
            return true;
          })
          .Case([&](tile::TensorScalarOp o) {
            inst.opcode = Opcode::TensorScalar;
            b.set(inst.src0, "src", o.getSrc());
            b.set(inst.dst, "dst", o.getDst());
            b.setAlu(inst.alu0, o.getOp0());
            b.setAlu(inst.alu1, o.getOp1());
            b.setScalar(inst.scalar0, "s0", o.getScalar0(),
                        o.getImm0().convertToFloat());
            b.setScalar(inst.scalar1, "s1", o.getScalar1(),
                        o.getImm1().convertToFloat());
            inst.reverse0 = o.getReverse0();
            inst.reverse1 = o.getReverse1();
            engines = {isa::Engine::DVE, isa::Engine::POOL};
            return true;
          })
          .Case([&](tile::ReduceOp o) {
            inst.opcode = Opcode::TensorReduce;
            b.setAlu(inst.alu0, o.getOp());
            int64_t axes = o.getAxes();
            unsigned reduced = 0;
            if (axes < 1 || axes > 4) {
              b.fail() << "reduces " << axes << " axes; 1 to 4 are supported";
            } else if (auto ap = getAccessPattern(target, op, "src", o.getSrc(),
                                                  DimMerging::Merge,
                                                  unsigned(axes), &reduced)) {
              inst.src0 = *ap;
              inst.reduceAxes = uint8_t(reduced);
            } else {
              b.ok = false;
            }
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DVE};
            if (Value scratch = o.getScratch()) {
              // Or on the ACT: identity into the scratch tile, the sum
              // from its accumulator (the verifier checked the shapes).
              isa::Instruction act;
              act.opcode = Opcode::Activation;
              act.func = isa::ActFunc::Identity;
              act.src0 = inst.src0;
              b.set(act.dst, "scratch", scratch);
              act.scalar0 = isa::ScalarOperand{true, 1.0f, {}};
              act.scalar1 = isa::ScalarOperand{true, 0.0f, {}};
              act.hasAccum = true;
              act.accum = inst.dst;
              onAct = act;
            }
            return true;
          })
          .Case([&](tile::CopyOp o) {
            inst.opcode = Opcode::TensorCopy;
            b.set(inst.src0, "src", o.getSrc());
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DVE, isa::Engine::POOL};
            alsoOnAct = !o.getExact();
            return true;
          })
          .Case([&](tile::MemsetOp o) {
            inst.opcode = Opcode::Memset;
            inst.scalar0.imm = o.getValue().convertToFloat();
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DVE, isa::Engine::POOL};
            return true;
          })
          .Case([&](tile::SelectOp o) {
            inst.opcode = Opcode::Select;
            b.set(inst.src0, "pred", o.getPred());
            b.set(inst.src1, "on_true", o.getOnTrue());
            b.set(inst.src2, "on_false", o.getOnFalse());
            b.set(inst.dst, "dst", o.getDst());
            engines = {isa::Engine::DVE};
            return true;
          })
          .Case([&](tile::IotaOp o) {
            inst.opcode = Opcode::Iota;
            // The coefficients index the free dims as written.
            b.set(inst.dst, "dst", o.getDst(), DimMerging::Keep);
            b.setAffine(o.getOffset(), o.getPcoef(), o.getCoefs());
            engines = {isa::Engine::POOL};
            return true;
          })
          .Case([&](tile::AffineSelectOp o) {
            inst.opcode = Opcode::AffineSelect;
            b.set(inst.src0, "src", o.getSrc(), DimMerging::Keep);
            b.set(inst.dst, "dst", o.getDst(), DimMerging::Keep);
            b.setAlu(inst.alu0, o.getCmp());
            inst.scalar0.imm = o.getFill().convertToFloat();
            b.setAffine(o.getOffset(), o.getPcoef(), o.getCoefs());
            engines = {isa::Engine::POOL};
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!known)
    return op->emitOpError() << "has no machine instruction (nki-schedule "
                                "expects straight-line tile code)";
  if (!b.ok)
    return failure();

  std::string rejected;
  LoweredInst lowered;
  lowered.loc = op->getLoc();
  // Offers `form` on `streams`, those the ISA's checks accept; a form no
  // stream accepts is dropped.
  auto tryForm = [&](isa::Instruction form,
                     ArrayRef<isa::StreamId> streams) {
    auto index = uint8_t(lowered.forms.size());
    size_t before = lowered.variants.size();
    for (isa::StreamId stream : streams) {
      absl::Status status =
          isa::verifyInstruction(target, stream, form, /*numSemaphores=*/0);
      if (status.ok()) {
        lowered.variants.push_back(Variant{stream, index});
        continue;
      }
      if (!rejected.empty())
        rejected += "; ";
      rejected +=
          isa::streamName(stream) + ": " + std::string(status.message());
    }
    if (lowered.variants.size() > before)
      lowered.forms.emplace_back(form);
  };
  // An engine the kernel chose (nki.engine) leaves only the forms on it.
  std::optional<isa::Engine> pinned;
  if (Attribute attr = op->getAttr(tile::kEngineAttr)) {
    auto name = dyn_cast<StringAttr>(attr);
    std::optional<isa::Engine> engine;
    if (name && name.getValue() == "act")
      engine = isa::Engine::ACT;
    else if (name && name.getValue() == "dve")
      engine = isa::Engine::DVE;
    else if (name && name.getValue() == "pool")
      engine = isa::Engine::POOL;
    if (!engine)
      return op->emitOpError() << "has '" << tile::kEngineAttr << "' = " << attr
                               << "; expected \"act\", \"dve\" or \"pool\"";
    bool actForm =
        alsoOnAct || onAct.has_value() || scalarOpOnAct(inst).has_value();
    if (!llvm::is_contained(engines, *engine) &&
        !(*engine == isa::Engine::ACT && actForm))
      return op->emitOpError() << "cannot run on the " << name.getValue()
                               << " ('" << tile::kEngineAttr << "')";
    pinned = engine;
  }
  if (engines.front() == isa::Engine::DMA) {
    // The queues are identical: verify each transfer once, then offer all.
    bool ok = true;
    for (isa::Instruction &part : splitDma(inst, target)) {
      lowered.forms.clear();
      lowered.variants.clear();
      // A transfer's accesses are its form's, made when they are needed.
      lowered.accesses.clear();
      lowered.accessesFromForm = true;
      tryForm(std::move(part), {isa::StreamId{isa::Engine::DMA, 0}});
      if (lowered.variants.empty()) {
        ok = false;
        break;
      }
      for (int q = 1; q < target.numDmaQueues; ++q)
        lowered.variants.push_back(
            Variant{isa::StreamId{isa::Engine::DMA, uint8_t(q)}, 0});
      // Moved: the next part refills every field.
      out.push_back(std::move(lowered));
    }
    if (ok)
      return success();
  } else {
    if (pinned) {
      llvm::erase_if(engines, [&](isa::Engine e) { return e != *pinned; });
      if (*pinned != isa::Engine::ACT) {
        alsoOnAct = false;
        onAct.reset();
      }
    }
    SmallVector<isa::StreamId, 2> streams;
    for (isa::Engine engine : engines)
      streams.push_back(isa::StreamId{engine, 0});
    tryForm(inst, streams);
    // When a stream took `inst`, it is forms[0] and its accesses are the
    // instruction's, made again when needed; else they are stored, as when
    // the ACT form also writes a scratch tile (whichever variant runs, that
    // write is the instruction's too).
    lowered.accessesFromForm = !lowered.variants.empty() && !onAct;
    if (!lowered.accessesFromForm) {
      lowered.accesses = getAccesses(inst);
      if (onAct)
        addAccess(lowered.accesses, onAct->dst, true);
    }
    isa::StreamId act{isa::Engine::ACT, 0};
    if (alsoOnAct)
      tryForm(copyOnAct(inst), act);
    if (std::optional<isa::Instruction> scalar =
            pinned && *pinned != isa::Engine::ACT ? std::nullopt
                                                  : scalarOpOnAct(inst))
      tryForm(std::move(*scalar), act);
    if (onAct)
      tryForm(std::move(*onAct), act);
    if (std::optional<isa::Instruction> ts =
            pinned ? std::nullopt : activationOnDve(inst))
      tryForm(std::move(*ts), isa::StreamId{isa::Engine::DVE, 0});
    if (!lowered.variants.empty()) {
      out.push_back(std::move(lowered));
      return success();
    }
  }
  return op->emitOpError() << "cannot run on any engine (a compiler bug or an "
                              "unsupported shape): "
                           << rejected;
}

} // namespace nki::tonisa
