//===- Schedule.h - Streams, order and semaphores for tile ops -*- C++ -*-===//
//
// Given the lowered instructions in program order: their dependences from
// the bytes they touch, the list-scheduling problem onto the streams with
// the target's costs (nki/Analysis/Scheduler.h; nki-schedule solves it,
// nki-to-nisa verifies the schedule it is given against it), and the
// semaphores for a schedule (nki/Analysis/Sync.h), verified before use.
// docs/engine-scheduling.md explains the choices.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
#define NKI_LIB_CONVERSION_TONISA_SCHEDULE_H

#include "Lowering.h"

#include "nki/Analysis/Dependences.h"
#include "nki/Analysis/Scheduler.h"
#include "nki/ISA/Program.h"

#include "absl/status/statusor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

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
};

/// The attributes nki-schedule writes on each tile op and nki-to-nisa reads:
/// per instruction the op lowers to, the stream that runs it (an array of
/// stream names) and its estimated start time in picoseconds (the order of
/// the stream's instructions).
inline constexpr llvm::StringLiteral kStreamsAttr = "nki.streams";
inline constexpr llvm::StringLiteral kStartAttr = "nki.start_ps";
/// On the function: the estimated end of the schedule in picoseconds.
inline constexpr llvm::StringLiteral kMakespanAttr = "nki.makespan_ps";

/// The dependences between the lowered instructions (in program order)
/// from the bytes each reads and writes.
std::vector<sched::Dependence>
computeOpDependences(llvm::ArrayRef<LoweredInst> ops);

/// The list-scheduling problem of the lowered instructions: task i is
/// ops[i], resource r the stream with dense index r, each variant an option
/// costed with the target's tables; the PE keeps program order.
sched::SchedulingProblem
buildSchedulingProblem(const isa::TargetDesc &target,
                       llvm::ArrayRef<LoweredInst> ops,
                       llvm::ArrayRef<sched::Dependence> deps);

/// Semaphores for a verified `schedule` of `problem`, and the final
/// instructions per stream. Fails only on an internal error (a solver or
/// verifier disagreement); the message says which.
absl::StatusOr<ScheduledProgram> synchronizeProgram(
    llvm::ArrayRef<LoweredInst> ops, llvm::ArrayRef<sched::Dependence> deps,
    const sched::SchedulingProblem &problem, const sched::Schedule &schedule);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
