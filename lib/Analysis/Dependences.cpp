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

#include "absl/container/btree_map.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <thread>
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

/// What few runs need: a last writer per lane (after a write to some
/// lanes) and readers after the first.
struct RunExtra {
  std::unique_ptr<std::array<InstrId, kLanes>> laneWriters;
  std::vector<Reader> moreReaders;
};

/// A run of bytes: its last writer per lane and its readers since, in
/// program order. Most runs are written in every lane at once and read by
/// one instruction before the next write, so one writer stands for all
/// lanes and the first reader is inline; the rest is out of line. A run
/// is 32 bytes (a large program has millions).
class Run {
public:
  explicit Run(uint64_t end = 0) : end(end) {}
  Run(const Run &o) : end(o.end), writer(o.writer), first(o.first) {
    if (o.extra) {
      extra = std::make_unique<RunExtra>();
      if (o.extra->laneWriters)
        extra->laneWriters = std::make_unique<std::array<InstrId, kLanes>>(
            *o.extra->laneWriters);
      extra->moreReaders = o.extra->moreReaders;
    }
  }
  Run(Run &&) noexcept = default;
  Run &operator=(Run &&) noexcept = default;

  uint64_t end;

  /// Calls f(w) for each distinct consecutive last writer (not kNone) of
  /// the lanes in `lanes`.
  template <typename F> void forEachWriter(uint16_t lanes, F &&f) const {
    if (!lanes)
      return;
    if (!extra || !extra->laneWriters) {
      if (writer != kNone)
        f(writer);
      return;
    }
    InstrId last = kNone;
    for (int lane = 0; lane < kLanes; ++lane) {
      InstrId w = (*extra->laneWriters)[lane];
      if ((lanes >> lane & 1) && w != kNone && w != last) {
        f(w);
        last = w;
      }
    }
  }

  void setWriter(uint16_t lanes, InstrId i) {
    if (lanes == kAll) {
      writer = i;
      if (extra) {
        extra->laneWriters.reset();
        releaseExtra();
      }
      return;
    }
    if (!extra)
      extra = std::make_unique<RunExtra>();
    if (!extra->laneWriters) {
      extra->laneWriters = std::make_unique<std::array<InstrId, kLanes>>();
      extra->laneWriters->fill(writer);
    }
    for (int lane = 0; lane < kLanes; ++lane)
      if (lanes >> lane & 1)
        (*extra->laneWriters)[lane] = i;
  }

  /// Calls f(reader) for each reader, in program order.
  template <typename F> void forEachReader(F &&f) const {
    if (!first.lanes)
      return;
    f(first);
    if (extra)
      for (const Reader &r : extra->moreReaders)
        f(r);
  }

  /// `i` read `lanes` (after every reader so far).
  void addReader(InstrId i, uint16_t lanes) {
    if (!first.lanes) {
      first = {i, lanes};
      return;
    }
    Reader &last = extra && !extra->moreReaders.empty()
                       ? extra->moreReaders.back()
                       : first;
    if (last.id == i) {
      last.lanes |= lanes;
      return;
    }
    if (!extra)
      extra = std::make_unique<RunExtra>();
    extra->moreReaders.push_back({i, lanes});
  }

  /// Forgets the readers' reads of `lanes` (written since), dropping those
  /// left with none.
  void clearReaders(uint16_t lanes) {
    if (lanes == kAll) {
      first.lanes = 0;
      if (extra) {
        extra->moreReaders.clear();
        releaseExtra();
      }
      return;
    }
    // In place, in order: the survivors move forward.
    std::vector<Reader> *more = extra ? &extra->moreReaders : nullptr;
    size_t kept = 0;
    bool haveFirst = false;
    auto keep = [&](Reader r) {
      r.lanes &= uint16_t(~lanes);
      if (!r.lanes)
        return;
      if (!haveFirst) {
        first = r;
        haveFirst = true;
      } else {
        (*more)[kept++] = r;
      }
    };
    keep(first);
    for (size_t k = 0; more && k < more->size(); ++k)
      keep((*more)[k]);
    if (!haveFirst)
      first.lanes = 0;
    if (more) {
      more->resize(kept);
      releaseExtra();
    }
  }

private:
  void releaseExtra() {
    if (!extra->laneWriters && extra->moreReaders.empty())
      extra.reset();
  }

  InstrId writer = kNone; // of every lane, while there is no lane array
  Reader first{kNone, 0}; // lanes 0: no reader
  std::unique_ptr<RunExtra> extra;
};
static_assert(sizeof(Run) == 32, "a run per byte interval of the program");

