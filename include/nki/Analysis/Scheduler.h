//===- Scheduler.h - List scheduling onto in-order streams ------*- C++ -*-===//
//
// The engine scheduler's algorithm core, free of IR (modelled on circt's
// Scheduling/Problems.h): a SchedulingProblem describes tasks, the resources
// each may run on and the dependences between them; check() validates the
// input, solve() computes a Schedule and verify() checks any Schedule against
// the problem, so a bug in solve() is caught rather than shipped.
//
// Resources are in-order instruction streams (four compute engines and the
// DMA queues): a resource runs one task at a time, in the order the schedule
// gives, and a task occupies it for its duration. A task's results become
// visible `latency` after its duration ends (DMA transfers: 1,300 ns on the
// shipped targets); a dependent task on another resource additionally pays
// the sync latency of the semaphore that orders them. Every number is an
// input: the compiler passes the target's table, this file hard-codes none.
//
// See docs/scheduler.md for the algorithm and its complexity.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_SCHEDULER_H
#define NKI_ANALYSIS_SCHEDULER_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nki::sched {

/// Times are integer picoseconds, like the machine model's.
using Time = int64_t;
using TaskId = uint32_t;
using ResourceId = uint32_t;

/// One way to run a task: on `resource`, busy for `duration`, results visible
/// `latency` after the busy time ends.
struct ResourceOption {
  ResourceId resource = 0;
  Time duration = 0;
  Time latency = 0;
};

class SchedulingProblem {
public:
  /// `syncLatency` is paid by a task whose predecessor ran on another
  /// resource (the cost of a semaphore wait satisfied by another stream).
  explicit SchedulingProblem(Time syncLatency = 0) : syncLatency(syncLatency) {}

  ResourceId addResource(std::string name);
  /// Adds a task that may run on any of `options` (one per resource).
  TaskId addTask(std::vector<ResourceOption> options, std::string name = {});
  /// `succ` may start only once `pred`'s results are visible.
  void addDependence(TaskId pred, TaskId succ);

  /// OK when the problem is solvable: valid ids, every task has at least one
  /// option, each resource at most once per task, no negative time, and the
  /// dependence graph is acyclic.
  absl::Status check() const;

  size_t numTasks() const { return tasks.size(); }
  size_t numResources() const { return resourceNames.size(); }
  Time getSyncLatency() const { return syncLatency; }
  const std::string &getResourceName(ResourceId r) const {
    return resourceNames[r];
  }
  const std::string &getTaskName(TaskId t) const { return tasks[t].name; }
  const std::vector<ResourceOption> &getOptions(TaskId t) const {
    return tasks[t].options;
  }
  /// The option of `t` on `r`, or null when `t` may not run on `r`.
  const ResourceOption *findOption(TaskId t, ResourceId r) const;
  const std::vector<TaskId> &getPredecessors(TaskId t) const {
    return tasks[t].preds;
  }
  const std::vector<TaskId> &getSuccessors(TaskId t) const {
    return tasks[t].succs;
  }

  /// Task names for diagnostics: the given name, else "task #<id>".
  std::string describeTask(TaskId t) const;

private:
  struct Task {
    std::string name;
    std::vector<ResourceOption> options;
    std::vector<TaskId> preds, succs;
  };
  Time syncLatency;
  std::vector<std::string> resourceNames;
  std::vector<Task> tasks;
  std::vector<std::pair<TaskId, TaskId>> danglingEdges; // ids out of range
};

/// A solution: where and when every task runs.
struct Schedule {
  std::vector<ResourceId> resource; // per task
  std::vector<Time> start;          // per task
  /// Per resource, its tasks in execution (= program) order.
  std::vector<std::vector<TaskId>> order;

  /// When `t`'s busy time ends and when its results are visible.
  Time finish(const SchedulingProblem &p, TaskId t) const;
  Time completion(const SchedulingProblem &p, TaskId t) const;
  /// The last completion over all tasks (0 for an empty problem).
  Time makespan(const SchedulingProblem &p) const;
};

/// The critical-path priority of every task: the longest path from the task
/// to a sink, weighing each task by its cheapest duration + latency.
/// Requires a checked problem.
std::vector<Time> computeCriticalPath(const SchedulingProblem &p);

/// List scheduling with critical-path priority; see docs/scheduler.md.
/// Runs check() first and returns its error.
absl::StatusOr<Schedule> solve(const SchedulingProblem &p);

/// OK when `s` is a valid solution of `p`: every task on one of its
/// resources, each resource's order lists exactly its tasks in start order
/// without overlap, and every dependence is respected including the sync
/// latency across resources. The error names the first violation.
absl::Status verify(const SchedulingProblem &p, const Schedule &s);

} // namespace nki::sched

#endif // NKI_ANALYSIS_SCHEDULER_H
