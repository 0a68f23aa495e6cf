//===- Simulator.cpp - Discrete-event execution of a program --------------===//
//
// Scheduling: every stream's next instruction has a candidate start time:
// when its stream is free and each semaphore it waits on has reached its
// value (plus the sync latency when the increment that got it there came
// from another stream). The instruction with the earliest candidate is
// issued next (ties: lowest stream index), executed functionally, and its
// semaphore increment is recorded at its completion time. Increments always
// complete at or after the issue time, so issue times never decrease and the
// functional execution order is a valid interleaving of the streams; a race
// free program's results do not depend on which one.
//
// When no stream can issue and instructions remain, the program deadlocked.
//
//===----------------------------------------------------------------------===//

#include "nki/Simulator/Simulator.h"

#include "Access.h"
#include "Execute.h"
#include "MachineState.h"
#include "RaceDetector.h"
#include "Strings.h"

#include "nki/ISA/Cost.h"
#include "nki/Simulator/Profile.h"
#include "nki/ISA/Verify.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

namespace nki::sim {

using isa::Instruction;

namespace {

struct Increment {
  int64_t time;
  uint32_t amount;
  uint8_t stream;
  int32_t inst; // the signalling instruction's index in its stream
  VectorClock clock;
};

/// A counting semaphore: its increments in completion order. Increments that
/// completed at least one sync latency before the current issue time can no
/// longer change any start time, so once the list grows they are folded into
/// `baseValue` / `baseClock` (a wait for a value they reach then acquires
/// all of them, which can only hide a race, never invent one).
struct Semaphore {
  uint64_t baseValue = 0;
  VectorClock baseClock{};
  std::vector<Increment> increments;
  uint64_t total = 0;
};

struct StreamRun {
  const isa::Stream *stream = nullptr;
  int index = 0; // dense stream index
  size_t next = 0;
  int64_t freeAt = 0;
  isa::EngineTimingState timing;
  VectorClock clock{};
  bool ready = false;
  int64_t readyAt = 0;
  StreamReport stats;

  bool done() const { return next >= stream->instructions.size(); }
  const Instruction &head() const { return stream->instructions[next]; }
};

constexpr size_t kFoldThreshold = 64;
/// Elements of one operand (all partitions): bounds the scratch memory an
/// instruction may need (2^26 fp32 values = 256 MiB).
constexpr int64_t kMaxElements = int64_t(1) << 26;

/// The semaphores the instructions name (up to the declared count): a
/// program may declare any 32-bit count, and only the ones it uses have
/// state, so a huge count costs nothing (a fuzzed program declared 2.5
/// billion, 300 GB of state).
static size_t usedSemaphores(const isa::Program &program) {
  uint64_t used = 0;
  for (const isa::Stream &stream : program.streams)
    for (const isa::Instruction &inst : stream.instructions) {
      for (const isa::SemWait &wait : inst.waits)
        used = std::max<uint64_t>(used, uint64_t(wait.semaphore) + 1);
      if (inst.hasSignal)
        used = std::max<uint64_t>(used, uint64_t(inst.signal.semaphore) + 1);
    }
  return size_t(std::min<uint64_t>(used, program.numSemaphores));
}

class Simulation {
public:
  Simulation(const isa::Program &program, const isa::TargetDesc &target,
             std::string hbm, const SimOptions &options)
      : program_(program), target_(target), options_(options),
        state_(target, std::move(hbm)), sems_(usedSemaphores(program)) {
    if (options_.collectProfile)
      profile_.emplace(program, target);
    // Inputs (the caller filled them) and constants (the binary did) start
    // initialised; outputs, scratch and the padding between tensors do not.
    if (options_.checkUninitialized)
      for (const isa::TensorDecl &t : program_.tensors)
        if ((t.kind == isa::TensorKind::Input ||
             t.kind == isa::TensorKind::Constant) &&
            t.hbmOffset >= 0)
          state_.hbmInit.set(t.hbmOffset, t.hbmOffset + t.sizeBytes());
  }

