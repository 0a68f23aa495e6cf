//===- ChannelBytes.h - A tensor's SBUF bytes with channels on partitions -===//
//
// What the graph passes that decide by SBUF size (nki-interleave-phases,
// nki-split-batch) count for an [N, C, ...] tensor: nki-tile keeps such
// tensors with the channels (dim 1) on the partitions.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_CHANNELBYTES_H
#define NKI_LIB_CONVERSION_GRAPH_CHANNELBYTES_H

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cstdint>

namespace nki {

/// Bytes per SBUF partition of `type` with dim 1 on the partitions, in
/// blocks of `partitions` (a rank-1 tensor: all of it on one partition).
inline int64_t channelMajorBytesPerPartition(mlir::RankedTensorType type,
                                             int64_t partitions) {
  int64_t elements = type.getNumElements();
  if (type.getRank() >= 2 && type.getDimSize(1) > 0)
    elements = (type.getDimSize(1) + partitions - 1) / partitions *
               (elements / type.getDimSize(1));
  return elements * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// Bytes per SBUF partition of an [N, C, H, W] `type` of fewer channels
/// than partitions with its rows spread over the partitions the channels
/// leave free (nki-tile's packed band tiles): bands of H / (partitions / C)
/// rows, each with the two rows of halo a 3x3 reader needs, at most
/// channelMajorBytesPerPartition.
inline int64_t packedBytesPerPartition(mlir::RankedTensorType type,
                                       int64_t partitions) {
  int64_t channelMajor = channelMajorBytesPerPartition(type, partitions);
  if (type.getRank() != 4 || type.getDimSize(1) >= partitions ||
      type.getDimSize(1) < 1)
    return channelMajor;
  int64_t bands = partitions / type.getDimSize(1);
  int64_t rows = (type.getDimSize(2) + bands - 1) / bands + 2;
  return std::min(channelMajor, type.getDimSize(0) * rows * type.getDimSize(3) *
                                    ((type.getElementTypeBitWidth() + 7) / 8));
}

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_CHANNELBYTES_H
