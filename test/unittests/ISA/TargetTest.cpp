//===- TargetTest.cpp - The target tables match machine-model.md ----------===//

#include "nki/ISA/Target.h"

#include "gtest/gtest.h"

using namespace nki::isa;

namespace {

TEST(Target, Trn1Numbers) {
  const TargetDesc &t = getTarget(TargetKind::Trn1);
  EXPECT_EQ(t.name, "trn1");
  EXPECT_EQ(t.numPartitions, 128);
  EXPECT_EQ(t.sbufBytesPerPartition, 196608);
  EXPECT_EQ(t.psumBanks, 8);
  EXPECT_EQ(t.psumBankBytes, 2048);
  EXPECT_EQ(t.psumBytesPerPartition(), 16384);
  EXPECT_EQ(t.hbmBytes, int64_t(16) << 30);
  EXPECT_EQ(t.peClockMHz, 2800);
  EXPECT_EQ(t.actClockMHz, 1400);
  EXPECT_EQ(t.dveClockMHz, 1120);
  EXPECT_EQ(t.poolClockMHz, 1400);
  EXPECT_EQ(t.numDmaQueues, 16);
  EXPECT_EQ(t.dmaBytesPerNs, 17);
  EXPECT_FALSE(t.dveTwoByteSpeedup);
  EXPECT_EQ(t.peFp8Rows, 1); // no fp8 double row
  EXPECT_FALSE(t.hasMx());
  // 128 x 128 x 2 x 2.8 GHz = 91.75 TFLOP/s; 16 x 17 B/ns = 272 GB/s.
  EXPECT_DOUBLE_EQ(t.peakPeFlops(), 91750400e6);
  EXPECT_DOUBLE_EQ(t.peakDmaBytesPerSecond(), 272e9);
}

TEST(Target, Trn2Numbers) {
  const TargetDesc &t = getTarget(TargetKind::Trn2);
  EXPECT_EQ(t.name, "trn2");
  EXPECT_EQ(t.sbufBytesPerPartition, 229376);
  EXPECT_EQ(t.hbmBytes, int64_t(12) << 30);
  EXPECT_EQ(t.peClockMHz, 2400);
  EXPECT_EQ(t.actClockMHz, 1200);
  EXPECT_EQ(t.dveClockMHz, 960);
  EXPECT_EQ(t.poolClockMHz, 1200);
  EXPECT_EQ(t.dmaBytesPerNs, 23);
  EXPECT_TRUE(t.dveTwoByteSpeedup);
  EXPECT_EQ(t.peFp8Rows, 2); // fp8 double row: 157 TFLOP/s
  EXPECT_EQ(t.peMxRows, 0);  // no matmul_mx
  EXPECT_DOUBLE_EQ(t.peakPeFlops(), 78643200e6);
  EXPECT_DOUBLE_EQ(t.peakDmaBytesPerSecond(), 368e9);
}

TEST(Target, Trn3Numbers) {
  const TargetDesc &t = getTarget(TargetKind::Trn3);
  EXPECT_EQ(t.name, "trn3");
  EXPECT_EQ(t.numPartitions, 128);
  EXPECT_EQ(t.sbufBytesPerPartition, 262144);
  EXPECT_EQ(t.psumBytesPerPartition(), 16384);
  EXPECT_EQ(t.hbmBytes, int64_t(18) << 30);
  // Clocks as trn2's (the machine model assumes them equal).
  EXPECT_EQ(t.peClockMHz, 2400);
  EXPECT_EQ(t.actClockMHz, 1200);
  EXPECT_EQ(t.dveClockMHz, 960);
  EXPECT_EQ(t.poolClockMHz, 1200);
  EXPECT_EQ(t.numDmaQueues, 16);
  EXPECT_EQ(t.dmaBytesPerNs, 38);
  // The DVE's 2-byte fast path is a trn2 rule in the machine model.
  EXPECT_FALSE(t.dveTwoByteSpeedup);
  EXPECT_EQ(t.peFp8Rows, 2);
  EXPECT_EQ(t.peMxRows, 4); // MX quad row: 315 TFLOP/s
  EXPECT_TRUE(t.hasMx());
  // 78.6 TFLOP/s for 2-byte inputs; 16 x 38 B/ns = 608 GB/s.
  EXPECT_DOUBLE_EQ(t.peakPeFlops(), 78643200e6);
  EXPECT_DOUBLE_EQ(t.peakDmaBytesPerSecond(), 608e9);
}

TEST(Target, DerivedGeometry) {
  const TargetDesc &t = getTarget(TargetKind::Trn2);
  EXPECT_EQ(t.psumBankFp32Columns(), 512);
  // The start-partition rule: > 64 partitions at 0; 33-64 at 0 or 64;
  // 1-32 at 0, 32, 64 or 96.
  EXPECT_TRUE(t.computeTileStartOk(0, 128));
  EXPECT_FALSE(t.computeTileStartOk(64, 65));
  EXPECT_TRUE(t.computeTileStartOk(64, 64));
  EXPECT_FALSE(t.computeTileStartOk(32, 33));
  EXPECT_TRUE(t.computeTileStartOk(96, 32));
  EXPECT_FALSE(t.computeTileStartOk(16, 16));
  EXPECT_TRUE(t.computeTileStartOk(0, 1));
}

TEST(Target, SharedConstants) {
  for (TargetKind k : {TargetKind::Trn1, TargetKind::Trn2, TargetKind::Trn3}) {
    const TargetDesc &t = getTarget(k);
    EXPECT_EQ(t.dmaMinDescriptorBytes, 512);
    EXPECT_EQ(t.dmaCompletionLatencyPs, 1300000);
    EXPECT_EQ(t.syncLatencyPs, 50000);
    EXPECT_EQ(t.maxFreeDimsOnChip, 4);
    EXPECT_EQ(t.maxDimsHbm, 5);
    EXPECT_EQ(t.matmulMaxK, 128);
    EXPECT_EQ(t.matmulMaxM, 128);
    EXPECT_EQ(t.matmulMaxN, 512);
    EXPECT_EQ(t.transposeMaxP, 128);
    EXPECT_EQ(t.transposeMaxF, 128);
    EXPECT_EQ(t.peMinColumns, 64);
    EXPECT_EQ(t.peFp32Factor, 4);
    EXPECT_EQ(t.peLoadStationaryCycles, 64);
    EXPECT_EQ(t.peTransposeMinRows, 64);
    EXPECT_EQ(t.fixedOverheadCycles, 64);
    EXPECT_EQ(t.minElementCycles, 64);
    EXPECT_EQ(t.actTableLoadCycles, 700);
    EXPECT_EQ(t.poolFixedCycles, 150);
  }
}

TEST(Target, Lookup) {
  EXPECT_EQ(lookupTarget("trn1"), &getTarget(TargetKind::Trn1));
  EXPECT_EQ(lookupTarget("trn2"), &getTarget(TargetKind::Trn2));
  EXPECT_EQ(lookupTarget("trn3"), &getTarget(TargetKind::Trn3));
  EXPECT_EQ(lookupTarget("trn9"), nullptr);
  EXPECT_EQ(lookupTarget(""), nullptr);
  EXPECT_EQ(getTarget(kDefaultTarget).name, "trn2");
  EXPECT_EQ(knownTargetNames(), "trn1, trn2 or trn3");
}

TEST(Target, CyclesToPsRoundsUp) {
  EXPECT_EQ(cyclesToPs(576, 2400), 240000);
  EXPECT_EQ(cyclesToPs(1, 2400), 417); // 416.67
  EXPECT_EQ(cyclesToPs(0, 960), 0);
}

} // namespace
