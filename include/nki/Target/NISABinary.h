//===- NISABinary.h - nisa IR <-> .nkb binaries ----------------*- C++ -*-===//
//
// The translations behind `nki-translate --nisa-to-binary` and
// `--binary-to-nisa`. A nisa.program maps one to one onto an isa::Program;
// the bytes are isa::encodeProgram's. Instruction locations travel as
// Instruction::loc ("file:line:col"), so simulator errors name the .mlir
// line, and binary-to-nisa prints them back as op locations so that
// binary -> nisa -> binary is byte-identical.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_TARGET_NISABINARY_H
#define NKI_TARGET_NISABINARY_H

#include "nki/Dialect/NISA/NISA.h"
#include "nki/ISA/Program.h"

#include "mlir/IR/OwningOpRef.h"

namespace nki {

/// The program `op` stands for, checked by isa::verifyProgram; a failure is
/// reported as a diagnostic on `op`. `op` must have passed the MLIR verifier
/// (known stream names, a representable semaphore count). Its constants
/// borrow the bytes of `op`'s attributes: use it while the context lives.
mlir::FailureOr<isa::Program> programFromNISA(nisa::ProgramOp op);

/// The .nkb bytes of `op`, the bytes isa::encodeProgram writes for
/// programFromNISA(op), with the same checks; encoded one instruction at a
/// time, so that a large program's instructions are never held whole.
mlir::FailureOr<std::string> binaryFromNISA(nisa::ProgramOp op);

/// A nisa.program for `program`, or null after a diagnostic at `loc` when
/// the program cannot be represented (it fails isa::verifyProgram).
mlir::OwningOpRef<nisa::ProgramOp> programToNISA(const isa::Program &program,
                                                 mlir::MLIRContext *context,
                                                 mlir::Location loc);

/// Registers --nisa-to-binary and --binary-to-nisa with mlir-translate.
void registerNISABinaryTranslations();

} // namespace nki

#endif // NKI_TARGET_NISABINARY_H
