//===- SyncTest.cpp - Semaphore planning and dependence derivation --------===//
#include "nki/Analysis/Dependences.h"
#include "nki/Analysis/Scheduler.h"
#include "nki/Analysis/Sync.h"

#include "gtest/gtest.h"

#include <atomic>
#include <random>
#include <set>

using namespace nki::sched;

namespace {

SyncPlan solveAndVerify(const SyncProblem &p) {
  absl::StatusOr<SyncPlan> plan = solve(p);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok())
    return {};
  EXPECT_TRUE(verify(p, *plan).ok()) << verify(p, *plan);
  return *plan;
}

bool contains(const absl::Status &st, const std::string &text) {
  return st.message().find(text) != std::string::npos;
}

using Waits = std::vector<SemaphoreWait>;

TEST(SyncTest, ProducerConsumerAcrossStreamsGetsOneWait) {
  SyncProblem p(2);
  InstrId load = p.addInstruction(0), use = p.addInstruction(1);
  p.addDependence(load, use);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_EQ(plan.numSemaphores, 1u);
  EXPECT_EQ(plan.signal[load], 0u);
  EXPECT_FALSE(plan.signal[use]);
  EXPECT_EQ(plan.waits[use], (Waits{{0, 1}}));
  EXPECT_TRUE(plan.waits[load].empty());
}

TEST(SyncTest, SameStreamDependenceIsProgramOrder) {
  SyncProblem p(1);
  InstrId a = p.addInstruction(0), b = p.addInstruction(0);
  p.addDependence(a, b);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_EQ(plan.numSemaphores, 0u);
  EXPECT_EQ(plan.numWaits(), 0u);
}

TEST(SyncTest, WaitCountsOnlySignallingInstructions) {
  // The consumer needs p1 (and so p0): one wait, and p1 is the first
  // instruction of its stream that signals.
  SyncProblem p(2);
  InstrId p0 = p.addInstruction(0), p1 = p.addInstruction(0);
  InstrId c = p.addInstruction(1);
  p.addDependence(p0, c);
  p.addDependence(p1, c);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_FALSE(plan.signal[p0]);
  EXPECT_EQ(plan.signal[p1], 0u);
  EXPECT_EQ(plan.waits[c], (Waits{{0, 1}}));
}

TEST(SyncTest, ProgramOrderMakesLaterWaitsRedundant) {
  // b1 waits for a1; b2 also reads a1's result but already knows it.
  SyncProblem p(2);
  InstrId a1 = p.addInstruction(0), a2 = p.addInstruction(0);
  InstrId b1 = p.addInstruction(1), b2 = p.addInstruction(1);
  p.addDependence(a1, b1);
  p.addDependence(a1, b2);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_EQ(plan.waits[b1], (Waits{{0, 1}}));
  EXPECT_TRUE(plan.waits[b2].empty());
  EXPECT_FALSE(plan.signal[a2]);

  p.addDependence(a2, b2); // now b2 needs the next one
  plan = solveAndVerify(p);
  EXPECT_EQ(plan.waits[b2], (Waits{{0, 2}}));
}

TEST(SyncTest, ChainAcrossStreamsHasNoRedundantWaits) {
  // a -> b -> c over three streams plus a -> c: c learns a through b.
  SyncProblem p(3);
  InstrId a = p.addInstruction(0), b = p.addInstruction(1),
          c = p.addInstruction(2);
  p.addDependence(a, b);
  p.addDependence(b, c);
  p.addDependence(a, c);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_EQ(plan.numWaits(), 2u);
  EXPECT_EQ(plan.waits[b], (Waits{{*plan.streamSemaphore[0], 1}}));
  EXPECT_EQ(plan.waits[c], (Waits{{*plan.streamSemaphore[1], 1}}));
  EXPECT_EQ(plan.numSemaphores, 2u);
}

