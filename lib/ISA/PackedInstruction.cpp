//===- PackedInstruction.cpp - An instruction without its unused operands -===//

#include "nki/ISA/PackedInstruction.h"

#include <array>

namespace nki::isa {

namespace {
// A field added to Instruction must be packed below (and this size
// updated); the unit test's round trip sets every field.
static_assert(sizeof(Instruction) == 1000,
              "isa::Instruction changed: update PackedInstruction");

constexpr int kSlots = 8;

template <typename I> auto slots(I &inst) {
  return std::array{&inst.dst,        &inst.src0, &inst.src1,
                    &inst.src2,       &inst.src3, &inst.scalar0.ap,
                    &inst.scalar1.ap, &inst.accum};
}

/// Default-constructed, unused dims included: only then is a slot left out.
bool isDefault(const AccessPattern &ap) {
  static const AccessPattern kDefault;
  return ap == kDefault && ap.dims == kDefault.dims;
}

bool isDefault(const AffineExpr &e) {
  return e.offset == 0 && e.partitionCoef == 0 &&
         e.freeCoefs == std::array<int64_t, 4>{};
}
} // namespace

PackedInstruction::PackedInstruction(const Instruction &inst)
    : opcode_(inst.opcode), alu0_(inst.alu0), alu1_(inst.alu1),
      func_(inst.func), hasAccum_(inst.hasAccum), start_(inst.start),
      reverse0_(inst.reverse0), reverse1_(inst.reverse1),
      hasSignal_(inst.hasSignal), scalar0Immediate_(inst.scalar0.isImmediate),
      scalar1Immediate_(inst.scalar1.isImmediate), reduceAxes_(inst.reduceAxes),
      rows_(inst.rows), scalar0Imm_(inst.scalar0.imm),
      scalar1Imm_(inst.scalar1.imm), signal_(inst.signal) {
  auto from = slots(inst);
  int count = 0;
  for (int k = 0; k < kSlots; ++k)
    if (!isDefault(*from[k])) {
      present_ |= uint8_t(1u << k);
      ++count;
    }
  if (count) {
    operands_ = std::make_unique<AccessPattern[]>(count);
    int next = 0;
    for (int k = 0; k < kSlots; ++k)
      if (present_ >> k & 1)
        operands_[next++] = *from[k];
  }
  if (!isDefault(inst.affine) || !inst.waits.empty() || !inst.loc.empty())
    rare_ = std::make_unique<Rare>(Rare{inst.affine, inst.waits, inst.loc});
}

Instruction PackedInstruction::unpack() const {
  Instruction inst;
  inst.opcode = opcode_;
  inst.alu0 = alu0_;
  inst.alu1 = alu1_;
  inst.func = func_;
  inst.hasAccum = hasAccum_;
  inst.start = start_;
  inst.reverse0 = reverse0_;
  inst.reverse1 = reverse1_;
  inst.hasSignal = hasSignal_;
  inst.scalar0.isImmediate = scalar0Immediate_;
  inst.scalar1.isImmediate = scalar1Immediate_;
  inst.reduceAxes = reduceAxes_;
  inst.rows = rows_;
  inst.scalar0.imm = scalar0Imm_;
  inst.scalar1.imm = scalar1Imm_;
  inst.signal = signal_;
  auto to = slots(inst);
  int next = 0;
  for (int k = 0; k < kSlots; ++k)
    if (present_ >> k & 1)
      *to[k] = operands_[next++];
  if (rare_) {
    inst.affine = rare_->affine;
    inst.waits = rare_->waits;
    inst.loc = rare_->loc;
  }
  return inst;
}

} // namespace nki::isa
