//===- ExecuteDma.cpp - DMA copy semantics --------------------------------===//
//
// dst = src0 element by element in row-major order (on chip: partitions
// outermost). Same dtypes copy bytes exactly; a cast goes through fp32 like
// the engines' stores (round to nearest even, saturating).
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "Execute.h"
#include "Strings.h"

#include <cstring>

namespace nki::sim {

using isa::AccessPattern;

namespace {

int64_t totalElements(const AccessPattern &ap) {
  return partitionsOf(ap) * elementsPerRow(ap);
}

/// Gathers `ap`'s elements into `out` (raw bytes of its dtype), in order.
void gather(MachineState &state, const AccessPattern &ap, uint8_t *out) {
  int64_t eb = elementBytes(ap);
  for (int32_t p = 0; p < partitionsOf(ap); ++p) {
    const uint8_t *base = ap.memory == isa::Memory::HBM
                              ? state.base(ap.memory, 0)
                              : state.base(ap.memory, ap.startPartition + p);
    forEachRow(ap, [&](int64_t off, int64_t n, int64_t stride) {
      if (stride == eb) {
        std::memcpy(out, base + off, n * eb);
      } else {
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(out + i * eb, base + off + i * stride, eb);
      }
      out += n * eb;
    });
  }
}

void scatter(MachineState &state, const AccessPattern &ap, const uint8_t *in) {
  int64_t eb = elementBytes(ap);
  for (int32_t p = 0; p < partitionsOf(ap); ++p) {
    uint8_t *base = ap.memory == isa::Memory::HBM
                        ? state.base(ap.memory, 0)
                        : state.base(ap.memory, ap.startPartition + p);
    forEachRow(ap, [&](int64_t off, int64_t n, int64_t stride) {
      if (stride == eb) {
        std::memcpy(base + off, in, n * eb);
      } else {
        for (int64_t i = 0; i < n; ++i)
          std::memcpy(base + off + i * stride, in + i * eb, eb);
      }
      in += n * eb;
    });
  }
}

} // namespace

absl::Status executeDma(MachineState &state, const isa::Instruction &inst,
                        ExecScratch &s) {
  const AccessPattern &src = inst.src0, &dst = inst.dst;
  int64_t n = totalElements(src);
  if (n != totalElements(dst))
    return absl::InvalidArgumentError(cat("dma_copy moves ", n,
                                          " elements from src0 into ",
                                          totalElements(dst), " of dst"));
  size_t srcBytes = size_t(n) * elementBytes(src);
  if (s.bytes.size() < srcBytes)
    s.bytes.resize(srcBytes);
  gather(state, src, s.bytes.data());
  if (src.dtype == dst.dtype) {
    scatter(state, dst, s.bytes.data());
    return absl::OkStatus();
  }
  if (int64_t(s.a.size()) < n)
    s.a.resize(n);
  loadRun(src.dtype, s.bytes.data(), n, elementBytes(src), s.a.data());
  // The source bytes are consumed: the buffer now holds the cast values.
  std::vector<uint8_t> &converted = s.bytes;
  size_t dstBytes = size_t(n) * elementBytes(dst);
  if (converted.size() < dstBytes)
    converted.resize(dstBytes);
  storeRun(dst.dtype, s.a.data(), n, converted.data(), elementBytes(dst));
  scatter(state, dst, converted.data());
  return absl::OkStatus();
}

} // namespace nki::sim
