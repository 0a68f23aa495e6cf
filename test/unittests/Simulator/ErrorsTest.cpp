//===- ErrorsTest.cpp - Each class of error names the instruction ---------===//

#include "SimTestUtil.h"

#include "nki/Simulator/Simulator.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nki::sim::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

isa::Program makeProgram() {
  isa::Program p;
  p.numSemaphores = 2;
  p.tensors.push_back(
      {"x", isa::TensorKind::Input, DType::F32, {4, 64}, 0, {}});
  p.tensors.push_back(
      {"y", isa::TensorKind::Output, DType::F32, {4, 64}, 1024, {}});
  return p;
}

void add(isa::Program &p, StreamId s, const Instruction &inst) {
  p.getOrCreateStream(s).instructions.push_back(inst);
}

std::string errorOf(const isa::Program &p) {
  auto r = simulate(p, makeHbmImage(p));
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

Instruction identity(AccessPattern dst, AccessPattern src) {
  Instruction act = op(Opcode::Activation, dst, src);
  act.scalar0.imm = 1;
  return act;
}

TEST(Errors, RaceBetweenUnorderedWriteAndRead) {
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(set, 0));
  Instruction again = memset(sbuf(1, 64), 2); // not ordered with ACT's read
  again.loc = "k.mlir:7:3";
  add(p, kDVE, again);
  Instruction act = identity(sbuf(1, 64, 256), sbuf(1, 64));
  add(p, kACT, waits(act, 0, 1));
  EXPECT_THAT(
      errorOf(p),
      AllOf(HasSubstr("data race on sbuf partition 0 byte 0"),
            HasSubstr("act instruction 0 (activation) reads src0"),
            HasSubstr("dve instruction 1 (memset) at k.mlir:7:3 writes")));
}

TEST(Errors, SemaphoreOrderingPreventsRace) {
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(set, 0));
  Instruction again = memset(sbuf(1, 64), 2);
  add(p, kDVE, waits(again, 1, 1));
  Instruction act = identity(sbuf(1, 64, 256), sbuf(1, 64));
  add(p, kACT, signals(waits(act, 0, 1), 1));
  auto r = simulate(p, makeHbmImage(p));
  EXPECT_TRUE(r.ok()) << r.status().message();
}

TEST(Errors, HugeSemaphoreCountCostsNothing) {
  // The count is a 32-bit field of the binary; a fuzzed program declared
  // billions, and the simulator allocated state for all of them. Only the
  // semaphores instructions name have state; the others are still counted
  // in the messages.
  isa::Program p = makeProgram();
  p.numSemaphores = 0xFFFFFFFFu;
  Instruction set = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(set, 0));
  Instruction act = identity(sbuf(1, 64, 256), sbuf(1, 64));
  add(p, kACT, waits(act, 0, 1));
  auto r = simulate(p, makeHbmImage(p));
  EXPECT_TRUE(r.ok()) << r.status().message();

  isa::Program bad = makeProgram(); // 2 semaphores
  Instruction late = memset(sbuf(1, 64), 1);
  add(bad, kDVE, signals(late, 5));
  EXPECT_THAT(errorOf(bad), HasSubstr("the program has 2 semaphores"));
}

TEST(Errors, WaitAcquiresOnlyTheIncrementsThatReachedItsValue) {
  // DVE and POOL both increment s0; DVE's increment lands first, so a wait
  // for s0 >= 1 is ordered after DVE only, and reading POOL's tile races.
  isa::Program p = makeProgram();
  Instruction a = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(a, 0));
  Instruction b = memset(sbuf(1, 64, 512), 1);
  add(p, kPOOL, signals(b, 0));
  Instruction act = identity(sbuf(1, 64, 256), sbuf(1, 64, 512));
  add(p, kACT, waits(act, 0, 1));
  EXPECT_THAT(errorOf(p),
              AllOf(HasSubstr("act instruction 0 (activation) reads src0"),
                    HasSubstr("pool instruction 0 (memset) writes")));
  // Waiting for both increments orders it after both.
  p.getOrCreateStream(kACT).instructions[0].waits[0].value = 2;
  auto r = simulate(p, makeHbmImage(p));
  EXPECT_TRUE(r.ok()) << r.status().message();
}

