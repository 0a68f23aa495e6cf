//===- Access.h - Walking access patterns over machine memory --*- C++ -*-===//
//
// An access pattern names the same byte pattern in each of its partitions
// (HBM: one "partition"). Everything the simulator does with an operand goes
// through the rows of that pattern (the innermost dimension) or its
// coalesced byte runs, so cost follows the pattern's shape, not its bytes.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_ACCESS_H
#define NKI_LIB_SIMULATOR_ACCESS_H

#include "nki/ISA/Instruction.h"

#include <cstdint>
#include <vector>

namespace nki::sim {

/// A contiguous byte range within a partition (or HBM).
struct ByteRun {
  int64_t offset = 0;
  int64_t bytes = 0;
};

inline int64_t elementBytes(const isa::AccessPattern &ap) {
  return isa::dtypeBytes(ap.dtype);
}

inline int64_t elementsPerRow(const isa::AccessPattern &ap) {
  int64_t n = 1;
  for (int d = 0; d < ap.rank; ++d)
    n *= ap.dims[d].size;
  return n;
}

/// On-chip operands have partitions; HBM operands are one row of elements.
inline int32_t partitionsOf(const isa::AccessPattern &ap) {
  return ap.memory == isa::Memory::HBM ? 1 : ap.numPartitions;
}

/// Calls fn(byteOffset, count, strideBytes) for every innermost row of `ap`
/// in row-major order; offsets are relative to the partition (or HBM) base.
template <typename Fn> void forEachRow(const isa::AccessPattern &ap, Fn &&fn) {
  int64_t eb = elementBytes(ap);
  int r = ap.rank;
  if (r == 0) {
    fn(ap.offset, int64_t(1), eb);
    return;
  }
  const isa::Dim &inner = ap.dims[r - 1];
  int64_t idx[isa::AccessPattern::kMaxDims] = {};
  while (true) {
    int64_t off = ap.offset;
    for (int d = 0; d + 1 < r; ++d)
      off += idx[d] * ap.dims[d].stride * eb;
    fn(off, inner.size, inner.stride * eb);
    int d = r - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < ap.dims[d].size)
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// The byte runs `ap` touches in one partition, in visiting order, adjacent
/// runs merged. `out` is cleared first.
void collectRuns(const isa::AccessPattern &ap, std::vector<ByteRun> &out);

/// [lo, hi) bytes relative to the partition base that `ap` may touch, in
/// 128-bit arithmetic so that no stride or offset can overflow.
void byteExtent(const isa::AccessPattern &ap, __int128 &lo, __int128 &hi);

/// Loads `n` elements of `dtype` at stride `strideBytes` as fp32.
void loadRun(isa::DType dtype, const uint8_t *src, int64_t n,
             int64_t strideBytes, float *out);
/// Stores `n` fp32 values as `dtype` (round to nearest even, saturating).
void storeRun(isa::DType dtype, const float *in, int64_t n, uint8_t *dst,
              int64_t strideBytes);

/// Loads every element of one partition of `ap` (base = partition base).
inline void loadRow(const isa::AccessPattern &ap, const uint8_t *base,
                    float *out) {
  if (ap.rank == 1) { // the common case, without the odometer
    loadRun(ap.dtype, base + ap.offset, ap.dims[0].size,
            ap.dims[0].stride * elementBytes(ap), out);
    return;
  }
  forEachRow(ap, [&](int64_t off, int64_t n, int64_t stride) {
    loadRun(ap.dtype, base + off, n, stride, out);
    out += n;
  });
}
inline void storeRow(const isa::AccessPattern &ap, uint8_t *base,
                     const float *in) {
  if (ap.rank == 1) {
    storeRun(ap.dtype, in, ap.dims[0].size, base + ap.offset,
             ap.dims[0].stride * elementBytes(ap));
    return;
  }
  forEachRow(ap, [&](int64_t off, int64_t n, int64_t stride) {
    storeRun(ap.dtype, in, n, base + off, stride);
    in += n;
  });
}

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_ACCESS_H
