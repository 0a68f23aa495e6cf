//===- Access.cpp - Walking access patterns over machine memory -----------===//

#include "Access.h"

#include <algorithm>
#include <cstring>

namespace nki::sim {

void collectRuns(const isa::AccessPattern &ap, std::vector<ByteRun> &out) {
  out.clear();
  int64_t eb = elementBytes(ap);
  forEachRow(ap, [&](int64_t off, int64_t n, int64_t stride) {
    // A row is one run when its elements are adjacent, else one per element.
    bool dense = stride == eb || n == 1;
    int64_t runs = dense ? 1 : n;
    int64_t len = dense ? n * eb : eb;
    for (int64_t i = 0; i < runs; ++i) {
      int64_t start = off + i * stride;
      if (!out.empty() && out.back().offset + out.back().bytes == start)
        out.back().bytes += len;
      else
        out.push_back({start, len});
    }
  });
}

void byteExtent(const isa::AccessPattern &ap, __int128 &lo, __int128 &hi) {
  int64_t eb = elementBytes(ap);
  lo = ap.offset;
  hi = ap.offset;
  for (int d = 0; d < ap.rank; ++d) {
    __int128 span = __int128(ap.dims[d].size - 1) * ap.dims[d].stride * eb;
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  hi += eb;
}

void loadRun(isa::DType dtype, const uint8_t *src, int64_t n,
             int64_t strideBytes, float *out) {
  switch (dtype) {
  case isa::DType::F32:
    if (strideBytes == 4 && n > 16) {
      std::memcpy(out, src, n * 4);
      return;
    }
    // Short rows: a loop beats a call to memcpy.
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out + i, src + i * strideBytes, 4);
    return;
  case isa::DType::BF16:
    for (int64_t i = 0; i < n; ++i) {
      uint16_t b;
      std::memcpy(&b, src + i * strideBytes, 2);
      uint32_t bits = uint32_t(b) << 16;
      std::memcpy(out + i, &bits, 4);
    }
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      out[i] = isa::loadElement(dtype, src + i * strideBytes);
    return;
  }
}

void storeRun(isa::DType dtype, const float *in, int64_t n, uint8_t *dst,
              int64_t strideBytes) {
  switch (dtype) {
  case isa::DType::F32:
    if (strideBytes == 4 && n > 16) {
      std::memcpy(dst, in, n * 4);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dst + i * strideBytes, in + i, 4);
    return;
  case isa::DType::BF16:
    for (int64_t i = 0; i < n; ++i) {
      uint16_t b = isa::floatToBF16(in[i]);
      std::memcpy(dst + i * strideBytes, &b, 2);
    }
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      isa::storeElement(dtype, in[i], dst + i * strideBytes);
    return;
  }
}

} // namespace nki::sim
