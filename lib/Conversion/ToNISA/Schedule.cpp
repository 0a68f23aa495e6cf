//===- Schedule.cpp - Streams, order and semaphores for tile ops ----------===//
//
// Costs: each variant's duration is isa::instructionDuration on its stream.
// PE and ACT carry state between instructions (the loaded stationary
// operand, the loaded function table); it is threaded through the ops in
// program order, which is the order the scheduler mostly keeps on one
// engine, so the estimate is close without a second pass.
//
// DMA queues: a queue starts its next transfer when the previous one's busy
// time ends, 1.3 us before that transfer's data has landed. So two transfers
// on one queue are not ordered for data by program order alone, and a
// dependence between them is ordered by a semaphore like a cross-stream one
// (the queue waits on its own signal; see addSameQueueWaits).
//
//===----------------------------------------------------------------------===//

#include "Schedule.h"

#include "nki/Analysis/Sync.h"
#include "nki/ISA/Cost.h"

#include "absl/status/status.h"

#include <algorithm>
#include <string>

namespace nki::tonisa {

namespace {

absl::Status internalError(const std::string &what, const absl::Status &why) {
  return absl::InternalError("nki-synchronize internal error: " + what + ": " +
                             std::string(why.message()));
}

bool isDmaStream(sched::StreamIndex s) {
  return isa::StreamId::fromIndex(int(s)).engine == isa::Engine::DMA;
}

/// Orders each dependence between two transfers of one DMA queue by a wait
/// of the later transfer on the queue's own semaphore (see the file
/// comment). Adds signals where needed and renumbers the waits of `plan`
/// accordingly; a wait already implied by an earlier wait on the queue's
/// own semaphore is not repeated.
void addSameQueueWaits(const sched::SyncProblem &problem,
                       llvm::ArrayRef<sched::Dependence> deps,
                       sched::SyncPlan &plan) {
  size_t n = problem.numInstructions();
  std::vector<std::vector<sched::InstrId>> sameQueuePreds(n);
  for (const sched::Dependence &d : deps) {
    sched::StreamIndex s = problem.getStream(d.succ);
    if (isDmaStream(s) && problem.getStream(d.pred) == s)
      sameQueuePreds[d.succ].push_back(d.pred);
  }
  std::vector<bool> signals(n);
  for (size_t i = 0; i < n; ++i)
    signals[i] = plan.signal[i].has_value();
  std::vector<std::pair<sched::InstrId, sched::InstrId>> selfWaits;
  for (size_t s = 0; s < problem.numStreams(); ++s) {
    if (!isDmaStream(sched::StreamIndex(s)))
      continue;
    const std::vector<sched::InstrId> &order = problem.getStreamOrder(s);
    // Transfers at positions <= covered are known complete when the
    // current one starts: an earlier one on this queue waited for them.
    int64_t covered = -1;
    for (sched::InstrId i : order) {
      int64_t need = -1;
      for (sched::InstrId pred : sameQueuePreds[i])
        need = std::max<int64_t>(need, problem.getPosition(pred));
      if (need <= covered)
        continue;
      selfWaits.push_back({order[need], i});
      signals[order[need]] = true;
      covered = need;
    }
  }
  if (selfWaits.empty())
    return;

  // Renumber: a stream's semaphore counts its signalling instructions.
  size_t numStreams = problem.numStreams();
  std::vector<std::vector<sched::InstrId>> oldSignallers(numStreams);
  std::vector<uint32_t> ordinal(n, 0);
  std::vector<sched::StreamIndex> streamOfSemaphore(plan.numSemaphores);
  for (size_t s = 0; s < numStreams; ++s) {
    if (plan.streamSemaphore[s])
      streamOfSemaphore[*plan.streamSemaphore[s]] = sched::StreamIndex(s);
    uint32_t count = 0;
    for (sched::InstrId i : problem.getStreamOrder(s)) {
      if (plan.signal[i])
        oldSignallers[s].push_back(i);
      if (signals[i])
        ordinal[i] = ++count;
    }
    if (count && !plan.streamSemaphore[s])
      plan.streamSemaphore[s] = plan.numSemaphores++;
  }
  for (size_t i = 0; i < n; ++i) {
    if (signals[i])
      plan.signal[i] = *plan.streamSemaphore[problem.getStream(i)];
    for (sched::SemaphoreWait &w : plan.waits[i])
      w.value =
          ordinal[oldSignallers[streamOfSemaphore[w.semaphore]][w.value - 1]];
  }
  for (auto [pred, succ] : selfWaits) {
    sched::SemaphoreWait wait{*plan.streamSemaphore[problem.getStream(pred)],
                              ordinal[pred]};
    std::vector<sched::SemaphoreWait> &waits = plan.waits[succ];
    auto it = llvm::find_if(waits, [&](const sched::SemaphoreWait &w) {
      return w.semaphore == wait.semaphore;
    });
    if (it != waits.end()) {
      it->value = std::max(it->value, wait.value);
      continue;
    }
    waits.push_back(wait);
    llvm::sort(waits, [](const sched::SemaphoreWait &a,
                         const sched::SemaphoreWait &b) {
      return a.semaphore < b.semaphore;
    });
  }
}

} // namespace

std::vector<sched::Dependence>
computeOpDependences(llvm::ArrayRef<LoweredInst> ops) {
  return sched::computeDependences(
      ops.size(),
      [&](sched::InstrId i, std::vector<sched::MemoryAccess> &scratch)
          -> const std::vector<sched::MemoryAccess> & {
        return accessesOf(ops[i], scratch);
      });
}

sched::SchedulingProblem
buildSchedulingProblem(const isa::TargetDesc &target,
                       llvm::ArrayRef<LoweredInst> ops,
                       llvm::ArrayRef<sched::Dependence> deps) {
  size_t numStreams = size_t(target.numStreams());
  sched::SchedulingProblem problem(target.syncLatencyPs);
  for (size_t s = 0; s < numStreams; ++s)
    problem.addResource(isa::streamName(isa::StreamId::fromIndex(int(s))));
  isa::EngineTimingState peState, actState;
  for (const LoweredInst &op : ops) {
    std::vector<sched::ResourceOption> options;
    options.reserve(op.variants.size());
    // The DMA queues are identical: one duration for all of them.
    std::optional<std::pair<uint8_t, isa::Duration>> dma;
    for (const Variant &v : op.variants) {
      isa::EngineTimingState fresh;
      isa::EngineTimingState &state =
          v.stream.engine == isa::Engine::PE    ? peState
          : v.stream.engine == isa::Engine::ACT ? actState
                                                : fresh;
      bool isDma = v.stream.engine == isa::Engine::DMA;
      if (isDma && (!dma || dma->first != v.form))
        dma = {v.form, isa::instructionDuration(target, v.stream,
                                                op.instruction(v), state)};
      isa::Duration d = isDma ? dma->second
                              : isa::instructionDuration(
                                    target, v.stream, op.instruction(v), state);
      options.push_back(
          sched::ResourceOption{sched::ResourceId(v.stream.index()), d.busyPs,
                                d.completePs - d.busyPs});
    }
    problem.addTask(std::move(options));
  }
  for (const sched::Dependence &d : deps)
    problem.addDependence(d.pred, d.succ);
  // The PE keeps the tile program's order: the tiler groups matmuls that
  // share a stationary operand so LoadStationary is paid once per group,
  // and the list scheduler would otherwise interleave groups.
  std::optional<size_t> previousPE;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!llvm::all_of(ops[i].variants, [](const Variant &v) {
          return v.stream.engine == isa::Engine::PE;
        }))
      continue;
    if (previousPE)
      problem.addDependence(*previousPE, i);
    previousPE = i;
  }
  return problem;
}

absl::StatusOr<sched::SyncPlan>
planSemaphores(std::vector<std::vector<sched::InstrId>> order,
               llvm::ArrayRef<sched::Dependence> deps) {
  size_t numStreams = order.size();
  sched::SyncProblem sync(std::move(order));
  for (size_t s = 0; s < numStreams; ++s)
    sync.setStreamName(sched::StreamIndex(s),
                       isa::streamName(isa::StreamId::fromIndex(int(s))));
  for (const sched::Dependence &d : deps)
    sync.addDependence(d.pred, d.succ);
  // A stream order against a dependence is the input's fault, not ours.
  if (absl::Status st = sync.check(); !st.ok())
    return st;
  absl::StatusOr<sched::SyncPlan> plan = sched::solve(sync);
  if (!plan.ok())
    return internalError("semaphore planning failed", plan.status());
  addSameQueueWaits(sync, deps, *plan);
  if (absl::Status st = sched::verify(sync, *plan); !st.ok())
    return internalError("the semaphore plan is unsafe", st);
  return plan;
}

} // namespace nki::tonisa
