//===- PlannerVerify.cpp - Checking a placement against its problem -------===//
//
// Independent of how the solution was found: per-buffer rules, then one sweep
// over positions keeping the live buffers in an address-ordered map. Live
// buffers checked so far are disjoint, so a new one need only be compared
// with its neighbours in address order.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

namespace nki {

using planner_detail::describeBuffer;

absl::Status verify(const PlannerProblem &problem,
                    const PlannerSolution &solution) {
  if (absl::Status status = problem.check(); !status.ok())
    return status;
  const std::vector<PlannerBuffer> &buffers = problem.buffers;
  const std::vector<int64_t> &offsets = solution.offsets;
  if (offsets.size() != buffers.size())
    return absl::InvalidArgumentError(
        absl::StrCat("solution has ", offsets.size(), " offsets for ",
                     buffers.size(), " buffers"));

  int64_t highest = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlannerBuffer &buffer = buffers[i];
    int64_t offset = offsets[i];
    auto error = [&](auto &&...parts) {
      return absl::InvalidArgumentError(absl::StrCat(
          describeBuffer(problem, i), " at offset ", offset, ": ", parts...));
    };
    if (offset < 0 || offset > problem.capacity - buffer.size)
      return error("bytes [", offset, ", ", offset + buffer.size,
                   ") are not inside [0, ", problem.capacity, ")");
    if (offset % buffer.alignment != 0)
      return error("not a multiple of its alignment ", buffer.alignment);
    if (problem.boundary != 0 &&
        offset / problem.boundary !=
            (offset + buffer.size - 1) / problem.boundary)
      return error("its ", buffer.size, " bytes cross the boundary at ",
                   (offset / problem.boundary + 1) * problem.boundary);
    highest = std::max(highest, offset + buffer.size);
  }
  if (solution.peak != highest)
    return absl::InvalidArgumentError(
        absl::StrCat("peak ", solution.peak,
                     " is not the highest end address used, ", highest));

  std::vector<size_t> byStart(buffers.size());
  std::iota(byStart.begin(), byStart.end(), 0);
  std::sort(byStart.begin(), byStart.end(), [&](size_t a, size_t b) {
    return buffers[a].liveStart < buffers[b].liveStart;
  });
  using Live = std::pair<int64_t, size_t>; // (liveEnd, buffer)
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> byEnd;
  std::map<int64_t, size_t> byOffset; // Live buffers, disjoint.
  auto conflict = [&](size_t a, size_t b) {
    const PlannerBuffer &x = buffers[a], &y = buffers[b];
    return absl::InvalidArgumentError(absl::StrCat(
        describeBuffer(problem, a), " and ", describeBuffer(problem, b),
        " share bytes [", std::max(offsets[a], offsets[b]), ", ",
        std::min(offsets[a] + x.size, offsets[b] + y.size),
        ") while both are live at positions [",
        std::max(x.liveStart, y.liveStart), ", ",
        std::min(x.liveEnd, y.liveEnd), "]"));
  };
  for (size_t b : byStart) {
    const PlannerBuffer &buffer = buffers[b];
    while (!byEnd.empty() && byEnd.top().first < buffer.liveStart) {
      byOffset.erase(offsets[byEnd.top().second]);
      byEnd.pop();
    }
    auto next = byOffset.lower_bound(offsets[b]);
    if (next != byOffset.end() && next->first < offsets[b] + buffer.size)
      return conflict(next->second, b);
    if (next != byOffset.begin()) {
      size_t a = std::prev(next)->second;
      if (offsets[a] + buffers[a].size > offsets[b])
        return conflict(a, b);
    }
    byOffset.emplace(offsets[b], b);
    byEnd.push({buffer.liveEnd, b});
  }
  return absl::OkStatus();
}

} // namespace nki
