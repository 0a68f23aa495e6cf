//===- SyncSolve.cpp - Choosing semaphore waits and signals ---------------===//
//
// One pass over the instructions in a topological order of program order
// plus dependences, carrying a vector clock per instruction: clock[P] is the
// last position of stream P known to have completed when the instruction
// starts. An instruction inherits its stream predecessor's clock (it starts
// after that one started) and, for each wait on an instruction y of stream
// P, joins y's clock with P:pos(y) (y and everything before it on P have
// completed, and so has whatever y itself knew). A cross-stream dependence
// gets a wait only when the clock does not already cover it, so waits
// implied by program order or by chains through other streams vanish.
//
// Cost: O((N + E) * S) for N instructions, E dependences and S streams (the
// clocks), plus sorting each instruction's few candidate waits.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Sync.h"

#include <algorithm>

namespace nki::sched {

size_t SyncPlan::numWaits() const {
  size_t count = 0;
  for (const std::vector<SemaphoreWait> &w : waits)
    count += w.size();
  return count;
}

absl::StatusOr<SyncPlan> solve(const SyncProblem &p) {
  if (absl::Status st = p.check(); !st.ok())
    return st;
  size_t n = p.numInstructions(), numStreams = p.numStreams();
  std::vector<InstrId> order = p.topologicalOrder();
  std::vector<uint32_t> topoIndex(n);
  for (uint32_t k = 0; k < n; ++k)
    topoIndex[order[k]] = k;

  std::vector<int32_t> clocks(n * numStreams, -1);
  std::vector<std::vector<InstrId>> waitsOn(n);
  std::vector<uint8_t> signals(n);
  std::vector<int32_t> needed(numStreams, -1); // per producer stream
  std::vector<StreamIndex> producers;
  std::vector<InstrId> candidates;

  for (InstrId i : order) {
    StreamIndex own = p.getStream(i);
    int32_t *clock = &clocks[size_t(i) * numStreams];
    if (uint32_t pos = p.getPosition(i)) {
      InstrId prev = p.getStreamOrder(own)[pos - 1];
      std::copy_n(&clocks[size_t(prev) * numStreams], numStreams, clock);
    }

    // Per producer stream only the latest predecessor matters: completion
    // within a stream is in order.
    for (InstrId pred : p.getPredecessors(i)) {
      StreamIndex s = p.getStream(pred);
      if (s == own)
        continue; // program order
      if (needed[s] < 0)
        producers.push_back(s);
      needed[s] = std::max(needed[s], int32_t(p.getPosition(pred)));
    }
    for (StreamIndex s : producers) {
      if (needed[s] > clock[s])
        candidates.push_back(p.getStreamOrder(s)[needed[s]]);
      needed[s] = -1;
    }
    producers.clear();

    // The producer placed last in the topological order knows the most, so
    // waiting on it first is most likely to make the other waits redundant.
    std::sort(candidates.begin(), candidates.end(), [&](InstrId a, InstrId b) {
      return topoIndex[a] > topoIndex[b];
    });
    for (InstrId y : candidates) {
      StreamIndex s = p.getStream(y);
      int32_t pos = int32_t(p.getPosition(y));
      if (clock[s] >= pos)
        continue;
      const int32_t *known = &clocks[size_t(y) * numStreams];
      for (size_t k = 0; k < numStreams; ++k)
        clock[k] = std::max(clock[k], known[k]);
      clock[s] = pos;
      waitsOn[i].push_back(y);
      signals[y] = 1;
    }
    candidates.clear();
  }

  // Semaphores for the streams that signal, then each signaller's ordinal:
  // waiting for y means waiting until its stream's semaphore counts y.
  SyncPlan plan;
  plan.waits.resize(n);
  plan.signal.resize(n);
  plan.streamSemaphore.resize(numStreams);
  std::vector<uint32_t> ordinal(n);
  for (StreamIndex s = 0; s < numStreams; ++s) {
    uint32_t count = 0;
    for (InstrId i : p.getStreamOrder(s))
      if (signals[i]) {
        if (!plan.streamSemaphore[s])
          plan.streamSemaphore[s] = plan.numSemaphores++;
        plan.signal[i] = *plan.streamSemaphore[s];
        ordinal[i] = ++count;
      }
  }
  for (InstrId i = 0; i < n; ++i) {
    for (InstrId y : waitsOn[i])
      plan.waits[i].push_back(
          {*plan.streamSemaphore[p.getStream(y)], ordinal[y]});
    std::sort(plan.waits[i].begin(), plan.waits[i].end(),
              [](const SemaphoreWait &a, const SemaphoreWait &b) {
                return a.semaphore < b.semaphore;
              });
  }
  return plan;
}

} // namespace nki::sched
