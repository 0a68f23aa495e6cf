//===- Profile.cpp - Simulated time per source op -------------------------===//

#include "nki/Simulator/Profile.h"

#include "nki/ISA/Program.h"
#include "nki/ISA/Target.h"

#include <algorithm>
#include <unordered_map>

namespace nki::sim {

ProfileBuilder::ProfileBuilder(const isa::Program &program,
                               const isa::TargetDesc &target)
    : target_(target) {
  // One hash lookup per instruction here, none while simulating.
  std::unordered_map<std::string, int32_t> index;
  for (const isa::Stream &s : program.streams) {
    size_t slot = size_t(s.id.index());
    if (opOf_.size() <= slot)
      opOf_.resize(slot + 1);
    if (runs_.size() <= slot)
      runs_.resize(slot + 1);
    runs_[slot].resize(s.instructions.size());
    std::vector<int32_t> &ops = opOf_[slot];
    ops.reserve(s.instructions.size());
    for (const isa::Instruction &inst : s.instructions) {
      const std::string &source = inst.loc.empty() ? "(unknown)" : inst.loc;
      auto [it, inserted] = index.try_emplace(source, int32_t(ops_.size()));
      if (inserted) {
        ops_.emplace_back();
        ops_.back().source = source;
      }
      ops.push_back(it->second);
    }
  }
  peSeconds_.assign(ops_.size(), 0.0);
}

void ProfileBuilder::record(int stream, size_t index, int64_t startPs,
                            int64_t busyPs, int64_t completePs,
                            int64_t matmulFlops, double peSecondsAtPeak,
                            int64_t dmaBytes, int64_t dmaHbmBytes,
                            StartCause cause) {
  runs_[size_t(stream)][index] = Run{startPs, busyPs, completePs, cause};
  int32_t op = opOf_[size_t(stream)][index];
  OpProfile &p = ops_[size_t(op)];
  int64_t end = startPs + std::max(busyPs, completePs);
  if (p.instructions == 0 || startPs < p.firstStartPs)
    p.firstStartPs = startPs;
  p.lastCompletePs = std::max(p.lastCompletePs, end);
  ++p.instructions;
  p.busyPs[size_t(isa::StreamId::fromIndex(stream).engine)] += busyPs;
  p.matmulFlops += matmulFlops;
  p.dmaBytes += dmaBytes;
  p.dmaHbmBytes += dmaHbmBytes;
  peSeconds_[size_t(op)] += peSecondsAtPeak;
  if (end > startPs)
    intervals_.push_back(Interval{startPs, end, op});
}

std::vector<OpProfile> ProfileBuilder::finish() const {
  std::vector<OpProfile> ops = ops_;
  // Sweep over interval ends: `share` integrates 1 / (ops in flight) over
  // time, so an op in flight over [a, b) is owed share(b) - share(a).
  struct Event {
    int64_t time;
    int32_t op;
    int32_t delta; // +1 start, -1 end
  };
  std::vector<Event> events;
  events.reserve(2 * intervals_.size());
  for (const Interval &i : intervals_) {
    events.push_back(Event{i.start, i.op, +1});
    events.push_back(Event{i.end, i.op, -1});
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  std::vector<int32_t> inFlight(ops.size(), 0);
  std::vector<double> enteredAt(ops.size(), 0.0), owed(ops.size(), 0.0);
  double share = 0;
  int64_t distinct = 0, last = 0;
  for (const Event &e : events) {
    if (distinct > 0)
      share += double(e.time - last) / double(distinct);
    last = e.time;
    int32_t &n = inFlight[size_t(e.op)];
    if (e.delta > 0 && n++ == 0) {
      ++distinct;
      enteredAt[size_t(e.op)] = share;
    } else if (e.delta < 0 && --n == 0) {
      --distinct;
      owed[size_t(e.op)] += share - enteredAt[size_t(e.op)];
    }
  }

  double queues = double(std::max(1, target_.numDmaQueues));
  for (size_t i = 0; i < ops.size(); ++i) {
    OpProfile &p = ops[i];
    p.attributedPs = int64_t(owed[i] + 0.5);
    double span = double(p.lastCompletePs - p.firstStartPs);
    double boundPs = -1;
    for (int e = 0; e < kProfileEngines; ++e) {
      double busy = double(p.busyPs[size_t(e)]);
      if (isa::Engine(e) == isa::Engine::DMA)
        busy /= queues;
      if (busy > boundPs) {
        boundPs = busy;
        p.bound = isa::Engine(e);
      }
    }
    p.boundUtilisation = span > 0 ? boundPs / span : 0;
    p.peUtilisation = span > 0 ? peSeconds_[i] / (span * 1e-12) : 0;
  }
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const OpProfile &p) { return !p.instructions; }),
            ops.end());
  std::sort(ops.begin(), ops.end(), [](const OpProfile &a, const OpProfile &b) {
    return a.attributedPs != b.attributedPs ? a.attributedPs > b.attributedPs
                                            : a.source < b.source;
  });
  return ops;
}

