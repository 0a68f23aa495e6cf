//===- SchedulerSolve.cpp - Critical-path list scheduling -----------------===//
//
// Non-delay list scheduling over heterogeneous in-order resources (see
// docs/scheduler.md):
//
//  * A task is *released* once all its predecessors are scheduled; it then
//    knows, for each of its resources, the time its inputs are visible there.
//  * The resource that can start something earliest takes a turn at that
//    time D; among the released tasks whose inputs are visible on it by D it
//    picks the one with the longest critical path, and places that task on
//    whichever of its resources finishes it earliest (possibly another one).
//
// Each resource keeps a min-heap of released tasks keyed by visibility time
// and a max-heap of the visible ones keyed by priority; a global min-heap
// orders the resources' turns. Entries of a task that went elsewhere are
// discarded lazily. Every task option enters each heap once, so the whole
// run is O((T + E) log T) for T task options and E dependences.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Scheduler.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

namespace nki::sched {

namespace {
constexpr Time kNever = std::numeric_limits<Time>::max();

/// Tasks in an order where every predecessor comes first (the problem is
/// checked, so one exists).
std::vector<TaskId> topologicalOrder(const SchedulingProblem &p) {
  size_t n = p.numTasks();
  std::vector<uint32_t> indegree(n);
  for (TaskId t = 0; t < n; ++t)
    indegree[t] = uint32_t(p.getPredecessors(t).size());
  std::vector<TaskId> order;
  order.reserve(n);
  for (TaskId t = 0; t < n; ++t)
    if (!indegree[t])
      order.push_back(t);
  for (size_t i = 0; i < order.size(); ++i)
    for (TaskId s : p.getSuccessors(order[i]))
      if (!--indegree[s])
        order.push_back(s);
  assert(order.size() == n && "scheduling a cyclic problem");
  return order;
}

class ListScheduler {
public:
  explicit ListScheduler(const SchedulingProblem &p)
      : p(p), rank(computeCriticalPath(p)), resources(p.numResources()),
        sameResourceReady(p.numResources(), kNever) {
    size_t n = p.numTasks();
    optionBegin.resize(n + 1);
    for (TaskId t = 0; t < n; ++t)
      optionBegin[t + 1] = optionBegin[t] + uint32_t(p.getOptions(t).size());
    optionReady.resize(optionBegin[n]);
    unscheduledPreds.resize(n);
    completion.resize(n);
    scheduled.resize(n);
    result.resource.resize(n);
    result.start.resize(n);
    result.order.resize(p.numResources());
  }

  Schedule run() {
    for (TaskId t = 0; t < p.numTasks(); ++t) {
      unscheduledPreds[t] = uint32_t(p.getPredecessors(t).size());
      if (!unscheduledPreds[t])
        release(t);
    }
    size_t done = 0;
    while (done < p.numTasks()) {
      assert(!turns.empty() && "released tasks left but no resource turn");
      auto [time, r] = turns.top();
      turns.pop();
      if (time != resources[r].turnKey)
        continue; // superseded by a later push
      resources[r].turnKey = kNever;
      Time now = turnTime(r);
      if (now != time) {
        pushTurn(r, now);
        continue;
      }
      takeTurn(r, now);
      ++done;
      pushTurn(r, turnTime(r));
    }
    return std::move(result);
  }

private:
  // Heap orders: visible tasks by (longest critical path, lowest id),
  // pending ones by (earliest visibility, lowest id), turns by (time, id).
  struct ByPriority {
    const std::vector<Time> *rank;
    bool operator()(TaskId a, TaskId b) const {
      return std::make_tuple((*rank)[a], b) < std::make_tuple((*rank)[b], a);
    }
  };
  using Pending = std::pair<Time, TaskId>;
  using Turn = std::pair<Time, ResourceId>;
  template <typename T>
  using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;

  struct Resource {
    Time freeAt = 0;
    Time turnKey = kNever; // the valid entry of this resource in `turns`
    MinHeap<Pending> pending;
    std::vector<TaskId> visible; // a max-heap under ByPriority
  };

  /// Computes when `t`'s inputs are visible on each of its resources and
  /// offers it to them. Linear in its predecessors and options: a
  /// predecessor on another resource costs the sync latency, so only the two
  /// latest cross-resource completions and the latest per resource matter.
  void release(TaskId t) {
    Time sync = p.getSyncLatency();
    Time best = 0, second = 0;
    ResourceId bestResource = std::numeric_limits<ResourceId>::max();
    for (TaskId pred : p.getPredecessors(t)) {
      ResourceId r = result.resource[pred];
      Time c = completion[pred];
      if (sameResourceReady[r] == kNever) {
        sameResourceReady[r] = c;
        touched.push_back(r);
      } else {
        sameResourceReady[r] = std::max(sameResourceReady[r], c);
      }
      if (c + sync > best) {
        if (r != bestResource)
          second = best;
        best = c + sync;
        bestResource = r;
      } else if (r != bestResource) {
        second = std::max(second, c + sync);
      }
    }
    const std::vector<ResourceOption> &options = p.getOptions(t);
    for (size_t i = 0; i < options.size(); ++i) {
      ResourceId r = options[i].resource;
      Time ready = r == bestResource ? second : best;
      if (sameResourceReady[r] != kNever)
        ready = std::max(ready, sameResourceReady[r]);
      optionReady[optionBegin[t] + i] = ready;
      resources[r].pending.push({ready, t});
      pushTurn(r, turnTime(r));
    }
    for (ResourceId r : touched)
      sameResourceReady[r] = kNever;
    touched.clear();
  }