TEST(SyncTest, DependencesFromAccessesGiveWarAndWaw) {
  // Stream 0 loads a buffer, stream 1 reads it, then stream 0 overwrites it
  // (WAR) and stream 2 overwrites it again (WAW).
  std::vector<std::vector<MemoryAccess>> accesses = {
      {{0, 0, 64, true}},  // 0: load
      {{0, 0, 64, false}}, // 1: use
      {{0, 0, 64, true}},  // 2: reload
      {{0, 32, 48, true}}, // 3: overwrite part
  };
  std::vector<Dependence> deps = computeDependences(accesses);
  ASSERT_EQ(deps.size(), 3u);
  EXPECT_EQ(deps[0].pred, 0u);
  EXPECT_EQ(deps[0].succ, 1u);
  EXPECT_EQ(deps[0].kinds, RAW);
  EXPECT_EQ(deps[1].pred, 1u);
  EXPECT_EQ(deps[1].succ, 2u);
  EXPECT_EQ(deps[1].kinds, WAR);
  EXPECT_EQ(deps[2].pred, 2u);
  EXPECT_EQ(deps[2].succ, 3u);
  EXPECT_EQ(deps[2].kinds, WAW);

  SyncProblem p({{0, 2}, {1}, {3}});
  for (const Dependence &d : deps)
    p.addDependence(d.pred, d.succ);
  SyncPlan plan = solveAndVerify(p);
  EXPECT_EQ(plan.waits[1].size(), 1u); // RAW on the load
  EXPECT_EQ(plan.waits[2].size(), 1u); // WAR on the use
  EXPECT_EQ(plan.waits[3].size(), 1u); // WAW on the reload
}

TEST(SyncTest, VerifyFindsRaces) {
  SyncProblem p(2);
  InstrId a = p.addInstruction(0), b = p.addInstruction(1);
  p.addDependence(a, b);
  SyncPlan plan = solveAndVerify(p);
  plan.waits[b].clear();
  absl::Status st = verify(p, plan);
  EXPECT_TRUE(contains(st, "race: instruction #1 (stream 1, position 0) may "
                           "start before instruction #0 (stream 0, position "
                           "0) completes"))
      << st;
}

TEST(SyncTest, VerifyFindsDeadlocks) {
  // Each stream waits for the other's signal before giving its own.
  SyncProblem p(2);
  InstrId a = p.addInstruction(0), b = p.addInstruction(1);
  SyncPlan plan;
  plan.numSemaphores = 2;
  plan.waits = {{{1, 1}}, {{0, 1}}};
  plan.signal = {0u, 1u};
  plan.streamSemaphore = {0u, 1u};
  absl::Status st = verify(p, plan);
  EXPECT_TRUE(contains(st, "deadlock")) << st;
  EXPECT_TRUE(contains(st, "waits for semaphore 1 >= 1 (reached 0)")) << st;
  (void)a;
  (void)b;

  // A value no signal count reaches.
  plan.waits = {{}, {{0, 2}}};
  st = verify(p, plan);
  EXPECT_TRUE(contains(st, "to reach 2 but only 1 instructions signal it"))
      << st;
}

TEST(SyncTest, VerifyUnderstandsSharedSemaphores) {
  // Streams 0 and 1 both signal semaphore 0: reaching 2 proves both done,
  // reaching 1 proves neither.
  SyncProblem p(3);
  InstrId a = p.addInstruction(0), b = p.addInstruction(1),
          c = p.addInstruction(2);
  p.addDependence(a, c);
  p.addDependence(b, c);
  SyncPlan plan;
  plan.numSemaphores = 1;
  plan.waits = {{}, {}, {{0, 2}}};
  plan.signal = {0u, 0u, std::nullopt};
  EXPECT_TRUE(verify(p, plan).ok()) << verify(p, plan);
  plan.waits[c] = {{0, 1}};
  EXPECT_TRUE(contains(verify(p, plan), "race")) << verify(p, plan);
}

TEST(SyncTest, CheckRejectsUnsatisfiableProblems) {
  {
    SyncProblem p(1);
    InstrId a = p.addInstruction(0), b = p.addInstruction(0);
    p.addDependence(b, a);
    EXPECT_TRUE(contains(p.check(), "against the program order")) << p.check();
  }
  {
    // x0 x1 on stream 0, y0 y1 on stream 1: x1 -> y0 and y1 -> x0 close
    // a cycle through both program orders.
    SyncProblem p(2);
    InstrId x0 = p.addInstruction(0), x1 = p.addInstruction(0);
    InstrId y0 = p.addInstruction(1), y1 = p.addInstruction(1);
    p.addDependence(x1, y0);
    p.addDependence(y1, x0);
    EXPECT_TRUE(contains(p.check(), "form a cycle")) << p.check();
    EXPECT_FALSE(solve(p).ok());
  }
  {
    SyncProblem p({{0, 1}, {1}});
    EXPECT_TRUE(contains(p.check(), "already placed")) << p.check();
  }
  {
    SyncProblem p(1);
    p.addInstruction(3);
    EXPECT_TRUE(contains(p.check(), "only 1")) << p.check();
  }
  {
    SyncProblem p(1);
    p.addInstruction(0);
    p.addDependence(0, 5);
    EXPECT_TRUE(contains(p.check(), "out of range")) << p.check();
  }
}

