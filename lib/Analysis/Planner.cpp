//===- Planner.cpp - Problem checks, the allocate() driver, memory maps ---===//
//
// allocate() first compares the live-bytes peak with the capacity, then tries
// the chosen policy's scan, a first-fit scan (rotation is a preference, never
// the reason a plan fails) and greedy-by-size. When all fail, the error shows
// a memory map of what was live where planning broke down.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <cassert>
#include <optional>

namespace nki {

using planner_detail::describeBuffer;
using planner_detail::kUnplaced;

namespace {

/// The narrowest window allocate() retries a failed Rotate scan with.
constexpr int64_t kMinRotateWindow = 4;
/// A narrowed window applied locally (PlannerOptions::localWindow): first
/// over this fraction of the program's span before each position where the
/// unbounded rotation fails, and at most this many scans.
constexpr int64_t kLocalWindowFraction = 256;
constexpr int kMaxLocalWindowScans = 64;
/// A window narrower than this fraction of the program's span is severe
/// narrowing: allocate() then also tries long-lived buffers from the top
/// (PlannerOptions::longLivedFromTop).
constexpr int64_t kSevereNarrowing = 64;

bool isPowerOf2(int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

std::string liveRange(const PlannerBuffer &buffer) {
  return absl::StrCat("[", buffer.liveStart, ", ", buffer.liveEnd, "]");
}

/// Most rows a memory map shows; the rest are summarised in one line.
constexpr size_t kMaxMapRows = 64;

/// The table of the buffers live at `position`, with their `offsets`
/// (kUnplaced: not placed) and the buffer that did not fit, if any, marked.
std::string memoryMap(const PlannerProblem &problem, int64_t position,
                      const std::vector<int64_t> &offsets,
                      std::optional<size_t> failed) {
  const std::vector<PlannerBuffer> &buffers = problem.buffers;
  std::vector<size_t> rows;
  int64_t liveBytes = 0, placedBytes = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].liveStart > position || buffers[i].liveEnd < position)
      continue;
    rows.push_back(i);
    liveBytes += buffers[i].size;
    if (offsets[i] != kUnplaced)
      placedBytes += buffers[i].size;
  }
  size_t total = rows.size();
  if (total > kMaxMapRows) {
    // Keep the largest, and always the one that failed.
    std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
      if ((a == failed) != (b == failed))
        return a == failed;
      return buffers[a].size != buffers[b].size
                 ? buffers[a].size > buffers[b].size
                 : a < b;
    });
    rows.resize(kMaxMapRows);
  }
  // Placed by address, then the unplaced largest first.
  std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
    bool aPlaced = offsets[a] != kUnplaced, bPlaced = offsets[b] != kUnplaced;
    if (aPlaced != bPlaced)
      return aPlaced;
    if (aPlaced && offsets[a] != offsets[b])
      return offsets[a] < offsets[b];
    if (!aPlaced && buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return a < b;
  });

  std::string map = absl::StrFormat(
      "memory map at position %d (capacity %d bytes; %d bytes live, %d "
      "placed):\n",
      position, problem.capacity, liveBytes, placedBytes);
  absl::StrAppendFormat(&map, "  %10s %10s %10s  %-22s %s\n", "offset", "end",
                        "size", "live", "buffer");
  for (size_t i : rows) {
    const PlannerBuffer &buffer = buffers[i];
    std::string offset = "-", end = "-";
    if (offsets[i] != kUnplaced) {
      offset = absl::StrCat(offsets[i]);
      end = absl::StrCat(offsets[i] + buffer.size);
    }
    std::string name = absl::StrCat("#", i);
    if (!buffer.name.empty())
      absl::StrAppend(&name, " '", buffer.name, "'");
    absl::StrAppendFormat(&map, "  %10s %10s %10d  %-22s %s%s\n", offset, end,
                          buffer.size, liveRange(buffer), name,
                          i == failed ? "  <- does not fit" : "");
  }
  if (total > rows.size())
    absl::StrAppend(&map, "  ... and ", total - rows.size(),
                    " smaller buffers\n");
  return map;
}

} // namespace

