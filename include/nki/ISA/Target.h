//===- Target.h - Target descriptions (machine model numbers) ---*- C++ -*-===//
//
// Every number of docs/machine-model.md lives in exactly one table per target
// (lib/ISA/Target.cpp). The compiler, the cost model and the simulator all read
// these tables; nothing else spells a machine number.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_TARGET_H
#define NKI_ISA_TARGET_H

#include <cstdint>
#include <string>
#include <string_view>

namespace nki::isa {

enum class TargetKind : uint8_t { Trn1, Trn2, Trn3 };

/// One target's hardware contract. Clocks are in MHz so that cycle -> ps
/// conversions stay in integers (ps = ceil(cycles * 1e6 / MHz)).
struct TargetDesc {
  TargetKind kind;
  std::string_view name; // "trn1", "trn2", "trn3"

  // Memories.
  int32_t numPartitions;         // SBUF and PSUM partitions (128)
  int64_t sbufBytesPerPartition; // 192 / 224 / 256 KiB (trn1 / 2 / 3)
  int32_t psumBanks;             // 8
  int64_t psumBankBytes;         // 2048 bytes per bank per partition
  int64_t hbmBytes;              // modelled HBM per core

  // Engine clocks.
  int64_t peClockMHz, actClockMHz, dveClockMHz, poolClockMHz;

  // DMA.
  int32_t numDmaQueues;             // 16
  int64_t dmaBytesPerNs;            // bandwidth per queue
  int64_t dmaMinDescriptorBytes;    // a descriptor costs at least this much
  int64_t dmaCompletionLatencyPs;   // signal comes this long after busy time

  // Synchronisation.
  int64_t syncLatencyPs; // added when a wait is satisfied by another stream

  // Engine limits.
  int32_t maxFreeDimsOnChip; // SBUF/PSUM access patterns: free dims
  int32_t maxDimsHbm;        // HBM access patterns: dims
  int32_t matmulMaxK, matmulMaxM, matmulMaxN;
  int32_t transposeMaxP, transposeMaxF;

  // Timing constants (cycles of the engine that runs the instruction).
  int64_t peMinColumns;          // matmul: max(N, this)
  int64_t peFp32Factor;          // x4 for fp32 inputs
  int32_t peFp8Rows;             // contraction rows a partition for fp8
                                 // inputs: 2 = fp8 double row (K <= 256)
  int32_t peMxRows;              // matmul_mx's contraction rows a partition
                                 // (4 = MX quad row, K <= 512); 0: no MX
  int64_t peLoadStationaryCycles;
  int64_t peTransposeMinRows;    // transpose: max(P, this)
  int64_t fixedOverheadCycles;   // ACT/DVE: 64 + ...
  int64_t minElementCycles;      // ACT/DVE: ... + max(N, this)
  int64_t actTableLoadCycles;    // 700
  int64_t poolFixedCycles;       // 150
  bool dveTwoByteSpeedup; // trn2: tensor_tensor /2, tensor_scalar/copy /4

  /// Peak PE FLOP/s for 2-byte inputs (fp32 runs at 1/peFp32Factor, fp8
  /// at peFp8Rows times it, MX at peMxRows times it).
  double peakPeFlops() const;
  /// Peak DMA bytes/s over all queues.
  double peakDmaBytesPerSecond() const;
  /// Whether the target has matmul_mx and the f4e2m1/e8m0 types.
  bool hasMx() const { return peMxRows > 0; }
  int64_t psumBytesPerPartition() const { return psumBanks * psumBankBytes; }
  /// fp32 elements of one PSUM bank in a partition: the widest matmul result.
  int64_t psumBankFp32Columns() const { return psumBankBytes / 4; }
  /// The compute engines' start-partition rule for a tile of `count`
  /// partitions from `start`: more than half of them start at 0, more than
  /// a quarter at 0 or the half, fewer at a multiple of a quarter.
  bool computeTileStartOk(int64_t start, int64_t count) const;
  /// Streams: PE, ACT, DVE, POOL, then the DMA queues (StreamId::index).
  int numStreams() const { return 4 + numDmaQueues; }
};

const TargetDesc &getTarget(TargetKind kind);
/// Returns null for an unknown name.
const TargetDesc *lookupTarget(std::string_view name);
/// The known target names for diagnostics: "trn1, trn2 or trn3" (or, with
/// `lastSeparator` ", ", "trn1, trn2, trn3").
std::string knownTargetNames(std::string_view lastSeparator = " or ");
constexpr TargetKind kDefaultTarget = TargetKind::Trn2;

/// Duration in ps of `cycles` cycles at `clockMHz`, rounded up.
inline int64_t cyclesToPs(int64_t cycles, int64_t clockMHz) {
  return (cycles * 1000000 + clockMHz - 1) / clockMHz;
}

} // namespace nki::isa

#endif // NKI_ISA_TARGET_H
