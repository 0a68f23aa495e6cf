//===- TimingTest.cpp - Durations of small programs, computed by hand -----===//
//
// Each expectation is worked out from machine-model.md's table: cycles at the
// engine's clock in MHz, ps = ceil(cycles * 1e6 / MHz).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "nki/ISA/Target.h"
#include "nki/Simulator/Simulator.h"

#include "gtest/gtest.h"

namespace nki::sim::test {
namespace {

isa::Program makeProgram(const char *target = "trn2") {
  isa::Program p;
  p.target = target;
  p.numSemaphores = 4;
  return p;
}

SimResult simulateOk(const isa::Program &p) {
  SimOptions opts;
  opts.collectTrace = true;
  auto r = simulate(p, makeHbmImage(p), opts);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SimResult{};
}

int64_t startOf(const SimResult &r, StreamId s, int index) {
  for (const TraceEvent &e : r.trace)
    if (e.stream == s && e.index == index)
      return e.startPs;
  ADD_FAILURE() << "no trace event";
  return -1;
}

void add(isa::Program &p, StreamId s, const Instruction &inst) {
  p.getOrCreateStream(s).instructions.push_back(inst);
}

TEST(Timing, DveOneInputOpOnBothTargets) {
  // memset [128, 512] f32: 64 + max(512, 64) = 576 DVE cycles.
  for (auto [target, ps] : {std::pair{"trn2", 600000}, {"trn1", 514286}}) {
    isa::Program p = makeProgram(target);
    add(p, kDVE, memset(sbuf(128, 512), 1));
    SimResult r = simulateOk(p);
    EXPECT_EQ(r.report.totalPs, ps) << target;
    ASSERT_EQ(r.report.streams.size(), 1u);
    EXPECT_EQ(r.report.streams[0].busyPs, ps);
    EXPECT_DOUBLE_EQ(r.report.streams[0].utilisation, 1.0);
  }
}

TEST(Timing, CrossStreamWaitPaysSyncLatency) {
  // DVE memset [1, 64]: 128 cycles at 960 MHz = 133334 ps; ACT identity
  // [1, 64]: 128 cycles at 1200 MHz = 106667 ps, starting 50 ns after.
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 2);
  add(p, kDVE, signals(set, 0));
  Instruction act = op(Opcode::Activation, sbuf(1, 64, 256), sbuf(1, 64));
  act.scalar0.imm = 1;
  add(p, kACT, waits(act, 0, 1));
  SimResult r = simulateOk(p);
  EXPECT_EQ(startOf(r, kACT, 0), 133334 + 50000);
  EXPECT_EQ(r.report.totalPs, 133334 + 50000 + 106667);
}

TEST(Timing, SameStreamWaitHasNoLatency) {
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 2);
  add(p, kDVE, signals(set, 0));
  Instruction copy = op(Opcode::TensorCopy, sbuf(1, 64, 256), sbuf(1, 64));
  add(p, kDVE, waits(copy, 0, 1));
  SimResult r = simulateOk(p);
  EXPECT_EQ(startOf(r, kDVE, 1), 133334);
  EXPECT_EQ(r.report.totalPs, 2 * 133334);
}

/// Two loads of [128, 512] f32 one after another on DMA queue 0, and a DVE
/// copy of the one the `waited` load (0 or 1) brings, waiting for its
/// signal.
isa::Program twoLoadsAndACopy(int waited) {
  isa::Program p = makeProgram();
  p.tensors.push_back(
      {"x", isa::TensorKind::Input, DType::F32, {128, 512}, 0, {}});
  for (int i = 0; i < 2; ++i) {
    Instruction load =
        op(Opcode::DmaCopy, sbuf(128, 512, 4096 * i), hbm(0, 128, 512));
    add(p, dmaQ(0), i == waited ? signals(load, 0) : load);
  }
  Instruction copy = op(Opcode::TensorCopy, sbuf(128, 512, 8192),
                        sbuf(128, 512, 4096 * waited));
  add(p, kDVE, waits(copy, 0, 1));
  return p;
}

TEST(Timing, DmaBusyThenCompletionLatency) {
  // [128, 512] f32 HBM -> SBUF: 128 descriptors of 2048 bytes; busy
  // ceil(262144 * 1000 / 23) ps, completes 1300 ns later; the DVE copy
  // waiting on it starts 50 ns after that.
  SimResult r = simulateOk(twoLoadsAndACopy(0));
  const int64_t busy = 11397566, complete = busy + 1300000;
  EXPECT_EQ(startOf(r, dmaQ(0), 1), busy); // the queue frees at busy end
  EXPECT_EQ(startOf(r, kDVE, 0), complete + 50000);
  EXPECT_EQ(r.report.totalPs, 2 * busy + 1300000);
  EXPECT_EQ(r.report.dmaBytes, 2 * 262144);
}

