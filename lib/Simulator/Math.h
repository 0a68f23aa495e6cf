//===- Math.h - fp32 arithmetic of the ACT/DVE/POOL engines ----*- C++ -*-===//
//
// The engines compute in fp32. ALU ops and activation functions are applied
// over whole rows so the opcode switch runs once per row, not per element.
// Bitwise ops (and/or/xor) act on the values converted to int32.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_MATH_H
#define NKI_LIB_SIMULATOR_MATH_H

#include "nki/ISA/Instruction.h"

#include <cstdint>

namespace nki::sim {

/// out[i] = a[i] op b[i]; `bStride` 0 broadcasts b[0]. `out` may alias a.
void applyAlu(isa::AluOp op, const float *a, const float *b, int64_t bStride,
              float *out, int64_t n);
/// out[i] = a op b[i] (scalar on the left), for reversed tensor_scalar.
void applyAluScalarFirst(isa::AluOp op, float a, const float *b, float *out,
                         int64_t n);
/// The scalar form, for tests and one-off uses.
float aluScalar(isa::AluOp op, float a, float b);

/// in-place f(x) over a row.
void applyActivation(isa::ActFunc f, float *x, int64_t n);
float activationScalar(isa::ActFunc f, float x);

/// Whether `op` is a comparison (affine_select predicates must be).
bool isComparison(isa::AluOp op);

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_MATH_H
