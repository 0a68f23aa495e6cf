//===- MatmulKernel.cpp - Kernel choice and the portable kernel -----------===//

#include "MatmulKernel.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace nki::sim {

bool matmulKernelSupported(MatmulKernelKind kind) {
  switch (kind) {
  case MatmulKernelKind::Portable:
    return true;
  case MatmulKernelKind::Avx2:
#if defined(__x86_64__) && !defined(NKI_SIM_PORTABLE_ONLY)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
  case MatmulKernelKind::Avx512:
#if defined(__x86_64__) && !defined(NKI_SIM_PORTABLE_ONLY)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
  }
  return false;
}

const char *matmulKernelName(MatmulKernelKind kind) {
  switch (kind) {
  case MatmulKernelKind::Portable:
    return "portable";
  case MatmulKernelKind::Avx2:
    return "avx2";
  case MatmulKernelKind::Avx512:
    return "avx512";
  }
  return "?";
}

MatmulKernelKind bestMatmulKernel() {
  static const MatmulKernelKind best = [] {
    MatmulKernelKind cap = MatmulKernelKind::Avx512;
    if (const char *env = std::getenv("NKI_SIM_KERNEL")) {
      if (!std::strcmp(env, "portable"))
        cap = MatmulKernelKind::Portable;
      else if (!std::strcmp(env, "avx2"))
        cap = MatmulKernelKind::Avx2;
    }
    for (MatmulKernelKind k :
         {MatmulKernelKind::Avx512, MatmulKernelKind::Avx2})
      if (int(k) <= int(cap) && matmulKernelSupported(k))
        return k;
    return MatmulKernelKind::Portable;
  }();
  return best;
}

namespace {

/// Same arithmetic as the vector kernels, one C row at a time: the k loop is
/// outermost per row, so each element still sees k ascending.
void matmulPortable(const float *A, const float *B, float *C, int64_t ldc,
                    int K, int M, int N, bool accumulate) {
  for (int m = 0; m < M; ++m) {
    float *c = C + m * ldc;
    if (!accumulate)
      std::memset(c, 0, sizeof(float) * N);
    for (int k = 0; k < K; ++k) {
      float a = A[int64_t(k) * M + m];
      const float *b = B + int64_t(k) * N;
      for (int n = 0; n < N; ++n)
        c[n] = std::fma(a, b[n], c[n]);
    }
  }
}

} // namespace

void matmulF32(MatmulKernelKind kind, const float *A, const float *B, float *C,
               int64_t ldc, int K, int M, int N, bool accumulate,
               std::vector<float> &pack) {
  if (pack.size() < size_t(K) * 64)
    pack.resize(size_t(K) * 64);
  switch (kind) {
#ifndef NKI_SIM_PORTABLE_ONLY
  case MatmulKernelKind::Avx512:
    return matmulF32Avx512(A, B, C, ldc, K, M, N, accumulate, pack.data());
  case MatmulKernelKind::Avx2:
    return matmulF32Avx2(A, B, C, ldc, K, M, N, accumulate, pack.data());
#endif
  default:
    return matmulPortable(A, B, C, ldc, K, M, N, accumulate);
  }
}

} // namespace nki::sim
