//===- SchedulerProblem.cpp - Scheduling problem, check and verify --------===//
//
// The input side (building and checking a SchedulingProblem) and the output
// side (verifying a Schedule). Both are independent of solve(), so verify()
// is a real second opinion on the solver.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Scheduler.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cassert>

namespace nki::sched {

ResourceId SchedulingProblem::addResource(std::string name) {
  resourceNames.push_back(std::move(name));
  return ResourceId(resourceNames.size() - 1);
}

TaskId SchedulingProblem::addTask(std::vector<ResourceOption> options,
                                  std::string name) {
  tasks.push_back(Task{std::move(name), std::move(options), {}, {}});
  return TaskId(tasks.size() - 1);
}

void SchedulingProblem::addDependence(TaskId pred, TaskId succ) {
  // Out-of-range ids are reported by check() rather than asserted here, so
  // that a problem built from user input can be diagnosed.
  if (pred >= tasks.size() || succ >= tasks.size()) {
    danglingEdges.push_back({pred, succ});
    return;
  }
  tasks[pred].succs.push_back(succ);
  tasks[succ].preds.push_back(pred);
}

const ResourceOption *SchedulingProblem::findOption(TaskId t,
                                                    ResourceId r) const {
  for (const ResourceOption &o : tasks[t].options)
    if (o.resource == r)
      return &o;
  return nullptr;
}

std::string SchedulingProblem::describeTask(TaskId t) const {
  if (t < tasks.size() && !tasks[t].name.empty())
    return absl::StrCat("task '", tasks[t].name, "' (#", t, ")");
  return absl::StrCat("task #", t);
}

absl::Status SchedulingProblem::check() const {
  if (syncLatency < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("sync latency ", syncLatency, " ps is negative"));
  for (const auto &[pred, succ] : danglingEdges)
    return absl::InvalidArgumentError(
        absl::StrCat("dependence ", pred, " -> ", succ,
                     " names a task out of range (", tasks.size(), " tasks)"));
  std::vector<uint8_t> seen(resourceNames.size());
  for (TaskId t = 0; t < tasks.size(); ++t) {
    const Task &task = tasks[t];
    if (task.options.empty())
      return absl::InvalidArgumentError(
          absl::StrCat(describeTask(t), " has no resource to run on"));
    for (const ResourceOption &o : task.options) {
      if (o.resource >= resourceNames.size())
        return absl::InvalidArgumentError(
            absl::StrCat(describeTask(t), " names resource #", o.resource,
                         " but there are ", resourceNames.size()));
      if (seen[o.resource]++)
        return absl::InvalidArgumentError(
            absl::StrCat(describeTask(t), " lists resource '",
                         resourceNames[o.resource], "' twice"));
      if (o.duration < 0 || o.latency < 0)
        return absl::InvalidArgumentError(
            absl::StrCat(describeTask(t), " on '", resourceNames[o.resource],
                         "' has a negative duration or latency (", o.duration,
                         ", ", o.latency, " ps)"));
    }
    for (const ResourceOption &o : task.options)
      seen[o.resource] = 0;
    for (TaskId s : task.succs)
      if (s == t)
        return absl::InvalidArgumentError(
            absl::StrCat(describeTask(t), " depends on itself"));
  }

  // Kahn's algorithm; whatever it cannot remove lies on or behind a cycle.
  std::vector<uint32_t> indegree(tasks.size());
  for (const Task &task : tasks)
    for (TaskId s : task.succs)
      ++indegree[s];
  std::vector<TaskId> work;
  for (TaskId t = 0; t < tasks.size(); ++t)
    if (!indegree[t])
      work.push_back(t);
  size_t removed = 0;
  while (!work.empty()) {
    TaskId t = work.back();
    work.pop_back();
    ++removed;
    for (TaskId s : tasks[t].succs)
      if (!--indegree[s])
        work.push_back(s);
  }
  if (removed == tasks.size())
    return absl::OkStatus();

  // Walk backwards through unremoved predecessors until a task repeats: the
  // walk from there is a cycle, which the message spells out.
  TaskId t = 0;
  while (!indegree[t])
    ++t;
  std::vector<int64_t> visitedAt(tasks.size(), -1);
  std::vector<TaskId> walk;
  while (visitedAt[t] < 0) {
    visitedAt[t] = int64_t(walk.size());
    walk.push_back(t);
    for (TaskId p : tasks[t].preds)
      if (indegree[p]) {
        t = p;
        break;
      }
  }
  // The walk went against the edges; read its cycle part backwards.
  std::vector<std::string> names{describeTask(t)};
  for (size_t i = walk.size(); i-- > size_t(visitedAt[t]) + 1;)
    names.push_back(describeTask(walk[i]));
  names.push_back(describeTask(t));
  return absl::InvalidArgumentError(
      absl::StrCat("dependence cycle: ", absl::StrJoin(names, " -> ")));
}

Time Schedule::finish(const SchedulingProblem &p, TaskId t) const {
  const ResourceOption *o = p.findOption(t, resource[t]);
  assert(o && "task scheduled on a resource it may not use");
  return start[t] + o->duration;
}

Time Schedule::completion(const SchedulingProblem &p, TaskId t) const {
  const ResourceOption *o = p.findOption(t, resource[t]);
  assert(o && "task scheduled on a resource it may not use");
  return start[t] + o->duration + o->latency;
}

Time Schedule::makespan(const SchedulingProblem &p) const {
  Time end = 0;
  for (TaskId t = 0; t < p.numTasks(); ++t)
    end = std::max(end, completion(p, t));
  return end;
}

absl::Status verify(const SchedulingProblem &p, const Schedule &s) {
  size_t n = p.numTasks();
  if (s.resource.size() != n || s.start.size() != n ||
      s.order.size() != p.numResources())
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule has ", s.resource.size(), " resources and ", s.start.size(),
        " start times for ", n, " tasks, and ", s.order.size(),
        " resource orders for ", p.numResources(), " resources"));
  for (TaskId t = 0; t < n; ++t) {
    if (s.resource[t] >= p.numResources() || !p.findOption(t, s.resource[t]))
      return absl::InvalidArgumentError(
          absl::StrCat(p.describeTask(t), " is placed on resource #",
                       s.resource[t], ", which it may not use"));
    if (s.start[t] < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          p.describeTask(t), " starts at negative time ", s.start[t]));
  }

  std::vector<uint8_t> listed(n);
  for (ResourceId r = 0; r < p.numResources(); ++r) {
    const std::vector<TaskId> &order = s.order[r];
    for (size_t i = 0; i < order.size(); ++i) {
      TaskId t = order[i];
      if (t >= n || s.resource[t] != r)
        return absl::InvalidArgumentError(absl::StrCat(
            "order of resource '", p.getResourceName(r), "' lists ",
            p.describeTask(t), ", which is not placed on it"));
      if (listed[t]++)
        return absl::InvalidArgumentError(absl::StrCat(
            p.describeTask(t), " is listed twice in the order of '",
            p.getResourceName(r), "'"));
      if (i && s.start[t] < s.finish(p, order[i - 1]))
        return absl::InvalidArgumentError(absl::StrCat(
            p.describeTask(t), " starts at ", s.start[t], " on '",
            p.getResourceName(r), "' before ", p.describeTask(order[i - 1]),
            " ahead of it finishes at ", s.finish(p, order[i - 1])));
    }
  }
  for (TaskId t = 0; t < n; ++t)
    if (!listed[t])
      return absl::InvalidArgumentError(
          absl::StrCat(p.describeTask(t), " is missing from the order of '",
                       p.getResourceName(s.resource[t]), "'"));

  for (TaskId succ = 0; succ < n; ++succ)
    for (TaskId pred : p.getPredecessors(succ)) {
      Time ready = s.completion(p, pred);
      if (s.resource[pred] != s.resource[succ])
        ready += p.getSyncLatency();
      if (s.start[succ] < ready)
        return absl::InvalidArgumentError(
            absl::StrCat(p.describeTask(succ), " starts at ", s.start[succ],
                         " before its predecessor ", p.describeTask(pred),
                         " is visible to it at ", ready));
    }
  return absl::OkStatus();
}

} // namespace nki::sched
