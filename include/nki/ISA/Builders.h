//===- Builders.h - Building instructions by hand --------------*- C++ -*-===//
//
// For programs written directly against the ISA (simulator examples,
// benchmarks, unit tests): one way to spell an access pattern.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_BUILDERS_H
#define NKI_ISA_BUILDERS_H

#include "nki/ISA/Instruction.h"

#include <initializer_list>

namespace nki::isa {

/// An access pattern from its fields; `dims` are (stride, size) in elements,
/// outermost first (at most AccessPattern::kMaxDims).
inline AccessPattern makeAccessPattern(Memory memory, DType dtype,
                                       int32_t startPartition,
                                       int32_t numPartitions, int64_t offset,
                                       std::initializer_list<Dim> dims) {
  AccessPattern a;
  a.memory = memory;
  a.dtype = dtype;
  a.startPartition = startPartition;
  a.numPartitions = numPartitions;
  a.offset = offset;
  for (const Dim &d : dims)
    a.dims[a.rank++] = d;
  return a;
}

} // namespace nki::isa

#endif // NKI_ISA_BUILDERS_H
