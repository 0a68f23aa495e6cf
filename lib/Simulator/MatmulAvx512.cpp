//===- MatmulAvx512.cpp - The matmul kernel for AVX-512 CPUs --------------===//
//
// Compiled with -mavx512f -mfma; only called after a run-time CPU check.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernel.h"

#include <immintrin.h>

namespace {
struct VT {
  using V = __m512;
  static constexpr int L = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, V v) { _mm512_storeu_ps(p, v); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
};
} // namespace

#include "MatmulKernel.inc"

void nki::sim::matmulF32Avx512(const float *A, const float *B, float *C,
                               int64_t ldc, int K, int M, int N,
                               bool accumulate, float *pack) {
  // 6 x 4 vectors: 24 accumulators + 4 B vectors + 1 broadcast of 32 zmm.
  matmulBlocked<6, 4>(A, B, C, ldc, K, M, N, accumulate, pack);
}