/// A random program: instructions in a global order (the order they are
/// created in), each on a random stream, depending on random earlier ones.
SyncProblem randomProgram(std::mt19937 &rng, unsigned streams, int n,
                          int maxPreds) {
  SyncProblem p(streams);
  for (int i = 0; i < n; ++i) {
    p.addInstruction(StreamIndex(rng() % streams));
    for (int k = rng() % (maxPreds + 1); i && k > 0; --k)
      p.addDependence(InstrId(rng() % i), InstrId(i));
  }
  return p;
}

TEST(SyncTest, RandomProgramsVerifyWithFewSemaphores) {
  std::mt19937 rng(99);
  for (int round = 0; round < 300; ++round) {
    unsigned streams = 1 + rng() % 20;
    SyncProblem p = randomProgram(rng, streams, 1 + round % 120, 3);
    absl::StatusOr<SyncPlan> plan = solve(p);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_TRUE(verify(p, *plan).ok()) << "round " << round << ": "
                                       << verify(p, *plan);
    std::set<StreamIndex> producers;
    for (InstrId i = 0; i < p.numInstructions(); ++i) {
      for (InstrId pred : p.getPredecessors(i))
        if (p.getStream(pred) != p.getStream(i))
          producers.insert(p.getStream(pred));
      ASSERT_LE(plan->waits[i].size(), streams);
    }
    EXPECT_LE(plan->numSemaphores, producers.size());

    // Every wait is needed: dropping any one leaves a race.
    for (InstrId i = 0; i < p.numInstructions(); ++i)
      for (size_t w = 0; w < plan->waits[i].size(); ++w) {
        SyncPlan weaker = *plan;
        weaker.waits[i].erase(weaker.waits[i].begin() + w);
        ASSERT_TRUE(contains(verify(p, weaker), "race"))
            << "round " << round << ": wait " << w << " of " << p.describe(i)
            << " is redundant";
      }
  }
}

TEST(SyncTest, ScheduledRandomDagsSynchroniseAndVerify) {
  // The compiler's sequence: schedule, then order the streams it produced.
  std::mt19937 rng(5);
  for (int round = 0; round < 50; ++round) {
    SchedulingProblem sp(50);
    for (int r = 0; r < 20; ++r)
      sp.addResource("r" + std::to_string(r));
    int n = 1 + round * 20;
    for (int t = 0; t < n; ++t) {
      std::vector<ResourceOption> options;
      for (ResourceId r = 0; r < 20; ++r)
        if (rng() % 4 == 0 || (options.empty() && r == 19))
          options.push_back({r, Time(rng() % 500), Time(rng() % 2 * 1300)});
      sp.addTask(options);
      for (int k = rng() % 4; t && k > 0; --k)
        sp.addDependence(TaskId(rng() % t), TaskId(t));
    }
    absl::StatusOr<Schedule> s = solve(sp);
    ASSERT_TRUE(s.ok()) << s.status();
    SyncProblem p(s->order);
    for (TaskId t = 0; t < sp.numTasks(); ++t)
      for (TaskId pred : sp.getPredecessors(t))
        p.addDependence(pred, t);
    absl::StatusOr<SyncPlan> plan = solve(p);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_TRUE(verify(p, *plan).ok()) << verify(p, *plan);
  }
}

TEST(SyncTest, HundredThousandInstructions) {
  std::mt19937 rng(11);
  SyncProblem p = randomProgram(rng, 20, 100000, 3);
  absl::StatusOr<SyncPlan> plan = solve(p);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(verify(p, *plan).ok()) << verify(p, *plan);
}

