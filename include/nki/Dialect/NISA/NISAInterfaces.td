//===- NISAInterfaces.td - What every instruction op provides -*- tablegen -*-===//
#ifndef NKI_DIALECT_NISA_NISAINTERFACES_TD
#define NKI_DIALECT_NISA_NISAINTERFACES_TD

include "mlir/IR/OpBase.td"

def NISA_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::nki::nisa";
  let description = [{
    An op that is exactly one machine instruction. The op's name after
    `nisa.` is the ISA mnemonic (Opcodes.def); `fillInstruction` writes the
    opcode's operand fields (Instruction.h's role table) and leaves the rest
    at their defaults. `nki::nisa::toInstruction` adds the opcode, the
    semaphores and the source location.

    The interface's verifier converts the op and calls
    `nki::isa::verifyInstruction` with the target and stream it sits in.
  }];
  let methods = [
    InterfaceMethod<"(semaphore, value) pairs to wait for, or null.",
                    "::mlir::DenseI64ArrayAttr", "getWaitsAttr">,
    InterfaceMethod<"(semaphore, increment) to signal, or null.",
                    "::mlir::DenseI64ArrayAttr", "getSignalAttr">,
    InterfaceMethod<"Writes this op's operand fields into `inst`.", "void",
                    "fillInstruction", (ins "::nki::isa::Instruction &":$inst)>,
  ];
  let verify = [{ return ::nki::nisa::detail::verifyInstructionOp($_op); }];
}

#endif // NKI_DIALECT_NISA_NISAINTERFACES_TD
