//===- BatchGroups.cpp - Which first layers run a group of images at once -===//

#include "nki/Analysis/BatchGroups.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>

using namespace nki;

absl::Status BatchGroupProblem::check() const {
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("batch ", batch, " < 1"));
  if (capacity < 0)
    return absl::InvalidArgumentError("negative capacity");
  if (!(dmaBytesPerNs > 0))
    return absl::InvalidArgumentError("DMA bandwidth must be positive");
  if (vectorEngines < 1)
    return absl::InvalidArgumentError("no vector engine");
  if (!(margin >= 0) || !(peBoundMargin >= 0))
    return absl::InvalidArgumentError("negative margin");
  if (!(barrierNs >= 0))
    return absl::InvalidArgumentError("negative barrier time");
  if (!(peBoundRatio >= 1))
    return absl::InvalidArgumentError("PE-bound ratio below 1");
  for (const BatchLayer &l : layers)
    if (l.bytes < 0 || l.hbmBytes < 0 || !(l.peNs >= 0) || !(l.vectorNs >= 0))
      return absl::InvalidArgumentError(
          absl::StrCat("layer '", l.name, "' has a negative size or time"));
  return absl::OkStatus();
}

/// Whether a result of `bytes` at the whole batch fits at batch / groups
/// (the bytes per partition grow with the images).
static bool fits(int64_t bytes, int64_t batch, int64_t groups,
                 int64_t capacity) {
  return bytes * (batch / groups) / batch <= capacity;
}

absl::Status nki::solve(const BatchGroupProblem &problem,
                        BatchGroupSolution &solution, int64_t forcedGroups) {
  if (absl::Status s = problem.check(); !s.ok())
    return s;
  solution = BatchGroupSolution();
  int64_t n = problem.batch;
  if (forcedGroups > 1 && n % forcedGroups)
    return absl::InvalidArgumentError(
        absl::StrCat(forcedGroups, " groups do not divide the batch of ", n));
  if (forcedGroups == 1) {
    solution.why = "turned off";
    return absl::OkStatus();
  }
  if (n == 1) {
    solution.why = "a batch of one";
    return absl::OkStatus();
  }
  // The prefix: up to the last layer of the first splittable run whose
  // result does not fit with the whole batch.
  int64_t run = 0;
  while (run < int64_t(problem.layers.size()) && problem.layers[run].splittable)
    ++run;
  int64_t end = 0;
  for (int64_t i = 0; i < run; ++i)
    if (problem.layers[i].bytes > problem.capacity)
      end = i + 1;
  if (end == 0) {
    solution.why = "every result fits with the whole batch";
    return absl::OkStatus();
  }
  // No result that does not fit may be read after the prefix: it ends at
  // the last reader of those results (which all come before `end`, so one
  // pass finds it), when that reader can run per group too.
  int64_t lastReader = -1;
  for (int64_t i = 0; i < end; ++i)
    if (problem.layers[i].bytes > problem.capacity)
      lastReader = std::max(lastReader, problem.layers[i].lastReader);
  end = std::max(end, lastReader + 1);
  if (end > run) {
    solution.why = "a result that does not fit is read after the ops that "
                   "can run per group";
    return absl::OkStatus();
  }
  int64_t largest = 0;
  double hbmBytes = 0, pe = 0, vector = 0;
  int64_t barriers = 0;
  for (int64_t i = 0; i < end; ++i) {
    const BatchLayer &l = problem.layers[i];
    barriers += l.barrier;
    largest = std::max(largest, l.bytes);
    if (l.bytes > problem.capacity)
      hbmBytes += double(l.hbmBytes);
    pe += l.peNs;
    vector += l.vectorNs;
  }
  int64_t groups = forcedGroups;
  for (int64_t g = 2; !groups && g <= n; ++g)
    if (n % g == 0 && fits(largest, n, g, problem.capacity))
      groups = g;
  if (!groups || !fits(largest, n, groups, problem.capacity)) {
    solution.why = absl::StrCat("a result does not fit with ",
                                n / (groups ? groups : n), " image(s)");
    return absl::OkStatus();
  }
  solution.hbmNs = hbmBytes / problem.dmaBytesPerNs;
  double perEngine = vector / double(problem.vectorEngines);
  solution.computeNs =
      std::max(pe, perEngine) + double(barriers * groups) * problem.barrierNs;
  solution.peBound = pe >= problem.peBoundRatio * perEngine;
  double margin = solution.peBound ? problem.peBoundMargin : problem.margin;
  if (forcedGroups < 2 && !(solution.hbmNs > margin * solution.computeNs)) {
    solution.why = absl::StrFormat(
        "the HBM time it saves, %.1f us, is not %g times the %.1f us of "
        "compute of its %d ops (PE time %.1f times the vector time per "
        "engine%s)",
        solution.hbmNs / 1e3, margin, solution.computeNs / 1e3, end,
        perEngine > 0 ? pe / perEngine : 0.0,
        barriers ? absl::StrFormat("; %d global pooling(s) in %d groups",
                                   barriers, groups)
                 : std::string());
    return absl::OkStatus();
  }
  solution.layers = end;
  solution.groups = groups;
  return absl::OkStatus();
}

absl::Status nki::verify(const BatchGroupProblem &problem,
                         const BatchGroupSolution &solution) {
  if (solution.groups < 1 || problem.batch % solution.groups)
    return absl::InvalidArgumentError(absl::StrCat(
        solution.groups, " groups do not divide the batch of ", problem.batch));
  if (solution.layers < 0 || solution.layers > int64_t(problem.layers.size()))
    return absl::InvalidArgumentError(absl::StrCat(
        solution.layers, " layers split of ", problem.layers.size()));
  if (solution.layers > 0 && solution.groups == 1)
    return absl::InvalidArgumentError("layers split into one group");
  for (int64_t i = 0; i < solution.layers; ++i) {
    const BatchLayer &l = problem.layers[i];
    if (!l.splittable)
      return absl::InvalidArgumentError(
          absl::StrCat("layer '", l.name, "' is split but cannot be"));
    if (!fits(l.bytes, problem.batch, solution.groups, problem.capacity))
      return absl::InvalidArgumentError(
          absl::StrCat("layer '", l.name, "' does not fit at ",
                       problem.batch / solution.groups, " images"));
  }
  return absl::OkStatus();
}
