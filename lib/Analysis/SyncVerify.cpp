//===- SyncVerify.cpp - Proving a semaphore plan race- and deadlock-free --===//
//
// Independent of solve(): it accepts any plan, including semaphores shared
// by several streams.
//
//  1. Deadlock: an abstract machine runs the streams in order, an
//     instruction completing as soon as it starts. Semaphores only grow, so
//     starting an instruction never disables another; if this machine gets
//     stuck, every timing of the real one does too, and if it finishes, no
//     timing can leave every stream waiting.
//  2. Races: vector clocks along the abstract run. A wait for semaphore s to
//     reach v proves, for each stream P signalling s, that at least
//     v - (signals of s outside P) of P's signals happened; completion on P
//     is in order, so P's instruction at that ordinal and everything before
//     it completed. Every cross-stream dependence must be covered.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Sync.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace nki::sched {

namespace {
/// The instructions of one stream that signal one semaphore, in order.
struct Signallers {
  StreamIndex stream;
  std::vector<InstrId> instrs;
};
} // namespace

absl::Status verify(const SyncProblem &p, const SyncPlan &plan) {
  if (absl::Status st = p.check(); !st.ok())
    return st;
  size_t n = p.numInstructions(), numStreams = p.numStreams();
  if (plan.waits.size() != n || plan.signal.size() != n)
    return absl::InvalidArgumentError(absl::StrCat(
        "plan has waits for ", plan.waits.size(), " and signals for ",
        plan.signal.size(), " instructions, the problem has ", n));

  // Signallers per semaphore, grouped by stream.
  std::vector<std::vector<Signallers>> bySemaphore(plan.numSemaphores);
  std::vector<uint32_t> total(plan.numSemaphores);
  for (StreamIndex s = 0; s < numStreams; ++s)
    for (InstrId i : p.getStreamOrder(s)) {
      if (!plan.signal[i])
        continue;
      uint32_t sem = *plan.signal[i];
      if (sem >= plan.numSemaphores)
        return absl::InvalidArgumentError(
            absl::StrCat(p.describe(i), " signals semaphore ", sem,
                         " but the plan has ", plan.numSemaphores));
      std::vector<Signallers> &groups = bySemaphore[sem];
      if (groups.empty() || groups.back().stream != s)
        groups.push_back({s, {}});
      groups.back().instrs.push_back(i);
      ++total[sem];
    }
  for (InstrId i = 0; i < n; ++i)
    for (const SemaphoreWait &w : plan.waits[i]) {
      if (w.semaphore >= plan.numSemaphores)
        return absl::InvalidArgumentError(
            absl::StrCat(p.describe(i), " waits on semaphore ", w.semaphore,
                         " but the plan has ", plan.numSemaphores));
      if (w.value > total[w.semaphore])
        return absl::InvalidArgumentError(
            absl::StrCat("deadlock: ", p.describe(i), " waits for semaphore ",
                         w.semaphore, " to reach ", w.value, " but only ",
                         total[w.semaphore], " instructions signal it"));
    }

  // 1. The abstract machine. A blocked stream parks on the semaphore of its
  //    first unmet wait until that semaphore reaches the value.
  using Parked = std::pair<uint32_t, StreamIndex>; // (value, stream)
  std::vector<
      std::priority_queue<Parked, std::vector<Parked>, std::greater<Parked>>>
      parked(plan.numSemaphores);
  std::vector<uint32_t> count(plan.numSemaphores), head(numStreams);
  std::vector<StreamIndex> runnable;
  for (StreamIndex s = numStreams; s-- > 0;)
    runnable.push_back(s);
  std::vector<InstrId> run;
  run.reserve(n);
  while (!runnable.empty()) {
    StreamIndex s = runnable.back();
    runnable.pop_back();
    const std::vector<InstrId> &order = p.getStreamOrder(s);
    while (head[s] < order.size()) {
      InstrId i = order[head[s]];
      auto unmet = std::find_if(
          plan.waits[i].begin(), plan.waits[i].end(),
          [&](const SemaphoreWait &w) { return count[w.semaphore] < w.value; });
      if (unmet != plan.waits[i].end()) {
        parked[unmet->semaphore].push({unmet->value, s});
        break;
      }
      run.push_back(i);
      ++head[s];
      if (plan.signal[i]) {
        uint32_t sem = *plan.signal[i];
        ++count[sem];
        while (!parked[sem].empty() && parked[sem].top().first <= count[sem]) {
          runnable.push_back(parked[sem].top().second);
          parked[sem].pop();
        }
      }
    }
  }
  if (run.size() != n) {
    std::vector<std::string> stuck;
    for (StreamIndex s = 0; s < numStreams; ++s) {
      const std::vector<InstrId> &order = p.getStreamOrder(s);
      if (head[s] == order.size())
        continue;
      InstrId i = order[head[s]];
      for (const SemaphoreWait &w : plan.waits[i])
        if (count[w.semaphore] < w.value) {
          stuck.push_back(absl::StrCat(p.describe(i), " waits for semaphore ",
                                       w.semaphore, " >= ", w.value,
                                       " (reached ", count[w.semaphore], ")"));
          break;
        }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("deadlock: ", absl::StrJoin(stuck, "; ")));
  }

  // 2. Happens-before along the run: clock[P] is the last position of
  //    stream P known complete when the instruction starts.
  std::vector<int32_t> clocks(n * numStreams, -1);
  for (InstrId i : run) {
    int32_t *clock = &clocks[size_t(i) * numStreams];
    if (uint32_t pos = p.getPosition(i)) {
      InstrId prev = p.getStreamOrder(p.getStream(i))[pos - 1];
      std::copy_n(&clocks[size_t(prev) * numStreams], numStreams, clock);
    }
    for (const SemaphoreWait &w : plan.waits[i])
      for (const Signallers &g : bySemaphore[w.semaphore]) {
        uint32_t others = total[w.semaphore] - uint32_t(g.instrs.size());
        if (w.value <= others)
          continue; // the other streams' signals alone may have met it
        InstrId y = g.instrs[w.value - others - 1];
        const int32_t *known = &clocks[size_t(y) * numStreams];
        for (size_t k = 0; k < numStreams; ++k)
          clock[k] = std::max(clock[k], known[k]);
        clock[g.stream] = std::max(clock[g.stream], int32_t(p.getPosition(y)));
      }
    for (InstrId pred : p.getPredecessors(i)) {
      StreamIndex s = p.getStream(pred);
      if (s != p.getStream(i) && clock[s] < int32_t(p.getPosition(pred)))
        return absl::InvalidArgumentError(absl::StrCat(
            "race: ", p.describe(i), " may start before ", p.describe(pred),
            " completes; no program order or semaphore wait orders them"));
    }
  }
  return absl::OkStatus();
}

} // namespace nki::sched
