//===- SemanticsTest.cpp - Each instruction against hand-computed values --===//

#include "SimTestUtil.h"

#include "Access.h"
#include "Execute.h"
#include "MachineState.h"
#include "Math.h"

#include "nki/ISA/Target.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace nki::sim::test {
namespace {

class Semantics : public ::testing::Test {
protected:
  MachineState state{isa::getTarget(isa::TargetKind::Trn2),
                     std::string(4096, '\0')};
  ExecScratch scratch;

  /// Writes `values` as `dt` contiguously at (mem, partition p, offset).
  void put(Memory mem, int p, int64_t off, std::vector<float> values,
           DType dt = DType::F32) {
    storeRun(dt, values.data(), int64_t(values.size()),
             state.base(mem, p) + off, isa::dtypeBytes(dt));
  }
  std::vector<float> get(Memory mem, int p, int64_t off, int n,
                         DType dt = DType::F32) {
    std::vector<float> out(n);
    loadRun(dt, state.base(mem, p) + off, n, isa::dtypeBytes(dt), out.data());
    return out;
  }
  void run(const Instruction &inst) {
    absl::Status st = executeInstruction(state, inst, scratch);
    ASSERT_TRUE(st.ok()) << st.message();
  }
};

using V = std::vector<float>;

TEST_F(Semantics, TensorTensorOps) {
  put(Memory::SBUF, 0, 0, {1, -2, 3, 8});
  put(Memory::SBUF, 0, 64, {4, 5, 3, 2});
  struct Case {
    isa::AluOp op;
    V expect;
  } cases[] = {
      {isa::AluOp::Add, {5, 3, 6, 10}},
      {isa::AluOp::Sub, {-3, -7, 0, 6}},
      {isa::AluOp::Mul, {4, -10, 9, 16}},
      {isa::AluOp::Div, {0.25, -0.4f, 1, 4}},
      {isa::AluOp::Max, {4, 5, 3, 8}},
      {isa::AluOp::Min, {1, -2, 3, 2}},
      {isa::AluOp::Pow, {1, -32, 27, 64}},
      {isa::AluOp::IsEq, {0, 0, 1, 0}},
      {isa::AluOp::IsNe, {1, 1, 0, 1}},
      {isa::AluOp::IsLt, {1, 1, 0, 0}},
      {isa::AluOp::IsLe, {1, 1, 1, 0}},
      {isa::AluOp::IsGt, {0, 0, 0, 1}},
      {isa::AluOp::IsGe, {0, 0, 1, 1}},
      {isa::AluOp::And, {0, 4, 3, 0}},
      {isa::AluOp::Or, {5, -1, 3, 10}},
      {isa::AluOp::Xor, {5, -5, 0, 10}},
  };
  for (const Case &c : cases) {
    Instruction inst = op(Opcode::TensorTensor, sbuf(1, 4, 128), sbuf(1, 4, 0));
    inst.src1 = sbuf(1, 4, 64);
    inst.alu0 = c.op;
    run(inst);
    EXPECT_EQ(get(Memory::SBUF, 0, 128, 4), c.expect) << isa::aluOpName(c.op);
  }
}

TEST_F(Semantics, TensorScalarChainsAndReverses) {
  put(Memory::SBUF, 0, 0, {1, 2, 3, 4});
  put(Memory::SBUF, 1, 0, {10, 20, 30, 40});
  put(Memory::SBUF, 0, 256, {100});
  put(Memory::SBUF, 1, 256, {200});
  // (x - 1) * [P,1] scalar
  Instruction inst = op(Opcode::TensorScalar, sbuf(2, 4, 64), sbuf(2, 4, 0));
  inst.alu0 = isa::AluOp::Sub;
  inst.scalar0.imm = 1;
  inst.alu1 = isa::AluOp::Mul;
  inst.scalar1.isImmediate = false;
  inst.scalar1.ap = sbuf(2, 1, 256);
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 4), (V{0, 100, 200, 300}));
  EXPECT_EQ(get(Memory::SBUF, 1, 64, 4), (V{1800, 3800, 5800, 7800}));
  // reverse0: 8 / x, then reverse1: 1 - that.
  inst.alu0 = isa::AluOp::Div;
  inst.scalar0.imm = 8;
  inst.reverse0 = true;
  inst.alu1 = isa::AluOp::Sub;
  inst.scalar1 = isa::ScalarOperand{};
  inst.scalar1.imm = 1;
  inst.reverse1 = true;
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 4), (V{-7, -3, 1 - 8.0f / 3, -1}));
  // bypass leaves the first op's result.
  inst.alu1 = isa::AluOp::Bypass;
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 4), (V{8, 4, 8.0f / 3, 2}));
}

