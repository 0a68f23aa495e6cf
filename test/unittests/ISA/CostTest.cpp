//===- CostTest.cpp - Durations against hand-computed values --------------===//
//
// Each expectation is cycles * 1e6 / MHz rounded up, worked out in the
// comment next to it, on both targets.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Cost.h"
#include "ISATestUtil.h"
#include "nki/ISA/Verify.h"

#include "gtest/gtest.h"

#include <chrono>

using namespace nki::isa;
using namespace nki::isa::test;

namespace {

const TargetDesc &trn1 = getTarget(TargetKind::Trn1);
const TargetDesc &trn2 = getTarget(TargetKind::Trn2);

int64_t busy(const TargetDesc &t, StreamId s, const Instruction &inst,
             EngineTimingState &state) {
  EXPECT_TRUE(verifyInstruction(t, s, inst, 0).ok())
      << verifyInstruction(t, s, inst, 0).message();
  Duration d = instructionDuration(t, s, inst, state);
  EXPECT_EQ(d.completePs, d.busyPs);
  return d.busyPs;
}

int64_t busy(const TargetDesc &t, StreamId s, const Instruction &inst) {
  EngineTimingState state;
  return busy(t, s, inst, state);
}

TEST(Cost, MatmulLoadStationary) {
  Instruction mm = matmul(128, 128, 512);
  EngineTimingState st;
  // trn2: (512 + 64) cycles at 2400 MHz = 240000 ps.
  EXPECT_EQ(busy(trn2, kPE, mm, st), 240000);
  // Same stationary: 512 cycles = 213333.3 -> 213334 ps.
  EXPECT_EQ(busy(trn2, kPE, mm, st), 213334);
  // A different stationary AP reloads.
  mm.src0.offset = 256;
  EXPECT_EQ(busy(trn2, kPE, mm, st), 240000);
  EngineTimingState st1;
  // trn1: 576 cycles at 2800 MHz = 205714.3 -> 205715 ps.
  EXPECT_EQ(busy(trn1, kPE, mm, st1), 205715);
  EXPECT_EQ(busy(trn1, kPE, mm, st1), 182858); // 512 -> 182857.1
}

TEST(Cost, MatmulSmallNAndFp32) {
  // N = 32 -> max(N, 64) = 64; + 64 LoadStationary = 128 cycles.
  EXPECT_EQ(busy(trn2, kPE, matmul(128, 128, 32)), 53334); // 53333.3
  EXPECT_EQ(busy(trn1, kPE, matmul(128, 128, 32)), 45715); // 45714.3
  // fp32: (64 + 64) x 4 = 512 cycles.
  Instruction f = matmul(128, 128, 32, DType::F32);
  EXPECT_EQ(busy(trn2, kPE, f), 213334);
  EXPECT_EQ(busy(trn1, kPE, f), 182858);
  EXPECT_EQ(matmulFlops(matmul(128, 64, 512)), 2 * 128 * 64 * 512);
  EXPECT_EQ(matmulFlops(unary(Opcode::TensorCopy, sbuf(DType::F32, 1, 1),
                              sbuf(DType::F32, 1, 1))),
            0);
}

TEST(Cost, MatmulDoubleRow) {
  // K = 256 in the time of K = 128: (512 + 64) cycles for 512 columns.
  Instruction mm = doubleRowMatmul(256, 128, 512);
  EngineTimingState st;
  EXPECT_EQ(busy(trn2, kPE, mm, st), 240000);
  EXPECT_EQ(busy(trn2, kPE, mm, st), 213334);
  // N = 32 columns (64 elements a partition): max(N, 64) = 64.
  EXPECT_EQ(busy(trn2, kPE, doubleRowMatmul(256, 128, 32)), 53334);
  EXPECT_EQ(matmulFlops(mm), 2 * 256 * 128 * 512);
  // Peaks: fp8 at twice the 2-byte rate on trn2 and trn3 (double row or
  // not), the 2-byte rate on trn1; fp32 at a quarter.
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn2, mm), 2 * trn2.peakPeFlops());
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn2, matmul(128, 128, 512, DType::FP8E5M2)),
                   2 * trn2.peakPeFlops());
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn1, matmul(128, 128, 512, DType::FP8E4M3)),
                   trn1.peakPeFlops());
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn2, matmul(128, 128, 512)),
                   trn2.peakPeFlops());
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn2, matmul(128, 128, 512, DType::F32)),
                   trn2.peakPeFlops() / 4);
}

