//===- SimTestUtil.h - Builders for simulator tests ------------*- C++ -*-===//
#ifndef NKI_TEST_UNITTESTS_SIMULATOR_SIMTESTUTIL_H
#define NKI_TEST_UNITTESTS_SIMULATOR_SIMTESTUTIL_H

#include "nki/ISA/Builders.h"
#include "nki/ISA/Instruction.h"
#include "nki/ISA/Program.h"

#include <initializer_list>
#include <utility>

namespace nki::sim::test {

using isa::AccessPattern;
using isa::DType;
using isa::Engine;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;
using isa::StreamId;

inline AccessPattern
ap(Memory mem, DType dt, int32_t start, int32_t parts, int64_t offset,
   std::initializer_list<std::pair<int64_t, int64_t>> dims) {
  AccessPattern a = isa::makeAccessPattern(mem, dt, start, parts, offset, {});
  for (auto [stride, size] : dims)
    a.dims[a.rank++] = isa::Dim{stride, size};
  return a;
}
inline AccessPattern sbuf(int32_t parts, int64_t n, int64_t offset = 0,
                          DType dt = DType::F32, int32_t start = 0) {
  return ap(Memory::SBUF, dt, start, parts, offset, {{1, n}});
}
inline AccessPattern psum(int32_t parts, int64_t n, int64_t offset = 0) {
  return ap(Memory::PSUM, DType::F32, 0, parts, offset, {{1, n}});
}
/// rows x cols of a row-major HBM matrix.
inline AccessPattern hbm(int64_t offset, int64_t rows, int64_t cols,
                         DType dt = DType::F32) {
  return ap(Memory::HBM, dt, 0, 1, offset, {{cols, rows}, {1, cols}});
}

inline const StreamId kPE{Engine::PE, 0}, kACT{Engine::ACT, 0},
    kDVE{Engine::DVE, 0}, kPOOL{Engine::POOL, 0};
inline StreamId dmaQ(int q) { return StreamId{Engine::DMA, uint8_t(q)}; }

inline Instruction op(Opcode opcode, AccessPattern dst,
                      AccessPattern src0 = {}) {
  Instruction inst;
  inst.opcode = opcode;
  inst.dst = dst;
  inst.src0 = src0;
  return inst;
}
inline Instruction memset(AccessPattern dst, float value) {
  Instruction inst = op(Opcode::Memset, dst);
  inst.scalar0.imm = value;
  return inst;
}
inline Instruction &waits(Instruction &inst, uint32_t sem, uint32_t value) {
  inst.waits.push_back({sem, value});
  return inst;
}
inline Instruction &signals(Instruction &inst, uint32_t sem) {
  inst.hasSignal = true;
  inst.signal = {sem, 1};
  return inst;
}

} // namespace nki::sim::test

#endif // NKI_TEST_UNITTESTS_SIMULATOR_SIMTESTUTIL_H