namespace planner_detail {

std::string describeBuffer(const PlannerProblem &problem, size_t index) {
  std::string text = absl::StrCat("buffer #", index);
  const std::string &name = problem.buffers[index].name;
  if (!name.empty())
    absl::StrAppend(&text, " '", name, "'");
  return text;
}

} // namespace planner_detail

absl::Status PlannerProblem::check() const {
  if (capacity <= 0 || capacity > kPlannerMaxBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "capacity ", capacity, " is not in (0, ", kPlannerMaxBytes, "]"));
  if (boundary < 0 || boundary > kPlannerMaxBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "boundary ", boundary, " is not in [0, ", kPlannerMaxBytes, "]"));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlannerBuffer &buffer = buffers[i];
    auto error = [&](auto &&...parts) {
      return absl::InvalidArgumentError(
          absl::StrCat(describeBuffer(*this, i), ": ", parts...));
    };
    if (buffer.size <= 0 || buffer.size > kPlannerMaxBytes)
      return error("size ", buffer.size, " is not in (0, ", kPlannerMaxBytes,
                   "]");
    if (!isPowerOf2(buffer.alignment) || buffer.alignment > kPlannerMaxBytes)
      return error("alignment ", buffer.alignment,
                   " is not a power of 2 up to ", kPlannerMaxBytes);
    if (boundary != 0 && buffer.size > boundary)
      return error("size ", buffer.size, " exceeds the boundary ", boundary,
                   " it may not cross");
    if (boundary != 0 && boundary % buffer.alignment != 0)
      return error("alignment ", buffer.alignment,
                   " does not divide the boundary ", boundary);
    if (buffer.liveStart < 0)
      return error("live range starts at negative position ", buffer.liveStart);
    if (buffer.liveStart > buffer.liveEnd)
      return error("live range ", liveRange(buffer), " ends before it starts");
  }
  return absl::OkStatus();
}

PlannerLoad computePeakLoad(const PlannerProblem &problem) {
  // (position, 0 = starts / 1 = ends there, size): at one position the
  // starting buffers join before the ending ones leave, as both are live.
  struct Event {
    int64_t position;
    int kind;
    int64_t size;
  };
  std::vector<Event> events;
  events.reserve(2 * problem.buffers.size());
  for (const PlannerBuffer &buffer : problem.buffers) {
    events.push_back({buffer.liveStart, 0, buffer.size});
    events.push_back({buffer.liveEnd, 1, buffer.size});
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.position != b.position ? a.position < b.position : a.kind < b.kind;
  });
  PlannerLoad peak;
  int64_t load = 0;
  for (const Event &event : events) {
    load += event.kind == 0 ? event.size : -event.size;
    if (load > peak.bytes)
      peak = {load, event.position};
  }
  return peak;
}

namespace {
/// Which buffers a Rotate scan places from the top (PlannerOptions'
/// largeFromTop and longLivedFromTop).
struct FromTop {
  int64_t large = 0, longLived = 0;
};

/// A Rotate placement, the window it used and where (nullopt: everywhere).
struct Rotation {
  std::vector<int64_t> offsets;
  int64_t window;
  FromTop fromTop;
  std::optional<std::vector<std::pair<int64_t, int64_t>>> regions;
};

/// Rotate options of `window` with `fromTop`'s buffers from the top.
PlannerOptions rotateOptions(int64_t window, FromTop fromTop) {
  PlannerOptions options;
  options.policy = ReusePolicy::Rotate;
  options.rotateWindow = window;
  options.largeFromTop = fromTop.large;
  options.longLivedFromTop = fromTop.longLived;
  return options;
}
} // namespace

/// The last position any buffer is live at.
static int64_t programSpan(const PlannerProblem &problem) {
  int64_t span = 0;
  for (const PlannerBuffer &buffer : problem.buffers)
    span = std::max(span, buffer.liveEnd);
  return span;
}

