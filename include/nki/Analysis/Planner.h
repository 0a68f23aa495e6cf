//===- Planner.h - On-chip memory planner -----------------------*- C++ -*-===//
//
// Places buffers with known live ranges in one on-chip address space so that
// buffers live at the same time never share a byte. The space is 1-D: bytes
// of one SBUF partition (a tile gets the same byte range in every partition
// it uses), or of PSUM, whose 2 KiB banks no buffer may cross.
//
// A pure algorithm core after circt's scheduling problems: a problem with
// check(), allocate() to solve it and verify() to check any solution, tested
// without IR. docs/planner.md explains the algorithm, the reuse policy
// (multi-buffering) and the error format.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_PLANNER_H
#define NKI_ANALYSIS_PLANNER_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nki {

/// One buffer to place. Positions index the program's linear sequence of
/// operations; the buffer occupies its bytes from the start of `liveStart` to
/// the end of `liveEnd`, so a buffer whose `liveStart` is another's
/// `liveEnd + 1` may reuse its bytes.
struct PlannerBuffer {
  int64_t size = 0;      ///< Bytes, > 0.
  int64_t alignment = 1; ///< A power of 2; the offset is a multiple of it.
  int64_t liveStart = 0; ///< First position using the buffer, >= 0.
  int64_t liveEnd = 0;   ///< Last position using it (inclusive).
  std::string name;      ///< For diagnostics only.
};

/// Addresses, sizes and alignments are capped here, which keeps every sum the
/// planner forms far from int64_t overflow.
inline constexpr int64_t kPlannerMaxBytes = int64_t{1} << 48;

struct PlannerProblem {
  /// Bytes of the address space, [0, capacity).
  int64_t capacity = 0;
  /// 0: none. Otherwise no buffer may cross a multiple of it (PSUM banks).
  int64_t boundary = 0;
  std::vector<PlannerBuffer> buffers;

  /// Input errors, naming the buffer: capacity in (0, kPlannerMaxBytes],
  /// boundary >= 0, sizes > 0, alignments powers of 2 dividing the boundary
  /// when one is set, sizes <= boundary, 0 <= liveStart <= liveEnd.
  /// A buffer larger than the capacity is not an input error: allocate()
  /// reports it as not fitting.
  absl::Status check() const;
};

/// Which freed bytes a new buffer takes.
enum class ReusePolicy {
  /// The lowest address that fits, freed bytes reused at once: the smallest
  /// peak, but a tile lands where its predecessor just died, so its producer
  /// must wait for the predecessor's last reader (a WAR dependence).
  FirstFit,
  /// Freed bytes rest and are taken only when nothing else fits, the bytes
  /// freed longest ago first; a loop's tiles rotate over as many slots as the
  /// capacity allows (multi-buffering), so loads run ahead of compute.
  Rotate,
};

struct PlannerOptions {
  ReusePolicy policy = ReusePolicy::Rotate;
  /// Rotate only: freed bytes that have rested more than this many positions
  /// count as fresh memory (taken lowest address first). Bounds how far the
  /// rotation spreads; 0 behaves as FirstFit.
  int64_t rotateWindow = std::numeric_limits<int64_t>::max();
  /// Rotate only, with no boundary: when the window has to narrow,
  /// allocate() plans again with each buffer of at least capacity /
  /// largeFromTop bytes taking the highest address that fits instead of the
  /// lowest (0: never), and keeps the plan of the wider window. Long-lived
  /// large buffers (tensors kept in SBUF between kernels) then collect at
  /// the top while the kernels' tiles rotate below them, rather than
  /// landing amid the rotation where they leave holes too small for the
  /// next large one.
  int64_t largeFromTop = 0;
  /// Rotate only, with no boundary: when the window has to narrow below a
  /// 64th of the program's positions (with large buffers from the top too,
  /// if largeFromTop), allocate() plans again with every buffer live over
  /// at least 1 / longLivedFromTop of them taking the highest address that
  /// fits (0: never), alone and then with the large ones, and keeps the
  /// plan of the widest window. A small table of per-channel constants
  /// live for the whole program, placed amid the rotation early on,
  /// otherwise splits the memory for good.
  int64_t longLivedFromTop = 0;
  /// Rotate only: when the window has to narrow, allocate() narrows it only
  /// around the positions where the rotation runs out of room (each scan
  /// that fails at a position narrows the positions before it, a range that
  /// doubles while the scan keeps failing within it) and keeps rotating over
  /// the whole memory elsewhere; the whole program's narrowed window when
  /// that does not fit within a bounded number of scans.
  bool localWindow = true;
  /// Rotate only, for one scan: the position ranges [first, last], sorted
  /// and disjoint, where rotateWindow applies; elsewhere freed bytes rest
  /// without bound. nullopt: everywhere. allocate() sets it itself
  /// (localWindow); it ignores a caller's.
  std::optional<std::vector<std::pair<int64_t, int64_t>>> windowRegions;
};

/// The algorithm that produced a solution. allocate() falls back from the
/// chosen policy to FirstFit to GreedyBySize until one fits.
enum class PlannerAlgorithm { RotateScan, FirstFitScan, GreedyBySize };

struct PlannerSolution {
  std::vector<int64_t> offsets; ///< One per buffer, in problem order.
  int64_t peak = 0;             ///< Highest end address (offset + size) used.
  PlannerAlgorithm algorithm = PlannerAlgorithm::FirstFitScan;
  /// RotateScan: the window it used (the options' own, or a narrower one
  /// when rotating that far fragmented the memory).
  int64_t rotateWindow = 0;
  /// RotateScan with a narrowed window: where it applied (localWindow), or
  /// nullopt for everywhere.
  std::optional<std::vector<std::pair<int64_t, int64_t>>> windowRegions;
};

/// The most bytes live at any one position, and the first position where that
/// happens. No solution has a smaller peak (alignment and boundaries may add
/// more), so a compiler can test tile sizes against it before planning.
struct PlannerLoad {
  int64_t bytes = 0;
  int64_t position = 0;
};
PlannerLoad computePeakLoad(const PlannerProblem &problem);

/// Places every buffer. Errors: check()'s InvalidArgument, or
/// ResourceExhausted when no algorithm fits the capacity; its message holds a
/// memory map of the buffers live where planning failed (docs/planner.md).
/// Runs in O(n log n + n * f) for n buffers and at most f free fragments.
absl::StatusOr<PlannerSolution> allocate(const PlannerProblem &problem,
                                         const PlannerOptions &options = {});

/// Checks `solution` against `problem`: one offset per buffer, each aligned,
/// inside [0, capacity) and not crossing a boundary; no two buffers live at a
/// common position share a byte; `peak` is the highest end address. Messages
/// name the buffers. O(n log n).
absl::Status verify(const PlannerProblem &problem,
                    const PlannerSolution &solution);

} // namespace nki

#endif // NKI_ANALYSIS_PLANNER_H
