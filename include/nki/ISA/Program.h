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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nki::isa {

enum class TensorKind : uint8_t { Input, Output, Constant, Scratch };
std::string_view tensorKindName(TensorKind k); // input, output, const, scratch

/// The element type the host reads and writes for an I/O tensor whose model
/// type has no machine dtype: ONNX INT64 is carried as i32 on the device,
/// DOUBLE as f32, BOOL as a u8 0/1 byte, UINT8/INT16/UINT16/UINT32/UINT64
/// as i32. nki-run converts host data to the device dtype (refusing values
/// the device dtype cannot hold) and reads outputs back in the host type
/// (integers wrap to its width, as a C cast does). `Device` means the host
/// type is the device dtype. Entries are only appended (nkb.proto).
enum class HostType : uint8_t {
  Device,
  I64,
  F64,
  Bool,
  U8,
  I16,
  U16,
  U32,
  U64
};
constexpr uint32_t kNumHostTypes = 9;
std::string_view hostTypeName(HostType h); // device, i64, f64, bool, u8, ...
std::optional<HostType> parseHostType(std::string_view name);

/// A tensor in HBM: row-major, contiguous, at `hbmOffset` bytes.
struct TensorDecl {
  std::string name;
  TensorKind kind = TensorKind::Input;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t hbmOffset = 0;
  /// Constants: raw little-endian element bytes, owned (`data`) or borrowed
  /// (`borrowed`, when `data` is empty: bytes its builder keeps alive while
  /// the program is used, such as an IR attribute's, so that a model's
  /// weights are not copied to be checked or encoded).
  std::string data;
  HostType host = HostType::Device; // inputs and outputs only
  std::string_view borrowed = {};

  int64_t numElements() const;
  int64_t sizeBytes() const { return numElements() * dtypeBytes(dtype); }
  /// The constant's bytes, owned or borrowed.
  std::string_view bytes() const {
    return data.empty() ? borrowed : std::string_view(data);
  }
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
