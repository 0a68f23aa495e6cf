//===- Dependences.cpp - RAW/WAR/WAW edges from byte intervals ------------===//
//
// Per memory an ordered map of disjoint runs of bytes, each with its last
// writer and the readers since that write. A write collapses the runs it
// covers into one, so runs stay few; a read appends itself to each run it
// covers, splitting at most the two runs at its ends.
//
//===----------------------------------------------------------------------===//
#include "nki/Analysis/Dependences.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace nki::sched {

namespace {
struct Run {
  uint64_t end = 0;
  std::optional<InstrId> writer;
  std::vector<InstrId> readers; // since `writer`, in program order
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
    RunMap &runs = memories[a.memory];
    splitAt(runs, a.begin);
    splitAt(runs, a.end);
    uint64_t cursor = a.begin;
    for (auto it = runs.lower_bound(a.begin);
         it != runs.end() && it->first < a.end; ++it) {
      if (it->first > cursor) // bytes nobody has touched yet
        runs.emplace(cursor, Run{it->first, std::nullopt, {i}});
      Run &run = it->second;
      if (run.writer && *run.writer != i)
        edges.push_back({*run.writer, i, RAW});
      if (run.readers.empty() || run.readers.back() != i)
        run.readers.push_back(i);
      cursor = run.end;
    }
    if (cursor < a.end)
      runs.emplace(cursor, Run{a.end, std::nullopt, {i}});
  }

  void write(InstrId i, const MemoryAccess &a) {
    RunMap &runs = memories[a.memory];
    splitAt(runs, a.begin);
    splitAt(runs, a.end);
    auto first = runs.lower_bound(a.begin), last = first;
    for (; last != runs.end() && last->first < a.end; ++last) {
      const Run &run = last->second;
      for (InstrId r : run.readers)
        if (r != i)
          edges.push_back({r, i, WAR});
      // Behind readers the old write is already ordered before `i`: by RAW
      // then WAR through another reader, or by RAW when `i` is the reader.
      if (run.readers.empty() && run.writer && *run.writer != i)
        edges.push_back({*run.writer, i, WAW});
    }
    runs.erase(first, last);
    runs.emplace(a.begin, Run{a.end, i, {}});
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
      if (!a.isWrite && a.begin < a.end)
        builder.read(i, a);
    for (const MemoryAccess &a : accesses[i])
      if (a.isWrite && a.begin < a.end)
        builder.write(i, a);
  }
  return builder.finish();
}

} // namespace nki::sched
