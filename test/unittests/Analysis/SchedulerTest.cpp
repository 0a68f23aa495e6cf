//===- SchedulerTest.cpp - List scheduler: check, solve, verify -----------===//
#include "nki/Analysis/Scheduler.h"

#include "gtest/gtest.h"

#include <random>

using namespace nki::sched;

namespace {

constexpr Time kNs = 1000; // times are picoseconds

/// PE, ACT, DVE, POOL and 16 DMA queues, like the shipped targets; the
/// numbers are the test's own, the scheduler takes them as inputs.
struct Machine {
  explicit Machine(Time sync = 50 * kNs) : problem(sync) {
    for (const char *name : {"pe", "act", "dve", "pool"})
      problem.addResource(name);
    for (int q = 0; q < 16; ++q)
      problem.addResource("dma" + std::to_string(q));
  }
  TaskId on(ResourceId r, Time duration, Time latency = 0) {
    return problem.addTask({{r, duration, latency}});
  }
  /// A transfer that may use any queue.
  TaskId dma(Time duration, Time latency = 1300 * kNs) {
    std::vector<ResourceOption> options;
    for (ResourceId q = kDma0; q < kDma0 + 16; ++q)
      options.push_back({q, duration, latency});
    return problem.addTask(options);
  }
  Schedule solveAndVerify() {
    absl::StatusOr<Schedule> s = solve(problem);
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok())
      return {};
    EXPECT_TRUE(verify(problem, *s).ok()) << verify(problem, *s);
    return *s;
  }

  static constexpr ResourceId kPE = 0, kACT = 1, kDVE = 2, kPOOL = 3,
                              kDma0 = 4;
  SchedulingProblem problem;
};

TEST(SchedulerTest, ChainOnOneResourceRunsBackToBack) {
  Machine m;
  TaskId a = m.on(Machine::kPE, 10), b = m.on(Machine::kPE, 20),
         c = m.on(Machine::kPE, 30);
  m.problem.addDependence(a, b);
  m.problem.addDependence(b, c);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.start, (std::vector<Time>{0, 10, 30}));
  EXPECT_EQ(s.order[Machine::kPE], (std::vector<TaskId>{a, b, c}));
  EXPECT_EQ(s.makespan(m.problem), 60);
}

TEST(SchedulerTest, IndependentTasksOnTwoResourcesRunInParallel) {
  Machine m;
  TaskId a = m.on(Machine::kPE, 100), b = m.on(Machine::kACT, 70);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.start[a], 0);
  EXPECT_EQ(s.start[b], 0);
  EXPECT_EQ(s.makespan(m.problem), 100);
}

TEST(SchedulerTest, CrossResourceDependencePaysSyncLatency) {
  Machine m(/*sync=*/50);
  TaskId a = m.on(Machine::kPE, 100), b = m.on(Machine::kACT, 10),
         c = m.on(Machine::kACT, 10);
  m.problem.addDependence(a, b);
  m.problem.addDependence(b, c);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.start[b], 150); // other resource: + sync
  EXPECT_EQ(s.start[c], 160); // same resource: program order, no sync
}

TEST(SchedulerTest, DmaCompletionLatencyIsRespected) {
  Machine m;
  TaskId load = m.dma(100 * kNs), mm = m.on(Machine::kPE, 200 * kNs);
  m.problem.addDependence(load, mm);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.start[load], 0);
  EXPECT_EQ(s.completion(m.problem, load), 1400 * kNs);
  EXPECT_EQ(s.start[mm], 1450 * kNs); // completion + sync latency
  EXPECT_EQ(s.makespan(m.problem), 1650 * kNs);
}

TEST(SchedulerTest, DmaQueueIsFreeBeforeTheTransferCompletes) {
  // Sixteen transfers fill the queues; the seventeenth follows the first
  // one's busy time, not its completion.
  Machine m;
  for (int i = 0; i < 17; ++i)
    m.dma(100 * kNs);
  Schedule s = m.solveAndVerify();
  for (ResourceId q = Machine::kDma0; q < Machine::kDma0 + 16; ++q)
    EXPECT_GE(s.order[q].size(), 1u) << "queue " << q << " unused";
  EXPECT_EQ(s.start[16], 100 * kNs);
  EXPECT_EQ(s.resource[16], Machine::kDma0);
}