TEST(Cost, MatmulMx) {
  const TargetDesc &trn3 = getTarget(TargetKind::Trn3);
  // K = 512 in the time of K = 128: (512 + 64) cycles for 512 columns, by
  // columns whatever the element width; the stationary scales are part of
  // the stationary operand.
  Instruction mm = mxMatmul(512, 128, 512);
  EngineTimingState st;
  EXPECT_EQ(busy(trn3, kPE, mm, st), 240000);
  EXPECT_EQ(busy(trn3, kPE, mm, st), 213334);
  Instruction other = mm;
  other.src2.offset += 128;
  EXPECT_EQ(busy(trn3, kPE, other, st), 240000);
  EXPECT_EQ(busy(trn3, kPE, mxMatmul(512, 128, 512, DType::FP4E2M1X2)), 240000);
  EXPECT_EQ(matmulFlops(mm), 2 * 512 * 128 * 512);
  // The MX peak: 4x the 2-byte rate (315 TFLOP/s).
  EXPECT_DOUBLE_EQ(matmulPeakFlops(trn3, mm), 4 * trn3.peakPeFlops());
  EXPECT_NEAR(matmulPeakFlops(trn3, mm), 314.6e12, 0.1e12);
}

TEST(Cost, Transpose) {
  Instruction t =
      unary(Opcode::Transpose, psum(128, 32), sbuf(DType::BF16, 32, 128));
  EXPECT_EQ(busy(trn2, kPE, t), 26667); // max(32, 64) = 64 cycles
  EXPECT_EQ(busy(trn1, kPE, t), 22858);
  t = unary(Opcode::Transpose, psum(64, 128), sbuf(DType::BF16, 128, 64));
  EXPECT_EQ(busy(trn2, kPE, t), 53334); // 128 cycles
}

Instruction act(ActFunc f, int64_t n = 256) {
  Instruction i = unary(Opcode::Activation, sbuf(DType::F32, 128, n, 4096),
                        sbuf(DType::F32, 128, n));
  i.func = f;
  return i;
}

TEST(Cost, ActivationTables) {
  EngineTimingState st;
  // exp needs ExpLog: 64 + 256 + 700 = 1020 cycles at 1200 MHz = 850000 ps.
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Exp), st), 850000);
  // Loaded: 320 cycles = 266666.7 -> 266667.
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Exp), st), 266667);
  // relu needs no table and leaves ExpLog loaded; log shares it.
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Relu), st), 266667);
  EXPECT_EQ(st.loadedTable, ActTable::ExpLog);
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Log), st), 266667);
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Sigmoid), st), 850000);
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::GeluTanh), st), 266667);
  EXPECT_EQ(st.loadedTable, ActTable::Sigmoid);
  // Small N: 64 + max(8, 64) = 128 cycles.
  EXPECT_EQ(busy(trn2, kACT, act(ActFunc::Identity, 8), st), 106667);
  EngineTimingState st1;
  // trn1 at 1400 MHz: 1020 -> 728571.4 -> 728572; 320 -> 228571.4.
  EXPECT_EQ(busy(trn1, kACT, act(ActFunc::Sqrt), st1), 728572);
  EXPECT_EQ(busy(trn1, kACT, act(ActFunc::Rsqrt), st1), 228572);
}

