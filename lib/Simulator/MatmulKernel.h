//===- MatmulKernel.h - The PE's fp32 matmul arithmetic --------*- C++ -*-===//
//
// C[m][n] = (accumulate ? C[m][n] : 0) + sum_k A[k][m] * B[k][n], where each
// step is one fp32 fused multiply-add and k runs in ascending order. That
// order and rounding is the simulator's documented matmul semantics; every
// kernel below (AVX-512, AVX2, portable) computes it bit-identically, so
// results never depend on the host CPU. The fast kernels are chosen at run
// time from the CPU's features, so the library itself stays baseline x86-64.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_MATMULKERNEL_H
#define NKI_LIB_SIMULATOR_MATMULKERNEL_H

#include <cstdint>
#include <vector>

namespace nki::sim {

enum class MatmulKernelKind { Portable, Avx2, Avx512 };

/// The fastest kernel this CPU runs (NKI_SIM_KERNEL=portable|avx2|avx512
/// lowers the choice, for testing).
MatmulKernelKind bestMatmulKernel();
bool matmulKernelSupported(MatmulKernelKind kind);
const char *matmulKernelName(MatmulKernelKind kind);

/// A: K x M row-major (lda = M); B: K x N row-major (ldb = N);
/// C: M rows of N at row stride ldc floats. `pack` is reusable scratch.
void matmulF32(MatmulKernelKind kind, const float *A, const float *B, float *C,
               int64_t ldc, int K, int M, int N, bool accumulate,
               std::vector<float> &pack);

// Per-ISA entry points (MatmulAvx512.cpp, MatmulAvx2.cpp): same contract,
// `pack` at least K * 64 floats.
void matmulF32Avx512(const float *A, const float *B, float *C, int64_t ldc,
                     int K, int M, int N, bool accumulate, float *pack);
void matmulF32Avx2(const float *A, const float *B, float *C, int64_t ldc, int K,
                   int M, int N, bool accumulate, float *pack);

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_MATMULKERNEL_H
