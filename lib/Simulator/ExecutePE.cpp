//===- ExecutePE.cpp - Tensor engine semantics ----------------------------===//
//
// matmul: dst[M, N] (PSUM, fp32) = stationary[K, M]^T x moving[K, N]; the
// operands are widened to fp32 (exact for every input dtype) and handed to
// the fp32 FMA kernel (MatmulKernel.h), which accumulates k ascending. An
// fp8 double-row matmul (rows = 2) first unfolds each [K/2, 2F] source to
// [K, F] (k = 2 x partition + row); every fp8 product is exact in fp32, so
// its result is the fp32 sum of the products in that order.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "Execute.h"
#include "Strings.h"

#include <cstring>

namespace nki::sim {

using isa::AccessPattern;
using isa::Instruction;

namespace {

/// Loads `ap` as a [partitions x rows, elements / rows] matrix: row
/// p * rows + r holds the elements whose innermost index is r.
void loadRowsMatrix(MachineState &state, const AccessPattern &ap, int rows,
                    std::vector<float> &buf, std::vector<float> &tmp) {
  if (rows == 1)
    return loadMatrix(state, ap, buf);
  loadMatrix(state, ap, tmp);
  int64_t parts = partitionsOf(ap), cols = elementsPerRow(ap) / rows;
  if (int64_t(buf.size()) < parts * rows * cols)
    buf.resize(parts * rows * cols);
  for (int64_t p = 0; p < parts; ++p)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        buf[(p * rows + r) * cols + c] = tmp[(p * cols + c) * rows + r];
}

/// Whether every partition row of `ap` is `n` contiguous fp32 values.
bool isDenseF32Row(const AccessPattern &ap, int64_t n) {
  if (ap.dtype != isa::DType::F32)
    return false;
  int64_t expect = 1;
  for (int d = ap.rank - 1; d >= 0; --d) {
    if (ap.dims[d].size != 1 && ap.dims[d].stride != expect)
      return false;
    expect *= ap.dims[d].size;
  }
  return expect == n;
}

/// Checks (accumulate) or sets (start) PSUM's accumulation-initialised map
/// over dst; returns the first uninitialised element's position.
absl::Status trackAccumulation(MachineState &state, const AccessPattern &dst,
                               bool start) {
  std::vector<ByteRun> runs;
  collectRuns(dst, runs);
  int64_t row = state.rowBytes(isa::Memory::PSUM);
  for (int32_t p = 0; p < dst.numPartitions; ++p) {
    int64_t part = dst.startPartition + p;
    for (const ByteRun &r : runs) {
      uint8_t *flags = state.psumAccInit.data() + (part * row + r.offset) / 4;
      int64_t n = (r.bytes + 3) / 4;
      if (start) {
        std::memset(flags, 1, n);
        continue;
      }
      if (const void *hole = std::memchr(flags, 0, n)) {
        int64_t at =
            r.offset + 4 * (static_cast<const uint8_t *>(hole) - flags);
        return absl::FailedPreconditionError(
            cat("matmul accumulates (start=false) into psum partition ", part,
                " byte ", at, " that no start-flagged matmul initialised"));
      }
    }
  }
  return absl::OkStatus();
}

} // namespace

void loadMatrix(MachineState &state, const AccessPattern &ap,
                std::vector<float> &buf) {
  int32_t rows = partitionsOf(ap);
  int64_t cols = elementsPerRow(ap);
  if (int64_t(buf.size()) < rows * cols)
    buf.resize(rows * cols);
  for (int32_t p = 0; p < rows; ++p)
    loadRow(ap, state.base(ap.memory, ap.startPartition + p),
            buf.data() + p * cols);
}

absl::Status multiplyIntoPsum(MachineState &state, const Instruction &inst,
                              ExecScratch &s) {
  const AccessPattern &dst = inst.dst;
  isa::MatmulShape shape = isa::matmulShape(inst);
  int K = int(shape.k), M = int(shape.m), N = int(shape.n);
  if (inst.src1.numPartitions != inst.src0.numPartitions ||
      dst.numPartitions != M || elementsPerRow(dst) != N)
    return absl::InvalidArgumentError(
        cat(isa::opcodeName(inst.opcode), " shapes disagree: stationary ", K,
            " x ", M, ", moving ", inst.src1.numPartitions, " x ", N, ", dst ",
            dst.numPartitions, " x ", elementsPerRow(dst)));
  if (dst.memory != isa::Memory::PSUM || dst.dtype != isa::DType::F32)
    return absl::InvalidArgumentError("matmul dst must be fp32 in psum");
  if (auto status = trackAccumulation(state, dst, inst.start); !status.ok())
    return status;
  if (isDenseF32Row(dst, N)) {
    float *C = reinterpret_cast<float *>(
        state.base(isa::Memory::PSUM, dst.startPartition) + dst.offset);
    matmulF32(s.kernel, s.matA.data(), s.matB.data(), C,
              state.rowBytes(isa::Memory::PSUM) / 4, K, M, N, !inst.start,
              s.pack);
    return absl::OkStatus();
  }
  // A strided destination: compute into a dense block, then scatter.
  if (int64_t(s.c.size()) < int64_t(M) * N)
    s.c.resize(int64_t(M) * N);
  if (!inst.start)
    loadMatrix(state, dst, s.c);
  matmulF32(s.kernel, s.matA.data(), s.matB.data(), s.c.data(), N, K, M, N,
            !inst.start, s.pack);
  storeMatrix(state, dst, s.c);
  return absl::OkStatus();
}

void storeMatrix(MachineState &state, const AccessPattern &dst,
                 const std::vector<float> &c) {
  int64_t n = elementsPerRow(dst);
  for (int32_t m = 0; m < dst.numPartitions; ++m)
    storeRow(dst, state.base(dst.memory, dst.startPartition + m),
             c.data() + int64_t(m) * n);
}

absl::Status checkAccumulation(MachineState &state, const AccessPattern &dst,
                               bool start) {
  return trackAccumulation(state, dst, start);
}

namespace {

absl::Status executeMatmul(MachineState &state, const Instruction &inst,
                           ExecScratch &s) {
  loadRowsMatrix(state, inst.src0, inst.rows, s.matA, s.d);
  loadRowsMatrix(state, inst.src1, inst.rows, s.matB, s.d);
  return multiplyIntoPsum(state, inst, s);
}

absl::Status executeTranspose(MachineState &state, const Instruction &inst,
                              ExecScratch &s) {
  const AccessPattern &src = inst.src0, &dst = inst.dst;
  int32_t P = src.numPartitions;
  int64_t F = elementsPerRow(src);
  if (dst.numPartitions != F || elementsPerRow(dst) != P)
    return absl::InvalidArgumentError(
        cat("transpose of ", P, " x ", F, " needs a ", F, " x ", P,
            " dst, got ", dst.numPartitions, " x ", elementsPerRow(dst)));
  loadMatrix(state, src, s.matA);
  if (int64_t(s.d.size()) < P)
    s.d.resize(P);
  for (int64_t f = 0; f < F; ++f) {
    for (int32_t p = 0; p < P; ++p)
      s.d[p] = s.matA[p * F + f];
    storeRow(dst, state.base(dst.memory, dst.startPartition + int32_t(f)),
             s.d.data());
  }
  return absl::OkStatus();
}

} // namespace

absl::Status executePE(MachineState &state, const Instruction &inst,
                       ExecScratch &scratch) {
  if (inst.opcode == isa::Opcode::Matmul)
    return executeMatmul(state, inst, scratch);
  if (inst.opcode == isa::Opcode::MatmulMx)
    return executeMatmulMx(state, inst, scratch);
  return executeTranspose(state, inst, scratch);
}

} // namespace nki::sim