TEST_F(Semantics, TensorReduceOverTrailingAxes) {
  // src [1, 2, 3]: rows {1,2,3} and {4,-5,6}
  put(Memory::SBUF, 0, 0, {1, 2, 3, 4, -5, 6});
  Instruction inst =
      op(Opcode::TensorReduce, sbuf(1, 2, 64),
         ap(Memory::SBUF, DType::F32, 0, 1, 0, {{3, 2}, {1, 3}}));
  inst.alu0 = isa::AluOp::Add;
  inst.reduceAxes = 1;
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 2), (V{6, 5}));
  inst.alu0 = isa::AluOp::Max;
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 2), (V{3, 6}));
  inst.alu0 = isa::AluOp::Min;
  inst.reduceAxes = 2;
  inst.dst = sbuf(1, 1, 64);
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 1), (V{-5}));
}

TEST_F(Semantics, ActivationFunctions) {
  struct Case {
    isa::ActFunc f;
    float x, expect;
  } cases[] = {
      {isa::ActFunc::Identity, -1.5f, -1.5f},
      {isa::ActFunc::Relu, -1.0f, 0.0f},
      {isa::ActFunc::Relu, 2.0f, 2.0f},
      {isa::ActFunc::Square, -3.0f, 9.0f},
      {isa::ActFunc::Abs, -3.0f, 3.0f},
      {isa::ActFunc::Sign, -3.0f, -1.0f},
      {isa::ActFunc::Exp, 1.0f, 2.7182817f},
      {isa::ActFunc::Log, 2.7182817f, 1.0f},
      {isa::ActFunc::Sigmoid, 0.0f, 0.5f},
      {isa::ActFunc::Tanh, 0.5f, 0.46211716f},
      {isa::ActFunc::GeluErf, 1.0f, 0.84134475f},
      {isa::ActFunc::GeluTanh, 1.0f, 0.84119199f},
      {isa::ActFunc::Silu, 1.0f, 0.73105858f},
      {isa::ActFunc::Softplus, 0.0f, 0.69314718f},
      {isa::ActFunc::Softplus, 100.0f, 100.0f},
      {isa::ActFunc::Erf, 0.5f, 0.52049988f},
      {isa::ActFunc::Sqrt, 4.0f, 2.0f},
      {isa::ActFunc::Rsqrt, 4.0f, 0.5f},
      {isa::ActFunc::Reciprocal, 8.0f, 0.125f},
      {isa::ActFunc::Sin, 0.5f, 0.47942554f},
      {isa::ActFunc::Cos, 0.5f, 0.87758256f},
  };
  for (const Case &c : cases) {
    put(Memory::SBUF, 0, 0, {c.x});
    Instruction inst = op(Opcode::Activation, sbuf(1, 1, 64), sbuf(1, 1, 0));
    inst.func = c.f;
    inst.scalar0.imm = 1;
    inst.scalar1.imm = 0;
    run(inst);
    EXPECT_NEAR(get(Memory::SBUF, 0, 64, 1)[0], c.expect,
                2e-7f * std::fabs(c.expect) + 1e-7f)
        << isa::actFuncName(c.f);
  }
}

TEST_F(Semantics, ActivationScaleBiasAndAccumulate) {
  put(Memory::SBUF, 0, 0, {1, -2, 3});
  put(Memory::SBUF, 1, 0, {4, 5, -6});
  put(Memory::SBUF, 0, 32, {2});
  put(Memory::SBUF, 1, 32, {-1});
  // relu(x * 3 + bias[p])
  Instruction inst = op(Opcode::Activation, sbuf(2, 3, 64), sbuf(2, 3, 0));
  inst.func = isa::ActFunc::Relu;
  inst.scalar0.imm = 3;
  inst.scalar1.isImmediate = false;
  inst.scalar1.ap = sbuf(2, 1, 32);
  inst.hasAccum = true;
  inst.accum = sbuf(2, 1, 96);
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 3), (V{5, 0, 11}));
  EXPECT_EQ(get(Memory::SBUF, 1, 64, 3), (V{11, 14, 0}));
  EXPECT_EQ(get(Memory::SBUF, 0, 96, 1), (V{16}));
  EXPECT_EQ(get(Memory::SBUF, 1, 96, 1), (V{25}));
}

