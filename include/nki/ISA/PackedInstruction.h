//===- PackedInstruction.h - An instruction without its unused operands --===//
//
// isa::Instruction has room for every operand any opcode takes: eight
// access patterns, about 1 KB. An instruction uses two to four of them. A
// compiler that holds every instruction of a large program until it is
// scheduled keeps them packed: the small fields inline, the access patterns
// that are not default-constructed in one heap block, and the fields
// instruction selection rarely sets (affine expression, semaphores,
// location) in another. About a third of the size for most instructions.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_PACKEDINSTRUCTION_H
#define NKI_ISA_PACKEDINSTRUCTION_H

#include "nki/ISA/Instruction.h"

#include <memory>

namespace nki::isa {

class PackedInstruction {
public:
  PackedInstruction() : PackedInstruction(Instruction()) {}
  explicit PackedInstruction(const Instruction &inst);
  PackedInstruction(const PackedInstruction &other)
      : PackedInstruction(other.unpack()) {}
  PackedInstruction &operator=(const PackedInstruction &other) {
    return *this = PackedInstruction(other.unpack());
  }
  PackedInstruction(PackedInstruction &&) noexcept = default;
  PackedInstruction &operator=(PackedInstruction &&) noexcept = default;

  /// The instruction packed, field for field (unused dims included).
  Instruction unpack() const;
  Opcode opcode() const { return opcode_; }

private:
  /// Fields of Instruction outside the access patterns that are rarely not
  /// default at instruction selection.
  struct Rare {
    AffineExpr affine;
    std::vector<SemWait> waits;
    std::string loc;
  };

  Opcode opcode_;
  AluOp alu0_, alu1_;
  ActFunc func_;
  bool hasAccum_, start_, reverse0_, reverse1_, hasSignal_;
  bool scalar0Immediate_, scalar1Immediate_;
  uint8_t reduceAxes_, rows_;
  /// Bit k: access pattern slot k (dst, src0..src3, scalar0, scalar1,
  /// accum) is the next one in `operands_`; else it is default-constructed.
  uint8_t present_ = 0;
  float scalar0Imm_, scalar1Imm_;
  SemSignal signal_;
  std::unique_ptr<AccessPattern[]> operands_;
  std::unique_ptr<Rare> rare_;
};

} // namespace nki::isa

#endif // NKI_ISA_PACKEDINSTRUCTION_H