TEST(Errors, ManyPendingIncrementsKeepTimingAndOrder) {
  // DVE writes 300 tiles, each signalling s0; ACT reads tile i after
  // s0 >= i + 1. More than 64 increments pile up, which folds the settled
  // ones; starts and ordering must not change.
  isa::Program p = makeProgram();
  const int n = 300;
  for (int i = 0; i < n; ++i) {
    Instruction set = memset(sbuf(1, 16, 64 * i), float(i));
    add(p, kDVE, signals(set, 0));
    Instruction act =
        identity(sbuf(1, 16, 32768 + 64 * i), sbuf(1, 16, 64 * i));
    add(p, kACT, waits(act, 0, uint32_t(i + 1)));
  }
  SimOptions opts;
  opts.collectTrace = true;
  auto r = simulate(p, makeHbmImage(p), opts);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // DVE [1, 16]: 128 cycles at 960 MHz; ACT: 128 cycles at 1200 MHz.
  for (const TraceEvent &e : r->trace)
    if (e.stream == kACT)
      EXPECT_EQ(e.startPs, (e.index + 1) * 133334 + 50000) << e.index;
  EXPECT_EQ(r->report.totalPs, n * 133334 + 50000 + 106667);
}

TEST(Errors, RaceBetweenDmaQueuesOnHbm) {
  isa::Program p = makeProgram();
  add(p, dmaQ(0), op(Opcode::DmaCopy, hbm(1024, 4, 64), hbm(0, 4, 64)));
  add(p, dmaQ(1), op(Opcode::DmaCopy, hbm(1024, 1, 64), hbm(0, 1, 64)));
  EXPECT_THAT(errorOf(p), AllOf(HasSubstr("data race on hbm byte 1024"),
                                HasSubstr("dma1 instruction 0 (dma_copy)"),
                                HasSubstr("dma0 instruction 0 (dma_copy)")));
}

TEST(Errors, Deadlock) {
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(1, 64), 1);
  add(p, kDVE, signals(waits(set, 0, 1), 1));
  Instruction act = identity(sbuf(1, 64, 256), sbuf(1, 64));
  add(p, kACT, signals(waits(act, 1, 1), 0));
  EXPECT_THAT(
      errorOf(p),
      AllOf(HasSubstr("deadlock"),
            HasSubstr("dve instruction 0 (memset) waits for semaphore 0 >= 1 "
                      "(it reaches 0)"),
            HasSubstr("act instruction 0 (activation) waits for semaphore 1 "
                      ">= 1")));
}

TEST(Errors, UninitialisedRead) {
  isa::Program p = makeProgram();
  add(p, kDVE, memset(sbuf(2, 32), 1));
  Instruction copy = op(Opcode::TensorCopy, sbuf(2, 64, 512), sbuf(2, 64));
  copy.loc = "k.mlir:9:1";
  add(p, kDVE, copy);
  EXPECT_THAT(errorOf(p),
              HasSubstr("dve instruction 1 (tensor_copy) at k.mlir:9:1: src0 "
                        "reads uninitialised sbuf at partition 0 byte 128"));
}

/// makeProgram's tensors plus a scratch buffer, a constant and, after a
/// gap no tensor covers, another output.
isa::Program makeHbmProgram() {
  isa::Program p = makeProgram();
  p.tensors.push_back(
      {"tmp", isa::TensorKind::Scratch, DType::F32, {4, 64}, 2048, {}});
  p.tensors.push_back({"c",
                       isa::TensorKind::Constant,
                       DType::F32,
                       {1, 64},
                       3072,
                       std::string(256, '\1')});
  p.tensors.push_back(
      {"z", isa::TensorKind::Output, DType::F32, {1, 64}, 4096, {}});
  return p;
}

TEST(Errors, UninitialisedHbmOutputRead) {
  isa::Program p = makeHbmProgram();
  Instruction load = op(Opcode::DmaCopy, sbuf(1, 64), hbm(1024, 1, 64));
  load.loc = "k.mlir:3:1";
  add(p, dmaQ(0), load);
  EXPECT_THAT(errorOf(p),
              HasSubstr("dma0 instruction 0 (dma_copy) at k.mlir:3:1: src0 "
                        "reads uninitialised hbm at tensor 'y' (output) "
                        "byte 0"));
}