TEST(Cost, DveTensorTensor) {
  Instruction tt = tensorTensor(AluOp::Add, sbuf(DType::F32, 128, 256),
                                sbuf(DType::F32, 128, 256, 1024),
                                sbuf(DType::F32, 128, 256, 2048));
  // 64 + max(2 x 256, 64) = 576 cycles.
  EXPECT_EQ(busy(trn1, kDVE, tt), 514286); // at 1120 MHz: 514285.7
  EXPECT_EQ(busy(trn2, kDVE, tt), 600000); // at 960 MHz
  // One input in PSUM: 64 + 256 = 320 cycles.
  tt.src1 = psum(128, 256);
  EXPECT_EQ(busy(trn1, kDVE, tt), 285715); // 285714.3
  EXPECT_EQ(busy(trn2, kDVE, tt), 333334); // 333333.3
}

TEST(Cost, DveTwoByteSpeedupOnTrn2) {
  Instruction tt = tensorTensor(AluOp::Mul, sbuf(DType::BF16, 128, 256),
                                sbuf(DType::BF16, 128, 256, 1024),
                                sbuf(DType::F16, 128, 256, 2048));
  // trn2: 64 + 512 / 2 = 320 cycles at 960 MHz; trn1 has no fast path.
  EXPECT_EQ(busy(trn2, kDVE, tt), 333334);
  EXPECT_EQ(busy(trn1, kDVE, tt), 514286);
  // Not on POOL: 150 + 256 x 2 = 662 cycles at 1200 MHz.
  EXPECT_EQ(busy(trn2, kPOOL, tt), 551667);
  // A strided innermost dim loses it.
  tt.src1 = ap(Memory::SBUF, DType::BF16, 0, 128, 1024, {{2, 256}});
  EXPECT_EQ(busy(trn2, kDVE, tt), 600000);
  // So does an f32 operand.
  tt = tensorTensor(AluOp::Mul, sbuf(DType::F32, 128, 256),
                    sbuf(DType::BF16, 128, 256, 1024),
                    sbuf(DType::BF16, 128, 256, 2048));
  EXPECT_EQ(busy(trn2, kDVE, tt), 600000);

  // tensor_copy /4, rounded up: N = 102 -> ceil(102 / 4) = 26; 90 cycles.
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 128, 102),
                           sbuf(DType::BF16, 128, 102, 1024));
  EXPECT_EQ(busy(trn2, kDVE, copy), 93750);
  // N = 100 -> 25; 89 cycles = 92708.3.
  copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 128, 100),
               sbuf(DType::BF16, 128, 100, 1024));
  EXPECT_EQ(busy(trn2, kDVE, copy), 92709);
  // Small N: max(8, 64) / 4 = 16; 80 cycles.
  copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 128, 8),
               sbuf(DType::BF16, 128, 8, 1024));
  EXPECT_EQ(busy(trn2, kDVE, copy), 83334);

  // tensor_scalar /4 with a bf16 [P,1] scalar operand in SBUF.
  Instruction ts = unary(Opcode::TensorScalar, sbuf(DType::BF16, 128, 512),
                         sbuf(DType::BF16, 128, 512, 1024));
  ts.alu0 = AluOp::Mul;
  ts.scalar0 = perPartition(sbuf(DType::BF16, 128, 1, 4096));
  EXPECT_EQ(busy(trn2, kDVE, ts), 200000); // 64 + 128 = 192 cycles
  ts.scalar0.ap.dtype = DType::F32;        // an f32 operand: no fast path
  EXPECT_EQ(busy(trn2, kDVE, ts), 600000); // 576 cycles
}

TEST(Cost, DveOneInputOps) {
  Instruction r = unary(Opcode::TensorReduce, sbuf(DType::F32, 128, 1),
                        sbuf(DType::F32, 128, 1024, 64));
  r.alu0 = AluOp::Add;
  EXPECT_EQ(busy(trn2, kDVE, r), 1133334); // 1088 cycles = 1133333.3
  EXPECT_EQ(busy(trn1, kDVE, r), 971429);  // 971428.6
  Instruction ms;
  ms.opcode = Opcode::Memset;
  ms.dst = sbuf(DType::BF16, 128, 32);
  EXPECT_EQ(busy(trn2, kDVE, ms), 133334); // 128 cycles; no speedup
  Instruction sel;
  sel.opcode = Opcode::Select;
  sel.dst = sbuf(DType::F32, 128, 100);
  sel.src0 = sbuf(DType::F32, 128, 100, 512);
  sel.src1 = sbuf(DType::F32, 128, 100, 1024);
  sel.src2 = psum(128, 100);
  EXPECT_EQ(busy(trn2, kDVE, sel), 170834); // 64 + 100 = 164 = 170833.3
  sel.src2 = sbuf(DType::F32, 128, 100, 2048);
  EXPECT_EQ(busy(trn2, kDVE, sel), 275000); // 64 + 200
}

