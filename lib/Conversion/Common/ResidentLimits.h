//===- ResidentLimits.h - SBUF the resident plan gives tensors -*- C++ -*-===//
//
// The limits nki-tile's resident plan (Tiling/Residents.cpp) keeps tensors
// between kernels within, and that the graph passes deciding by SBUF size
// (nki-split-batch) estimate it with: one home for both.
//
//===----------------------------------------------------------------------===//

#ifndef NKI_CONVERSION_COMMON_RESIDENTLIMITS_H
#define NKI_CONVERSION_COMMON_RESIDENTLIMITS_H

#include "nki/ISA/Target.h"

#include <cstdint>

namespace nki::resident {

/// Room for a kernel's evacuated chunks, epilogue operands and output tiles
/// beside its filter and input bands.
constexpr int64_t kKernelScratchBytes = 32 * 1024;

/// A resident tensor takes at most 1 / kMaxResidentShare of SBUF.
constexpr int64_t kMaxResidentShare = 2;

/// Bytes per partition one resident tensor may take.
inline int64_t maxTensorBytes(const isa::TargetDesc &t) {
  return t.sbufBytesPerPartition / kMaxResidentShare;
}

/// Bytes per partition the resident tensors may take at once beside a
/// kernel that reads and writes them in place (a channel-major elementwise
/// pass, an upsample, a fill): SBUF less two scratch areas. A convolution
/// leaves them less (its filter and bands), a pooling more.
inline int64_t liveBytesBesideAKernel(const isa::TargetDesc &t) {
  return t.sbufBytesPerPartition - 2 * kKernelScratchBytes;
}

} // namespace nki::resident

#endif // NKI_CONVERSION_COMMON_RESIDENTLIMITS_H
