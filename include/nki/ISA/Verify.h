//===- Verify.h - Hardware-constraint checks -------------------*- C++ -*-===//
//
// Every constraint of the machine model, checked in one place. The nisa
// dialect's verifiers, the binary decoder and the simulator call these; a
// failure names the operand, the limit and the value, e.g.
//   "matmul: src0 (stationary) partition count 129 exceeds 128".
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_VERIFY_H
#define NKI_ISA_VERIFY_H

#include "nki/ISA/Program.h"
#include "nki/ISA/Target.h"

#include "absl/status/status.h"

namespace nki::isa {

/// Checks one instruction on `stream` against `target`: opcode/engine match,
/// operand memories (connectivity), dtypes, partition counts and the
/// start-partition rule, bounds of every access pattern (SBUF/PSUM size,
/// PSUM bank crossing; HBM against `hbmBytes`), shape agreement between
/// operands, and the opcode's own limits (matmul K/M/N, ...). Semaphore ids
/// are checked against `numSemaphores`.
absl::Status verifyInstruction(const TargetDesc &target, StreamId stream,
                               const Instruction &inst,
                               uint32_t numSemaphores);

/// Checks the whole program: a known target, tensors inside HBM and not
/// overlapping, constant sizes, unique stream ids, and every instruction.
/// Errors name the stream and instruction index.
absl::Status verifyProgram(const Program &program);

/// verifyProgram's check of instruction `index` of stream `stream`: its
/// verifyInstruction status, prefixed with the stream, the index and the
/// instruction's location (for checking a program one instruction at a
/// time, as the compiler encodes it).
absl::Status verifyProgramInstruction(const TargetDesc &target, StreamId stream,
                                      size_t index, const Instruction &inst,
                                      uint32_t numSemaphores);

} // namespace nki::isa

#endif // NKI_ISA_VERIFY_H