/// Keyed by the run's first byte. A B-tree: its nodes hold the runs
/// themselves (a red-black tree would allocate a node of 96 bytes each).
using RunMap = absl::btree_map<uint64_t, Run>;

class DependenceBuilder {
public:
  void read(InstrId i, const MemoryAccess &a) {
    auto [first, last] = covered(a);
    for (auto it = first; it != last; ++it) {
      Run &run = it->second;
      run.forEachWriter(a.lanes, [&](InstrId w) {
        if (w != i)
          pending.push_back({w, i, RAW});
      });
      run.addReader(i, a.lanes);
    }
  }

  void write(InstrId i, const MemoryAccess &a) {
    auto [first, last] = covered(a);
    for (auto it = first; it != last; ++it) {
      Run &run = it->second;
      uint16_t readLanes = 0;
      run.forEachReader([&](const Reader &r) {
        if (r.lanes & a.lanes) {
          if (r.id != i)
            pending.push_back({r.id, i, WAR});
          readLanes |= r.lanes;
        }
      });
      // Behind readers the old write is already ordered before `i`: by RAW
      // then WAR through another reader, or by RAW when `i` is the reader.
      run.forEachWriter(uint16_t(a.lanes & ~readLanes), [&](InstrId w) {
        if (w != i)
          pending.push_back({w, i, WAW});
      });
      if (a.lanes == kAll)
        continue;
      run.setWriter(a.lanes, i);
      run.clearReaders(a.lanes);
    }
    if (a.lanes != kAll)
      return;
    // One run for the whole access, written by `i` in every lane.
    Run &run = first->second;
    run.end = a.end;
    run.setWriter(kAll, i);
    run.clearReaders(kAll);
    memories[a.memory].erase(std::next(first), last);
  }

  /// Ends instruction `i`: its edges, each predecessor once, join the
  /// result in (succ, pred) order. Edges are made per instruction, so
  /// sorting each one's few predecessors orders them all.
  void finishInstruction() {
    std::sort(pending.begin(), pending.end(),
              [](const Dependence &a, const Dependence &b) {
                return a.pred < b.pred;
              });
    for (const Dependence &e : pending) {
      if (!edges.empty() && edges.back().pred == e.pred &&
          edges.back().succ == e.succ)
        edges.back().kinds |= e.kinds;
      else
        edges.push_back(e);
    }
    pending.clear();
  }

  std::vector<Dependence> finish() { return std::move(edges); }

private:
  /// The runs of `a`'s memory that cover [a.begin, a.end) exactly, as an
  /// iterator range: runs split so that runs start at a.begin and a.end,
  /// and a run for every byte (bytes nobody has touched get empty runs).
  /// One search of the map; the rest are hinted insertions next to `it`.
  /// An insertion into a B-tree moves its elements: the range's start is
  /// searched again after one.
  std::pair<RunMap::iterator, RunMap::iterator>
  covered(const MemoryAccess &a) {
    RunMap &runs = memories[a.memory];
    auto it = runs.upper_bound(a.begin);
    if (it != runs.begin()) {
      auto prev = std::prev(it);
      if (prev->first == a.begin) {
        it = prev;
      } else if (prev->second.end > a.begin) { // straddles a.begin
        Run tail = prev->second;
        prev->second.end = a.begin;
        it = runs.emplace_hint(it, a.begin, std::move(tail));
      }
    }
    std::optional<RunMap::iterator> first;
    bool moved = false; // an insertion since `first` was taken
    for (uint64_t cursor = a.begin; cursor < a.end; ++it) {
      if (it == runs.end() || it->first > cursor) { // a gap: an empty run
        it = runs.emplace_hint(
            it, cursor,
            Run(it == runs.end() ? a.end : std::min(it->first, a.end)));
        moved = first.has_value();
      }
      if (!first)
        first = it;
      if (it->second.end > a.end) { // straddles a.end
        Run tail = it->second;
        it->second.end = a.end;
        it =
            std::prev(runs.emplace_hint(std::next(it), a.end, std::move(tail)));
        moved = true;
      }
      cursor = it->second.end;
    }
    if (!first)
      return {it, it};
    return {moved ? runs.lower_bound(a.begin) : *first, it};
  }

  std::unordered_map<uint32_t, RunMap> memories;
  std::vector<Dependence> edges;   // final, sorted by (succ, pred)
  std::vector<Dependence> pending; // the current instruction's
};
} // namespace