TEST_F(Semantics, CopyCastsWithRoundToNearestEven) {
  // 1 + 2^-8 is halfway between two bf16 values: ties to even (1.0);
  // 1 + 3*2^-8 ties up to 1 + 2^-6.
  put(Memory::SBUF, 0, 0, {1.00390625f, 1.01171875f, -2.5f});
  run(op(Opcode::TensorCopy, sbuf(1, 3, 64, DType::BF16), sbuf(1, 3, 0)));
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 3, DType::BF16),
            (V{1.0f, 1.015625f, -2.5f}));
  // fp8 e4m3 saturates at its largest finite value, 448.
  put(Memory::SBUF, 0, 0, {1000.0f, -1000.0f});
  run(op(Opcode::TensorCopy, sbuf(1, 2, 96, DType::FP8E4M3), sbuf(1, 2, 0)));
  EXPECT_EQ(get(Memory::SBUF, 0, 96, 2, DType::FP8E4M3), (V{448, -448}));
}

TEST_F(Semantics, MemsetSelectIota) {
  run(memset(sbuf(2, 3, 0, DType::I32), 7));
  EXPECT_EQ(get(Memory::SBUF, 1, 0, 3, DType::I32), (V{7, 7, 7}));

  put(Memory::SBUF, 0, 32, {1, 0, 2});
  put(Memory::SBUF, 0, 64, {10, 20, 30});
  put(Memory::SBUF, 0, 96, {-1, -2, -3});
  Instruction sel = op(Opcode::Select, sbuf(1, 3, 128), sbuf(1, 3, 32));
  sel.src1 = sbuf(1, 3, 64);
  sel.src2 = sbuf(1, 3, 96);
  run(sel);
  EXPECT_EQ(get(Memory::SBUF, 0, 128, 3), (V{10, -2, 30}));

  // value = 100 + 10 p + 2 i0 + i1 over a [2, 2, 3] dst.
  Instruction iota = op(
      Opcode::Iota, ap(Memory::SBUF, DType::F32, 0, 2, 256, {{3, 2}, {1, 3}}));
  iota.affine.offset = 100;
  iota.affine.partitionCoef = 10;
  iota.affine.freeCoefs = {2, 1, 0, 0};
  run(iota);
  EXPECT_EQ(get(Memory::SBUF, 0, 256, 6), (V{100, 101, 102, 102, 103, 104}));
  EXPECT_EQ(get(Memory::SBUF, 1, 256, 6), (V{110, 111, 112, 112, 113, 114}));
}

TEST_F(Semantics, AffineSelectKeepsWherePredicateHolds) {
  // A causal mask: keep where p - i >= 0, else fill -inf-ish.
  for (int p = 0; p < 3; ++p)
    put(Memory::SBUF, p, 0, {1, 2, 3});
  Instruction inst = op(Opcode::AffineSelect, sbuf(3, 3, 64), sbuf(3, 3, 0));
  inst.affine.partitionCoef = 1;
  inst.affine.freeCoefs = {-1, 0, 0, 0};
  inst.alu0 = isa::AluOp::IsGe;
  inst.scalar0.imm = -9;
  run(inst);
  EXPECT_EQ(get(Memory::SBUF, 0, 64, 3), (V{1, -9, -9}));
  EXPECT_EQ(get(Memory::SBUF, 1, 64, 3), (V{1, 2, -9}));
  EXPECT_EQ(get(Memory::SBUF, 2, 64, 3), (V{1, 2, 3}));
}

TEST_F(Semantics, Transpose32SwapsWithinBlocks) {
  // src[p][f] = 100 p + f over [32, 64]: two 32x32 blocks.
  for (int p = 0; p < 32; ++p) {
    V row(64);
    for (int f = 0; f < 64; ++f)
      row[f] = float(100 * p + f);
    put(Memory::SBUF, p, 0, row);
  }
  run(op(Opcode::Transpose32, sbuf(32, 64, 1024), sbuf(32, 64, 0)));
  // dst[p][32 b + j] = src[j][32 b + p]
  EXPECT_EQ(get(Memory::SBUF, 3, 1024 + 4 * 5, 1)[0], 100 * 5 + 3);
  EXPECT_EQ(get(Memory::SBUF, 3, 1024 + 4 * 37, 1)[0], 100 * 5 + 32 + 3);
}