TEST(SchedulerTest, CriticalPathPriorityPicksLongChainFirst) {
  // Both heads compete for PE; the short chain's head has the lower id, so
  // only the priority can put the long chain first.
  Machine m(/*sync=*/0);
  TaskId shortHead = m.on(Machine::kPE, 10), shortTail = m.on(Machine::kPOOL, 10);
  TaskId longHead = m.on(Machine::kPE, 10), longTail = m.on(Machine::kACT, 1000);
  m.problem.addDependence(shortHead, shortTail);
  m.problem.addDependence(longHead, longTail);
  std::vector<Time> rank = computeCriticalPath(m.problem);
  EXPECT_EQ(rank[longHead], 1010);
  EXPECT_EQ(rank[shortHead], 20);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.start[longHead], 0);
  EXPECT_EQ(s.start[shortHead], 10);
  EXPECT_EQ(s.makespan(m.problem), 1010);
}

TEST(SchedulerTest, TaskGoesWhereItFinishesFirst) {
  Machine m(/*sync=*/0);
  auto copy = [&](Time dve, Time pool) {
    return m.problem.addTask(
        {{Machine::kDVE, dve, 0}, {Machine::kPOOL, pool, 0}});
  };
  TaskId busy = m.on(Machine::kDVE, 1000);
  TaskId tail = m.on(Machine::kPE, 5000); // makes `busy` the most urgent
  m.problem.addDependence(busy, tail);
  TaskId fast = copy(100, 400); // DVE busy until 1000: POOL finishes first
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.resource[busy], Machine::kDVE);
  EXPECT_EQ(s.resource[fast], Machine::kPOOL);
  EXPECT_EQ(s.start[fast], 0);

  Machine idle(/*sync=*/0);
  TaskId alone = idle.problem.addTask(
      {{Machine::kDVE, 100, 0}, {Machine::kPOOL, 400, 0}});
  Schedule t = idle.solveAndVerify();
  EXPECT_EQ(t.resource[alone], Machine::kDVE);
}

TEST(SchedulerTest, ZeroDurationTasksAndEmptyProblem) {
  Machine empty;
  Schedule e = empty.solveAndVerify();
  EXPECT_EQ(e.makespan(empty.problem), 0);

  Machine m;
  TaskId a = m.on(Machine::kPE, 0), b = m.on(Machine::kPE, 0);
  m.problem.addDependence(a, b);
  Schedule s = m.solveAndVerify();
  EXPECT_EQ(s.order[Machine::kPE], (std::vector<TaskId>{a, b}));
}

TEST(SchedulerTest, CheckRejectsBadProblems) {
  {
    Machine m;
    TaskId a = m.on(Machine::kPE, 1), b = m.on(Machine::kACT, 1),
           c = m.on(Machine::kDVE, 1);
    m.problem.addDependence(a, b);
    m.problem.addDependence(b, c);
    m.problem.addDependence(c, a);
    absl::Status st = m.problem.check();
    EXPECT_NE(st.message().find("dependence cycle: task #0 -> task #1 -> "
                                "task #2 -> task #0"),
              std::string::npos)
        << st;
    EXPECT_FALSE(solve(m.problem).ok());
  }
  {
    Machine m;
    m.problem.addTask({}, "orphan");
    EXPECT_EQ(m.problem.check().message(),
              "task 'orphan' (#0) has no resource to run on");
  }
  {
    Machine m;
    m.problem.addTask({{Machine::kPE, -5, 0}});
    EXPECT_NE(m.problem.check().message().find("negative duration"),
              std::string::npos);
  }
  {
    Machine m;
    m.problem.addTask({{Machine::kPE, 1, 0}, {Machine::kPE, 2, 0}});
    EXPECT_NE(m.problem.check().message().find("lists resource 'pe' twice"),
              std::string::npos);
  }
  {
    Machine m;
    m.problem.addTask({{99, 1, 0}});
    EXPECT_NE(m.problem.check().message().find("resource #99"),
              std::string::npos);
  }
  {
    Machine m;
    TaskId a = m.on(Machine::kPE, 1);
    m.problem.addDependence(a, 7);
    EXPECT_NE(m.problem.check().message().find("out of range"),
              std::string::npos);
  }
  {
    Machine m;
    TaskId a = m.on(Machine::kPE, 1);
    m.problem.addDependence(a, a);
    EXPECT_NE(m.problem.check().message().find("depends on itself"),
              std::string::npos);
  }
}

