//===- ISATestUtil.h - Access-pattern and instruction builders -*- C++ -*-===//
#ifndef NKI_TEST_UNITTESTS_ISA_ISATESTUTIL_H
#define NKI_TEST_UNITTESTS_ISA_ISATESTUTIL_H

#include "nki/ISA/Builders.h"
#include "nki/ISA/Instruction.h"

#include <initializer_list>
#include <utility>

namespace nki::isa::test {

/// An AP with explicit (stride, size) dims.
inline AccessPattern
ap(Memory mem, DType dt, int32_t start, int32_t parts, int64_t offset,
   std::initializer_list<std::pair<int64_t, int64_t>> dims) {
  AccessPattern a = isa::makeAccessPattern(mem, dt, start, parts, offset, {});
  for (auto [stride, size] : dims)
    a.dims[a.rank++] = isa::Dim{stride, size};
  return a;
}

/// A contiguous [parts, n] tile starting at partition 0.
inline AccessPattern tile(Memory mem, DType dt, int32_t parts, int64_t n,
                          int64_t offset = 0) {
  return ap(mem, dt, 0, parts, offset, {{1, n}});
}
inline AccessPattern sbuf(DType dt, int32_t parts, int64_t n,
                          int64_t offset = 0) {
  return tile(Memory::SBUF, dt, parts, n, offset);
}
inline AccessPattern psum(int32_t parts, int64_t n, int64_t offset = 0) {
  return tile(Memory::PSUM, DType::F32, parts, n, offset);
}
/// A contiguous HBM run of `n` elements.
inline AccessPattern hbm(DType dt, int64_t n, int64_t offset = 0) {
  AccessPattern a = ap(Memory::HBM, dt, 0, 1, offset, {{1, n}});
  return a;
}

inline ScalarOperand imm(float v) {
  ScalarOperand s;
  s.imm = v;
  return s;
}
inline ScalarOperand perPartition(AccessPattern a) {
  ScalarOperand s;
  s.isImmediate = false;
  s.ap = a;
  return s;
}

/// matmul dst[M,N] = stationary[K,M]^T x moving[K,N], bf16 inputs.
inline Instruction matmul(int32_t k, int64_t m, int64_t n,
                          DType dt = DType::BF16) {
  Instruction i;
  i.opcode = Opcode::Matmul;
  i.src0 = sbuf(dt, k, m);
  i.src1 = sbuf(dt, k, n, /*offset=*/4096);
  i.dst = psum(int32_t(m), n);
  return i;
}

/// fp8 double-row matmul dst[M,N] = stationary[K,M]^T x moving[K,N]: both
/// sources [K/2 partitions, M or N, 2] (k = 2 x partition + row).
inline Instruction doubleRowMatmul(int32_t k, int64_t m, int64_t n,
                                   DType dt = DType::FP8E4M3) {
  Instruction i;
  i.opcode = Opcode::Matmul;
  i.rows = 2;
  i.src0 = ap(Memory::SBUF, dt, 0, k / 2, 0, {{2, m}, {1, 2}});
  i.src1 = ap(Memory::SBUF, dt, 0, k / 2, 4096, {{2, n}, {1, 2}});
  i.dst = psum(int32_t(m), n);
  return i;
}

/// matmul_mx of K = 4 x partitions: [K/4, M, 4] and [K/4, N, 4] values
/// (f4e2m1x2: [.., 2] bytes) with e8m0 scales [K/32, M] and [K/32, N].
inline Instruction mxMatmul(int32_t k, int64_t m, int64_t n,
                            DType dt = DType::FP8E4M3) {
  Instruction i;
  i.opcode = Opcode::MatmulMx;
  int64_t inner = dt == DType::FP4E2M1X2 ? 2 : 4;
  i.src0 = ap(Memory::SBUF, dt, 0, k / 4, 0, {{inner, m}, {1, inner}});
  i.src1 = ap(Memory::SBUF, dt, 0, k / 4, 4096, {{inner, n}, {1, inner}});
  i.src2 = ap(Memory::SBUF, DType::E8M0, 0, k / 32, 8192, {{1, m}});
  i.src3 = ap(Memory::SBUF, DType::E8M0, 0, k / 32, 8704, {{1, n}});
  i.dst = psum(int32_t(m), n);
  return i;
}

inline Instruction unary(Opcode op, AccessPattern dst, AccessPattern src) {
  Instruction i;
  i.opcode = op;
  i.dst = dst;
  i.src0 = src;
  return i;
}

inline Instruction tensorTensor(AluOp alu, AccessPattern dst, AccessPattern a,
                                AccessPattern b) {
  Instruction i;
  i.opcode = Opcode::TensorTensor;
  i.alu0 = alu;
  i.dst = dst;
  i.src0 = a;
  i.src1 = b;
  return i;
}

inline Instruction dma(AccessPattern dst, AccessPattern src) {
  return unary(Opcode::DmaCopy, dst, src);
}

constexpr StreamId kPE{Engine::PE, 0}, kACT{Engine::ACT, 0},
    kDVE{Engine::DVE, 0}, kPOOL{Engine::POOL, 0}, kDMA0{Engine::DMA, 0};

} // namespace nki::isa::test

#endif // NKI_TEST_UNITTESTS_ISA_ISATESTUTIL_H
