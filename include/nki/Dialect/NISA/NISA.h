//===- NISA.h - The nisa dialect: attributes, interfaces, ops --*- C++ -*-===//
//
// One header for users of the dialect. The ops and attributes are generated
// from NISAOps.td; toInstruction/buildInstructionOp (ISAConversion.h) convert
// between ops and nki::isa::Instruction.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NISA_NISA_H
#define NKI_DIALECT_NISA_NISA_H

#include "nki/ISA/Program.h"
#include "nki/ISA/Target.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "nki/Dialect/NISA/NISADialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nki/Dialect/NISA/NISAAttrs.h.inc"

namespace nki::nisa {
class InstructionOpInterface;

/// On an instruction of a scheduled program that has no semaphores yet: its
/// place in the program order (nki-schedule writes it, nki-synchronize
/// places the semaphores from it and drops it). A program holding one is
/// not encoded.
inline constexpr llvm::StringLiteral kSeqAttr = "nisa.seq";
/// On the scheduled nisa.program: the schedule's end in picoseconds, the
/// simulated time of the program (the simulator runs the same timing
/// model).
inline constexpr llvm::StringLiteral kMakespanAttr = "nisa.makespan_ps";

namespace detail {
/// The InstructionOpInterface verifier: isa::verifyInstruction on the op.
mlir::LogicalResult verifyInstructionOp(mlir::Operation *op);
} // namespace detail
} // namespace nki::nisa

#include "nki/Dialect/NISA/NISAInterfaces.h.inc"

#define GET_OP_CLASSES
#include "nki/Dialect/NISA/NISAOps.h.inc"

#endif // NKI_DIALECT_NISA_NISA_H
