//===- Target.cpp - The target tables -------------------------------------===//
//
// The only place a number of docs/machine-model.md is written down. Every
// field of TargetDesc is set explicitly for every target so that a reader can
// compare a column here with the machine model's table line by line.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Target.h"

namespace nki::isa {

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kGiB = 1024 * 1024 * 1024;

constexpr TargetDesc kTrn1 = {
    /*kind=*/TargetKind::Trn1,
    /*name=*/"trn1",
    /*numPartitions=*/128,
    /*sbufBytesPerPartition=*/192 * kKiB,
    /*psumBanks=*/8,
    /*psumBankBytes=*/2 * kKiB,
    /*hbmBytes=*/16 * kGiB,
    /*peClockMHz=*/2800,
    /*actClockMHz=*/1400,
    /*dveClockMHz=*/1120,
    /*poolClockMHz=*/1400,
    /*numDmaQueues=*/16,
    /*dmaBytesPerNs=*/17,
    /*dmaMinDescriptorBytes=*/512,
    /*dmaCompletionLatencyPs=*/1300 * 1000,
    /*syncLatencyPs=*/50 * 1000,
    /*maxFreeDimsOnChip=*/4,
    /*maxDimsHbm=*/5,
    /*matmulMaxK=*/128,
    /*matmulMaxM=*/128,
    /*matmulMaxN=*/512,
    /*transposeMaxP=*/128,
    /*transposeMaxF=*/128,
    /*peMinColumns=*/64,
    /*peFp32Factor=*/4,
    /*peFp8Rows=*/1,
    /*peMxRows=*/0,
    /*peLoadStationaryCycles=*/64,
    /*peTransposeMinRows=*/64,
    /*fixedOverheadCycles=*/64,
    /*minElementCycles=*/64,
    /*actTableLoadCycles=*/700,
    /*poolFixedCycles=*/150,
    /*dveTwoByteSpeedup=*/false,
};

constexpr TargetDesc kTrn2 = {
    /*kind=*/TargetKind::Trn2,
    /*name=*/"trn2",
    /*numPartitions=*/128,
    /*sbufBytesPerPartition=*/224 * kKiB,
    /*psumBanks=*/8,
    /*psumBankBytes=*/2 * kKiB,
    /*hbmBytes=*/12 * kGiB,
    /*peClockMHz=*/2400,
    /*actClockMHz=*/1200,
    /*dveClockMHz=*/960,
    /*poolClockMHz=*/1200,
    /*numDmaQueues=*/16,
    /*dmaBytesPerNs=*/23,
    /*dmaMinDescriptorBytes=*/512,
    /*dmaCompletionLatencyPs=*/1300 * 1000,
    /*syncLatencyPs=*/50 * 1000,
    /*maxFreeDimsOnChip=*/4,
    /*maxDimsHbm=*/5,
    /*matmulMaxK=*/128,
    /*matmulMaxM=*/128,
    /*matmulMaxN=*/512,
    /*transposeMaxP=*/128,
    /*transposeMaxF=*/128,
    /*peMinColumns=*/64,
    /*peFp32Factor=*/4,
    /*peFp8Rows=*/2,
    /*peMxRows=*/0,
    /*peLoadStationaryCycles=*/64,
    /*peTransposeMinRows=*/64,
    /*fixedOverheadCycles=*/64,
    /*minElementCycles=*/64,
    /*actTableLoadCycles=*/700,
    /*poolFixedCycles=*/150,
    /*dveTwoByteSpeedup=*/true,
};

// trn3's engine clocks and timing are trn2's (the machine model assumes
// them equal; the public figures give its FP8 rate, memory and bandwidth).
// The DVE's 2-byte fast path is written for trn2 only in the machine
// model, so trn3 does not get it.
constexpr TargetDesc kTrn3 = {
    /*kind=*/TargetKind::Trn3,
    /*name=*/"trn3",
    /*numPartitions=*/128,
    /*sbufBytesPerPartition=*/256 * kKiB,
    /*psumBanks=*/8,
    /*psumBankBytes=*/2 * kKiB,
    /*hbmBytes=*/18 * kGiB,
    /*peClockMHz=*/2400,
    /*actClockMHz=*/1200,
    /*dveClockMHz=*/960,
    /*poolClockMHz=*/1200,
    /*numDmaQueues=*/16,
    /*dmaBytesPerNs=*/38,
    /*dmaMinDescriptorBytes=*/512,
    /*dmaCompletionLatencyPs=*/1300 * 1000,
    /*syncLatencyPs=*/50 * 1000,
    /*maxFreeDimsOnChip=*/4,
    /*maxDimsHbm=*/5,
    /*matmulMaxK=*/128,
    /*matmulMaxM=*/128,
    /*matmulMaxN=*/512,
    /*transposeMaxP=*/128,
    /*transposeMaxF=*/128,
    /*peMinColumns=*/64,
    /*peFp32Factor=*/4,
    /*peFp8Rows=*/2,
    /*peMxRows=*/4,
    /*peLoadStationaryCycles=*/64,
    /*peTransposeMinRows=*/64,
    /*fixedOverheadCycles=*/64,
    /*minElementCycles=*/64,
    /*actTableLoadCycles=*/700,
    /*poolFixedCycles=*/150,
    /*dveTwoByteSpeedup=*/false,
};

} // namespace

double TargetDesc::peakPeFlops() const {
  // One MAC per PE cell per cycle, two FLOPs per MAC.
  return double(matmulMaxK) * double(matmulMaxM) * 2.0 * double(peClockMHz) *
         1e6;
}

bool TargetDesc::computeTileStartOk(int64_t start, int64_t count) const {
  int64_t quarter = numPartitions / 4, half = numPartitions / 2;
  if (count > half)
    return start == 0;
  return start % (count > quarter ? half : quarter) == 0;
}

double TargetDesc::peakDmaBytesPerSecond() const {
  return double(numDmaQueues) * double(dmaBytesPerNs) * 1e9;
}

const TargetDesc &getTarget(TargetKind kind) {
  switch (kind) {
  case TargetKind::Trn1:
    return kTrn1;
  case TargetKind::Trn2:
    return kTrn2;
  case TargetKind::Trn3:
    return kTrn3;
  }
  return kTrn2;
}

std::string knownTargetNames(std::string_view lastSeparator) {
  std::string names;
  const TargetDesc *all[] = {&kTrn1, &kTrn2, &kTrn3};
  for (size_t i = 0; i < std::size(all); ++i) {
    if (i)
      names += i + 1 == std::size(all) ? lastSeparator : ", ";
    names += all[i]->name;
  }
  return names;
}

const TargetDesc *lookupTarget(std::string_view name) {
  for (const TargetDesc *t : {&kTrn1, &kTrn2, &kTrn3})
    if (t->name == name)
      return t;
  return nullptr;
}

} // namespace nki::isa
