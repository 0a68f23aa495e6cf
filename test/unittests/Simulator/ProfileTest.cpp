//===- ProfileTest.cpp - Per-source-op time attribution -------------------===//
//
// ProfileBuilder on hand-made records: the intervals and expected shares are
// worked out by hand, independently of the simulator's timing.
//
//===----------------------------------------------------------------------===//

#include "nki/Simulator/Profile.h"
#include "nki/ISA/Program.h"
#include "nki/ISA/Target.h"

#include "gtest/gtest.h"

namespace nki::sim {
namespace {

using isa::Engine;
using isa::StreamId;

/// A program whose streams hold instructions with the given locs.
isa::Program
program(std::initializer_list<std::pair<StreamId, std::vector<std::string>>>
            streams) {
  isa::Program p;
  for (auto &[id, locs] : streams) {
    isa::Stream &s = p.getOrCreateStream(id);
    for (const std::string &loc : locs) {
      isa::Instruction inst;
      inst.loc = loc;
      s.instructions.push_back(inst);
    }
  }
  return p;
}

const isa::TargetDesc &trn2() { return *isa::lookupTarget("trn2"); }

const OpProfile *find(const std::vector<OpProfile> &ops,
                      const std::string &source) {
  for (const OpProfile &p : ops)
    if (p.source == source)
      return &p;
  return nullptr;
}

TEST(Profile, DisjointOpsOwnTheirIntervals) {
  StreamId pe{Engine::PE, 0}, act{Engine::ACT, 0};
  isa::Program p = program({{pe, {"conv", "conv"}}, {act, {"relu"}}});
  ProfileBuilder b(p, trn2());
  b.record(pe.index(), 0, 0, 100, 100, 1000, 0, 0, 0);
  b.record(pe.index(), 1, 100, 100, 100, 1000, 0, 0, 0);
  b.record(act.index(), 0, 250, 50, 50, 0, 0, 0, 0);
  std::vector<OpProfile> ops = b.finish();
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].source, "conv"); // most time first
  EXPECT_EQ(ops[0].attributedPs, 200);
  EXPECT_EQ(ops[0].instructions, 2);
  EXPECT_EQ(ops[0].matmulFlops, 2000);
  EXPECT_EQ(ops[0].firstStartPs, 0);
  EXPECT_EQ(ops[0].lastCompletePs, 200);
  EXPECT_EQ(ops[0].bound, Engine::PE);
  EXPECT_DOUBLE_EQ(ops[0].boundUtilisation, 1.0);
  EXPECT_EQ(ops[1].source, "relu");
  EXPECT_EQ(ops[1].attributedPs, 50);
  EXPECT_EQ(ops[1].bound, Engine::ACT);
}

TEST(Profile, OverlapIsSharedEqually) {
  // a: [0, 300) on PE; b: [100, 200) on ACT and [150, 400) on DVE.
  // [0,100): a alone 100; [100,300): a and b, 100 each; [300,400): b 100.
  StreamId pe{Engine::PE, 0}, act{Engine::ACT, 0}, dve{Engine::DVE, 0};
  isa::Program p = program({{pe, {"a"}}, {act, {"b"}}, {dve, {"b"}}});
  ProfileBuilder b(p, trn2());
  b.record(pe.index(), 0, 0, 300, 300, 0, 0, 0, 0);
  b.record(act.index(), 0, 100, 100, 100, 0, 0, 0, 0);
  b.record(dve.index(), 0, 150, 250, 250, 0, 0, 0, 0);
  std::vector<OpProfile> ops = b.finish();
  const OpProfile *a = find(ops, "a"), *bb = find(ops, "b");
  ASSERT_TRUE(a && bb);
  EXPECT_EQ(a->attributedPs, 200);
  EXPECT_EQ(bb->attributedPs, 200);
  // b's busiest engine is the DVE (250 of its 300 ps span).
  EXPECT_EQ(bb->bound, Engine::DVE);
  EXPECT_DOUBLE_EQ(bb->boundUtilisation, 250.0 / 300.0);
  EXPECT_EQ(bb->busyPs[size_t(Engine::ACT)], 100);
}

TEST(Profile, DmaCountsLatencyAndSpreadsOverQueues) {
  // Two DMAs of one op on two queues, each busy 1000 and completing 1300
  // after it starts: in flight [0, 1300). DMA busy 2000 over 16 queues is
  // 125 ps, less than the 200 ps of the PE instruction.
  StreamId q0{Engine::DMA, 0}, q1{Engine::DMA, 1}, pe{Engine::PE, 0};
  isa::Program p = program({{q0, {"load"}}, {q1, {"load"}}, {pe, {"load"}}});
  ProfileBuilder b(p, trn2());
  b.record(q0.index(), 0, 0, 1000, 1300, 0, 0, 4096, 4096);
  b.record(q1.index(), 0, 0, 1000, 1300, 0, 0, 4096, 0);
  b.record(pe.index(), 0, 1300, 200, 200, 0, 0, 0, 0);
  std::vector<OpProfile> ops = b.finish();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].attributedPs, 1500);
  EXPECT_EQ(ops[0].dmaBytes, 8192);
  EXPECT_EQ(ops[0].dmaHbmBytes, 4096); // q1's copy stayed on chip
  EXPECT_EQ(ops[0].busyPs[size_t(Engine::DMA)], 2000);
  EXPECT_EQ(ops[0].bound, Engine::PE);
}

