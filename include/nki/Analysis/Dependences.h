//===- Dependences.h - RAW/WAR/WAW edges from byte intervals ----*- C++ -*-===//
//
// The dependences the engine scheduler and Sync.h must respect, derived from
// what each instruction reads and writes (after triton's Membar analysis:
// two accesses conflict when their byte intervals in one memory overlap and
// at least one writes).
//
// Instructions are given in program order (any order in which the program
// has its intended meaning). Per memory an interval map records, for each
// run of bytes, its last writer and the readers since; a read depends on the
// last writer (RAW), a write on the readers since the last write (WAR) or,
// when there are none, on the last writer (WAW). A WAW edge behind readers
// is left out: it follows from RAW then WAR through each reader.
//
// The caller flattens an access to one conservative interval: a strided
// pattern by its hull, an SBUF/PSUM tile e.g. by its byte range within a
// partition, in one memory per block of partitions. Within a memory, an
// access may name the lanes it touches (up to 16, e.g. the partitions of a
// block): accesses to the same bytes of disjoint lanes do not conflict, so
// tiles on a few partitions each (the 3-channel loads of a stem packed
// side by side) need not wait for each other, while an access to a whole
// block stays one interval.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_DEPENDENCES_H
#define NKI_ANALYSIS_DEPENDENCES_H

#include "nki/Analysis/Sync.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace nki::sched {

/// One operand: bytes [begin, end) of memory `memory` (any numbering the
/// caller likes, e.g. one per HBM/SBUF/PSUM) in the lanes `lanes` (bit k
/// for lane k; all of them by default).
struct MemoryAccess {
  uint32_t memory = 0;
  uint64_t begin = 0, end = 0;
  bool isWrite = false;
  uint16_t lanes = kAllLanes;
  static constexpr uint16_t kAllLanes = 0xFFFF;

  bool operator==(const MemoryAccess &o) const {
    return memory == o.memory && begin == o.begin && end == o.end &&
           isWrite == o.isWrite && lanes == o.lanes;
  }
};

enum DependenceKind : uint8_t { RAW = 1, WAR = 2, WAW = 4 };

struct Dependence {
  InstrId pred = 0, succ = 0;
  uint8_t kinds = 0; // DependenceKind bits: why succ must wait for pred
};

/// Edges pred -> succ (pred < succ), each pair once, sorted by (succ, pred).
/// `accesses[i]` lists instruction i's operands; empty intervals are ignored.
/// O((A + E) log A) for A accesses and E edges, when accesses do not each
/// straddle many differently-used runs of bytes.
/// Programs of 200,000 accesses and more run on two threads (below).
std::vector<Dependence>
computeDependences(const std::vector<std::vector<MemoryAccess>> &accesses);

/// Instruction `i`'s accesses: a list of the caller's, or `scratch` (empty
/// on entry) filled with them. Called once per instruction by each thread
/// of the analysis, concurrently: it may only read what it shares.
using AccessesOf = std::function<const std::vector<MemoryAccess> &(
    InstrId i, std::vector<MemoryAccess> &scratch)>;

/// computeDependences for `numInstructions` instructions whose accesses
/// `accessesOf` makes as the analysis reaches them, so that a large
/// program's accesses are never all held at once.
std::vector<Dependence> computeDependences(size_t numInstructions,
                                           const AccessesOf &accessesOf);

/// The same with the bytes split over `threads` threads (1 MiB stripes of
/// each memory, round robin; 0 or 1: no thread), the edges merged: the
/// result does not depend on `threads`.
std::vector<Dependence>
computeDependences(const std::vector<std::vector<MemoryAccess>> &accesses,
                   unsigned threads);

} // namespace nki::sched

#endif // NKI_ANALYSIS_DEPENDENCES_H