/// The Rotate scan of the widest window that fits, from `window` down.
/// Rotating as far as memory allows can fragment it where it is nearly
/// full; then rotate less far before giving rotation up for the whole
/// program (first-fit puts every loop's tiles in one slot, each load
/// waiting for the previous tile's last reader): a quarter of the window
/// each time, down to kMinRotateWindow positions, until one fits, then the
/// widest window between that one and the last that failed, by bisection to
/// within an eighth (the narrower the window, the more writers wait for the
/// readers of the bytes they reuse: one tile more in EfficientNet-B0 at
/// batch 8 fell from the whole span to a quarter of a quarter, 1,273 ->
/// 1,445 us).
static std::optional<Rotation> widestRotation(const PlannerProblem &problem,
                                              int64_t window, FromTop fromTop) {
  auto scan = [&](int64_t w) {
    return planner_detail::scanAllocate(problem, rotateOptions(w, fromTop));
  };
  planner_detail::ScanResult result = scan(window);
  if (!result.failed)
    return Rotation{std::move(result.offsets), window, fromTop, std::nullopt};
  int64_t span = programSpan(problem);
  int64_t failedWindow = std::min(window, span);
  for (int64_t w = failedWindow / 4; w >= kMinRotateWindow; w /= 4) {
    result = scan(w);
    if (result.failed) {
      failedWindow = w;
      continue;
    }
    while (failedWindow - w > std::max<int64_t>(1, w / 8)) {
      int64_t middle = w + (failedWindow - w) / 2;
      planner_detail::ScanResult wider = scan(middle);
      if (wider.failed) {
        failedWindow = middle;
      } else {
        w = middle;
        result = std::move(wider);
      }
    }
    return Rotation{std::move(result.offsets), w, fromTop, std::nullopt};
  }
  return std::nullopt;
}

