//===- PlannerBySize.cpp - Offline greedy-by-size placement ---------------===//
//
// The "greedy by size" heuristic of offline storage allocation (as in
// TensorFlow Lite's arena planner): largest buffers first, each at the lowest
// gap left by the already placed buffers it is live with. Seeing every buffer
// up front, it often fits where the scan fragments. The pairs of buffers live
// together are found by one sweep; there are at most n * (max live buffers),
// so the whole is O(n * live * log(live)).
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace nki::planner_detail {

std::optional<std::vector<int64_t>>
greedyBySize(const PlannerProblem &problem) {
  const std::vector<PlannerBuffer> &buffers = problem.buffers;
  size_t n = buffers.size();

  std::vector<size_t> bySize(n);
  std::iota(bySize.begin(), bySize.end(), 0);
  std::sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
    const PlannerBuffer &x = buffers[a], &y = buffers[b];
    if (x.size != y.size)
      return x.size > y.size;
    int64_t xLength = x.liveEnd - x.liveStart,
            yLength = y.liveEnd - y.liveStart;
    if (xLength != yLength)
      return xLength > yLength;
    return a < b;
  });
  std::vector<size_t> rank(n);
  for (size_t i = 0; i < n; ++i)
    rank[bySize[i]] = i;

  // conflicts[b]: the buffers live with b that are placed before it.
  std::vector<std::vector<size_t>> conflicts(n);
  std::vector<size_t> byStart(n);
  std::iota(byStart.begin(), byStart.end(), 0);
  std::sort(byStart.begin(), byStart.end(), [&](size_t a, size_t b) {
    return buffers[a].liveStart < buffers[b].liveStart;
  });
  std::set<std::pair<int64_t, size_t>> live; // (liveEnd, buffer)
  for (size_t b : byStart) {
    while (!live.empty() && live.begin()->first < buffers[b].liveStart)
      live.erase(live.begin());
    for (const auto &[liveEnd, a] : live) {
      (void)liveEnd;
      if (rank[a] < rank[b])
        conflicts[b].push_back(a);
      else
        conflicts[a].push_back(b);
    }
    live.insert({buffers[b].liveEnd, b});
  }

  std::vector<int64_t> offsets(n, kUnplaced);
  std::vector<std::pair<int64_t, int64_t>> taken; // [start, end), reused
  for (size_t b : bySize) {
    const PlannerBuffer &buffer = buffers[b];
    taken.clear();
    for (size_t a : conflicts[b])
      taken.push_back({offsets[a], offsets[a] + buffers[a].size});
    std::sort(taken.begin(), taken.end());
    int64_t gapStart = 0, at = kUnplaced;
    for (const auto &[start, end] : taken) {
      if (start > gapStart &&
          (at = fitIn(gapStart, start, buffer, problem.boundary)) != kUnplaced)
        break;
      gapStart = std::max(gapStart, end);
    }
    if (at == kUnplaced)
      at = fitIn(gapStart, problem.capacity, buffer, problem.boundary);
    if (at == kUnplaced)
      return std::nullopt;
    offsets[b] = at;
  }
  return offsets;
}

} // namespace nki::planner_detail
