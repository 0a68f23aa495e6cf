//===- Instruction.cpp - Opcode, ALU and function tables; access patterns -===//

#include "nki/ISA/Instruction.h"

#include <algorithm>

namespace nki::isa {

namespace {
// Engine bits of Opcodes.def's `engines` column: bit i is Engine(i).
constexpr unsigned ENG_PE = 1u << unsigned(Engine::PE);
constexpr unsigned ENG_ACT = 1u << unsigned(Engine::ACT);
constexpr unsigned ENG_DVE = 1u << unsigned(Engine::DVE);
constexpr unsigned ENG_POOL = 1u << unsigned(Engine::POOL);
constexpr unsigned ENG_DMA = 1u << unsigned(Engine::DMA);
} // namespace

std::string_view opcodeName(Opcode op) {
  switch (op) {
#define NKI_OPCODE(Name, mnemonic, engines)                                    \
  case Opcode::Name:                                                           \
    return mnemonic;
#include "nki/ISA/Opcodes.def"
  }
  return "<invalid opcode>";
}

std::optional<Opcode> parseOpcode(std::string_view name) {
#define NKI_OPCODE(Name, mnemonic, engines)                                    \
  if (name == mnemonic)                                                        \
    return Opcode::Name;
#include "nki/ISA/Opcodes.def"
  return std::nullopt;
}

bool opcodeRunsOn(Opcode op, Engine engine) {
  unsigned mask = 0;
  switch (op) {
#define NKI_OPCODE(Name, mnemonic, engines)                                    \
  case Opcode::Name:                                                           \
    mask = (engines);                                                          \
    break;
#include "nki/ISA/Opcodes.def"
  }
  return (mask >> unsigned(engine)) & 1u;
}

std::string_view aluOpName(AluOp op) {
  switch (op) {
#define NKI_ALU_OP(Name, spelling)                                             \
  case AluOp::Name:                                                            \
    return spelling;
#include "nki/ISA/AluOps.def"
  }
  return "<invalid alu op>";
}

std::optional<AluOp> parseAluOp(std::string_view name) {
#define NKI_ALU_OP(Name, spelling)                                             \
  if (name == spelling)                                                        \
    return AluOp::Name;
#include "nki/ISA/AluOps.def"
  return std::nullopt;
}

std::string_view actFuncName(ActFunc f) {
  switch (f) {
#define NKI_ACT_FUNC(Name, spelling, table)                                    \
  case ActFunc::Name:                                                          \
    return spelling;
#include "nki/ISA/ActFuncs.def"
  }
  return "<invalid function>";
}

std::optional<ActFunc> parseActFunc(std::string_view name) {
#define NKI_ACT_FUNC(Name, spelling, table)                                    \
  if (name == spelling)                                                        \
    return ActFunc::Name;
#include "nki/ISA/ActFuncs.def"
  return std::nullopt;
}

ActTable actFuncTable(ActFunc f) {
  switch (f) {
#define NKI_ACT_FUNC(Name, spelling, table)                                    \
  case ActFunc::Name:                                                          \
    return ActTable::table;
#include "nki/ISA/ActFuncs.def"
  }
  return ActTable::None;
}

int64_t AccessPattern::elementsPerPartition() const {
  int64_t n = 1;
  for (int i = 0; i < rank && i < kMaxDims; ++i)
    n *= dims[i].size;
  return n;
}

MatmulShape matmulShape(const Instruction &inst) {
  if (inst.opcode == Opcode::MatmulMx) {
    int64_t a = mxValuesPerElement(inst.src0.dtype);
    int64_t b = mxValuesPerElement(inst.src1.dtype);
    return {inst.src0.numPartitions * 4,
            inst.src0.elementsPerPartition() * a / 4,
            inst.src1.elementsPerPartition() * b / 4};
  }
  int64_t rows = std::max<int64_t>(inst.rows, 1);
  return {inst.src0.numPartitions * rows,
          inst.src0.elementsPerPartition() / rows,
          inst.src1.elementsPerPartition() / rows};
}

int64_t AccessPattern::numElements() const {
  if (memory == Memory::HBM)
    return elementsPerPartition();
  return int64_t(numPartitions) * elementsPerPartition();
}

bool AccessPattern::operator==(const AccessPattern &o) const {
  if (memory != o.memory || dtype != o.dtype ||
      startPartition != o.startPartition || numPartitions != o.numPartitions ||
      offset != o.offset || rank != o.rank)
    return false;
  for (int i = 0; i < rank && i < kMaxDims; ++i)
    if (!(dims[i] == o.dims[i]))
      return false;
  return true;
}

} // namespace nki::isa
