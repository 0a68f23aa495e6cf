//===- Schedule.h - Streams, order and semaphores for tile ops -*- C++ -*-===//
//
// Given the lowered instructions in program order, computes their
// dependences from the bytes they touch, list-schedules them onto the
// streams with the target's costs (nki/Analysis/Scheduler.h) and plans the
// semaphores (nki/Analysis/Sync.h). Both solutions are verified before they are used.
// docs/engine-scheduling.md explains the choices.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
#define NKI_LIB_CONVERSION_TONISA_SCHEDULE_H

#include "Lowering.h"

#include "nki/ISA/Program.h"

#include "absl/status/statusor.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace nki::tonisa {

struct ScheduledStream {
  isa::StreamId id;
  /// The instructions in program order, with their waits and signals.
  std::vector<isa::Instruction> instructions;
  /// For each instruction, its index in the lowered instructions.
  std::vector<size_t> opIndex;
};

struct ScheduledProgram {
  uint32_t numSemaphores = 0;
  std::vector<ScheduledStream> streams; // used streams, in index order
  int64_t estimatedPs = 0;              // the schedule's makespan
};

/// Fails only on an internal error (a solver or verifier disagreement); the
/// message says which.
absl::StatusOr<ScheduledProgram>
scheduleProgram(const isa::TargetDesc &target, llvm::ArrayRef<LoweredInst> ops);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