TEST(Timing, CriticalPathFollowsWhatDecidedEachStart) {
  // DmaBusyThenCompletionLatency's program with a profile: the second load
  // starts when the queue frees (its stream decided) and ends the run; the
  // DVE copy waiting on the first load's semaphore finishes before it. The
  // path is both loads' busy time and the second's completion latency.
  isa::Program p = twoLoadsAndACopy(0);
  SimOptions opts;
  opts.collectProfile = true;
  auto r = simulate(p, makeHbmImage(p), opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const CriticalPath &c = r->report.criticalPath;
  const int64_t busy = 11397566;
  EXPECT_EQ(c.totalPs, 2 * busy + 1300000);
  EXPECT_EQ(c.instructions, 2);
  EXPECT_EQ(c.busyPs[size_t(Engine::DMA)], 2 * busy);
  EXPECT_EQ(c.dmaLatencyPs, 1300000);
  EXPECT_EQ(c.syncPs, 0);
  EXPECT_EQ(c.otherPs, 0);

  // With the copy waiting on the second load instead, the copy ends the
  // run, 50 ns of sync after that load's completion.
  isa::Program q = twoLoadsAndACopy(1);
  r = simulate(q, makeHbmImage(q), opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const CriticalPath &d = r->report.criticalPath;
  EXPECT_EQ(d.instructions, 3);
  EXPECT_EQ(d.syncPs, 50000);
  EXPECT_EQ(d.dmaLatencyPs, 1300000);
  EXPECT_EQ(d.busyPs[size_t(Engine::DMA)], 2 * busy);
  EXPECT_EQ(d.totalPs,
            2 * busy + 1300000 + 50000 + d.busyPs[size_t(Engine::DVE)]);
  EXPECT_GT(d.busyPs[size_t(Engine::DVE)], 0);
}

TEST(Timing, DmaHbmBytesLeaveOnChipCopiesOut) {
  // An f32 load from HBM, then an SBUF -> SBUF copy that narrows it to
  // bf16: both count as DMA bytes (the wider dtype), only the load as HBM
  // traffic.
  isa::Program p = makeProgram();
  p.tensors.push_back(
      {"x", isa::TensorKind::Input, DType::F32, {128, 512}, 0, {}});
  Instruction load = op(Opcode::DmaCopy, sbuf(128, 512), hbm(0, 128, 512));
  add(p, dmaQ(0), signals(load, 0));
  isa::AccessPattern narrow = sbuf(128, 512, 4096);
  narrow.dtype = DType::BF16;
  Instruction cast = op(Opcode::DmaCopy, narrow, sbuf(128, 512));
  add(p, dmaQ(1), waits(cast, 0, 1));
  SimResult r = simulateOk(p);
  EXPECT_EQ(r.report.dmaBytes, 2 * 262144);
  EXPECT_EQ(r.report.dmaHbmBytes, 262144);
}

TEST(Timing, DmaOnTrn1) {
  isa::Program p = makeProgram("trn1");
  p.tensors.push_back(
      {"x", isa::TensorKind::Input, DType::F32, {128, 512}, 0, {}});
  add(p, dmaQ(3), op(Opcode::DmaCopy, sbuf(128, 512), hbm(0, 128, 512)));
  SimResult r = simulateOk(p);
  // ceil(262144000 / 17) + 1300 ns
  EXPECT_EQ(r.report.totalPs, 15420236 + 1300000);
}

TEST(Timing, MatmulLoadStationaryAndFp32Factor) {
  // DVE: memset stationary [128,128] (192 cycles, 200000 ps) and moving
  // [128, 512] (600000 ps), then signals. PE fp32 matmul: (512 + 64) x 4
  // cycles at 2.4 GHz = 960000 ps with LoadStationary, 853334 ps without.
  isa::Program p = makeProgram();
  add(p, kDVE, memset(sbuf(128, 128), 1));
  Instruction mv = memset(sbuf(128, 512, 1024), 1);
  add(p, kDVE, signals(mv, 0));
  Instruction mm = op(Opcode::Matmul, psum(128, 512), sbuf(128, 128));
  mm.src1 = sbuf(128, 512, 1024);
  Instruction first = mm;
  add(p, kPE, waits(first, 0, 1));
  add(p, kPE, mm);
  SimResult r = simulateOk(p);
  EXPECT_EQ(startOf(r, kPE, 0), 800000 + 50000);
  EXPECT_EQ(r.report.totalPs, 850000 + 960000 + 853334);
  const isa::TargetDesc &t = isa::getTarget(isa::TargetKind::Trn2);
  double flops = 2.0 * 128 * 128 * 512 * 2;
  double expectUtil =
      flops / (t.peakPeFlops() / 4) / (r.report.totalPs * 1e-12);
  EXPECT_NEAR(r.report.peUtilisation, expectUtil, 1e-9);
  EXPECT_EQ(r.report.matmulFlops, int64_t(flops));
}

TEST(Timing, ActTableLoads) {
  // exp loads its table (+700 cycles); relu needs none and keeps it, so the
  // second exp is not charged again. [1, 64] at 1200 MHz.
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(set, 0));
  Instruction act = op(Opcode::Activation, sbuf(1, 64, 256), sbuf(1, 64));
  act.scalar0.imm = 1;
  act.func = isa::ActFunc::Exp;
  Instruction first = act;
  add(p, kACT, waits(first, 0, 1));
  act.func = isa::ActFunc::Relu;
  add(p, kACT, act);
  act.func = isa::ActFunc::Exp;
  add(p, kACT, act);
  SimResult r = simulateOk(p);
  EXPECT_EQ(r.report.totalPs, 133334 + 50000 + 690000 + 106667 + 106667);
}

TEST(Timing, ProgressReportsEveryInstructionWhenAskedTo) {
  isa::Program p = makeProgram();
  for (int i = 0; i < 200; ++i)
    add(p, kDVE, memset(sbuf(1, 64), float(i)));
  SimOptions opts;
  opts.progressIntervalSeconds = 0;
  int64_t calls = 0, last = -1;
  opts.progress = [&](const SimProgress &pr) {
    ++calls;
    EXPECT_EQ(pr.instructionsTotal, 200);
    EXPECT_GE(pr.instructionsDone, last);
    last = pr.instructionsDone;
  };
  auto r = simulate(p, makeHbmImage(p), opts);
  ASSERT_TRUE(r.ok());
  EXPECT_GE(calls, 2); // every 64 instructions, and once at the end
  EXPECT_EQ(last, 200);
}

} // namespace
} // namespace nki::sim::test