namespace {
/// Shards own stripes of this many bytes of each memory, round robin
/// across memories and stripes: HBM (one memory, most of the accesses of
/// a large program) is shared out, and each on-chip block (less than a
/// stripe) goes to one shard.
constexpr uint64_t kStripeBytes = uint64_t(1) << 20;

/// The edges through the bytes `shard` of `shards` owns: bytes are
/// independent, so each shard's edges are exactly the full analysis's
/// edges through its bytes (an access crossing stripes is cut there).
std::vector<Dependence> shardDependences(size_t numInstructions,
                                         const AccessesOf &accessesOf,
                                         uint32_t shard, uint32_t shards) {
  DependenceBuilder builder;
  auto forMine = [&](const MemoryAccess &a, auto &&f) {
    if (a.begin >= a.end || !a.lanes)
      return;
    if (shards == 1)
      return f(a);
    for (uint64_t lo = a.begin, hi; lo < a.end; lo = hi) {
      uint64_t stripe = lo / kStripeBytes;
      hi = std::min(a.end, (stripe + 1) * kStripeBytes);
      if ((a.memory + stripe) % shards != shard)
        continue;
      MemoryAccess piece = a;
      piece.begin = lo;
      piece.end = hi;
      f(piece);
    }
  };
  std::vector<MemoryAccess> scratch;
  for (InstrId i = 0; i < numInstructions; ++i) {
    scratch.clear();
    const std::vector<MemoryAccess> &accesses = accessesOf(i, scratch);
    // Reads first: an instruction reads its operands before it writes.
    for (const MemoryAccess &a : accesses)
      if (!a.isWrite)
        forMine(a, [&](const MemoryAccess &p) { builder.read(i, p); });
    for (const MemoryAccess &a : accesses)
      if (a.isWrite)
        forMine(a, [&](const MemoryAccess &p) { builder.write(i, p); });
    builder.finishInstruction();
  }
  return builder.finish();
}

/// Two edge lists sorted by (succ, pred) as one, a pair found by both once
/// with the reasons of both.
std::vector<Dependence> mergeEdges(const std::vector<Dependence> &a,
                                   const std::vector<Dependence> &b) {
  std::vector<Dependence> out;
  out.reserve(a.size() + b.size());
  auto key = [](const Dependence &d) { return std::make_pair(d.succ, d.pred); };
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && key(a[i]) < key(b[j]))) {
      out.push_back(a[i++]);
    } else if (i == a.size() || key(b[j]) < key(a[i])) {
      out.push_back(b[j++]);
    } else {
      out.push_back(a[i++]);
      out.back().kinds |= b[j++].kinds;
    }
  }
  return out;
}

/// Below this many accesses a second thread costs more than it saves.
constexpr size_t kParallelAccesses = 200000;

std::vector<Dependence> computeSharded(size_t numInstructions,
                                       const AccessesOf &accessesOf,
                                       unsigned threads) {
  if (threads <= 1)
    return shardDependences(numInstructions, accessesOf, 0, 1);
  std::vector<std::vector<Dependence>> shards(threads);
  std::vector<std::thread> helpers;
  for (unsigned k = 1; k < threads; ++k)
    helpers.emplace_back([&, k] {
      shards[k] = shardDependences(numInstructions, accessesOf, k, threads);
    });
  shards[0] = shardDependences(numInstructions, accessesOf, 0, threads);
  for (std::thread &t : helpers)
    t.join();
  std::vector<Dependence> edges = std::move(shards[0]);
  for (unsigned k = 1; k < threads; ++k)
    edges = mergeEdges(edges, shards[k]);
  return edges;
}

/// Large programs: the memories split between the cores (the analysis is
/// about a third of compiling a program of a million instructions).
unsigned threadsFor(size_t accesses) {
  return accesses < kParallelAccesses
             ? 1
             : std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
}
} // namespace

std::vector<Dependence>
computeDependences(const std::vector<std::vector<MemoryAccess>> &accesses,
                   unsigned threads) {
  return computeSharded(
      accesses.size(),
      [&](InstrId i, std::vector<MemoryAccess> &)
          -> const std::vector<MemoryAccess> & { return accesses[i]; },
      threads);
}

std::vector<Dependence>
computeDependences(const std::vector<std::vector<MemoryAccess>> &accesses) {
  size_t total = 0;
  for (const std::vector<MemoryAccess> &list : accesses)
    total += list.size();
  return computeDependences(accesses, threadsFor(total));
}

std::vector<Dependence> computeDependences(size_t numInstructions,
                                           const AccessesOf &accessesOf) {
  // Instructions have about ten accesses each (one per 32-partition block
  // of each on-chip operand, up to 128 for a strided HBM one).
  return computeSharded(numInstructions, accessesOf,
                        threadsFor(numInstructions * 10));
}

} // namespace nki::sched