//===----------------------------------------------------------------------===//
// Dependence derivation
//===----------------------------------------------------------------------===//

using Edge = std::tuple<InstrId, InstrId, uint8_t>;
std::vector<Edge> edgesOf(const std::vector<std::vector<MemoryAccess>> &a) {
  std::vector<Edge> out;
  for (const Dependence &d : computeDependences(a))
    out.emplace_back(d.pred, d.succ, d.kinds);
  return out;
}

TEST(DependenceTest, OverlapDisjointAndReadRead) {
  // Overlapping write then read: RAW.
  EXPECT_EQ(edgesOf({{{0, 0, 100, true}}, {{0, 99, 200, false}}}),
            (std::vector<Edge>{{0, 1, RAW}}));
  // Touching but disjoint (half-open intervals): nothing.
  EXPECT_TRUE(edgesOf({{{0, 0, 100, true}}, {{0, 100, 200, false}}}).empty());
  // Same bytes in different memories: nothing.
  EXPECT_TRUE(edgesOf({{{0, 0, 100, true}}, {{1, 0, 100, true}}}).empty());
  // Two reads never conflict.
  EXPECT_TRUE(edgesOf({{{0, 0, 100, false}}, {{0, 0, 100, false}}}).empty());
  // Empty intervals are no access.
  EXPECT_TRUE(edgesOf({{{0, 5, 5, true}}, {{0, 0, 100, true}}}).empty());
}

TEST(DependenceTest, WarWawAndImpliedWaw) {
  // Write, two reads, write: WAR from both readers, and no WAW because the
  // readers already order the writes.
  EXPECT_EQ(edgesOf({{{0, 0, 8, true}},
                     {{0, 0, 4, false}},
                     {{0, 4, 8, false}},
                     {{0, 0, 8, true}}}),
            (std::vector<Edge>{
                {0, 1, RAW}, {0, 2, RAW}, {1, 3, WAR}, {2, 3, WAR}}));
  // Bytes 4..8 were not read: the second write needs WAW for them.
  EXPECT_EQ(edgesOf({{{0, 0, 8, true}},
                     {{0, 0, 4, false}},
                     {{0, 0, 8, true}}}),
            (std::vector<Edge>{{0, 1, RAW}, {0, 2, WAW}, {1, 2, WAR}}));
}

TEST(DependenceTest, InPlaceUpdateAndMergedKinds) {
  // Instruction 1 reads and writes the same bytes: RAW only (its own read
  // orders the write). Instruction 2 reads one buffer instruction 1 wrote
  // and writes another it read: both kinds on one edge.
  EXPECT_EQ(edgesOf({{{0, 0, 8, true}},
                     {{0, 0, 8, false}, {0, 0, 8, true}},
                     {{0, 0, 8, false}}}),
            (std::vector<Edge>{{0, 1, RAW}, {1, 2, RAW}}));
  EXPECT_EQ(edgesOf({{{0, 0, 8, false}, {0, 16, 24, true}},
                     {{0, 16, 24, false}, {0, 0, 8, true}}}),
            (std::vector<Edge>{{0, 1, RAW | WAR}}));
}

TEST(DependenceTest, LanesOfOneMemory) {
  // Writes to the same bytes of disjoint lanes are independent; a read of
  // both lanes depends on both, and a write to every lane on the read.
  EXPECT_EQ(edgesOf({{{0, 0, 8, true, 0x0007}},
                     {{0, 0, 8, true, 0x0038}},
                     {{0, 0, 8, false, 0x003F}},
                     {{0, 0, 8, true}}}),
            (std::vector<Edge>{{0, 2, RAW}, {1, 2, RAW}, {2, 3, WAR}}));
  // A write to some lanes after a write to all: WAW on those lanes only;
  // a read of the other lanes still depends on the first write alone.
  EXPECT_EQ(edgesOf({{{0, 0, 8, true}},
                     {{0, 0, 8, true, 0x0001}},
                     {{0, 0, 8, false, 0x0002}}}),
            (std::vector<Edge>{{0, 1, WAW}, {0, 2, RAW}}));
  // Reads of other lanes do not order a write (WAW, no WAR).
  EXPECT_EQ(edgesOf({{{0, 0, 8, true, 0x0003}},
                     {{0, 0, 8, false, 0x0002}},
                     {{0, 0, 8, true, 0x0001}}}),
            (std::vector<Edge>{{0, 1, RAW}, {0, 2, WAW}}));
}

