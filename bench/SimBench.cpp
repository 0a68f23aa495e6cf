//===- SimBench.cpp - Simulator speed against OpenBLAS sgemm --------------===//
//
// 1. The 2048^3 fp32 matmul program of Examples.h (DMA in, 128 x 128 x 512
//    matmul tiles accumulating over K in PSUM, DVE copy-out, DMA out),
//    simulated with every check on, next to cblas_sgemm on the same sizes.
// 2. Instruction throughput on streams of small DVE/ACT/POOL instructions.
// Results go to docs/performance.md. Run on an idle machine:
//   nki-sim-bench [--size N] [--instructions COUNT] [--partitions P]
// (--size 0 skips the matmul; --partitions picks one throughput tile).
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Types.h"
#include "nki/Simulator/Examples.h"
#include "nki/Simulator/Simulator.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

// OpenBLAS's CBLAS entry points, declared here so the benchmark does not
// depend on which cblas.h the system's alternatives select.
extern "C" {
void cblas_sgemm(int order, int transA, int transB, int M, int N, int K,
                 float alpha, const float *A, int lda, const float *B, int ldb,
                 float beta, float *C, int ldc);
void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);
}

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

double seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// Best of `runs` in process CPU seconds: the machine this is measured on is
/// shared, and CPU time is what the simulator and a 1-thread sgemm consume
/// (wall time when `wall`, for the multi-threaded sgemm).
template <typename F> double bestOf(int runs, F &&f, bool wall = false) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    f();
    double s = wall ? seconds(t0, std::chrono::steady_clock::now())
                    : double(std::clock() - c0) / CLOCKS_PER_SEC;
    best = std::min(best, s);
  }
  return best;
}

int matmulBench(int64_t n) {
  using namespace nki;
  sim::MatmulExample ex;
  ex.M = ex.N = ex.K = n;
  ex.dtype = isa::DType::F32;
  auto prog = sim::buildMatmulProgram(ex);
  if (!prog.ok()) {
    std::fprintf(stderr, "%s\n", std::string(prog.status().message()).c_str());
    return 1;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> aT(n * n), b(n * n), c(n * n);
  for (float &x : aT)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  std::string hbm = sim::makeHbmImage(*prog);
  (void)sim::setTensorBytes(
      *prog, hbm, "a_t",
      std::string_view(reinterpret_cast<char *>(aT.data()), aT.size() * 4));
  (void)sim::setTensorBytes(
      *prog, hbm, "b",
      std::string_view(reinterpret_cast<char *>(b.data()), b.size() * 4));

  sim::SimResult result;
  double simSec = bestOf(3, [&] {
    auto r = sim::simulate(*prog, hbm);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str());
      std::exit(1);
    }
    result = std::move(*r);
  });
  int64_t instructions = result.report.instructions;
  sim::SimOptions noChecks;
  noChecks.verifyInstructions = false;
  noChecks.checkRaces = noChecks.checkUninitialized = false;
  double simNoCheckSec =
      bestOf(3, [&] { (void)sim::simulate(*prog, hbm, noChecks); });

  // C = A x B with A given transposed: sgemm(TransA).
  int threads = openblas_get_num_threads();
  auto sgemm = [&] {
    cblas_sgemm(kRowMajor, kTrans, kNoTrans, int(n), int(n), int(n), 1.0f,
                aT.data(), int(n), b.data(), int(n), 0.0f, c.data(), int(n));
  };
  sgemm(); // warm up (thread pool, pages)
  double blasSec = bestOf(3, sgemm, /*wall=*/true);
  openblas_set_num_threads(1);
  sgemm();
  double blas1Sec = bestOf(3, sgemm);
  openblas_set_num_threads(threads);

  // The simulator's result against OpenBLAS's.
  std::vector<float> got(n * n);
  std::memcpy(got.data(), result.hbm.data() + 2 * n * n * 4, n * n * 4);
  double maxRel = 0;
  for (int64_t i = 0; i < n * n; ++i)
    maxRel = std::max(maxRel, std::fabs(double(got[i]) - c[i]) /
                                  (std::fabs(double(c[i])) + 1.0));

  double flops = 2.0 * double(n) * n * n;
  std::printf("matmul %lldx%lldx%lld fp32 (%lld instructions, simulated "
              "%.3f us, PE utilisation %.1f %%)\n",
              (long long)n, (long long)n, (long long)n, (long long)instructions,
              result.report.totalPs * 1e-6, 100 * result.report.peUtilisation);
  std::printf("  %-36s %10s %12s %10s\n", "", "CPU s", "GFLOP/s", "vs sgemm");
  auto row = [&](const char *name, double s, double ref) {
    std::printf("  %-36s %10.4f %12.1f %9.2fx\n", name, s, flops / s * 1e-9,
                s / ref);
  };
  row("nki simulate (all checks)", simSec, blas1Sec);
  row("nki simulate (no checks)", simNoCheckSec, blas1Sec);
  row("OpenBLAS sgemm, 1 thread", blas1Sec, blas1Sec);
  char label[64];
  std::snprintf(label, sizeof label, "OpenBLAS sgemm, %d threads (wall)",
                threads);
  row(label, blasSec, blas1Sec);
  std::printf("  max |sim - sgemm| / (|sgemm| + 1) = %.3g\n", maxRel);
  return 0;
}

int throughputBench(int64_t count, int onlyParts) {
  using namespace nki;
  std::printf("\ninstruction throughput (%lld instructions over DVE, ACT, "
              "POOL)\n",
              (long long)count);
  std::printf("  %-14s %-14s %12s %14s\n", "tile", "checks", "CPU s",
              "instr/s");
  for (auto [parts, elems] : {std::pair{1, 1}, {32, 16}, {128, 64}}) {
    if (onlyParts && parts != onlyParts)
      continue;
    sim::SimpleExample ex;
    ex.instructions = count;
    ex.partitions = parts;
    ex.elements = elems;
    isa::Program prog = sim::buildSimpleProgram(ex);
    // all: as simulate() defaults; races+uninit: as nki-run runs a decoded
    // (hence already verified) binary; none: timing and semantics only.
    for (int level : {2, 1, 0}) {
      if (const char *only = std::getenv("NKI_BENCH_LEVEL"))
        if (std::atoi(only) != level)
          continue;
      sim::SimOptions opts;
      opts.verifyInstructions = level == 2;
      opts.checkRaces = opts.checkUninitialized = level >= 1;
      double s = bestOf(2, [&] {
        auto r = sim::simulate(prog, sim::makeHbmImage(prog), opts);
        if (!r.ok()) {
          std::fprintf(stderr, "%s\n",
                       std::string(r.status().message()).c_str());
          std::exit(1);
        }
      });
      char tile[32];
      std::snprintf(tile, sizeof tile, "[%d, %d] f32", parts, elems);
      std::printf("  %-14s %-14s %12.4f %14.3g\n", tile,
                  level == 2 ? "all"
                  : level    ? "races+uninit"
                             : "none",
                  s, double(count) / s);
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int64_t size = 2048, count = 3000000;
  int onlyParts = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--size"))
      size = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--instructions"))
      count = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--partitions"))
      onlyParts = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "usage: nki-sim-bench [--size N] [--instructions COUNT] "
                   "[--partitions 1|32|128]\n");
      return 2;
    }
  }
  if (size > 0) // --size 0 measures only the throughput
    if (int rc = matmulBench(size))
      return rc;
  return throughputBench(count, onlyParts);
}