TEST_F(Semantics, PeTransposeAndMatmul) {
  // stationary [K=2, M=2] = {{1,2},{3,4}}, moving [K=2, N=3].
  put(Memory::SBUF, 0, 0, {1, 2});
  put(Memory::SBUF, 1, 0, {3, 4});
  put(Memory::SBUF, 0, 64, {1, 0, 2});
  put(Memory::SBUF, 1, 64, {0, 1, 3});
  Instruction mm = op(Opcode::Matmul, psum(2, 3), sbuf(2, 2, 0));
  mm.src1 = sbuf(2, 3, 64);
  mm.start = true;
  run(mm);
  // dst[m][n] = sum_k st[k][m] * mv[k][n]
  EXPECT_EQ(get(Memory::PSUM, 0, 0, 3), (V{1, 3, 11}));
  EXPECT_EQ(get(Memory::PSUM, 1, 0, 3), (V{2, 4, 16}));
  mm.start = false;
  run(mm);
  EXPECT_EQ(get(Memory::PSUM, 1, 0, 3), (V{4, 8, 32}));

  Instruction tr = op(Opcode::Transpose, psum(3, 2, 512), sbuf(2, 3, 64));
  run(tr);
  EXPECT_EQ(get(Memory::PSUM, 2, 512, 2), (V{2, 3}));
}

TEST_F(Semantics, MatmulBf16Inputs) {
  put(Memory::SBUF, 0, 0, {1.5f}, DType::BF16);
  put(Memory::SBUF, 0, 64, {2.0f, -0.5f}, DType::BF16);
  Instruction mm = op(Opcode::Matmul, psum(1, 2), sbuf(1, 1, 0, DType::BF16));
  mm.src1 = sbuf(1, 2, 64, DType::BF16);
  run(mm);
  EXPECT_EQ(get(Memory::PSUM, 0, 0, 2), (V{3.0f, -0.75f}));
}

TEST_F(Semantics, MatmulFp8DoubleRow) {
  // K = 4 on two partitions: partition p holds contraction rows 2p and
  // 2p + 1 of each column side by side. stationary [K=4, M=2] (columns
  // {1,2,3,4} and {0.5,0,-1,2}), moving [K=4, N=1] = {1,10,100,1000}.
  put(Memory::SBUF, 0, 0, {1, 2, 0.5f, 0}, DType::FP8E4M3);
  put(Memory::SBUF, 1, 0, {3, 4, -1, 2}, DType::FP8E4M3);
  put(Memory::SBUF, 0, 64, {1, 10}, DType::FP8E5M2);
  put(Memory::SBUF, 1, 64, {96, 1024}, DType::FP8E5M2); // 100 rounds to 96
  Instruction mm =
      op(Opcode::Matmul, psum(2, 1),
         ap(Memory::SBUF, DType::FP8E4M3, 0, 2, 0, {{2, 2}, {1, 2}}));
  mm.src1 = ap(Memory::SBUF, DType::FP8E5M2, 0, 2, 64, {{2, 1}, {1, 2}});
  mm.rows = 2;
  run(mm);
  // m = 0: 1 + 20 + 3 x 96 + 4 x 1024; m = 1: 0.5 + 0 - 96 + 2048.
  EXPECT_EQ(get(Memory::PSUM, 0, 0, 1), (V{4405}));
  EXPECT_EQ(get(Memory::PSUM, 1, 0, 1), (V{1952.5f}));
}

TEST_F(Semantics, F32TransposeAndCopyMoveBitsExactly) {
  // Four fp8 values as one f32 word (how the compiler transposes MX
  // operands): a word whose top byte is an fp8 NaN is an f32 NaN, quiet or
  // signalling by its neighbour's bit, and a subnormal one; the PE
  // transpose and an engine copy keep every bit.
  const uint32_t words[4] = {0x7F800001u, 0xFFBF1234u, 0x00000003u,
                             0x3F80FF7Eu};
  std::memcpy(state.base(Memory::SBUF, 0), words, 16);
  run(op(Opcode::Transpose, psum(4, 1, 0), sbuf(1, 4, 0)));
  run(op(Opcode::TensorCopy, sbuf(4, 1, 256), psum(4, 1, 0)));
  for (int p = 0; p < 4; ++p) {
    uint32_t got;
    std::memcpy(&got, state.base(Memory::SBUF, p) + 256, 4);
    EXPECT_EQ(got, words[p]) << p;
  }
}

TEST_F(Semantics, Bf16TransposeWidensBitsExactly) {
  // Two packed fp4 pairs as one bf16 (how the compiler transposes MXFP4
  // operands): signalling and quiet NaN patterns, an infinity, -0 and a
  // subnormal land in the upper half of their f32 words, which a copy
  // moves as they are.
  const uint16_t halves[5] = {0x7F81u, 0xFFC5u, 0xFF80u, 0x8000u, 0x0011u};
  std::memcpy(state.base(Memory::SBUF, 0), halves, 10);
  run(op(Opcode::Transpose, psum(5, 1, 0), sbuf(1, 5, 0, DType::BF16)));
  run(op(Opcode::TensorCopy, sbuf(5, 1, 256), psum(5, 1, 0)));
  for (int p = 0; p < 5; ++p) {
    uint32_t got;
    std::memcpy(&got, state.base(Memory::SBUF, p) + 256, 4);
    EXPECT_EQ(got, uint32_t(halves[p]) << 16) << p;
  }
}

