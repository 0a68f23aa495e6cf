//===- Execute.h - Functional semantics of one instruction -----*- C++ -*-===//
//
// What an instruction does to memory, given operands that the caller has
// already checked (bounds, initialisation, races). The operand table below
// is the single place that says which operands an opcode reads and writes.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_EXECUTE_H
#define NKI_LIB_SIMULATOR_EXECUTE_H

#include "MachineState.h"
#include "MatmulKernel.h"

#include "absl/status/status.h"

#include <vector>

namespace nki::sim {

struct Operand {
  const isa::AccessPattern *ap;
  const char *role; // "dst", "src0", "scale", ... for diagnostics
  bool read;
  bool write;
};

/// The memory operands of `inst` (immediates excluded); returns the count.
int operandsOf(const isa::Instruction &inst, Operand out[8]);

/// Scratch reused across instructions so the hot loop does not allocate.
struct ExecScratch {
  std::vector<float> a, b, c, d;
  std::vector<float> matA, matB, pack;
  std::vector<uint8_t> bytes;
  MatmulKernelKind kernel = bestMatmulKernel();
};

/// Applies `inst` to `state`. Errors carry no instruction context (the
/// caller adds it): shape mismatches and matmul accumulation into PSUM that
/// no start-flagged matmul initialised.
absl::Status executeInstruction(MachineState &state,
                                const isa::Instruction &inst,
                                ExecScratch &scratch);

// Per-engine parts of executeInstruction.
absl::Status executePE(MachineState &state, const isa::Instruction &inst,
                       ExecScratch &scratch);
absl::Status executeDma(MachineState &state, const isa::Instruction &inst,
                        ExecScratch &scratch);
absl::Status executeMatmulMx(MachineState &state, const isa::Instruction &inst,
                             ExecScratch &scratch);

// Tensor-engine helpers shared by matmul and matmul_mx (ExecutePE.cpp).
/// Loads all partitions of `ap` into partitions x elementsPerRow fp32 values.
void loadMatrix(MachineState &state, const isa::AccessPattern &ap,
                std::vector<float> &buf);
/// Stores `c` (partitions x elementsPerRow, dense) through `dst`.
void storeMatrix(MachineState &state, const isa::AccessPattern &dst,
                 const std::vector<float> &c);
/// Checks (accumulate) or records (start) PSUM accumulation over `dst`.
absl::Status checkAccumulation(MachineState &state,
                               const isa::AccessPattern &dst, bool start);
/// dst (+)= scratch.matA^T x scratch.matB, [K, M] and [K, N] fp32 row-major
/// (the shape from isa::matmulShape), fp32 FMAs with k ascending.
absl::Status multiplyIntoPsum(MachineState &state, const isa::Instruction &inst,
                              ExecScratch &scratch);

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_EXECUTE_H
