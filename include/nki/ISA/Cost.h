//===- Cost.h - Instruction durations (the timing model) -------*- C++ -*-===//
//
// The machine model's timing table as functions. The simulator charges these
// durations; the compiler's scheduler uses the same numbers as its costs.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_COST_H
#define NKI_ISA_COST_H

#include "nki/ISA/Instruction.h"
#include "nki/ISA/Target.h"

#include <cstdint>

namespace nki::isa {

/// State a stream carries between instructions that changes durations.
struct EngineTimingState {
  // PE: the previous matmul's stationary operand (LoadStationary elision).
  bool hasStationary = false;
  AccessPattern stationary;
  AccessPattern stationaryScale; // matmul_mx's; unused (default) for matmul
  // ACT: the loaded function table.
  ActTable loadedTable = ActTable::None;
};

struct Duration {
  int64_t busyPs = 0;     // the stream is occupied this long
  int64_t completePs = 0; // signals this long after start (DMA adds latency)
};

/// Duration of `inst` on `stream`; updates `state` (stationary / table).
/// N, the elements per partition, is read from the opcode's main operand
/// (docs/isa.md, "Timing", lists which). The stream is needed because tensor_tensor, tensor_scalar, tensor_copy
/// and memset run on DVE or POOL with different timing. `inst` must have
/// passed verifyInstruction.
Duration instructionDuration(const TargetDesc &target, StreamId stream,
                             const Instruction &inst,
                             EngineTimingState &state);

/// DMA descriptors of a copy: maximal runs of elements contiguous on both
/// sides (an SBUF partition boundary always ends a run). A run's bytes are
/// its element count times the wider of the two dtypes.
struct DmaDescriptorStats {
  int64_t count = 0;        // descriptors
  int64_t bytes = 0;        // sum of descriptor bytes
  int64_t chargedBytes = 0; // sum of max(bytes, dmaMinDescriptorBytes)
};
DmaDescriptorStats dmaDescriptors(const TargetDesc &target,
                                  const Instruction &inst);

/// Bytes a copy reads from and writes to HBM: each HBM side's elements times
/// its dtype width (an HBM-to-HBM copy counts both, an on-chip one none).
int64_t dmaHbmBytes(const Instruction &inst);

/// DMA: the queue is busy for ceil(chargedBytes * 1000 / dmaBytesPerNs) ps.
int64_t dmaBusyPs(const TargetDesc &target, const Instruction &inst);
int64_t dmaBusyPs(const TargetDesc &target, const DmaDescriptorStats &stats);

/// Useful FLOPs of a matmul (2*K*M*N), 0 otherwise.
int64_t matmulFlops(const Instruction &inst);

/// The peak FLOP/s of a matmul's input types on `target`: fp32 at
/// 1/peFp32Factor of the 2-byte peak, fp8 (both inputs) at peFp8Rows times
/// it, whether or not this matmul uses the double row; matmul_mx at
/// peMxRows times it.
double matmulPeakFlops(const TargetDesc &target, const Instruction &inst);

} // namespace nki::isa

#endif // NKI_ISA_COST_H
