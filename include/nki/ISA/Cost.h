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
  // ACT: the loaded function table.
  ActTable loadedTable = ActTable::None;
};

struct Duration {
  int64_t busyPs = 0;     // the stream is occupied this long
  int64_t completePs = 0; // signals this long after start (DMA adds latency)
};

/// Duration of `inst` on its stream; updates `state` (stationary / table).
Duration instructionDuration(const TargetDesc &target, const Instruction &inst,
                             EngineTimingState &state);

/// DMA: the descriptors (maximal runs contiguous on both sides) of a copy,
/// as byte counts; the queue is busy for sum(max(bytes, 512)) / bandwidth.
int64_t dmaBusyPs(const TargetDesc &target, const Instruction &inst);

/// Useful FLOPs of a matmul (2*K*M*N), 0 otherwise.
int64_t matmulFlops(const Instruction &inst);

} // namespace nki::isa

#endif // NKI_ISA_COST_H
