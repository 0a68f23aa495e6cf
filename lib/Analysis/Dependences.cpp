//===- Dependences.cpp - RAW/WAR/WAW edges from byte intervals ------------===//
//
// Per memory an ordered map of disjoint runs of bytes, each with the last
// writer of each lane and the readers since (with the lanes they read).
// A write to every lane collapses the runs it covers into one, so runs stay
// few; a write to some lanes and a read update the runs they cover in
// place, splitting at most the two runs at their ends.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Dependences.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace nki::sched {

namespace {
constexpr InstrId kNone = ~InstrId(0);
constexpr int kLanes = 16;
constexpr uint16_t kAll = MemoryAccess::kAllLanes;

struct Reader {
  InstrId id;
  uint16_t lanes; // those it read since each one's last write
};

struct Run {
  uint64_t end = 0;
  std::array<InstrId, kLanes> writer; // per lane, kNone if never written
  std::vector<Reader> readers;        // in program order
  Run(uint64_t end = 0) : end(end) { writer.fill(kNone); }
};
using RunMap = std::map<uint64_t, Run>; // keyed by the run's first byte

/// Makes `at` the start of a run if a run straddles it.
void splitAt(RunMap &runs, uint64_t at) {
  auto it = runs.upper_bound(at);
  if (it == runs.begin())
    return;
  --it;
  if (it->first < at && at < it->second.end) {
    Run tail = it->second;
    it->second.end = at;
    runs.emplace(at, std::move(tail));
  }
}

class DependenceBuilder {
public:
  void read(InstrId i, const MemoryAccess &a) {
    RunMap &runs = covered(a);
    for (auto it = runs.lower_bound(a.begin);
         it != runs.end() && it->first < a.end; ++it) {
      Run &run = it->second;
      InstrId last = kNone;
      for (int lane = 0; lane < kLanes; ++lane) {
        InstrId w = run.writer[lane];
        if ((a.lanes >> lane & 1) && w != kNone && w != i && w != last) {
          edges.push_back({w, i, RAW});
          last = w;
        }
      }
      if (!run.readers.empty() && run.readers.back().id == i)
        run.readers.back().lanes |= a.lanes;
      else
        run.readers.push_back({i, a.lanes});
    }
  }

  void write(InstrId i, const MemoryAccess &a) {
    RunMap &runs = covered(a);
    auto first = runs.lower_bound(a.begin), last = first;
    for (; last != runs.end() && last->first < a.end; ++last) {
      Run &run = last->second;
      uint16_t readLanes = 0;
      for (Reader &r : run.readers)
        if (r.lanes & a.lanes) {
          if (r.id != i)
            edges.push_back({r.id, i, WAR});
          readLanes |= r.lanes;
        }
      // Behind readers the old write is already ordered before `i`: by RAW
      // then WAR through another reader, or by RAW when `i` is the reader.
      InstrId prev = kNone;
      for (int lane = 0; lane < kLanes; ++lane) {
        InstrId w = run.writer[lane];
        if ((a.lanes >> lane & 1) && !(readLanes >> lane & 1) && w != kNone &&
            w != i && w != prev) {
          edges.push_back({w, i, WAW});
          prev = w;
        }
      }
      if (a.lanes == kAll)
        continue;
      for (int lane = 0; lane < kLanes; ++lane)
        if (a.lanes >> lane & 1)
          run.writer[lane] = i;
      for (Reader &r : run.readers)
        r.lanes &= uint16_t(~a.lanes);
      run.readers.erase(std::remove_if(run.readers.begin(), run.readers.end(),
                                       [](const Reader &r) { return !r.lanes; }),
                        run.readers.end());
    }
    if (a.lanes != kAll)
      return;
    runs.erase(first, last);
    Run run(a.end);
    run.writer.fill(i);
    runs.emplace(a.begin, std::move(run));
  }

  std::vector<Dependence> finish() {
    std::sort(edges.begin(), edges.end(),
              [](const Dependence &a, const Dependence &b) {
                return std::make_pair(a.succ, a.pred) <
                       std::make_pair(b.succ, b.pred);
              });
    std::vector<Dependence> merged;
    for (const Dependence &e : edges) {
      if (!merged.empty() && merged.back().pred == e.pred &&
          merged.back().succ == e.succ)
        merged.back().kinds |= e.kinds;
      else
        merged.push_back(e);
    }
    return merged;
  }

private:
  /// The runs of `a`'s memory, split so that runs start at a.begin and
  /// a.end, with a run for every byte of [a.begin, a.end) (bytes nobody has
  /// touched get empty runs).
  RunMap &covered(const MemoryAccess &a) {
    RunMap &runs = memories[a.memory];
    splitAt(runs, a.begin);
    splitAt(runs, a.end);
    uint64_t cursor = a.begin;
    for (auto it = runs.lower_bound(a.begin);
         it != runs.end() && it->first < a.end; ++it) {
      if (it->first > cursor)
        it = runs.emplace(cursor, Run(it->first)).first;
      cursor = it->second.end;
    }
    if (cursor < a.end)
      runs.emplace(cursor, Run(a.end));
    return runs;
  }

  std::unordered_map<uint32_t, RunMap> memories;
  std::vector<Dependence> edges;
};
} // namespace

std::vector<Dependence>
computeDependences(const std::vector<std::vector<MemoryAccess>> &accesses) {
  DependenceBuilder builder;
  for (InstrId i = 0; i < accesses.size(); ++i) {
    // Reads first: an instruction reads its operands before it writes.
    for (const MemoryAccess &a : accesses[i])
      if (!a.isWrite && a.begin < a.end && a.lanes)
        builder.read(i, a);
    for (const MemoryAccess &a : accesses[i])
      if (a.isWrite && a.begin < a.end && a.lanes)
        builder.write(i, a);
  }
  return builder.finish();
}

} // namespace nki::sched
