//===- PlannerInternal.h - Pieces shared by the planner's files -*- C++ -*-===//
//
// Private to lib/Analysis: the two placement algorithms allocate() chains and
// the helpers they and verify() share. Inputs have passed check().
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_ANALYSIS_PLANNERINTERNAL_H
#define NKI_LIB_ANALYSIS_PLANNERINTERNAL_H

#include "nki/Analysis/Planner.h"

#include <optional>
#include <string>
#include <vector>

namespace nki::planner_detail {

/// Offsets of buffers not (yet) placed.
inline constexpr int64_t kUnplaced = -1;

/// The lowest offset in [lo, hi) where `buffer` fits aligned and without
/// crossing a multiple of `boundary` (0: none), or kUnplaced.
inline int64_t fitIn(int64_t lo, int64_t hi, const PlannerBuffer &buffer,
                     int64_t boundary) {
  int64_t align = buffer.alignment;
  int64_t at = (lo + align - 1) / align * align;
  // check() makes the boundary a multiple of the alignment and at least the
  // size, so the next boundary is aligned and the buffer fits after it.
  if (boundary != 0 && at / boundary != (at + buffer.size - 1) / boundary)
    at = (at / boundary + 1) * boundary;
  return at + buffer.size <= hi ? at : kUnplaced;
}

/// "buffer #3 'acc'" (no quotes part when unnamed).
std::string describeBuffer(const PlannerProblem &problem, size_t index);

/// Result of the linear scan: offsets (kUnplaced for buffers not placed) and
/// the index of the first buffer that did not fit, if any. On failure the
/// offsets are the scan's state at that moment, for the memory map.
struct ScanResult {
  std::vector<int64_t> offsets;
  std::optional<size_t> failed;
};

/// Walks buffers by liveStart, freeing those whose live range ended, and puts
/// each at the lowest free address that fits, under `options`' reuse policy.
ScanResult scanAllocate(const PlannerProblem &problem,
                        const PlannerOptions &options);

/// Places buffers largest first, each at the lowest address clear of the
/// already placed buffers whose live ranges overlap its own; nullopt when one
/// does not fit. Offline, so often tighter than the scan.
std::optional<std::vector<int64_t>> greedyBySize(const PlannerProblem &problem);

} // namespace nki::planner_detail

#endif // NKI_LIB_ANALYSIS_PLANNERINTERNAL_H
