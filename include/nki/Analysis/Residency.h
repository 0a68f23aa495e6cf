//===- Residency.h - Which tensors stay in SBUF between kernels -*- C++ -*-===//
//
// A whole-program choice: each candidate is a tensor that kernels exchange
// (one writes it, later ones read it) with a live range over the program's
// kernels and the SBUF bytes per partition it would take; every position
// (kernel) has a capacity, the SBUF its own tiles leave free. A solution
// keeps a subset of the candidates in SBUF such that the resident bytes live
// at any position fit its capacity; the others stay in HBM. The objective is
// the HBM traffic saved (each candidate's `benefit`).
//
// A pure algorithm core like the planner's (Planner.h): a problem with
// check(), solve() and verify(), tested without IR. docs/memory-planning.md
// describes how nki-tile builds the problem.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_RESIDENCY_H
#define NKI_ANALYSIS_RESIDENCY_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nki {

struct ResidencyCandidate {
  int64_t bytes = 0;     ///< SBUF bytes per partition, > 0.
  int64_t liveStart = 0; ///< First position (kernel) using it, >= 0.
  int64_t liveEnd = 0;   ///< Last position using it (inclusive).
  int64_t benefit = 0;   ///< HBM bytes saved when resident, >= 0.
  std::string name;      ///< For diagnostics only.
};

struct ResidencyProblem {
  /// Per position, the bytes resident candidates may take there (>= 0).
  std::vector<int64_t> capacity;
  std::vector<ResidencyCandidate> candidates;

  /// Input errors, naming the candidate: bytes > 0, benefit >= 0,
  /// 0 <= liveStart <= liveEnd < capacity.size(), capacities >= 0.
  absl::Status check() const;
};

struct ResidencySolution {
  std::vector<bool> resident; ///< One per candidate, in problem order.
};

/// Chooses the resident candidates greedily: by benefit per byte-position
/// (the SBUF they hold over their live range), a candidate is taken when it
/// fits at every position of its range. O(n log n + n log p) for n
/// candidates and p positions. Errors: check()'s.
absl::Status solve(const ResidencyProblem &problem,
                   ResidencySolution &solution);

/// The resident bytes live at each position under `solution` (one flag per
/// candidate of `problem`).
std::vector<int64_t> residentBytes(const ResidencyProblem &problem,
                                   const ResidencySolution &solution);

/// Adds `candidate` to a solved problem: appended to `problem.candidates`,
/// and resident in `solution` when it fits at every position of its range
/// beside the resident candidates (a candidate the greedy could not weigh
/// with the others: a tensor in a layout chosen after the plan). Returns
/// whether it is resident. O(n + p). Errors: check()'s for the candidate,
/// or a solution of another size.
absl::StatusOr<bool> admit(ResidencyProblem &problem,
                           ResidencySolution &solution,
                           ResidencyCandidate candidate);

/// Checks `solution`: one flag per candidate and, at every position, the
/// resident candidates live there within its capacity (the message names
/// the position and the candidates live there).
absl::Status verify(const ResidencyProblem &problem,
                    const ResidencySolution &solution);

} // namespace nki

#endif // NKI_ANALYSIS_RESIDENCY_H