TEST(Errors, UninitialisedHbmScratchReadPastWrite) {
  // Only the first row of tmp is written; reading two rows finds the hole.
  isa::Program p = makeHbmProgram();
  Instruction store = op(Opcode::DmaCopy, hbm(2048, 1, 64), hbm(0, 1, 64));
  add(p, dmaQ(0), signals(store, 0));
  Instruction load = op(Opcode::DmaCopy, sbuf(2, 64), hbm(2048, 2, 64));
  add(p, dmaQ(1), waits(load, 0, 1));
  EXPECT_THAT(errorOf(p),
              HasSubstr("dma1 instruction 0 (dma_copy): src0 reads "
                        "uninitialised hbm at tensor 'tmp' (scratch) "
                        "byte 256"));
}

TEST(Errors, UninitialisedHbmPadding) {
  isa::Program p = makeHbmProgram();
  add(p, dmaQ(0), op(Opcode::DmaCopy, sbuf(1, 64), hbm(3584, 1, 64)));
  EXPECT_THAT(errorOf(p), HasSubstr("src0 reads uninitialised hbm at hbm "
                                    "byte 3584, which no tensor covers"));
}

TEST(Errors, HbmReadsOfWrittenInputAndConstantBytesAreFine) {
  isa::Program p = makeHbmProgram();
  // Scratch and output written (from an input and a constant), then read
  // back by another queue; inputs and constants read directly.
  Instruction toTmp = op(Opcode::DmaCopy, hbm(2048, 4, 64), hbm(0, 4, 64));
  add(p, dmaQ(0), toTmp);
  Instruction toY = op(Opcode::DmaCopy, hbm(1024, 1, 64), hbm(3072, 1, 64));
  add(p, dmaQ(0), signals(toY, 0));
  Instruction fromTmp = op(Opcode::DmaCopy, sbuf(4, 64), hbm(2048, 4, 64));
  add(p, dmaQ(1), waits(fromTmp, 0, 1));
  add(p, dmaQ(1), op(Opcode::DmaCopy, sbuf(1, 64, 256), hbm(1024, 1, 64)));
  add(p, dmaQ(1), op(Opcode::DmaCopy, sbuf(1, 64, 512), hbm(3072, 1, 64)));
  add(p, dmaQ(1), op(Opcode::DmaCopy, hbm(4096, 1, 64), sbuf(1, 64, 512)));
  auto r = simulate(p, makeHbmImage(p));
  ASSERT_TRUE(r.ok()) << r.status();
  auto z = getTensorBytes(p, r->hbm, "z");
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(*z, std::string(256, '\1'));
}

TEST(Errors, UninitialisedHbmCheckCanBeDisabled) {
  isa::Program p = makeHbmProgram();
  add(p, dmaQ(0), op(Opcode::DmaCopy, sbuf(1, 64), hbm(1024, 1, 64)));
  SimOptions options;
  options.checkUninitialized = false;
  auto r = simulate(p, makeHbmImage(p), options);
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST(Errors, AccumulateWithoutStart) {
  isa::Program p = makeProgram();
  Instruction set = memset(sbuf(4, 64), 1);
  add(p, kDVE, signals(set, 0));
  Instruction mm = op(Opcode::Matmul, psum(64, 64), sbuf(4, 64));
  mm.src1 = sbuf(4, 64);
  mm.start = false;
  add(p, kPE, waits(mm, 0, 1));
  EXPECT_THAT(errorOf(p),
              AllOf(HasSubstr("pe instruction 0 (matmul)"),
                    HasSubstr("no start-flagged matmul initialised")));
}

TEST(Errors, OutOfBoundsHbm) {
  isa::Program p = makeProgram();
  Instruction load = op(Opcode::DmaCopy, sbuf(4, 64), hbm(2048, 4, 64));
  load.loc = "k.mlir:2:2";
  add(p, dmaQ(2), load);
  EXPECT_THAT(errorOf(p),
              AllOf(HasSubstr("dma2 instruction 0 (dma_copy) at k.mlir:2:2: "
                              "src0 hbm bytes [2048, 3072)"),
                    HasSubstr("out of bounds")));
}

TEST(Errors, ViolatedConstraint) {
  // POOL cannot read PSUM.
  isa::Program p = makeProgram();
  add(p, kPOOL, op(Opcode::TensorCopy, sbuf(4, 64), psum(4, 64)));
  EXPECT_THAT(errorOf(p), HasSubstr("pool instruction 0 (tensor_copy): "));
}

} // namespace
} // namespace nki::sim::test
