//===- Simulator.h - Execute a program on the machine model ---*- C++ -*-===//
//
// Runs an isa::Program on the machine of docs/machine-model.md: every
// engine stream and DMA queue in order and concurrently, timed by the ISA
// library's cost model (Cost.h) in integer picoseconds, with exact functional
// semantics. The simulator is also a checker: out-of-bounds accesses,
// violated constraints (Verify.h), reads of uninitialised HBM/SBUF/PSUM, matmul
// accumulation into PSUM no start-flagged matmul initialised, deadlocks and
// data races are errors naming the stream, instruction index, opcode and
// source location. docs/simulator.md describes the model choices.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_SIMULATOR_H
#define NKI_SIMULATOR_SIMULATOR_H

#include "nki/ISA/Program.h"
#include "nki/Simulator/Report.h"
#include "nki/Simulator/Trace.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nki::sim {

/// Where a run is; handed to SimOptions::progress.
struct SimProgress {
  int64_t instructionsDone = 0;
  int64_t instructionsTotal = 0;
  int64_t simulatedPs = 0; // start time of the latest issued instruction
  double hostSeconds = 0;  // wall time since simulate() began
};

struct SimOptions {
  /// Check each instruction with isa::verifyInstruction as it issues. A
  /// program that already passed isa::verifyProgram (every program
  /// isa::decodeProgram returns has) may skip this.
  bool verifyInstructions = true;
  /// Detect unsynchronised conflicting accesses from different streams.
  bool checkRaces = true;
  /// Report reads of HBM/SBUF/PSUM bytes nothing has written. In HBM, the
  /// input and constant tensors count as written from the start; outputs,
  /// scratch and the padding between tensors do not.
  bool checkUninitialized = true;
  /// Record one trace event per instruction (SimResult::trace).
  bool collectTrace = false;
  /// Build the per-source-op profile (SimReport::ops, Profile.h): one
  /// record per instruction and a sort at the end, so only when a report
  /// is wanted.
  bool collectProfile = false;
  /// Called about every `progressIntervalSeconds` of host time.
  std::function<void(const SimProgress &)> progress;
  double progressIntervalSeconds = 1.0;
};

struct SimResult {
  SimReport report;
  std::vector<TraceEvent> trace; // when SimOptions::collectTrace
  std::string hbm;               // the HBM image after the run
};

/// The initial HBM image of `program`: large enough for every tensor of the
/// tensor table (not the target's whole HBM), zero-filled, constants in
/// place. Inputs are copied in with setTensorBytes.
std::string makeHbmImage(const isa::Program &program);

/// Copies `bytes` (the tensor's raw little-endian elements, exactly its size)
/// into the tensor `name` of `hbm`.
absl::Status setTensorBytes(const isa::Program &program, std::string &hbm,
                            std::string_view name, std::string_view bytes);
/// The raw bytes of tensor `name` in `hbm`.
absl::StatusOr<std::string> getTensorBytes(const isa::Program &program,
                                           const std::string &hbm,
                                           std::string_view name);

/// Simulates `program` starting from HBM contents `hbm` (see makeHbmImage).
/// Errors are absl::Status values whose message names the failing
/// instruction ("dve instruction 3 (tensor_copy) at k.mlir:4:7: ...").
absl::StatusOr<SimResult> simulate(const isa::Program &program, std::string hbm,
                                   const SimOptions &options = {});

} // namespace nki::sim

#endif // NKI_SIMULATOR_SIMULATOR_H