TEST(DependenceTest, RandomAccessesMatchBruteForce) {
  // Every conflicting pair must be ordered by the edges' transitive closure,
  // and every edge must be a real conflict.
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    int n = 1 + rng() % 40;
    std::vector<std::vector<MemoryAccess>> accesses(n);
    for (auto &list : accesses)
      for (int k = rng() % 4; k > 0; --k) {
        uint64_t b = rng() % 64, len = rng() % 16;
        // Half the accesses touch every lane, the others a few of four.
        uint16_t lanes = rng() % 2 ? MemoryAccess::kAllLanes
                                   : uint16_t(rng() % 16);
        list.push_back(
            {uint32_t(rng() % 2), b, b + len, rng() % 2 == 0, lanes});
      }
    auto conflict = [&](int i, int j) {
      for (const MemoryAccess &x : accesses[i])
        for (const MemoryAccess &y : accesses[j])
          if (x.memory == y.memory && (x.isWrite || y.isWrite) &&
              x.begin < y.end && y.begin < x.end && x.begin < x.end &&
              y.begin < y.end && (x.lanes & y.lanes))
            return true;
      return false;
    };
    std::vector<std::vector<uint8_t>> reach(n, std::vector<uint8_t>(n));
    for (const Dependence &d : computeDependences(accesses)) {
      ASSERT_LT(d.pred, d.succ);
      ASSERT_TRUE(conflict(d.pred, d.succ)) << d.pred << " -> " << d.succ;
      reach[d.pred][d.succ] = 1;
    }
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        if (reach[i][k])
          for (int j = 0; j < n; ++j)
            reach[i][j] |= reach[k][j];
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (conflict(i, j))
          ASSERT_TRUE(reach[i][j]) << "round " << round << ": " << i
                                   << " and " << j << " unordered";
  }
}

TEST(DependenceTest, ThreadsDoNotChangeTheEdges) {
  // Bytes split over threads: the same edges, kinds included, whatever the
  // thread count, on a program large enough to take the threaded path by
  // default too.
  std::mt19937 rng(7);
  std::vector<std::vector<MemoryAccess>> accesses(80000);
  for (auto &list : accesses)
    for (int k = 1 + rng() % 5; k > 0; --k) {
      // Addresses over 8 MiB, some accesses across 1 MiB stripes.
      uint64_t b = rng() % (8 << 20);
      uint64_t len = 1 + rng() % (rng() % 8 ? 4096 : (1 << 20));
      uint16_t lanes = rng() % 3 ? MemoryAccess::kAllLanes
                                 : uint16_t(1 + rng() % 0xFFFF);
      list.push_back({uint32_t(rng() % 5), b, b + len, rng() % 3 == 0, lanes});
    }
  auto same = [](const std::vector<Dependence> &a,
                 const std::vector<Dependence> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].pred != b[i].pred || a[i].succ != b[i].succ ||
          a[i].kinds != b[i].kinds)
        return false;
    return true;
  };
  std::vector<Dependence> one = computeDependences(accesses, 1);
  ASSERT_FALSE(one.empty());
  EXPECT_TRUE(same(one, computeDependences(accesses, 2)));
  EXPECT_TRUE(same(one, computeDependences(accesses, 3)));
  EXPECT_TRUE(same(one, computeDependences(accesses)));
  // Accesses made as the analysis reaches them (both threads ask for each
  // instruction's, into their own scratch lists): the same edges.
  std::atomic<size_t> calls{0};
  std::vector<Dependence> made =
      computeDependences(accesses.size(),
                         [&](InstrId i, std::vector<MemoryAccess> &scratch)
                             -> const std::vector<MemoryAccess> & {
                           ++calls;
                           EXPECT_TRUE(scratch.empty());
                           scratch = accesses[i];
                           return scratch;
                         });
  EXPECT_TRUE(same(one, made));
  // Once per instruction and thread (two on a machine of two cores or more).
  EXPECT_EQ(calls.load() % accesses.size(), 0u);
  EXPECT_GE(calls.load(), accesses.size());
}

} // namespace
