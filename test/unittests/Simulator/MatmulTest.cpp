//===- MatmulTest.cpp - Whole matmul programs against a reference ---------===//
//
// The programs come from Examples.h (DMA in, K-tiled PSUM accumulation, DVE
// copy-out, DMA out). The reference is computed here with the simulator's
// documented arithmetic (fp32 fma over k ascending), so results must match
// bit for bit, and against a double-precision product within rounding.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Types.h"
#include "nki/Simulator/Examples.h"
#include "nki/Simulator/Simulator.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace nki::sim {
namespace {

struct Inputs {
  std::vector<float> aT, b; // values exactly representable in the dtype
  std::string aBytes, bBytes;
};

Inputs randomInputs(const MatmulExample &ex, uint32_t seed) {
  Inputs in;
  int64_t eb = isa::dtypeBytes(ex.dtype);
  auto fill = [&](int64_t n, std::vector<float> &vals, std::string &bytes) {
    vals.resize(n);
    bytes.resize(n * eb);
    for (int64_t i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      float v = float(int32_t(seed >> 9) % 4001 - 2000) / 1024.0f;
      isa::storeElement(ex.dtype, v, bytes.data() + i * eb);
      vals[i] = isa::loadElement(ex.dtype, bytes.data() + i * eb);
    }
  };
  fill(ex.K * ex.M, in.aT, in.aBytes);
  fill(ex.K * ex.N, in.b, in.bBytes);
  return in;
}

void checkMatmul(const MatmulExample &ex) {
  auto prog = buildMatmulProgram(ex);
  ASSERT_TRUE(prog.ok()) << prog.status().message();
  Inputs in = randomInputs(ex, 7);
  std::string hbm = makeHbmImage(*prog);
  ASSERT_TRUE(setTensorBytes(*prog, hbm, "a_t", in.aBytes).ok());
  ASSERT_TRUE(setTensorBytes(*prog, hbm, "b", in.bBytes).ok());
  auto result = simulate(*prog, std::move(hbm));
  ASSERT_TRUE(result.ok()) << result.status().message();
  auto c = getTensorBytes(*prog, result->hbm, "c");
  ASSERT_TRUE(c.ok());
  std::vector<float> got(ex.M * ex.N);
  std::memcpy(got.data(), c->data(), c->size());

  int mismatches = 0;
  for (int64_t m = 0; m < ex.M; ++m) {
    for (int64_t n = 0; n < ex.N; ++n) {
      float acc = 0.0f;
      double exact = 0.0, mag = 0.0;
      for (int64_t k = 0; k < ex.K; ++k) {
        float a = in.aT[k * ex.M + m], b = in.b[k * ex.N + n];
        acc = std::fma(a, b, acc);
        exact += double(a) * b;
        mag += std::fabs(double(a) * b);
      }
      float g = got[m * ex.N + n];
      if (std::memcmp(&g, &acc, 4) != 0 && ++mismatches < 5)
        ADD_FAILURE() << "c[" << m << "][" << n << "] = " << g << ", expected "
                      << acc;
      EXPECT_LE(std::fabs(double(g) - exact), 1e-6 * mag + 1e-30);
    }
  }
  EXPECT_EQ(mismatches, 0);

  const SimReport &r = result->report;
  EXPECT_GT(r.peUtilisation, 0.0);
  EXPECT_LE(r.peUtilisation, 1.0);
  int64_t eb = isa::dtypeBytes(ex.dtype);
  EXPECT_EQ(r.dmaBytes, (ex.K * ex.M + ex.K * ex.N) * eb + ex.M * ex.N * 4);
  EXPECT_EQ(r.dmaHbmBytes, r.dmaBytes); // every copy loads or stores
  EXPECT_EQ(r.matmulFlops, 2 * ex.M * ex.N * ex.K);
}

TEST(MatmulProgram, Bf16_256x256x256) {
  checkMatmul({256, 256, 256, isa::DType::BF16, "trn2"});
}

TEST(MatmulProgram, F32_SeveralColumnTiles) {
  // Three 512-column tiles exercise both B buffers and buffer reuse.
  checkMatmul({256, 1536, 384, isa::DType::F32, "trn2"});
}

TEST(MatmulProgram, Bf16OnTrn1) {
  checkMatmul({128, 512, 256, isa::DType::BF16, "trn1"});
}

} // namespace
} // namespace nki::sim