TEST(SchedulerTest, VerifyRejectsBrokenSchedules) {
  Machine m(/*sync=*/50);
  TaskId a = m.on(Machine::kPE, 100), b = m.on(Machine::kACT, 10),
         c = m.on(Machine::kPE, 10);
  m.problem.addDependence(a, b);
  Schedule good = m.solveAndVerify();

  Schedule s = good;
  s.start[b] = 120; // before a's result + sync latency
  EXPECT_NE(verify(m.problem, s).message().find("before its predecessor"),
            std::string::npos);

  s = good;
  s.start[c] = s.start[a] + 50; // overlaps a on PE
  s.order[Machine::kPE] = {a, c};
  EXPECT_NE(verify(m.problem, s).message().find("finishes"),
            std::string::npos);

  s = good;
  s.resource[b] = Machine::kPE; // b may not run on PE
  EXPECT_NE(verify(m.problem, s).message().find("may not use"),
            std::string::npos);

  s = good;
  s.order[Machine::kACT].clear();
  EXPECT_NE(verify(m.problem, s).message().find("missing from the order"),
            std::string::npos);
}

/// A random DAG over the machine: edges only from lower to higher ids,
/// tasks on one compute engine, on a choice of them, or on any DMA queue.
SchedulingProblem randomProblem(std::mt19937 &rng, int n, int maxPreds) {
  Machine m(std::uniform_int_distribution<Time>(0, 100)(rng));
  std::uniform_int_distribution<Time> duration(0, 1000);
  for (int t = 0; t < n; ++t) {
    switch (rng() % 3) {
    case 0:
      m.on(ResourceId(rng() % 4), duration(rng), rng() % 2 ? 0 : 300);
      break;
    case 1:
      m.problem.addTask({{Machine::kACT, duration(rng), 0},
                         {Machine::kDVE, duration(rng), 0},
                         {Machine::kPOOL, duration(rng), 0}});
      break;
    default:
      m.dma(duration(rng), 1300);
    }
    for (int k = rng() % (maxPreds + 1); t && k > 0; --k)
      m.problem.addDependence(TaskId(rng() % t), TaskId(t));
  }
  return m.problem;
}

TEST(SchedulerTest, RandomDagsVerify) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 200; ++round) {
    SchedulingProblem p = randomProblem(rng, 1 + round % 150, 4);
    absl::StatusOr<Schedule> s = solve(p);
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE(verify(p, *s).ok()) << "round " << round << ": "
                                    << verify(p, *s);
    // No schedule beats the critical path at the cheapest durations.
    std::vector<Time> rank = computeCriticalPath(p);
    Time longest = 0;
    for (Time r : rank)
      longest = std::max(longest, r);
    EXPECT_GE(s->makespan(p), longest);
  }
}

TEST(SchedulerTest, HundredThousandTasksScaleLinearly) {
  // The size of a 4096^3 GEMM's tile program; quadratic work would not
  // finish within the test timeout.
  std::mt19937 rng(7);
  SchedulingProblem p = randomProblem(rng, 100000, 3);
  absl::StatusOr<Schedule> s = solve(p);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(verify(p, *s).ok()) << verify(p, *s);
}

} // namespace