  /// The earliest time `r` could start one of its released tasks, dropping
  /// heap tops that were scheduled elsewhere; kNever when it has none.
  Time turnTime(ResourceId r) {
    Resource &res = resources[r];
    ByPriority byPriority{&rank};
    while (!res.visible.empty() && scheduled[res.visible.front()]) {
      std::pop_heap(res.visible.begin(), res.visible.end(), byPriority);
      res.visible.pop_back();
    }
    while (!res.pending.empty() && scheduled[res.pending.top().second])
      res.pending.pop();
    if (!res.visible.empty())
      return res.freeAt;
    if (!res.pending.empty())
      return std::max(res.freeAt, res.pending.top().first);
    return kNever;
  }

  void pushTurn(ResourceId r, Time time) {
    if (time == resources[r].turnKey)
      return;
    resources[r].turnKey = time;
    if (time != kNever)
      turns.push({time, r});
  }

  /// Resource `r` starts its most urgent visible task at `now`, or rather
  /// hands it to the resource that finishes it earliest.
  void takeTurn(ResourceId r, Time now) {
    Resource &res = resources[r];
    ByPriority byPriority{&rank};
    while (!res.pending.empty() && res.pending.top().first <= now) {
      TaskId t = res.pending.top().second;
      res.pending.pop();
      if (scheduled[t])
        continue;
      res.visible.push_back(t);
      std::push_heap(res.visible.begin(), res.visible.end(), byPriority);
    }
    std::pop_heap(res.visible.begin(), res.visible.end(), byPriority);
    TaskId t = res.visible.back();
    res.visible.pop_back();
    assert(!scheduled[t] && "turnTime leaves a live task on top");

    const std::vector<ResourceOption> &options = p.getOptions(t);
    size_t chosen = 0;
    std::tuple<Time, Time, ResourceId> bestKey{kNever, kNever, 0};
    for (size_t i = 0; i < options.size(); ++i) {
      Time start = std::max(resources[options[i].resource].freeAt,
                            optionReady[optionBegin[t] + i]);
      std::tuple<Time, Time, ResourceId> key{start + options[i].duration, start,
                                             options[i].resource};
      if (key < bestKey) {
        bestKey = key;
        chosen = i;
      }
    }
    const ResourceOption &o = options[chosen];
    Time start = std::get<1>(bestKey);
    scheduled[t] = 1;
    result.resource[t] = o.resource;
    result.start[t] = start;
    result.order[o.resource].push_back(t);
    resources[o.resource].freeAt = start + o.duration;
    completion[t] = start + o.duration + o.latency;
    for (TaskId s : p.getSuccessors(t))
      if (!--unscheduledPreds[s])
        release(s);
  }

  const SchedulingProblem &p;
  std::vector<Time> rank;
  std::vector<Resource> resources;
  MinHeap<Turn> turns;
  std::vector<uint32_t> optionBegin;   // task -> first index in optionReady
  std::vector<Time> optionReady;       // per task option: inputs visible at
  std::vector<Time> sameResourceReady; // scratch of release(), kNever = none
  std::vector<ResourceId> touched;     // its entries that are set
  std::vector<uint32_t> unscheduledPreds;
  std::vector<Time> completion;
  std::vector<uint8_t> scheduled;
  Schedule result;
};
} // namespace

std::vector<Time> computeCriticalPath(const SchedulingProblem &p) {
  std::vector<TaskId> order = topologicalOrder(p);
  std::vector<Time> rank(p.numTasks());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TaskId t = *it;
    Time cheapest = kNever;
    for (const ResourceOption &o : p.getOptions(t))
      cheapest = std::min(cheapest, o.duration + o.latency);
    Time tail = 0;
    for (TaskId s : p.getSuccessors(t))
      tail = std::max(tail, rank[s]);
    rank[t] = cheapest + tail;
  }
  return rank;
}

absl::StatusOr<Schedule> solve(const SchedulingProblem &p) {
  if (absl::Status st = p.check(); !st.ok())
    return st;
  return ListScheduler(p).run();
}

} // namespace nki::sched
