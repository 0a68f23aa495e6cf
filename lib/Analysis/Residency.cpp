//===- Residency.cpp - Which tensors stay in SBUF between kernels ---------===//

#include "nki/Analysis/Residency.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <numeric>

using namespace nki;

absl::Status ResidencyProblem::check() const {
  for (size_t i = 0; i < capacity.size(); ++i)
    if (capacity[i] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("position ", i, " has a negative capacity"));
  int64_t positions = int64_t(capacity.size());
  for (const ResidencyCandidate &c : candidates) {
    if (c.bytes <= 0)
      return absl::InvalidArgumentError(
          absl::StrCat("candidate '", c.name, "' has ", c.bytes, " bytes"));
    if (c.benefit < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("candidate '", c.name, "' has a negative benefit"));
    if (c.liveStart < 0 || c.liveStart > c.liveEnd || c.liveEnd >= positions)
      return absl::InvalidArgumentError(
          absl::StrCat("candidate '", c.name, "' has live range [", c.liveStart,
                       ", ", c.liveEnd, "] outside [0, ", positions, ")"));
  }
  return absl::OkStatus();
}

namespace {
/// Range add and range max over positions: the slack (resident bytes minus
/// capacity) of each position.
class SlackTree {
public:
  explicit SlackTree(const std::vector<int64_t> &capacity)
      : n(std::max<size_t>(1, capacity.size())), max(4 * n, 0), add(4 * n, 0) {
    build(1, 0, n - 1, capacity);
  }
  int64_t query(int64_t l, int64_t r) const { return query(1, 0, n - 1, l, r); }
  void update(int64_t l, int64_t r, int64_t v) { update(1, 0, n - 1, l, r, v); }

private:
  void build(size_t node, int64_t lo, int64_t hi,
             const std::vector<int64_t> &capacity) {
    if (lo == hi) {
      max[node] = size_t(lo) < capacity.size() ? -capacity[lo] : 0;
      return;
    }
    int64_t mid = (lo + hi) / 2;
    build(2 * node, lo, mid, capacity);
    build(2 * node + 1, mid + 1, hi, capacity);
    max[node] = std::max(max[2 * node], max[2 * node + 1]);
  }
  int64_t query(size_t node, int64_t lo, int64_t hi, int64_t l,
                int64_t r) const {
    if (l <= lo && hi <= r)
      return max[node];
    int64_t mid = (lo + hi) / 2, best = INT64_MIN;
    if (l <= mid)
      best = std::max(best, query(2 * node, lo, mid, l, r));
    if (r > mid)
      best = std::max(best, query(2 * node + 1, mid + 1, hi, l, r));
    return best + add[node];
  }
  void update(size_t node, int64_t lo, int64_t hi, int64_t l, int64_t r,
              int64_t v) {
    if (l <= lo && hi <= r) {
      max[node] += v;
      add[node] += v;
      return;
    }
    int64_t mid = (lo + hi) / 2;
    if (l <= mid)
      update(2 * node, lo, mid, l, r, v);
    if (r > mid)
      update(2 * node + 1, mid + 1, hi, l, r, v);
    max[node] = std::max(max[2 * node], max[2 * node + 1]) + add[node];
  }

  size_t n;
  std::vector<int64_t> max, add; // add: pending for the whole subtree
};
} // namespace

absl::Status nki::solve(const ResidencyProblem &problem,
                        ResidencySolution &solution) {
  if (absl::Status s = problem.check(); !s.ok())
    return s;
  const std::vector<ResidencyCandidate> &cs = problem.candidates;
  solution.resident.assign(cs.size(), false);
  // Benefit per byte-position held, compared as cross products (exact).
  auto held = [&](const ResidencyCandidate &c) {
    return static_cast<long double>(c.bytes) *
           static_cast<long double>(c.liveEnd - c.liveStart + 1);
  };
  std::vector<size_t> order(cs.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties in index order: stable, without stable_sort's temporary buffer
  // (libstdc++ 12's get_temporary_buffer, which clang flags deprecated).
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    long double x = static_cast<long double>(cs[a].benefit) * held(cs[b]);
    long double y = static_cast<long double>(cs[b].benefit) * held(cs[a]);
    return x != y ? x > y : a < b;
  });
  SlackTree slack(problem.capacity);
  for (size_t i : order) {
    const ResidencyCandidate &c = cs[i];
    if (c.benefit == 0 || slack.query(c.liveStart, c.liveEnd) + c.bytes > 0)
      continue;
    slack.update(c.liveStart, c.liveEnd, c.bytes);
    solution.resident[i] = true;
  }
  return absl::OkStatus();
}

std::vector<int64_t> nki::residentBytes(const ResidencyProblem &problem,
                                        const ResidencySolution &solution) {
  const std::vector<ResidencyCandidate> &cs = problem.candidates;
  std::vector<int64_t> live(problem.capacity.size() + 1, 0);
  for (size_t i = 0; i < cs.size() && i < solution.resident.size(); ++i)
    if (solution.resident[i]) {
      live[cs[i].liveStart] += cs[i].bytes;
      live[cs[i].liveEnd + 1] -= cs[i].bytes;
    }
  for (size_t p = 1; p < live.size(); ++p)
    live[p] += live[p - 1];
  live.pop_back();
  return live;
}

absl::StatusOr<bool> nki::admit(ResidencyProblem &problem,
                                ResidencySolution &solution,
                                ResidencyCandidate candidate) {
  if (solution.resident.size() != problem.candidates.size())
    return absl::InvalidArgumentError(
        absl::StrCat("the solution has ", solution.resident.size(),
                     " flags for ", problem.candidates.size(), " candidates"));
  ResidencyProblem one;
  one.capacity = problem.capacity;
  one.candidates = {candidate};
  if (absl::Status s = one.check(); !s.ok())
    return s;
  std::vector<int64_t> live = residentBytes(problem, solution);
  bool fits = true;
  for (int64_t p = candidate.liveStart; fits && p <= candidate.liveEnd; ++p)
    fits = live[p] + candidate.bytes <= problem.capacity[p];
  problem.candidates.push_back(std::move(candidate));
  solution.resident.push_back(fits);
  return fits;
}

absl::Status nki::verify(const ResidencyProblem &problem,
                         const ResidencySolution &solution) {
  if (absl::Status s = problem.check(); !s.ok())
    return s;
  const std::vector<ResidencyCandidate> &cs = problem.candidates;
  if (solution.resident.size() != cs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("the solution has ", solution.resident.size(),
                     " flags for ", cs.size(), " candidates"));
  // Sweep: resident bytes per position from start/end events.
  std::vector<int64_t> delta(problem.capacity.size() + 1, 0);
  for (size_t i = 0; i < cs.size(); ++i)
    if (solution.resident[i]) {
      delta[cs[i].liveStart] += cs[i].bytes;
      delta[cs[i].liveEnd + 1] -= cs[i].bytes;
    }
  int64_t live = 0;
  for (size_t p = 0; p < problem.capacity.size(); ++p) {
    live += delta[p];
    if (live <= problem.capacity[p])
      continue;
    std::string names;
    for (size_t i = 0; i < cs.size(); ++i)
      if (solution.resident[i] && cs[i].liveStart <= int64_t(p) &&
          int64_t(p) <= cs[i].liveEnd)
        absl::StrAppend(&names, names.empty() ? "" : ", ", cs[i].name, " (",
                        cs[i].bytes, ")");
    return absl::ResourceExhaustedError(
        absl::StrCat("position ", p, " holds ", live,
                     " resident bytes, above its capacity of ",
                     problem.capacity[p], ": ", names));
  }
  return absl::OkStatus();
}
