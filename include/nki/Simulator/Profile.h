//===- Profile.h - Simulated time per source op ----------------*- C++ -*-===//
//
// Every instruction carries the source op it came from (isa::Instruction::loc:
// the ONNX node's name, else the MLIR location). The profile groups the
// executed instructions by that source and says, per op, how much of the
// run's time it accounts for, how much work it did (matmul FLOPs, DMA bytes)
// and which engine bounds it: the view a user needs to find the slow layer.
//
// Time attribution: an op is in flight while any of its instructions is
// (issue to completion, so a DMA's fixed latency counts). Each instant of the
// run is split equally among the ops in flight then, so the ops' times add
// up to the time during which anything was in flight (the total minus idle
// gaps, which are only ever sync latencies).
//
// Critical path: the simulator records, for every instruction, what decided
// its start (StartCause): its stream's previous instruction (the stream was
// busy until then) or the signal that let its last semaphore wait through.
// Walking those back from the last completion gives a chain of
// instructions whose busy times, DMA completion latencies and semaphore
// sync latencies add up to the whole run exactly: the answer to "what
// would I have to make faster for the program to end sooner". A chain
// mostly on one engine's stream is that engine's throughput; one that hops
// between streams through DMA latencies is latency in series.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_PROFILE_H
#define NKI_SIMULATOR_PROFILE_H

#include "nki/ISA/Types.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nki::isa {
struct Program;
struct TargetDesc;
} // namespace nki::isa

namespace nki::sim {

/// The engines a profile row splits busy time over; DMA is all queues.
constexpr int kProfileEngines = 5; // PE, ACT, DVE, POOL, DMA (isa::Engine)

struct OpProfile {
  std::string source; // the instructions' loc; "(unknown)" when empty
  int64_t instructions = 0;
  int64_t attributedPs = 0; // this op's share of the run (see above)
  int64_t firstStartPs = 0, lastCompletePs = 0; // its span
  /// Busy time per engine (isa::Engine order); DMA sums every queue.
  std::array<int64_t, kProfileEngines> busyPs{};
  int64_t matmulFlops = 0;
  int64_t dmaBytes = 0;
  int64_t dmaHbmBytes = 0; // of which read from or written to HBM
  /// The engine whose work takes longest: busy time, with DMA's divided by
  /// the number of queues (the time the op's transfers take spread over all
  /// of them).
  isa::Engine bound = isa::Engine::PE;
  /// That engine's (queue-normalised) busy time over the op's span.
  double boundUtilisation = 0;
  /// Useful matmul FLOPs against the peak for their input types, over the
  /// op's span (as SimReport::peUtilisation does for the whole run).
  double peUtilisation = 0;
};

/// What decided an instruction's start (Profile.h, "Critical path").
struct StartCause {
  enum Kind : uint8_t {
    None,      // neither: a start at time 0, or at the issue clock
    Stream,    // its stream's previous instruction was busy until then
    Semaphore, // a wait's value arrived then (plus the sync latency when
               // another stream signalled it)
  };
  Kind kind = None;
  int32_t stream = -1; // the deciding instruction: dense stream index
  int32_t index = -1;  // and its index in that stream
};

/// The critical path: time on it split by what spends it, which adds up to
/// `totalPs`, and per source op.
struct CriticalPath {
  int64_t totalPs = 0;
  int64_t instructions = 0; // on the path
  /// Busy time of the path's instructions per engine (isa::Engine order;
  /// DMA: the transfers' queue time).
  std::array<int64_t, kProfileEngines> busyPs{};
  int64_t dmaLatencyPs = 0; // DMA completions the next step waited for
  int64_t syncPs = 0;       // semaphore sync latency between streams
  int64_t otherPs = 0;      // starts no recorded cause explains
  struct Op {
    std::string source;
    int64_t ps = 0; // its instructions' busy time and DMA latency on the path
    int64_t instructions = 0;
    /// Of `ps`, per engine (DMA's with its latency): the engine the op
    /// holds the path on is the largest.
    std::array<int64_t, kProfileEngines> enginePs{};
  };
  std::vector<Op> ops; // most time first (ties by source)
  /// The path's instructions in time order: dense stream index and index
  /// in it, their start and their time on the path (busy, and a DMA's
  /// latency when the next step waited for it).
  struct Step {
    int32_t stream = 0, index = 0;
    int64_t startPs = 0, ps = 0;
  };
  std::vector<Step> steps;
};

/// Collects one record per executed instruction and builds the profile.
class ProfileBuilder {
public:
  ProfileBuilder(const isa::Program &program, const isa::TargetDesc &target);

  /// Instruction `index` of the stream with dense index `stream` ran from
  /// `startPs`, busy for `busyPs`, completing at startPs + completePs.
  /// `peSecondsAtPeak`: its FLOPs over the peak for its input types.
  /// `cause`: what decided `startPs` (the critical path's edges).
  void record(int stream, size_t index, int64_t startPs, int64_t busyPs,
              int64_t completePs, int64_t matmulFlops, double peSecondsAtPeak,
              int64_t dmaBytes, int64_t dmaHbmBytes, StartCause cause = {});

  /// The ops, most attributed time first (ties by source).
  std::vector<OpProfile> finish() const;
  /// The critical path back from the last completion (ties: the first
  /// recorded); empty when nothing ran.
  CriticalPath criticalPath() const;

private:
  struct Interval {
    int64_t start, end;
    int32_t op;
  };
  const isa::TargetDesc &target_;
  std::vector<std::vector<int32_t>> opOf_; // [stream index][instruction]
  std::vector<OpProfile> ops_;
  std::vector<double> peSeconds_;
  std::vector<Interval> intervals_;
  /// Per executed instruction, [stream index][instruction]: when it ran and
  /// what decided its start.
  struct Run {
    int64_t start = -1, busy = 0, complete = 0;
    StartCause cause;
  };
  std::vector<std::vector<Run>> runs_;
};

} // namespace nki::sim

#endif // NKI_SIMULATOR_PROFILE_H