  absl::StatusOr<SimResult> run();

private:
  bool satisfied(const isa::SemWait &wait, int stream, int64_t &when,
                 VectorClock *acquire, const Increment **by = nullptr) const;
  StartCause startCause(const StreamRun &run, int64_t start,
                        int64_t previousFreeAt) const;
  void updateCandidate(StreamRun &run);
  absl::Status issue(StreamRun &run);
  absl::Status checkOperands(const StreamRun &run, const Instruction &inst,
                             size_t index);
  void markWritten();
  std::string describeHbmByte(int64_t byte) const;
  std::string describe(int stream, size_t index) const;
  absl::Status deadlock() const;
  void reportProgress(bool force);

  const isa::Program &program_;
  const isa::TargetDesc &target_;
  const SimOptions &options_;
  MachineState state_;
  std::vector<Semaphore> sems_;
  std::vector<StreamRun> runs_;
  int runOfStream_[kMaxStreams];
  RaceDetector races_;
  ExecScratch scratch_;
  // The current instruction's operands and, per operand, its byte runs.
  Operand ops_[8];
  int numOps_ = 0;
  std::vector<ByteRun> opRuns_[8];
  SimResult result_;
  double peSecondsAtPeak_ = 0;
  std::optional<ProfileBuilder> profile_;
  int64_t issued_ = 0, total_ = 0, now_ = 0;
  std::chrono::steady_clock::time_point begin_, lastProgress_;
};

std::string Simulation::describe(int stream, size_t index) const {
  const StreamRun &run = runs_[runOfStream_[stream]];
  const Instruction &inst = run.stream->instructions[index];
  std::string s = cat(isa::streamName(run.stream->id), " instruction ", index,
                      " (", isa::opcodeName(inst.opcode), ")");
  if (!inst.loc.empty())
    append(&s, " at ", inst.loc);
  return s;
}

/// "tensor 'y' (output) byte 12", or the padding no tensor covers.
std::string Simulation::describeHbmByte(int64_t byte) const {
  for (const isa::TensorDecl &t : program_.tensors)
    if (byte >= t.hbmOffset && byte < t.hbmOffset + t.sizeBytes())
      return cat("tensor '", t.name, "' (", isa::tensorKindName(t.kind),
                 ") byte ", byte - t.hbmOffset);
  return cat("hbm byte ", byte, ", which no tensor covers");
}

bool Simulation::satisfied(const isa::SemWait &wait, int stream, int64_t &when,
                           VectorClock *acquire, const Increment **by) const {
  when = 0;
  if (by)
    *by = nullptr;
  if (wait.value == 0)
    return true;
  const Semaphore &sem = sems_[wait.semaphore];
  if (acquire)
    joinClock(*acquire, sem.baseClock);
  if (sem.baseValue >= wait.value)
    return true;
  uint64_t value = sem.baseValue;
  for (const Increment &inc : sem.increments) {
    value += inc.amount;
    if (acquire)
      joinClock(*acquire, inc.clock);
    if (value >= wait.value) {
      when = inc.time + (inc.stream == stream ? 0 : target_.syncLatencyPs);
      if (by)
        *by = &inc;
      return true;
    }
  }
  return false;
}

void Simulation::updateCandidate(StreamRun &run) {
  run.ready = false;
  if (run.done())
    return;
  // Nothing issues before the current time; this also covers waits
  // satisfied by folded increments, whose exact times are gone.
  int64_t start = std::max(run.freeAt, now_);
  for (const isa::SemWait &wait : run.head().waits) {
    int64_t when;
    if (wait.semaphore >= sems_.size()) {
      // Reported at issue (verifyInstruction or the check there).
      break;
    }
    if (!satisfied(wait, run.index, when, nullptr))
      return;
    start = std::max(start, when);
  }
  run.ready = true;
  run.readyAt = start;
}

/// What decided the head of `run` to start at `start`: the wait whose value
/// arrived last, else its stream's previous instruction (busy until
/// `previousFreeAt`). Ties go to the stream, whose busy time is on the path
/// either way.
StartCause Simulation::startCause(const StreamRun &run, int64_t start,
                                  int64_t previousFreeAt) const {
  if (run.next > 0 && previousFreeAt == start)
    return StartCause{StartCause::Stream, int32_t(run.index),
                      int32_t(run.next - 1)};
  for (const isa::SemWait &wait : run.head().waits) {
    int64_t when;
    const Increment *by;
    if (satisfied(wait, run.index, when, nullptr, &by) && by && when == start)
      return StartCause{StartCause::Semaphore, int32_t(by->stream), by->inst};
  }
  return StartCause{};
}

absl::Status Simulation::checkOperands(const StreamRun &run,
                                       const Instruction &inst, size_t index) {
  Operand *ops = ops_;
  numOps_ = operandsOf(inst, ops);
  bool needRuns = options_.checkRaces || options_.checkUninitialized;
  for (int i = 0; i < numOps_; ++i) {
    const isa::AccessPattern &ap = *ops[i].ap;
    std::vector<ByteRun> &runs = opRuns_[i];
    auto fail = [&](const std::string &what) {
      return absl::InvalidArgumentError(
          cat(describe(run.index, index), ": ", ops[i].role, " ", what));
    };
    // Bounds: partitions, then the byte extent in each partition.
    bool onChip = ap.memory != isa::Memory::HBM;
    if (ap.rank > isa::AccessPattern::kMaxDims)
      return fail(cat("has ", int(ap.rank), " dimensions"));
    int64_t elements = onChip ? std::max(ap.numPartitions, 1) : 1;
    for (int d = 0; d < ap.rank; ++d) {
      if (ap.dims[d].size < 1)
        return fail(cat("dimension ", d, " has size ", ap.dims[d].size));
      if (ap.dims[d].size > kMaxElements ||
          (elements *= ap.dims[d].size) > kMaxElements)
        return fail(cat("has more than ", kMaxElements,
                        " elements, the simulator's limit per operand"));
    }
    if (onChip &&
        (ap.startPartition < 0 || ap.numPartitions < 1 ||
         int64_t(ap.startPartition) + ap.numPartitions > target_.numPartitions))
      return fail(cat("partitions [", ap.startPartition, ", ",
                      int64_t(ap.startPartition) + ap.numPartitions,
                      ") are out of bounds (", target_.numPartitions,
                      " partitions)"));
    __int128 lo, hi;
    byteExtent(ap, lo, hi);
    int64_t limit = state_.rowBytes(ap.memory);
    if (lo < 0 || hi > limit) {
      auto str = [](__int128 v) {
        return v >= INT64_MIN && v <= INT64_MAX ? cat(int64_t(v))
                                                : std::string("(overflow)");
      };
      return fail(cat(isa::memoryName(ap.memory), " bytes [", str(lo), ", ",
                      str(hi), ") are out of bounds (",
                      onChip ? cat(limit, " bytes per partition")
                             : cat("the program's tensors end at byte ", limit),
                      ")"));
    }

    if (!needRuns)
      continue;
    collectRuns(ap, runs);
    if (ops[i].read && options_.checkUninitialized &&
        !(isa::isMatmulOpcode(inst.opcode) && &ap == &inst.dst)) {
      const InitMap &init = *state_.initMap(ap.memory);
      int64_t row = state_.rowBytes(ap.memory);
      int32_t first = onChip ? ap.startPartition : 0;
      int32_t count = onChip ? ap.numPartitions : 1;
      for (int32_t part = first; part < first + count; ++part) {
        for (const ByteRun &r : runs) {
          int64_t base = part * row + r.offset;
          int64_t hole = init.firstUnset(base, base + r.bytes);
          if (hole < 0)
            continue;
          if (!onChip)
            return fail(
                cat("reads uninitialised hbm at ", describeHbmByte(hole)));
          return fail(cat("reads uninitialised ", isa::memoryName(ap.memory),
                          " at partition ", part, " byte ", hole - part * row));
        }
      }
    }
    if (!options_.checkRaces)
      continue;
    int32_t start = onChip ? ap.startPartition : 0;
    int32_t count = onChip ? ap.numPartitions : 1;
    for (bool write : {false, true}) {
      if (write ? !ops[i].write : !ops[i].read)
        continue;
      auto conflict = races_.access(ap.memory, start, count, runs, write,
                                    run.index, uint32_t(index), run.clock);
      if (!conflict)
        continue;
      std::string where =
          onChip ? cat(isa::memoryName(ap.memory), " partition ",
                       conflict->partition, " byte ", conflict->byte)
                 : cat("hbm byte ", conflict->byte);
      return absl::FailedPreconditionError(
          cat("data race on ", where, ": ", describe(run.index, index), " ",
              write ? "writes" : "reads", " ", ops[i].role, ", but ",
              describe(conflict->stream, conflict->index), " ",
              conflict->earlierWrite ? "writes" : "reads",
              " the same bytes and no semaphore orders the two"));
    }
  }
  return absl::OkStatus();
}

/// Marks the bytes the current instruction wrote as initialised.
void Simulation::markWritten() {
  for (int i = 0; i < numOps_; ++i) {
    const isa::AccessPattern &ap = *ops_[i].ap;
    if (!ops_[i].write)
      continue;
    InitMap &init = *state_.initMap(ap.memory);
    int64_t row = state_.rowBytes(ap.memory);
    bool onChip = ap.memory != isa::Memory::HBM;
    int32_t first = onChip ? ap.startPartition : 0;
    int32_t count = onChip ? ap.numPartitions : 1;
    for (int32_t p = 0; p < count; ++p) {
      int64_t base = (first + p) * row;
      for (const ByteRun &r : opRuns_[i])
        init.set(base + r.offset, base + r.offset + r.bytes);
    }
  }
}

absl::Status Simulation::issue(StreamRun &run) {
  size_t index = run.next;
  const Instruction &inst = run.head();
  int64_t start = run.readyAt;
  now_ = start;

  if (options_.verifyInstructions) {
    if (auto status = isa::verifyInstruction(target_, run.stream->id, inst,
                                             program_.numSemaphores);
        !status.ok())
      return absl::InvalidArgumentError(
          cat(describe(run.index, index), ": ", status.message()));
  }

  for (const isa::SemWait &wait : inst.waits)
    if (wait.semaphore >= sems_.size())
      return absl::InvalidArgumentError(
          cat(describe(run.index, index), ": waits on semaphore ",
              wait.semaphore, " but the program has ", program_.numSemaphores));
  if (inst.hasSignal && inst.signal.semaphore >= sems_.size())
    return absl::InvalidArgumentError(
        cat(describe(run.index, index), ": signals semaphore ",
            inst.signal.semaphore, " but the program has ",
            program_.numSemaphores));

  StartCause cause;
  if (profile_)
    cause = startCause(run, start, run.freeAt);
  // The waits acquire the clocks of the increments that satisfied them.
  for (const isa::SemWait &wait : inst.waits) {
    int64_t when;
    satisfied(wait, run.index, when, &run.clock);
  }
  run.clock[run.index] = uint32_t(index + 1);

  if (auto status = checkOperands(run, inst, index); !status.ok())
    return status;
  if (auto status = executeInstruction(state_, inst, scratch_); !status.ok())
    return absl::Status(
        status.code(), cat(describe(run.index, index), ": ", status.message()));
  if (options_.checkUninitialized)
    markWritten();

  isa::Duration d =
      isa::instructionDuration(target_, run.stream->id, inst, run.timing);
  run.freeAt = start + d.busyPs;
  int64_t complete = start + d.completePs;
  result_.report.totalPs = std::max(result_.report.totalPs, complete);
  run.stats.busyPs += d.busyPs;
  ++run.stats.instructions;
  int64_t dmaBytes = 0, dmaHbmBytes = 0;
  if (inst.opcode == isa::Opcode::DmaCopy) {
    dmaBytes = isa::dmaDescriptors(target_, inst).bytes;
    dmaHbmBytes = isa::dmaHbmBytes(inst);
    run.stats.dmaBytes += dmaBytes;
    result_.report.dmaHbmBytes += dmaHbmBytes;
  }
  int64_t flops = isa::matmulFlops(inst);
  double peSeconds = 0;
  if (flops) {
    result_.report.matmulFlops += flops;
    peSeconds = double(flops) / isa::matmulPeakFlops(target_, inst);
    peSecondsAtPeak_ += peSeconds;
  }
  if (profile_)
    profile_->record(run.stream->id.index(), index, start, d.busyPs,
                     d.completePs, flops, peSeconds, dmaBytes, dmaHbmBytes,
                     cause);
  if (options_.collectTrace)
    result_.trace.push_back(TraceEvent{run.stream->id, int32_t(index), start,
                                       d.busyPs, d.completePs});

  ++run.next;
  ++issued_;
  // An isa::Instruction spans ~15 cache lines; fetching a stream's next
  // instructions ahead hides most of the memory latency of small ones.
  if (run.next + 2 < run.stream->instructions.size()) {
    const char *ahead =
        reinterpret_cast<const char *>(&run.stream->instructions[run.next + 2]);
    for (size_t off = 0; off < sizeof(Instruction); off += 64)
      __builtin_prefetch(ahead + off);
  }
  updateCandidate(run);

  if (inst.hasSignal) {
    Semaphore &sem = sems_[inst.signal.semaphore];
    Increment inc{complete, inst.signal.increment, uint8_t(run.index),
                  int32_t(index), run.clock};
    auto pos = std::upper_bound(
        sem.increments.begin(), sem.increments.end(), complete,
        [](int64_t t, const Increment &i) { return t < i.time; });
    sem.increments.insert(pos, inc);
    sem.total += inst.signal.increment;
    if (sem.increments.size() > kFoldThreshold) {
      size_t settled = 0;
      while (settled < sem.increments.size() &&
             sem.increments[settled].time <= now_ - target_.syncLatencyPs) {
        sem.baseValue += sem.increments[settled].amount;
        joinClock(sem.baseClock, sem.increments[settled].clock);
        ++settled;
      }
      sem.increments.erase(sem.increments.begin(),
                           sem.increments.begin() + settled);
    }
    for (StreamRun &other : runs_) {
      if (other.done())
        continue;
      for (const isa::SemWait &w : other.head().waits)
        if (w.semaphore == inst.signal.semaphore) {
          updateCandidate(other);
          break;
        }
    }
  }
  return absl::OkStatus();
}

absl::Status Simulation::deadlock() const {
  std::string msg = "deadlock: no stream can proceed";
  for (const StreamRun &run : runs_) {
    if (run.done())
      continue;
    append(&msg, "\n  ", describe(run.index, run.next), " waits for");
    for (const isa::SemWait &wait : run.head().waits) {
      int64_t when;
      if (satisfied(wait, run.index, when, nullptr))
        continue;
      append(&msg, " semaphore ", wait.semaphore, " >= ", wait.value,
             " (it reaches ", sems_[wait.semaphore].total, ")");
      break;
    }
  }
  return absl::FailedPreconditionError(msg);
}

void Simulation::reportProgress(bool force) {
  if (!options_.progress)
    return;
  auto t = std::chrono::steady_clock::now();
  if (!force && std::chrono::duration<double>(t - lastProgress_).count() <
                    options_.progressIntervalSeconds)
    return;
  lastProgress_ = t;
  options_.progress(
      SimProgress{issued_, total_, now_,
                  std::chrono::duration<double>(t - begin_).count()});
}

absl::StatusOr<SimResult> Simulation::run() {
  begin_ = lastProgress_ = std::chrono::steady_clock::now();
  std::fill(std::begin(runOfStream_), std::end(runOfStream_), -1);
  int maxStreams = target_.numStreams();
  for (const isa::Stream &s : program_.streams) {
    int index = s.id.index();
    if (index >= maxStreams || index >= kMaxStreams)
      return absl::InvalidArgumentError(
          cat("stream ", isa::streamName(s.id), " does not exist on ",
              target_.name, " (", target_.numDmaQueues, " DMA queues)"));
    if (runOfStream_[index] >= 0)
      return absl::InvalidArgumentError(
          cat("stream ", isa::streamName(s.id), " appears twice"));
    runOfStream_[index] = int(runs_.size());
    StreamRun run;
    run.stream = &s;
    run.index = index;
    run.stats.stream = s.id;
    runs_.push_back(run);
    total_ += int64_t(s.instructions.size());
  }
  for (StreamRun &run : runs_)
    updateCandidate(run);

  while (true) {
    StreamRun *best = nullptr;
    for (StreamRun &run : runs_)
      if (run.ready && (!best || run.readyAt < best->readyAt))
        best = &run;
    if (!best) {
      for (const StreamRun &run : runs_)
        if (!run.done())
          return deadlock();
      break;
    }
    if (auto status = issue(*best); !status.ok())
      return status;
    if ((issued_ & 63) == 0)
      reportProgress(false);
  }
  reportProgress(true);

  SimReport &report = result_.report;
  report.target = std::string(target_.name);
  report.instructions = issued_;
  double seconds = double(report.totalPs) * 1e-12;
  for (StreamRun &run : runs_) {
    run.stats.utilisation =
        report.totalPs ? double(run.stats.busyPs) / double(report.totalPs) : 0;
    report.dmaBytes += run.stats.dmaBytes;
    report.streams.push_back(run.stats);
  }
  report.peUtilisation = seconds > 0 ? peSecondsAtPeak_ / seconds : 0;
  report.dmaBytesPerSecond =
      seconds > 0 ? double(report.dmaBytes) / seconds : 0;
  report.dmaPeakBytesPerSecond = target_.peakDmaBytesPerSecond();
  report.pePeakFlopsPerSecond = target_.peakPeFlops();
  report.pePeakFp32FlopsPerSecond =
      target_.peakPeFlops() / double(target_.peFp32Factor);
  report.pePeakFp8FlopsPerSecond =
      target_.peakPeFlops() * double(target_.peFp8Rows);
  report.pePeakMxFlopsPerSecond =
      target_.peakPeFlops() * double(target_.peMxRows);
  report.peClockHz = double(target_.peClockMHz) * 1e6;
  report.actClockHz = double(target_.actClockMHz) * 1e6;
  report.dveClockHz = double(target_.dveClockMHz) * 1e6;
  report.poolClockHz = double(target_.poolClockMHz) * 1e6;
  if (profile_) {
    report.ops = profile_->finish();
    report.criticalPath = profile_->criticalPath();
  }
  result_.hbm = std::move(state_.hbm);
  return std::move(result_);
}

} // namespace

absl::StatusOr<SimResult> simulate(const isa::Program &program, std::string hbm,
                                   const SimOptions &options) {
  const isa::TargetDesc *target = isa::lookupTarget(program.target);
  if (!target)
    return absl::InvalidArgumentError(
        cat("unknown target '", program.target, "'"));
  int64_t extent = 0;
  for (const isa::TensorDecl &t : program.tensors)
    extent = std::max(extent, t.hbmOffset + t.sizeBytes());
  if (int64_t(hbm.size()) < extent)
    return absl::InvalidArgumentError(cat("the HBM image has ", hbm.size(),
                                          " bytes but the tensors need ",
                                          extent));
  Simulation sim(program, *target, std::move(hbm), options);
  return sim.run();
}

} // namespace nki::sim
