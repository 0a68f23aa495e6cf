//===- ISAConversion.h - nisa ops <-> isa::Instruction ---------*- C++ -*-===//
//
// The two directions live together (lib/Dialect/NISA/ISAConversion.cpp) so
// that a field added to one is visibly missing from the other. Both are total:
// any op converts to an Instruction (the ISA verifier then judges it), and any
// Instruction whose enumerations are in range converts to an op.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NISA_ISACONVERSION_H
#define NKI_DIALECT_NISA_ISACONVERSION_H

#include "nki/Dialect/NISA/NISA.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace nki::nisa {

/// The Instruction `op` stands for: opcode, operand fields, semaphores and
/// the source location as "file:line:col".
isa::Instruction toInstruction(InstructionOpInterface op);

/// Creates the op for `inst` at the builder's insertion point. `loc` is
/// normally locationFromString(inst.loc).
InstructionOpInterface buildInstructionOp(mlir::OpBuilder &builder,
                                          mlir::Location loc,
                                          const isa::Instruction &inst);

/// The source op `loc` names: for a name location (an ONNX node's) the
/// name, else "file:line:col" of the first file location inside `loc`; ""
/// when there is none.
std::string locationToString(mlir::Location loc);

/// The inverse of locationToString: a FileLineColLoc for "file:line:col",
/// UnknownLoc for "", otherwise a NameLoc holding the string.
mlir::Location locationFromString(mlir::MLIRContext *context,
                                  llvm::StringRef text);

/// The MLIR element type of `dtype` (vector<2xf4E2M1FN> for f4e2m1x2).
mlir::Type elementTypeOf(mlir::MLIRContext *context, isa::DType dtype);

/// The element type of a tensor's constant data: elementTypeOf, except ui8
/// (its bytes) for f4e2m1x2, which a dense attribute cannot hold.
mlir::Type dataElementTypeOf(mlir::MLIRContext *context, isa::DType dtype);

} // namespace nki::nisa

#endif // NKI_DIALECT_NISA_ISACONVERSION_H