TEST(Cost, Pool) {
  Instruction iota;
  iota.opcode = Opcode::Iota;
  iota.dst = sbuf(DType::I32, 128, 128);
  // 150 + 128 x max(0 inputs, 1) = 278 cycles.
  EXPECT_EQ(busy(trn2, kPOOL, iota), 231667); // 231666.7 at 1200 MHz
  EXPECT_EQ(busy(trn1, kPOOL, iota), 198572); // 198571.4 at 1400 MHz
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 128, 128),
                           sbuf(DType::BF16, 128, 128, 1024));
  EXPECT_EQ(busy(trn2, kPOOL, copy), 231667); // one input
  Instruction tt = tensorTensor(AluOp::Add, sbuf(DType::F32, 128, 256),
                                sbuf(DType::F32, 128, 256, 1024),
                                sbuf(DType::F32, 128, 256, 2048));
  EXPECT_EQ(busy(trn1, kPOOL, tt), 472858); // 662 cycles = 472857.1
}

TEST(Cost, DmaPartitionRows) {
  // HBM [128, 512] bf16 -> SBUF [128 partitions, 512]: HBM is contiguous
  // but every partition ends a run: 128 descriptors of 1024 bytes.
  Instruction d = dma(sbuf(DType::BF16, 128, 512), hbm(DType::BF16, 65536));
  DmaDescriptorStats s = dmaDescriptors(trn2, d);
  EXPECT_EQ(s.count, 128);
  EXPECT_EQ(s.bytes, 131072);
  EXPECT_EQ(s.chargedBytes, 131072);
  // 131072 B / 23 B/ns = 5698782.6 -> 5698783 ps; trn1 / 17 -> 7710117.6.
  EXPECT_EQ(dmaBusyPs(trn2, d), 5698783);
  EXPECT_EQ(dmaBusyPs(trn1, d), 7710118);
  EngineTimingState st;
  Duration dur = instructionDuration(trn2, kDMA0, d, st);
  EXPECT_EQ(dur.busyPs, 5698783);
  EXPECT_EQ(dur.completePs, 5698783 + 1300000);
}

TEST(Cost, DmaMinimumDescriptor) {
  // 64 partitions x 16 f32 = 64-byte runs, each charged 512 bytes.
  Instruction d = dma(sbuf(DType::F32, 64, 16), hbm(DType::F32, 1024));
  DmaDescriptorStats s = dmaDescriptors(trn2, d);
  EXPECT_EQ(s.count, 64);
  EXPECT_EQ(s.bytes, 4096);
  EXPECT_EQ(s.chargedBytes, 32768);
  EXPECT_EQ(dmaBusyPs(trn2, d), 1424696); // 32768000 / 23 = 1424695.7
}

