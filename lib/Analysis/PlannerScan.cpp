//===- PlannerScan.cpp - Linear-scan placement with a reuse policy --------===//
//
// Simulates an allocator over the program: at each buffer's liveStart, the
// buffers whose live range ended are freed, then the buffer takes the lowest
// free address that fits. Under Rotate, freed ranges first rest in a FIFO and
// return to the free map only when nothing else fits (oldest first) or when
// they have rested longer than the window; this is what spreads a loop's
// tiles over several slots. Large or long-lived buffers may take the highest
// address that fits instead (PlannerOptions::largeFromTop and
// longLivedFromTop). Free ranges are coalesced, so
// the search visits at most one fragment per live or resting buffer.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

namespace nki::planner_detail {

namespace {

/// Free byte ranges [start, end) keyed by start, never adjacent.
class FreeMap {
public:
  using Iterator = std::map<int64_t, int64_t>::iterator;

  explicit FreeMap(int64_t capacity) { ranges[0] = capacity; }

  /// Returns [start, end) to the map and the coalesced range holding it.
  Iterator release(int64_t start, int64_t end) {
    auto next = ranges.lower_bound(start);
    if (next != ranges.end() && next->first == end) {
      end = next->second;
      next = ranges.erase(next);
    }
    if (next != ranges.begin()) {
      auto prev = std::prev(next);
      if (prev->second == start) {
        prev->second = end;
        return prev;
      }
    }
    return ranges.emplace_hint(next, start, end);
  }

  /// Takes [at, at + size) out of the free range `range`, which holds it.
  void take(Iterator range, int64_t at, int64_t size) {
    int64_t start = range->first, end = range->second;
    ranges.erase(range);
    if (start < at)
      ranges[start] = at;
    if (at + size < end)
      ranges[at + size] = end;
  }

  Iterator begin() { return ranges.begin(); }
  Iterator end() { return ranges.end(); }

private:
  std::map<int64_t, int64_t> ranges;
};

struct RestingRange {
  int64_t start, end;
  int64_t freedAt; ///< liveEnd of the buffer that held it.
};

} // namespace

ScanResult scanAllocate(const PlannerProblem &problem,
                        const PlannerOptions &options) {
  const std::vector<PlannerBuffer> &buffers = problem.buffers;
  ScanResult result;
  result.offsets.assign(buffers.size(), kUnplaced);

  // By liveStart; larger buffers first among equals, which packs better.
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PlannerBuffer &x = buffers[a], &y = buffers[b];
    if (x.liveStart != y.liveStart)
      return x.liveStart < y.liveStart;
    if (x.size != y.size)
      return x.size > y.size;
    return a < b;
  });

  bool rotate = options.policy == ReusePolicy::Rotate;
  bool fromTop = rotate && problem.boundary == 0;
  // Positions a buffer must be live over to count as long-lived.
  int64_t longLived = std::numeric_limits<int64_t>::max();
  if (fromTop && options.longLivedFromTop > 0) {
    int64_t span = 0;
    for (const PlannerBuffer &buffer : buffers)
      span = std::max(span, buffer.liveEnd);
    longLived = span / options.longLivedFromTop;
  }
  FreeMap free(problem.capacity);
  std::deque<RestingRange> resting; // Sorted by freedAt: freed in that order.
  using Live = std::pair<int64_t, size_t>; // (liveEnd, buffer)
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;

  // The next of the regions where the window applies (positions only grow).
  size_t region = 0;
  for (size_t index : order) {
    const PlannerBuffer &buffer = buffers[index];
    int64_t now = buffer.liveStart;
    int64_t window = options.rotateWindow;
    if (const auto &regions = options.windowRegions) {
      while (region < regions->size() && (*regions)[region].second < now)
        ++region;
      if (region == regions->size() || (*regions)[region].first > now)
        window = std::numeric_limits<int64_t>::max();
    }
    while (!live.empty() && live.top().first < now) {
      auto [liveEnd, dead] = live.top();
      live.pop();
      int64_t start = result.offsets[dead];
      int64_t end = start + buffers[dead].size;
      if (rotate)
        resting.push_back({start, end, liveEnd});
      else
        free.release(start, end);
    }
    while (!resting.empty() && now - resting.front().freedAt > window) {
      free.release(resting.front().start, resting.front().end);
      resting.pop_front();
    }

    bool top =
        fromTop && ((options.largeFromTop > 0 &&
                     buffer.size * options.largeFromTop >= problem.capacity) ||
                    buffer.liveEnd - buffer.liveStart >= longLived);
    auto fit = [&](int64_t lo, int64_t hi) {
      if (!top)
        return fitIn(lo, hi, buffer, problem.boundary);
      int64_t at = (hi - buffer.size) / buffer.alignment * buffer.alignment;
      return at >= lo ? at : kUnplaced;
    };
    int64_t at = kUnplaced;
    FreeMap::Iterator range = free.end();
    if (top) {
      for (auto it = free.end(); it != free.begin() && at == kUnplaced;) {
        --it;
        at = fit(it->first, it->second);
        range = it;
      }
    } else {
      for (auto it = free.begin(); it != free.end() && at == kUnplaced; ++it) {
        at = fit(it->first, it->second);
        range = it;
      }
    }
    // Only the range a release grew can newly fit; the others already failed.
    while (at == kUnplaced && !resting.empty()) {
      range = free.release(resting.front().start, resting.front().end);
      resting.pop_front();
      at = fit(range->first, range->second);
    }
    if (at == kUnplaced) {
      result.failed = index;
      return result;
    }
    free.take(range, at, buffer.size);
    result.offsets[index] = at;
    live.push({buffer.liveEnd, index});
  }
  return result;
}

} // namespace nki::planner_detail