TEST_F(Semantics, MatmulMxQuadRow) {
  // K = 32 on 8 partitions (one scale block): partition p holds rows
  // 4p .. 4p + 3. Stationary column 0 = 1 everywhere, scale 2^3; moving
  // column 0 = 0.5 everywhere (e2m1 code 1, two a byte), scale 2^-1:
  // 32 x (1 x 8) x (0.5 x 0.5) = 64.
  for (int p = 0; p < 8; ++p) {
    put(Memory::SBUF, p, 0, {1, 1, 1, 1}, DType::FP8E4M3);
    uint8_t pair = 0x11; // two e2m1 0.5s
    state.base(Memory::SBUF, p)[64] = pair;
    state.base(Memory::SBUF, p)[65] = pair;
  }
  put(Memory::SBUF, 0, 128, {8.0f}, DType::E8M0);
  put(Memory::SBUF, 0, 192, {0.5f}, DType::E8M0);
  Instruction mm =
      op(Opcode::MatmulMx, psum(1, 1),
         ap(Memory::SBUF, DType::FP8E4M3, 0, 8, 0, {{4, 1}, {1, 4}}));
  mm.src1 = ap(Memory::SBUF, DType::FP4E2M1X2, 0, 8, 64, {{2, 1}, {1, 2}});
  mm.src2 = sbuf(1, 1, 128, DType::E8M0);
  mm.src3 = sbuf(1, 1, 192, DType::E8M0);
  run(mm);
  EXPECT_EQ(get(Memory::PSUM, 0, 0, 1), (V{64}));
  // A NaN scale makes its block NaN.
  put(Memory::SBUF, 0, 192, {NAN}, DType::E8M0);
  run(mm);
  EXPECT_TRUE(std::isnan(get(Memory::PSUM, 0, 0, 1)[0]));
}

TEST_F(Semantics, DmaCopyWithCastAndStrides) {
  // HBM [2, 3] f32 -> SBUF 2 partitions as bf16, then back transposed.
  float src[6] = {1, 2, 3, 4, 5, 6.00390625f};
  std::memcpy(state.hbm.data(), src, sizeof src);
  run(op(Opcode::DmaCopy, sbuf(2, 3, 0, DType::BF16), hbm(0, 2, 3)));
  EXPECT_EQ(get(Memory::SBUF, 1, 0, 3, DType::BF16), (V{4, 5, 6}));
  // SBUF [2 partitions, 3] -> HBM column-major [3, 2] f32.
  run(op(Opcode::DmaCopy,
         ap(Memory::HBM, DType::F32, 0, 1, 64, {{1, 2}, {2, 3}}),
         sbuf(2, 3, 0, DType::BF16)));
  float out[6];
  std::memcpy(out, state.hbm.data() + 64, sizeof out);
  EXPECT_EQ(V(out, out + 6), (V{1, 4, 2, 5, 3, 6}));
}

TEST_F(Semantics, MatmulKernelsAgreeBitForBit) {
  // Odd sizes exercise every remainder path of the blocked kernels.
  const int K = 50, M = 37, N = 77;
  std::vector<float> A(K * M), B(K * N);
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return float(int32_t(seed >> 8) % 2001 - 1000) / 977.0f;
  };
  for (float &x : A)
    x = rnd();
  for (float &x : B)
    x = rnd();
  std::vector<float> pack, ref(M * N, 0.5f);
  matmulF32(MatmulKernelKind::Portable, A.data(), B.data(), ref.data(), N, K, M,
            N, /*accumulate=*/true, pack);
  for (MatmulKernelKind k :
       {MatmulKernelKind::Avx2, MatmulKernelKind::Avx512}) {
    if (!matmulKernelSupported(k))
      continue;
    std::vector<float> got(M * N, 0.5f);
    matmulF32(k, A.data(), B.data(), got.data(), N, K, M, N, true, pack);
    EXPECT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * 4))
        << matmulKernelName(k);
  }
  // And the documented order: fma over k ascending from the old value.
  float expect = 0.5f;
  for (int k = 0; k < K; ++k)
    expect = std::fma(A[k * M + 5], B[k * N + 7], expect);
  EXPECT_EQ(ref[5 * N + 7], expect);
}

} // namespace
} // namespace nki::sim::test
