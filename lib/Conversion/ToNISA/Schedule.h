//===- Schedule.h - Streams, order and semaphores for tile ops -*- C++ -*-===//
//
// Given the lowered instructions in program order: their dependences from
// the bytes they touch and the list-scheduling problem onto the streams
// with the target's costs (nki/Analysis/Scheduler.h; nki-schedule solves
// it). Given instructions on streams: the semaphores that order their
// dependences (nki/Analysis/Sync.h; nki-synchronize), verified before use.
// docs/engine-scheduling.md explains the choices.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
#define NKI_LIB_CONVERSION_TONISA_SCHEDULE_H

#include "Lowering.h"

#include "nki/Analysis/Dependences.h"
#include "nki/Analysis/Scheduler.h"
#include "nki/Dialect/NISA/NISA.h"

#include "absl/status/statusor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace nki::tonisa {

using nisa::kMakespanAttr;
using nisa::kSeqAttr;

/// The dependences between the lowered instructions (in program order)
/// from the bytes each reads and writes (accessesOf).
std::vector<sched::Dependence>
computeOpDependences(llvm::ArrayRef<LoweredInst> ops);

/// The list-scheduling problem of the lowered instructions: task i is
/// ops[i], resource r the stream with dense index r, each variant an option
/// costed with the target's tables; the PE keeps program order.
sched::SchedulingProblem
buildSchedulingProblem(const isa::TargetDesc &target,
                       llvm::ArrayRef<LoweredInst> ops,
                       llvm::ArrayRef<sched::Dependence> deps);

/// Semaphores for streams that run `order[s]` (instruction ids, numbered
/// in program order) in that order, so that every dependence of `deps` is
/// ordered: across streams and between two transfers of one DMA queue.
/// The plan is verified race- and deadlock-free. Fails when the order
/// breaks a dependence inside a stream or with a cycle (the message says
/// which), or on an internal error.
absl::StatusOr<sched::SyncPlan>
planSemaphores(std::vector<std::vector<sched::InstrId>> order,
               llvm::ArrayRef<sched::Dependence> deps);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_SCHEDULE_H