TEST(Cost, DmaRunsMustBeContiguousOnBothSides) {
  // Contiguous source, destination rows of 64 with a 128-element pitch:
  // 64 runs of 256 bytes.
  Instruction d =
      dma(ap(Memory::HBM, DType::F32, 0, 1, 0, {{128, 64}, {1, 64}}),
          hbm(DType::F32, 4096, 1 << 20));
  DmaDescriptorStats s = dmaDescriptors(trn2, d);
  EXPECT_EQ(s.count, 64);
  EXPECT_EQ(s.bytes, 16384);
  // A transposing read: every element is its own run.
  d = dma(sbuf(DType::F32, 8, 16),
          ap(Memory::HBM, DType::F32, 0, 1, 0, {{1, 8}, {8, 16}}));
  s = dmaDescriptors(trn2, d);
  EXPECT_EQ(s.count, 128);
  EXPECT_EQ(s.chargedBytes, 128 * 512);
  // Padded rows that happen to continue: stride 3 rows of 2 -> elements
  // 0,1,3,4,6,7: runs {0,1}, {3,4}, {6,7}.
  d = dma(hbm(DType::F32, 6, 4096),
          ap(Memory::HBM, DType::F32, 0, 1, 0, {{3, 3}, {1, 2}}));
  EXPECT_EQ(dmaDescriptors(trn2, d).count, 3);
  // Dims that look strided but are contiguous: (2, 2) over (1, 2).
  d = dma(hbm(DType::F32, 4, 4096),
          ap(Memory::HBM, DType::F32, 0, 1, 0, {{2, 2}, {1, 2}}));
  EXPECT_EQ(dmaDescriptors(trn2, d).count, 1);
  // Different shapes on the two sides, both contiguous: one run.
  d = dma(ap(Memory::HBM, DType::F32, 0, 1, 0, {{64, 8}, {1, 64}}),
          ap(Memory::HBM, DType::F32, 0, 1, 8192, {{16, 32}, {1, 16}}));
  EXPECT_EQ(dmaDescriptors(trn2, d).count, 1);
  // Run lengths that are not multiples of each other: src breaks every 6,
  // dst every 4 -> breaks at 4, 6, 8, 12, 16, 18, 20 in 24 elements.
  d = dma(ap(Memory::HBM, DType::F32, 0, 1, 0, {{8, 6}, {1, 4}}),
          ap(Memory::HBM, DType::F32, 0, 1, 8192, {{10, 4}, {1, 6}}));
  EXPECT_EQ(dmaDescriptors(trn2, d).count, 8);
}

TEST(Cost, DmaCastCountsTheWiderType) {
  // bf16 -> f32, 1000 elements contiguous: one 4000-byte descriptor.
  Instruction d = dma(hbm(DType::F32, 1000), hbm(DType::BF16, 1000, 8192));
  DmaDescriptorStats s = dmaDescriptors(trn2, d);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.bytes, 4000);
  EXPECT_EQ(dmaBusyPs(trn2, d), 173914); // 4000000 / 23 = 173913.04
}

TEST(Cost, DmaSbufToSbufAcrossPartitions) {
  // Partition-shifting copy: runs end at partition boundaries.
  AccessPattern src = ap(Memory::SBUF, DType::F32, 0, 32, 0, {{1, 256}});
  AccessPattern dst = ap(Memory::SBUF, DType::F32, 32, 32, 0, {{1, 256}});
  DmaDescriptorStats s = dmaDescriptors(trn2, dma(dst, src));
  EXPECT_EQ(s.count, 32);
  EXPECT_EQ(s.bytes, 32 * 1024);
}

TEST(Cost, DmaLargeContiguousIsFast) {
  // 1 GiB HBM -> HBM in one contiguous run.
  int64_t n = int64_t(1) << 28;
  Instruction d = dma(hbm(DType::F32, n), hbm(DType::F32, n, int64_t(4) << 30));
  auto t0 = std::chrono::steady_clock::now();
  DmaDescriptorStats s = dmaDescriptors(trn2, d);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.bytes, n * 4);
  EXPECT_LT(elapsed, std::chrono::milliseconds(50));
  // 2-D HBM [65536, 4096] f32 with a padded pitch: 65536 runs.
  d = dma(ap(Memory::HBM, DType::F32, 0, 1, 0, {{4160, 65536}, {1, 4096}}),
          hbm(DType::F32, int64_t(65536) * 4096, int64_t(4) << 30));
  t0 = std::chrono::steady_clock::now();
  s = dmaDescriptors(trn2, d);
  elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(s.count, 65536);
  EXPECT_LT(elapsed, std::chrono::milliseconds(200));
}

} // namespace