/// `narrowed`'s window applied only where the rotation needs it: from
/// nowhere, each scan that fails at position p narrows the window over the
/// span / kLocalWindowFraction positions before p, or, when p lies in a
/// range narrowed already, over twice that range (the placements that
/// fragmented the memory came before p). A loop far from where memory runs
/// short keeps rotating over all of it (EfficientNet-B0 in f32 at batch 8,
/// eight groups of one image, narrowed to 143 of 5,856 positions: 2,703 ->
/// 2,613 us). nullopt after kMaxLocalWindowScans failed scans.
static std::optional<Rotation> localRotation(const PlannerProblem &problem,
                                             const Rotation &narrowed) {
  int64_t span = programSpan(problem);
  int64_t reach = std::max<int64_t>(1, span / kLocalWindowFraction);
  PlannerOptions options = rotateOptions(narrowed.window, narrowed.fromTop);
  options.windowRegions.emplace();
  std::vector<std::pair<int64_t, int64_t>> &regions = *options.windowRegions;
  for (int i = 0; i < kMaxLocalWindowScans; ++i) {
    planner_detail::ScanResult result =
        planner_detail::scanAllocate(problem, options);
    if (!result.failed)
      return Rotation{std::move(result.offsets), narrowed.window,
                      narrowed.fromTop, std::move(regions)};
    int64_t at = problem.buffers[*result.failed].liveStart;
    auto within =
        std::find_if(regions.begin(), regions.end(), [&](const auto &range) {
          return range.first <= at && at <= range.second;
        });
    if (within != regions.end())
      within->first = std::max<int64_t>(
          0, within->first - (within->second - within->first + 1));
    else
      regions.push_back({std::max<int64_t>(0, at - reach), at});
    // Sorted and disjoint again: grown ranges may reach their neighbours.
    std::sort(regions.begin(), regions.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (const auto &range : regions)
      if (!merged.empty() && range.first <= merged.back().second + 1)
        merged.back().second = std::max(merged.back().second, range.second);
      else
        merged.push_back(range);
    regions = std::move(merged);
  }
  return std::nullopt;
}

absl::StatusOr<PlannerSolution> allocate(const PlannerProblem &problem,
                                         const PlannerOptions &options) {
  if (absl::Status status = problem.check(); !status.ok())
    return status;
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    if (problem.buffers[i].size > problem.capacity)
      return absl::ResourceExhaustedError(
          absl::StrCat("out of memory: ", describeBuffer(problem, i), " needs ",
                       problem.buffers[i].size,
                       " bytes, more than the capacity ", problem.capacity));

  // No placement can beat the live bytes; saying so at once is both faster
  // and clearer than a failed placement.
  PlannerLoad load = computePeakLoad(problem);
  if (load.bytes > problem.capacity)
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory: the buffers live at position ", load.position, " need ",
        load.bytes, " bytes, more than the capacity ", problem.capacity, "\n",
        memoryMap(problem, load.position,
                  std::vector<int64_t>(problem.buffers.size(), kUnplaced),
                  std::nullopt)));

  auto solved = [&](std::vector<int64_t> offsets, PlannerAlgorithm algorithm,
                    int64_t window = 0) {
    PlannerSolution solution{std::move(offsets), 0, algorithm, window,
                             std::nullopt};
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      solution.peak = std::max(solution.peak,
                               solution.offsets[i] + problem.buffers[i].size);
    assert(verify(problem, solution).ok() && "planner broke its own rules");
    return solution;
  };

  planner_detail::ScanResult scan;
  if (options.policy == ReusePolicy::Rotate) {
    // Large buffers from the top only when the lowest-address placement had
    // to narrow its window, and only for a wider one; long-lived ones too
    // (alone, then with the large ones) only where the window had to narrow
    // below a kSevereNarrowing-th of the program.
    std::optional<Rotation> best =
        widestRotation(problem, options.rotateWindow, FromTop{});
    auto tryFromTop = [&](FromTop fromTop) {
      std::optional<Rotation> top =
          widestRotation(problem, options.rotateWindow, fromTop);
      if (top && (!best || top->window > best->window))
        best = std::move(top);
    };
    auto narrowed = [&](int64_t below) {
      return !best || best->window < below;
    };
    if (options.largeFromTop > 0 && narrowed(options.rotateWindow))
      tryFromTop({options.largeFromTop, 0});
    int64_t severe =
        std::min(options.rotateWindow, programSpan(problem) / kSevereNarrowing);
    if (options.longLivedFromTop > 0 && narrowed(severe)) {
      tryFromTop({0, options.longLivedFromTop});
      if (options.largeFromTop > 0 && narrowed(severe))
        tryFromTop({options.largeFromTop, options.longLivedFromTop});
    }
    if (best && best->window < options.rotateWindow && options.localWindow)
      if (std::optional<Rotation> local = localRotation(problem, *best))
        best = std::move(local);
    if (best) {
      PlannerSolution solution = solved(
          std::move(best->offsets), PlannerAlgorithm::RotateScan, best->window);
      solution.windowRegions = std::move(best->regions);
      return solution;
    }
  } else {
    scan = planner_detail::scanAllocate(problem, options);
    if (!scan.failed)
      return solved(std::move(scan.offsets), PlannerAlgorithm::FirstFitScan);
  }
  if (options.policy != ReusePolicy::FirstFit) {
    PlannerOptions firstFit;
    firstFit.policy = ReusePolicy::FirstFit;
    scan = planner_detail::scanAllocate(problem, firstFit);
    if (!scan.failed)
      return solved(std::move(scan.offsets), PlannerAlgorithm::FirstFitScan);
  }
  if (std::optional<std::vector<int64_t>> offsets =
          planner_detail::greedyBySize(problem))
    return solved(std::move(*offsets), PlannerAlgorithm::GreedyBySize);

  // The bytes would fit but no placement was found: show the first-fit scan's
  // state where it failed.
  size_t failed = *scan.failed;
  const PlannerBuffer &buffer = problem.buffers[failed];
  std::string message =
      absl::StrCat("out of memory: ", describeBuffer(problem, failed), " (",
                   buffer.size, " bytes, live ", liveRange(buffer),
                   ") does not fit in ", problem.capacity, " bytes");
  if (problem.boundary != 0)
    absl::StrAppend(&message, " without crossing a multiple of ",
                    problem.boundary);
  absl::StrAppend(&message, "; at most ", load.bytes,
                  " bytes are live at once (position ", load.position,
                  "), alignment, boundaries and fragmentation take the rest\n",
                  memoryMap(problem, buffer.liveStart, scan.offsets, failed));
  return absl::ResourceExhaustedError(message);
}

} // namespace nki
