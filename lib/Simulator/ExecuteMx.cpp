//===- ExecuteMx.cpp - matmul_mx, the MX quad row
//--------------------------===//
//
// dst[m, n] (+)= sum over k ascending of fp32(a[k, m] x b[k, n] x
// 2^(sa[k/32, m] - 127) x 2^(sb[k/32, n] - 127)): each scaled product is
// rounded once to fp32 (round to nearest even, overflow to infinity) and
// added to the fp32 accumulator in contraction order. A NaN scale (e8m0
// 255) makes its block's products NaN. k = 4 x partition + row, so a scale
// row g covers source partitions 8g..8g+7.
//
// Fast path: when no scaled operand or product can leave fp32's exact range
// (the scales are within a few dozen of the bias, as quantised data's are),
// each operand is pre-scaled in fp32 exactly and the FMA kernel of plain
// matmuls gives the same sums. Otherwise each product is formed in a double
// (exact: elements have at most 4 significant bits) and rounded to fp32.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "Execute.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nki::sim {

using isa::AccessPattern;
using isa::DType;
using isa::Instruction;

namespace {

/// Every value of the element type is a multiple of 2^quantumExp and below
/// 2^ceilExp in magnitude (e5m2's infinity aside).
struct ElementRange {
  int quantumExp, ceilExp;
};

ElementRange elementRange(DType t) {
  switch (t) {
  case DType::FP8E4M3:
    return {-9, 9}; // subnormal 2^-9, max 448
  case DType::FP8E5M2:
    return {-16, 16}; // subnormal 2^-16, max 57344
  default:
    return {-1, 3}; // e2m1: 0.5 .. 6
  }
}

/// One MX source's shape and scale codes [K/32, columns]; its values are
/// unfolded to [K, columns] (k = 4p + row) in a buffer of the caller's.
struct MxOperand {
  int64_t k = 0, columns = 0;
  std::vector<uint8_t> scales;
  int minExp = 0, maxExp = 0; // over non-NaN scales, minus the bias
  bool anyScale = false;
};

/// A copy of `ap` that reads the same bytes as u8.
AccessPattern asBytes(AccessPattern ap) {
  ap.dtype = DType::U8;
  return ap;
}

void loadMxOperand(MachineState &state, const AccessPattern &data,
                   const AccessPattern &scale, MxOperand &op,
                   std::vector<float> &values, std::vector<float> &tmp) {
  int64_t parts = partitionsOf(data);
  int64_t perPart = elementsPerRow(data);
  bool fp4 = data.dtype == DType::FP4E2M1X2;
  op.k = parts * 4;
  op.columns = perPart * (fp4 ? 2 : 1) / 4;
  values.resize(op.k * op.columns);
  loadMatrix(state, fp4 ? asBytes(data) : data, tmp);
  for (int64_t p = 0; p < parts; ++p)
    for (int64_t c = 0; c < op.columns; ++c)
      for (int64_t r = 0; r < 4; ++r) {
        float v;
        if (fp4) {
          auto byte = uint8_t(tmp[p * perPart + c * 2 + r / 2]);
          v = isa::fp4E2M1ToFloat(uint8_t(r % 2 ? byte >> 4 : byte & 0xF));
        } else {
          v = tmp[p * perPart + c * 4 + r];
        }
        values[(p * 4 + r) * op.columns + c] = v;
      }
  loadMatrix(state, asBytes(scale), tmp);
  int64_t n = int64_t(partitionsOf(scale)) * op.columns;
  op.scales.resize(n);
  op.anyScale = false;
  op.minExp = 127;
  op.maxExp = -127;
  for (int64_t i = 0; i < n; ++i) {
    auto code = uint8_t(tmp[i]);
    op.scales[i] = code;
    if (code == 0xFF)
      continue;
    op.anyScale = true;
    op.minExp = std::min(op.minExp, int(code) - 127);
    op.maxExp = std::max(op.maxExp, int(code) - 127);
  }
}

float scaleOf(const MxOperand &op, int64_t k, int64_t c) {
  uint8_t code = op.scales[(k / 32) * op.columns + c];
  return code == 0xFF ? std::numeric_limits<float>::quiet_NaN()
                      : std::ldexp(1.0f, int(code) - 127);
}

/// Whether pre-scaling both operands in fp32 is exact and so is every
/// product of them (multiples of 2^-149, magnitudes below 2^128).
bool fastPathExact(const MxOperand &a, DType ta, const MxOperand &b, DType tb) {
  if (!a.anyScale || !b.anyScale)
    return true; // every product is NaN
  ElementRange ra = elementRange(ta), rb = elementRange(tb);
  const int minQuantum = -149, maxCeil = 128;
  return ra.quantumExp + a.minExp >= minQuantum &&
         rb.quantumExp + b.minExp >= minQuantum &&
         ra.quantumExp + rb.quantumExp + a.minExp + b.minExp >= minQuantum &&
         ra.ceilExp + a.maxExp <= maxCeil && rb.ceilExp + b.maxExp <= maxCeil &&
         ra.ceilExp + rb.ceilExp + a.maxExp + b.maxExp <= maxCeil;
}

/// Multiplies the unfolded values by their scales, in place.
void prescale(const MxOperand &op, std::vector<float> &values) {
  for (int64_t k = 0; k < op.k; ++k)
    for (int64_t c = 0; c < op.columns; ++c)
      values[k * op.columns + c] *= scaleOf(op, k, c);
}

/// A double rounded to fp32 to nearest even, overflow to infinity (the
/// conversion's own overflow is undefined in C++).
float roundToFloat(double d) {
  if (std::fabs(d) >= 0x1.ffffffp127)
    return std::copysign(std::numeric_limits<float>::infinity(), float(d));
  return float(d);
}

} // namespace

absl::Status executeMatmulMx(MachineState &state, const Instruction &inst,
                             ExecScratch &s) {
  // The values go straight into the fp32 kernel's operand buffers.
  MxOperand a, b;
  loadMxOperand(state, inst.src0, inst.src2, a, s.matA, s.d);
  loadMxOperand(state, inst.src1, inst.src3, b, s.matB, s.d);
  if (fastPathExact(a, inst.src0.dtype, b, inst.src1.dtype)) {
    prescale(a, s.matA);
    prescale(b, s.matB);
    return multiplyIntoPsum(state, inst, s);
  }
  const AccessPattern &dst = inst.dst;
  int64_t K = a.k, M = a.columns, N = b.columns;
  if (dst.numPartitions != M || elementsPerRow(dst) != N || b.k != K)
    return absl::InvalidArgumentError("matmul_mx shapes disagree");
  if (auto status = checkAccumulation(state, dst, inst.start); !status.ok())
    return status;
  s.c.assign(M * N, 0.0f);
  if (!inst.start)
    loadMatrix(state, dst, s.c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = s.c[m * N + n];
      for (int64_t k = 0; k < K; ++k) {
        uint8_t sa = a.scales[(k / 32) * M + m];
        uint8_t sb = b.scales[(k / 32) * N + n];
        double p = double(s.matA[k * M + m]) * double(s.matB[k * N + n]);
        if (sa == 0xFF || sb == 0xFF)
          p = std::numeric_limits<double>::quiet_NaN();
        else
          p = std::ldexp(p, int(sa) + int(sb) - 254);
        acc += roundToFloat(p);
      }
      s.c[m * N + n] = acc;
    }
  storeMatrix(state, dst, s.c);
  return absl::OkStatus();
}

} // namespace nki::sim
