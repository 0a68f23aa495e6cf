//===- Examples.h - Programs built directly with the ISA API ---*- C++ -*-===//
//
// Hand-scheduled programs used by the benchmark (bench/), the unit tests and
// the lit tests (through nki-sim-example), independent of the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_EXAMPLES_H
#define NKI_SIMULATOR_EXAMPLES_H

#include "nki/ISA/Program.h"

#include "absl/status/statusor.h"

#include <string>

namespace nki::sim {

/// C[M, N] (fp32) = A[M, K] x B[K, N] with inputs "a_t" = A^T [K, M] (the
/// stationary layout) and "b" [K, N] of `dtype`, output "c". All of A^T is
/// loaded into SBUF once; B is loaded per 512-column tile into two buffers;
/// each 128 x 512 output tile accumulates K/128 matmuls in one of the 8 PSUM
/// banks, is copied to SBUF by DVE and stored by DMA. M and K must be
/// multiples of 128 and N a multiple of min(N, 512). With rows = 2 (fp8
/// double row) the inputs are "a_t" [K/2, M, 2] and "b" [K/2, N, 2], row r
/// of entry p being contraction index 2p + r, and K a multiple of 256. With
/// rows = 4 the matmuls are matmul_mx (MX quad row, trn3): "a_t"
/// [K/4, M, 4] and "b" [K/4, N, 4] of f8e4m3/f8e5m2 (f4e2m1x2: [.., 2]
/// bytes), and e8m0 inputs "a_scale" [K/32, M] and "b_scale" [K/32, N];
/// K a multiple of 512.
struct MatmulExample {
  int64_t M = 256, N = 256, K = 256;
  isa::DType dtype = isa::DType::F32;
  std::string target = "trn2";
  int64_t rows = 1;
};
absl::StatusOr<isa::Program> buildMatmulProgram(const MatmulExample &ex);

/// `instructions` small elementwise instructions spread over DVE, ACT and
/// POOL, each stream working in place on its own [partitions, elements]
/// fp32 tile, for measuring per-instruction simulator overhead.
struct SimpleExample {
  int64_t instructions = 1000000;
  int32_t partitions = 32;
  int64_t elements = 16;
  std::string target = "trn2";
};
isa::Program buildSimpleProgram(const SimpleExample &ex);

} // namespace nki::sim

#endif // NKI_SIMULATOR_EXAMPLES_H
