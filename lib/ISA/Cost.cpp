//===- Cost.cpp - Instruction durations (the timing model) ----------------===//
//
// The machine model's timing table, one function per engine. N, "the
// elements per partition an instruction processes", is read from:
//   matmul            src1 (moving) free size
//   transpose         P = src0's partition count (the table's max(P, 64))
//   activation        src0
//   DVE / POOL ops    src0, except memset and iota (dst, they have no input)
//   dma_copy          (descriptors; no N)
// POOL's "number of tensor inputs" counts src0/src1/src2 the opcode uses; an
// immediate or [P,1] scalar operand is not a tensor input.
//
// DMA descriptors are found without visiting every element: each side is
// contiguous within blocks of L elements (the product of its innermost dims
// that are laid out back to back), so runs can only end at multiples of
// gcd(L_src, L_dst); only those boundaries are examined.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Cost.h"

#include "OpcodeFields.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace nki::isa {

namespace {

int64_t clockMHz(const TargetDesc &t, Engine e) {
  switch (e) {
  case Engine::PE:
    return t.peClockMHz;
  case Engine::ACT:
    return t.actClockMHz;
  case Engine::DVE:
    return t.dveClockMHz;
  case Engine::POOL:
    return t.poolClockMHz;
  case Engine::DMA:
    break;
  }
  assert(false && "DMA has no clock");
  return 1;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t mainElements(const Instruction &inst) {
  if (inst.opcode == Opcode::Memset || inst.opcode == Opcode::Iota)
    return inst.dst.elementsPerPartition();
  return inst.src0.elementsPerPartition();
}

int64_t peCycles(const TargetDesc &t, const Instruction &inst,
                 EngineTimingState &state) {
  if (inst.opcode == Opcode::Transpose)
    return std::max<int64_t>(inst.src0.numPartitions, t.peTransposeMinRows);
  assert(isMatmulOpcode(inst.opcode));
  int64_t factor = inst.src0.dtype == DType::F32 ? t.peFp32Factor : 1;
  int64_t cycles = std::max(matmulShape(inst).n, t.peMinColumns) * factor;
  // matmul_mx's stationary scales load with its stationary values.
  AccessPattern scale =
      inst.opcode == Opcode::MatmulMx ? inst.src2 : AccessPattern{};
  if (!state.hasStationary || !(state.stationary == inst.src0) ||
      !(state.stationaryScale == scale))
    cycles += t.peLoadStationaryCycles * factor;
  state.hasStationary = true;
  state.stationary = inst.src0;
  state.stationaryScale = scale;
  return cycles;
}

int64_t actCycles(const TargetDesc &t, const Instruction &inst,
                  EngineTimingState &state) {
  int64_t cycles =
      t.fixedOverheadCycles +
      std::max(inst.src0.elementsPerPartition(), t.minElementCycles);
  ActTable needed = actFuncTable(inst.func);
  if (needed != ActTable::None && needed != state.loadedTable) {
    cycles += t.actTableLoadCycles;
    state.loadedTable = needed;
  }
  return cycles;
}

/// trn2's DVE fast path: every operand a 2-byte type in SBUF whose innermost
/// non-unit dim has stride 1. Scalar [P,1] operands count as operands.
bool dveFastPath(const Instruction &inst) {
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  auto ok = [](const AccessPattern &ap) {
    if (ap.memory != Memory::SBUF || dtypeBytes(ap.dtype) != 2)
      return false;
    for (int i = ap.rank - 1; i >= 0; --i)
      if (ap.dims[i].size > 1)
        return ap.dims[i].stride == 1;
    return true;
  };
  if (!ok(inst.dst) || (f.usesSrc0 && !ok(inst.src0)) ||
      (f.usesSrc1 && !ok(inst.src1)))
    return false;
  if (f.usesScalar0 && !inst.scalar0.isImmediate && !ok(inst.scalar0.ap))
    return false;
  if (f.usesScalar1 && !inst.scalar1.isImmediate && !ok(inst.scalar1.ap))
    return false;
  return true;
}

int64_t dveCycles(const TargetDesc &t, const Instruction &inst) {
  int64_t n = mainElements(inst);
  int64_t term;
  int64_t speedup = 1;
  switch (inst.opcode) {
  case Opcode::TensorTensor:
  case Opcode::Select: {
    bool psumInput =
        inst.src0.memory == Memory::PSUM || inst.src1.memory == Memory::PSUM ||
        (inst.opcode == Opcode::Select && inst.src2.memory == Memory::PSUM);
    term = std::max(psumInput ? n : 2 * n, t.minElementCycles);
    if (inst.opcode == Opcode::TensorTensor)
      speedup = 2;
    break;
  }
  case Opcode::TensorScalar:
  case Opcode::TensorCopy:
    term = std::max(n, t.minElementCycles);
    speedup = 4;
    break;
  default:
    term = std::max(n, t.minElementCycles);
    break;
  }
  if (speedup > 1 && t.dveTwoByteSpeedup && dveFastPath(inst))
    term = ceilDiv(term, speedup);
  return t.fixedOverheadCycles + term;
}

int64_t poolCycles(const TargetDesc &t, const Instruction &inst) {
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  int64_t inputs = int64_t(f.usesSrc0) + f.usesSrc1 + f.usesSrc2;
  return t.poolFixedCycles + mainElements(inst) * std::max<int64_t>(inputs, 1);
}

/// One side of a DMA, as a walk over linear element indices: partitions
/// outermost (on chip), then the free dims.
struct DmaSide {
  bool onChip;
  int64_t elemBytes;
  int64_t offset;
  int32_t startPartition;
  int rank;
  std::array<Dim, AccessPattern::kMaxDims> dims;
  int64_t perPartition; // elements in one partition's walk

  explicit DmaSide(const AccessPattern &ap)
      : onChip(ap.memory != Memory::HBM), elemBytes(dtypeBytes(ap.dtype)),
        offset(ap.offset), startPartition(ap.startPartition), rank(ap.rank),
        dims(ap.dims), perPartition(ap.elementsPerPartition()) {}

  /// Elements per block that is always contiguous: the innermost dims that
  /// continue one another (unit dims skipped), never across partitions.
  int64_t contiguousBlock() const {
    int64_t block = 1;
    for (int i = rank - 1; i >= 0; --i) {
      if (dims[i].size == 1)
        continue;
      if (dims[i].stride != block)
        break;
      block *= dims[i].size;
    }
    return block;
  }

  /// (partition, byte address) of element `e` of the walk.
  std::pair<int64_t, int64_t> address(int64_t e) const {
    int64_t partition = onChip ? startPartition + e / perPartition : 0;
    int64_t rest = onChip ? e % perPartition : e;
    int64_t elem = 0;
    for (int i = rank - 1; i >= 0; --i) {
      elem += (rest % dims[i].size) * dims[i].stride;
      rest /= dims[i].size;
    }
    return {partition, offset + elem * elemBytes};
  }

  /// Whether element `e` directly follows element `e - 1` in memory.
  bool continues(int64_t e) const {
    auto [p0, a0] = address(e - 1);
    auto [p1, a1] = address(e);
    return p0 == p1 && a1 == a0 + elemBytes;
  }
};

} // namespace

DmaDescriptorStats dmaDescriptors(const TargetDesc &target,
                                  const Instruction &inst) {
  DmaDescriptorStats stats;
  DmaSide src(inst.src0), dst(inst.dst);
  int64_t total = inst.src0.numElements();
  if (total <= 0)
    return stats;
  int64_t runBytesPerElem = std::max(src.elemBytes, dst.elemBytes);
  // A partition boundary always ends a run; make blocks divide it.
  int64_t srcBlock =
      std::gcd(src.contiguousBlock(), src.onChip ? src.perPartition : total);
  int64_t dstBlock =
      std::gcd(dst.contiguousBlock(), dst.onChip ? dst.perPartition : total);
  int64_t step = std::gcd(srcBlock, dstBlock);
  auto addRun = [&](int64_t elements) {
    int64_t bytes = elements * runBytesPerElem;
    ++stats.count;
    stats.bytes += bytes;
    stats.chargedBytes += std::max(bytes, target.dmaMinDescriptorBytes);
  };
  int64_t runStart = 0;
  for (int64_t e = step; e < total; e += step) {
    // Inside a block a side is contiguous by construction; at a block
    // boundary look at the addresses.
    bool srcContinues = e % srcBlock != 0 || src.continues(e);
    bool dstContinues = e % dstBlock != 0 || dst.continues(e);
    if (!srcContinues || !dstContinues) {
      addRun(e - runStart);
      runStart = e;
    }
  }
  addRun(total - runStart);
  return stats;
}

int64_t dmaHbmBytes(const Instruction &inst) {
  int64_t bytes = 0;
  for (const AccessPattern *ap : {&inst.src0, &inst.dst})
    if (ap->memory == Memory::HBM)
      bytes += ap->numElements() * dtypeBytes(ap->dtype);
  return bytes;
}

int64_t dmaBusyPs(const TargetDesc &target, const Instruction &inst) {
  return dmaBusyPs(target, dmaDescriptors(target, inst));
}

int64_t dmaBusyPs(const TargetDesc &target, const DmaDescriptorStats &stats) {
  return ceilDiv(stats.chargedBytes * 1000, target.dmaBytesPerNs);
}

Duration instructionDuration(const TargetDesc &target, StreamId stream,
                             const Instruction &inst,
                             EngineTimingState &state) {
  Duration d;
  if (stream.engine == Engine::DMA) {
    d.busyPs = dmaBusyPs(target, inst);
    d.completePs = d.busyPs + target.dmaCompletionLatencyPs;
    return d;
  }
  int64_t cycles = 0;
  switch (stream.engine) {
  case Engine::PE:
    cycles = peCycles(target, inst, state);
    break;
  case Engine::ACT:
    cycles = actCycles(target, inst, state);
    break;
  case Engine::DVE:
    cycles = dveCycles(target, inst);
    break;
  case Engine::POOL:
    cycles = poolCycles(target, inst);
    break;
  case Engine::DMA:
    break;
  }
  d.busyPs = cyclesToPs(cycles, clockMHz(target, stream.engine));
  d.completePs = d.busyPs;
  return d;
}

int64_t matmulFlops(const Instruction &inst) {
  if (!isMatmulOpcode(inst.opcode))
    return 0;
  MatmulShape s = matmulShape(inst);
  return 2 * s.k * s.m * s.n;
}

double matmulPeakFlops(const TargetDesc &target, const Instruction &inst) {
  if (inst.opcode == Opcode::MatmulMx)
    return target.peakPeFlops() * double(target.peMxRows);
  if (inst.src0.dtype == DType::F32)
    return target.peakPeFlops() / double(target.peFp32Factor);
  if (isFp8DType(inst.src0.dtype) && isFp8DType(inst.src1.dtype))
    return target.peakPeFlops() * double(target.peFp8Rows);
  return target.peakPeFlops();
}

} // namespace nki::isa
