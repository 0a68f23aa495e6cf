//===- Program.h - A whole program: tensors and streams --------*- C++ -*-===//
//
// What a .nkb binary holds (Binary.h encodes and decodes it): the target, the
// I/O tensor table with HBM placement, constants, the semaphore count and one
// instruction stream per engine and per DMA queue.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_PROGRAM_H
#define NKI_ISA_PROGRAM_H

#include "nki/ISA/Instruction.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nki::isa {

enum class TensorKind : uint8_t { Input, Output, Constant, Scratch };
std::string_view tensorKindName(TensorKind k); // input, output, const, scratch

/// A tensor in HBM: row-major, contiguous, at `hbmOffset` bytes.
struct TensorDecl {
  std::string name;
  TensorKind kind = TensorKind::Input;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t hbmOffset = 0;
  std::string data; // constants: raw little-endian element bytes

  int64_t numElements() const;
  int64_t sizeBytes() const { return numElements() * dtypeBytes(dtype); }
};

struct Stream {
  StreamId id;
  std::vector<Instruction> instructions;
};

struct Program {
  std::string target = "trn2";
  std::vector<TensorDecl> tensors;
  uint32_t numSemaphores = 0;
  std::vector<Stream> streams; // at most one per StreamId, in index order

  /// The stream with `id`, created empty (in index order) when missing.
  Stream &getOrCreateStream(StreamId id);
  const TensorDecl *findTensor(std::string_view name) const;
};

} // namespace nki::isa

#endif // NKI_ISA_PROGRAM_H