CriticalPath ProfileBuilder::criticalPath() const {
  CriticalPath path;
  // The last completion (the first such instruction recorded).
  int32_t s = -1, i = -1;
  for (size_t st = 0; st < runs_.size(); ++st)
    for (size_t in = 0; in < runs_[st].size(); ++in) {
      const Run &r = runs_[st][in];
      if (r.start >= 0 &&
          (s < 0 || r.start + std::max(r.busy, r.complete) > path.totalPs)) {
        path.totalPs = r.start + std::max(r.busy, r.complete);
        s = int32_t(st);
        i = int32_t(in);
      }
    }
  if (s < 0)
    return path;
  std::vector<CriticalPath::Op> ops(ops_.size());
  // Instruction (st, in) spends `busy` on its engine and `latency` until
  // its completion on the path.
  auto add = [&](int32_t st, int32_t in, int64_t busy, int64_t latency) {
    ++path.instructions;
    size_t engine = size_t(isa::StreamId::fromIndex(st).engine);
    path.busyPs[engine] += busy;
    path.dmaLatencyPs += latency;
    CriticalPath::Op &op = ops[size_t(opOf_[size_t(st)][size_t(in)])];
    op.ps += busy + latency;
    op.enginePs[engine] += busy + latency;
    ++op.instructions;
    path.steps.push_back(CriticalPath::Step{
        st, in, runs_[size_t(st)][size_t(in)].start, busy + latency});
  };
  const Run &last = runs_[size_t(s)][size_t(i)];
  add(s, i, last.busy, std::max<int64_t>(last.complete - last.busy, 0));
  // Each step accounts for the time from its cause's start to its own, so
  // the path adds up to the total. A cause is always issued before the
  // instruction it decided; the bound on steps only guards a broken record.
  int64_t steps = 0, limit = 0;
  for (const std::vector<Run> &runs : runs_)
    limit += int64_t(runs.size());
  while (steps++ <= limit) {
    const Run &r = runs_[size_t(s)][size_t(i)];
    StartCause c = r.cause;
    if (c.kind == StartCause::None) {
      // Started at the issue clock: count the gap after the stream's
      // previous instruction, else the time from 0.
      if (i == 0 || runs_[size_t(s)][size_t(i - 1)].start < 0) {
        path.otherPs += r.start;
        break;
      }
      c = StartCause{StartCause::Stream, s, i - 1};
      const Run &b = runs_[size_t(s)][size_t(i - 1)];
      path.otherPs += r.start - (b.start + b.busy);
      add(s, i - 1, b.busy, 0);
    } else {
      const Run &b = runs_[size_t(c.stream)][size_t(c.index)];
      if (c.kind == StartCause::Stream) {
        path.otherPs += r.start - (b.start + b.busy);
        add(c.stream, c.index, b.busy, 0);
      } else {
        int64_t latency = std::max<int64_t>(b.complete - b.busy, 0);
        path.syncPs += r.start - (b.start + b.busy + latency);
        add(c.stream, c.index, b.busy, latency);
      }
    }
    s = c.stream;
    i = c.index;
  }
  std::reverse(path.steps.begin(), path.steps.end());
  for (size_t op = 0; op < ops.size(); ++op)
    if (ops[op].instructions) {
      ops[op].source = ops_[op].source;
      path.ops.push_back(std::move(ops[op]));
    }
  std::sort(path.ops.begin(), path.ops.end(),
            [](const CriticalPath::Op &a, const CriticalPath::Op &b) {
              return a.ps != b.ps ? a.ps > b.ps : a.source < b.source;
            });
  return path;
}

} // namespace nki::sim
