//===- OpcodeFields.h - Which Instruction fields each opcode uses -*- C++
//-*-===//
//
// One table, read by the verifier (which operands to check, and their role
// names in diagnostics) and by the binary encoder (which fields to write), so
// the two cannot disagree. Instruction.h documents the roles in prose.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_ISA_OPCODEFIELDS_H
#define NKI_LIB_ISA_OPCODEFIELDS_H

#include "nki/ISA/Instruction.h"

namespace nki::isa::detail {

struct OpcodeFields {
  // Operands; a role name, when set, follows the field name in diagnostics,
  // e.g. "src0 (stationary)". A null role with `used` false: field unused.
  const char *src0 = nullptr, *src1 = nullptr, *src2 = nullptr, *src3 = nullptr;
  const char *scalar0 = nullptr, *scalar1 = nullptr;
  bool usesSrc0 = false, usesSrc1 = false, usesSrc2 = false, usesSrc3 = false;
  bool usesScalar0 = false, usesScalar1 = false;
  bool scalarsImmediateOnly = false; // memset value, affine_select fill
  // Non-operand fields.
  bool alu0 = false, alu1 = false, func = false, affine = false;
  bool accum = false, reduceAxes = false, start = false, reverse = false;
  bool rows = false;
};

inline OpcodeFields opcodeFields(Opcode op) {
  OpcodeFields f;
  switch (op) {
  case Opcode::Matmul:
    f.usesSrc0 = f.usesSrc1 = true;
    f.src0 = "stationary";
    f.src1 = "moving";
    f.start = f.rows = true;
    break;
  case Opcode::MatmulMx:
    f.usesSrc0 = f.usesSrc1 = f.usesSrc2 = f.usesSrc3 = true;
    f.src0 = "stationary";
    f.src1 = "moving";
    f.src2 = "stationary_scale";
    f.src3 = "moving_scale";
    f.start = true;
    break;
  case Opcode::Transpose:
    f.usesSrc0 = true;
    break;
  case Opcode::Activation:
    f.usesSrc0 = f.usesScalar0 = f.usesScalar1 = true;
    f.scalar0 = "scale";
    f.scalar1 = "bias";
    f.func = f.accum = true;
    break;
  case Opcode::TensorTensor:
    f.usesSrc0 = f.usesSrc1 = true;
    f.alu0 = true;
    break;
  case Opcode::TensorScalar:
    f.usesSrc0 = f.usesScalar0 = f.usesScalar1 = true;
    f.alu0 = f.alu1 = f.reverse = true;
    break;
  case Opcode::TensorReduce:
    f.usesSrc0 = true;
    f.alu0 = f.reduceAxes = true;
    break;
  case Opcode::TensorCopy:
  case Opcode::Transpose32:
  case Opcode::DmaCopy:
    f.usesSrc0 = true;
    break;
  case Opcode::Memset:
    f.usesScalar0 = true;
    f.scalar0 = "value";
    f.scalarsImmediateOnly = true;
    break;
  case Opcode::Select:
    f.usesSrc0 = f.usesSrc1 = f.usesSrc2 = true;
    f.src0 = "predicate";
    f.src1 = "on_true";
    f.src2 = "on_false";
    break;
  case Opcode::Iota:
    f.affine = true;
    break;
  case Opcode::AffineSelect:
    f.usesSrc0 = f.usesScalar0 = true;
    f.scalar0 = "fill";
    f.scalarsImmediateOnly = true;
    f.alu0 = f.affine = true;
    break;
  }
  return f;
}

} // namespace nki::isa::detail

#endif // NKI_LIB_ISA_OPCODEFIELDS_H
