//===- Report.h - What a simulation measured -------------------*- C++ -*-===//
//
// The figures machine-model.md asks the simulator to report, and their
// human-readable table and JSON forms.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_REPORT_H
#define NKI_SIMULATOR_REPORT_H

#include "nki/ISA/Types.h"
#include "nki/Simulator/Profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nki::sim {

struct StreamReport {
  isa::StreamId stream;
  int64_t instructions = 0;
  int64_t busyPs = 0;
  double utilisation = 0; // busyPs / total time
  int64_t dmaBytes = 0;   // DMA queues: bytes moved (Cost.h descriptors)
};

struct SimReport {
  std::string target;
  int64_t totalPs = 0; // completion of the last instruction
  int64_t instructions = 0;
  std::vector<StreamReport> streams; // every stream of the program

  /// Useful matmul FLOPs (2*K*M*N each) and PE utilisation against the peak
  /// of the inputs' dtype: a matmul with fp32 inputs counts its FLOPs
  /// against peak/4, one with fp8 inputs against the fp8 peak (2x on trn2
  /// and trn3, isa::matmulPeakFlops), so the reported utilisation is
  /// sum(flops_i / peak_i) / totalTime.
  int64_t matmulFlops = 0;
  double peUtilisation = 0;

  int64_t dmaBytes = 0;
  /// The part of the traffic that reads or writes HBM (isa::dmaHbmBytes);
  /// the rest moves data within SBUF.
  int64_t dmaHbmBytes = 0;
  double dmaBytesPerSecond = 0; // achieved: dmaBytes / total time
  double dmaPeakBytesPerSecond = 0;
  /// The target's PE peak for 2-byte, fp32, fp8 and MX inputs (0: no
  /// matmul_mx), so that tools compute rooflines from the target table.
  double pePeakFlopsPerSecond = 0, pePeakFp32FlopsPerSecond = 0,
         pePeakFp8FlopsPerSecond = 0, pePeakMxFlopsPerSecond = 0;
  /// The target's engine clocks (PE, ACT, DVE, POOL), for tools that bound
  /// a model by its engines' rates (bench/models/bounds.py).
  double peClockHz = 0, actClockHz = 0, dveClockHz = 0, poolClockHz = 0;

  /// Per source op, most attributed time first (SimOptions::collectProfile).
  std::vector<OpProfile> ops;
  /// The chain of starts that decided the total (Profile.h), with the
  /// profile.
  CriticalPath criticalPath;
};

/// A fixed-width table for terminals, with the `topOps` ops that take the
/// most time (all of them in the JSON form).
std::string formatReportTable(const SimReport &report, size_t topOps = 10);
/// One JSON object (keys documented in docs/simulator.md).
std::string formatReportJson(const SimReport &report);

} // namespace nki::sim

#endif // NKI_SIMULATOR_REPORT_H
