//===- Sync.h - Semaphores that order cross-stream dependences --*- C++ -*-===//
//
// Streams (engines, DMA queues) run in order and concurrently; only
// semaphores order instructions of different streams. Given each stream's
// program order and the dependences between instructions (RAW/WAR/WAW, see
// Dependences.h), solve() chooses for every instruction its semaphore waits
// and at most one signal (+1 on completion) so that every cross-stream
// dependence is ordered, and verify() proves any such plan race- and
// deadlock-free (docs/scheduler.md has the scheme and the argument).
//
// The scheme: one counting semaphore per stream that has an instruction some
// other stream must wait for. Completion within a stream is in program
// order, so "semaphore of stream P >= k" means "P's k-th signalling
// instruction and everything before it on P have completed". A wait is added
// only when vector-clock happens-before does not already imply the
// dependence (through program order or through an earlier wait, even via a
// chain across other streams).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_SYNC_H
#define NKI_ANALYSIS_SYNC_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nki::sched {

using InstrId = uint32_t;
using StreamIndex = uint32_t;

class SyncProblem {
public:
  /// Streams numbered 0..numStreams-1, filled by addInstruction().
  explicit SyncProblem(unsigned numStreams);
  /// Instructions 0..n-1 already placed: `streams[s]` lists stream s's
  /// instructions in program order, each id once (check() reports a list
  /// that is not such a partition). A Schedule's `order` fits as is.
  explicit SyncProblem(std::vector<std::vector<InstrId>> streams);

  /// Appends an instruction to `stream`'s program order.
  InstrId addInstruction(StreamIndex stream);
  /// `succ` may start only once `pred` has completed.
  void addDependence(InstrId pred, InstrId succ);
  /// Optional names used in diagnostics ("pe", "dma3", ...).
  void setStreamName(StreamIndex stream, std::string name);

  /// OK when the problem can be synchronised: valid ids, every dependence
  /// inside one stream runs forward in program order, and program order plus
  /// dependences has no cycle (which no semaphores could satisfy).
  absl::Status check() const;

  size_t numStreams() const { return streams.size(); }
  size_t numInstructions() const { return stream.size(); }
  StreamIndex getStream(InstrId i) const { return stream[i]; }
  /// Index of `i` in its stream's program order.
  uint32_t getPosition(InstrId i) const { return position[i]; }
  const std::vector<InstrId> &getStreamOrder(StreamIndex s) const {
    return streams[s];
  }
  const std::vector<InstrId> &getPredecessors(InstrId i) const {
    return preds[i];
  }
  std::string describe(InstrId i) const;

  /// All instructions in an order that respects program order and
  /// dependences; shorter than numInstructions() when they form a cycle.
  /// Requires valid ids (check() passes them first).
  std::vector<InstrId> topologicalOrder() const;

private:
  std::vector<std::vector<InstrId>> streams;
  std::vector<std::string> streamNames;
  std::vector<StreamIndex> stream;  // per instruction
  std::vector<uint32_t> position;   // per instruction
  std::vector<std::vector<InstrId>> preds;
  std::vector<std::pair<InstrId, InstrId>> danglingEdges; // ids out of range
  std::string malformed; // why the stream lists are not a partition
};

/// Start only once `semaphore` >= `value`.
struct SemaphoreWait {
  uint32_t semaphore = 0;
  uint32_t value = 0;
  bool operator==(const SemaphoreWait &o) const {
    return semaphore == o.semaphore && value == o.value;
  }
};

struct SyncPlan {
  uint32_t numSemaphores = 0;
  /// Per instruction: its waits, sorted by semaphore.
  std::vector<std::vector<SemaphoreWait>> waits;
  /// Per instruction: the semaphore it increments by one on completion.
  std::vector<std::optional<uint32_t>> signal;
  /// Per stream: the semaphore its instructions signal, if any. solve()
  /// gives each signalling stream its own; verify() does not require that.
  std::vector<std::optional<uint32_t>> streamSemaphore;

  size_t numWaits() const;
};

/// Plans the semaphores; runs check() first and returns its error.
absl::StatusOr<SyncPlan> solve(const SyncProblem &p);

/// OK when `plan` makes `p` safe on any timing of the streams: no deadlock
/// (an abstract in-order machine runs every instruction) and every
/// cross-stream dependence ordered by happens-before (vector clocks over
/// program order and semaphore waits). Works for any plan, also one with a
/// semaphore shared by several streams. Runs check() first.
absl::Status verify(const SyncProblem &p, const SyncPlan &plan);

} // namespace nki::sched

#endif // NKI_ANALYSIS_SYNC_H
