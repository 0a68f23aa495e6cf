//===- MatmulAvx2.cpp - The matmul kernel for AVX2+FMA CPUs ---------------===//
//
// Compiled with -mavx2 -mfma; only called after a run-time CPU check.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernel.h"

#include <immintrin.h>

namespace {
struct VT {
  using V = __m256;
  static constexpr int L = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, V v) { _mm256_storeu_ps(p, v); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
};
} // namespace

#include "MatmulKernel.inc"

void nki::sim::matmulF32Avx2(const float *A, const float *B, float *C,
                             int64_t ldc, int K, int M, int N, bool accumulate,
                             float *pack) {
  // 4 x 3 vectors: 12 accumulators + 3 B vectors + 1 broadcast of 16 ymm.
  matmulBlocked<4, 3>(A, B, C, ldc, K, M, N, accumulate, pack);
}