TEST(Profile, UnknownSourceAndUnexecutedOps) {
  StreamId pe{Engine::PE, 0};
  isa::Program p = program({{pe, {"", "never"}}});
  ProfileBuilder b(p, trn2());
  b.record(pe.index(), 0, 0, 10, 10, 0, 0, 0, 0);
  std::vector<OpProfile> ops = b.finish();
  ASSERT_EQ(ops.size(), 1u); // "never" did not run
  EXPECT_EQ(ops[0].source, "(unknown)");
}

TEST(Profile, PeUtilisationAgainstTheSpan) {
  StreamId pe{Engine::PE, 0};
  isa::Program p = program({{pe, {"mm"}}});
  ProfileBuilder b(p, trn2());
  // 1e-9 s of work at peak in a 4e-9 s span: 25 %.
  b.record(pe.index(), 0, 0, 4000, 4000, 1, 1e-9, 0, 0);
  std::vector<OpProfile> ops = b.finish();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].peUtilisation, 0.25);
}

TEST(Profile, CriticalPathFollowsTheRecordedCauses) {
  // load (q0) [0, 1000), done 2300; mm (PE) waits on it: 2300 + 50 sync,
  // busy 400; relu (ACT) waits on mm: 2750 + 50, busy 100; a second relu
  // follows on the ACT's stream [2900, 3000); store (q1) waits on it:
  // 3050, busy 500, done 4850, the last completion. An unrelated DVE op
  // [0, 3000) is off the path.
  StreamId q0{Engine::DMA, 0}, q1{Engine::DMA, 1}, pe{Engine::PE, 0},
      act{Engine::ACT, 0}, dve{Engine::DVE, 0};
  isa::Program p = program({{q0, {"load"}},
                            {pe, {"conv"}},
                            {act, {"conv", "relu"}},
                            {q1, {"store"}},
                            {dve, {"other"}}});
  ProfileBuilder b(p, trn2());
  using K = StartCause;
  b.record(q0.index(), 0, 0, 1000, 2300, 0, 0, 0, 0);
  b.record(dve.index(), 0, 0, 3000, 3000, 0, 0, 0, 0);
  b.record(pe.index(), 0, 2350, 400, 400, 0, 0, 0, 0,
           {K::Semaphore, q0.index(), 0});
  b.record(act.index(), 0, 2800, 100, 100, 0, 0, 0, 0,
           {K::Semaphore, pe.index(), 0});
  b.record(act.index(), 1, 2900, 100, 100, 0, 0, 0, 0,
           {K::Stream, act.index(), 0});
  b.record(q1.index(), 0, 3050, 500, 1800, 0, 0, 0, 0,
           {K::Semaphore, act.index(), 1});
  CriticalPath c = b.criticalPath();
  EXPECT_EQ(c.totalPs, 4850);
  EXPECT_EQ(c.instructions, 5);
  EXPECT_EQ(c.busyPs[size_t(Engine::DMA)], 1500);
  EXPECT_EQ(c.busyPs[size_t(Engine::PE)], 400);
  EXPECT_EQ(c.busyPs[size_t(Engine::ACT)], 200);
  EXPECT_EQ(c.busyPs[size_t(Engine::DVE)], 0);
  EXPECT_EQ(c.dmaLatencyPs, 1300 + 1300);
  EXPECT_EQ(c.syncPs, 150);
  EXPECT_EQ(c.otherPs, 0);
  int64_t sum = c.dmaLatencyPs + c.syncPs + c.otherPs;
  for (int64_t busy : c.busyPs)
    sum += busy;
  EXPECT_EQ(sum, c.totalPs);
  // Per op: busy time and DMA latency; conv's two instructions add up.
  ASSERT_EQ(c.ops.size(), 4u);
  EXPECT_EQ(c.ops[0].source, "load");
  EXPECT_EQ(c.ops[0].ps, 2300);
  EXPECT_EQ(c.ops[1].source, "store");
  EXPECT_EQ(c.ops[1].ps, 1800);
  EXPECT_EQ(c.ops[2].source, "conv");
  EXPECT_EQ(c.ops[2].ps, 500);
  EXPECT_EQ(c.ops[2].instructions, 2);
  EXPECT_EQ(c.ops[2].enginePs[size_t(Engine::PE)], 400);
  EXPECT_EQ(c.ops[2].enginePs[size_t(Engine::ACT)], 100);
  EXPECT_EQ(c.ops[0].enginePs[size_t(Engine::DMA)], 2300); // with latency
  EXPECT_EQ(c.ops[3].source, "relu");
}

TEST(Profile, CriticalPathCountsUnexplainedStartsAsOther) {
  // The PE's second instruction started at the issue clock, 30 ps after
  // the first ended (no cause recorded); the first at 20 from nothing.
  StreamId pe{Engine::PE, 0};
  isa::Program p = program({{pe, {"a", "b"}}});
  ProfileBuilder b(p, trn2());
  b.record(pe.index(), 0, 20, 100, 100, 0, 0, 0, 0);
  b.record(pe.index(), 1, 150, 100, 100, 0, 0, 0, 0);
  CriticalPath c = b.criticalPath();
  EXPECT_EQ(c.totalPs, 250);
  EXPECT_EQ(c.busyPs[size_t(Engine::PE)], 200);
  EXPECT_EQ(c.otherPs, 50);
  EXPECT_EQ(c.instructions, 2);
}

TEST(Profile, CriticalPathOfNothing) {
  StreamId pe{Engine::PE, 0};
  isa::Program p = program({{pe, {"never"}}});
  ProfileBuilder b(p, trn2());
  CriticalPath c = b.criticalPath();
  EXPECT_EQ(c.totalPs, 0);
  EXPECT_EQ(c.instructions, 0);
  EXPECT_TRUE(c.ops.empty());
}

} // namespace
} // namespace nki::sim
