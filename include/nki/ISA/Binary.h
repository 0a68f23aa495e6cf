//===- Binary.h - The .nkb binary container --------------------*- C++ -*-===//
//
// A 20-byte header (kBinaryMagic; kBinaryFormatVersion as a little-endian
// uint32; the payload's length as a little-endian uint64 and its CRC-32 as a
// little-endian uint32) and the payload, a Protobuf message
// (lib/ISA/nkb.proto): target, tensor table, constants, semaphore count,
// streams. Encoding is deterministic; decode(encode(p)) == p in every field
// the opcodes use, and the decoder accepts only canonical encodings, so
// encode(decode(b)) == b for every b it accepts. A corrupted, truncated or
// wrong-version file is an error, never a crash. docs/binary-format.md
// describes the format.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_BINARY_H
#define NKI_ISA_BINARY_H

#include "nki/ISA/Program.h"

#include "absl/status/statusor.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nki::nkb {
class Instruction;
class Program;
} // namespace nki::nkb

namespace nki::isa {

constexpr std::string_view kBinaryMagic = "NKB\x01";
constexpr uint32_t kBinaryFormatVersion = 1;
/// Magic, version, payload length, payload CRC-32; the payload follows.
constexpr size_t kBinaryHeaderBytes = 20;

/// The .nkb bytes of `program`. Protobuf caps a message at 2 GiB: a program
/// whose constants exceed that cannot be encoded (asserts; writeProgramFile
/// reports it as an error instead).
std::string encodeProgram(const Program &program);
absl::StatusOr<Program> decodeProgram(std::string_view bytes);

/// Writes the .nkb bytes of a program one instruction at a time, the same
/// bytes encodeProgram writes for the whole program, so that a compiler
/// never holds a large program's instructions twice:
///   ProgramEncoder e(header);   // target, tensors, semaphores
///   e.beginStream(id); e.add(inst); ...   // streams in the program's order
///   std::move(e).finish();
class ProgramEncoder {
public:
  /// `header`'s target, tensors and semaphore count; its streams are not
  /// written (add them with beginStream and add). The constants are copied
  /// once, into the file, by finish(): `header` (and what its constants
  /// borrow) must outlive the encoder.
  explicit ProgramEncoder(const Program &header);
  /// The same, the encoder holding `header`.
  explicit ProgramEncoder(Program &&header);
  ~ProgramEncoder();
  ProgramEncoder(const ProgramEncoder &) = delete;
  ProgramEncoder &operator=(const ProgramEncoder &) = delete;
  /// Ends the current stream, if any, and starts stream `id`.
  void beginStream(StreamId id);
  /// Appends `inst` to the current stream.
  void add(const Instruction &inst);
  /// The file; an error when the payload exceeds the format's 2 GiB.
  absl::StatusOr<std::string> finish() &&;
  /// Whether finish()'s payload (the file after its header) would be
  /// exactly `payload`, compared piece by piece, the constants not copied
  /// (the decoder's canonical-form check).
  bool matchesPayload(std::string_view payload) &&;

private:
  /// Calls piece(bytes) for each piece of the payload, in order.
  template <typename F> void forEachPiece(F &&piece) const;
  void encodeHeader(const Program &program);
  void endStream();
  void checkHeaderSize();

  std::unique_ptr<Program> owned; // the header, when moved in
  /// The header's fields but the constants' bytes, which go at `at`.
  std::string header;
  struct Constant {
    size_t at;
    std::string_view bytes;
  };
  std::vector<Constant> constants;
  size_t constantBytes = 0;
  std::string streams;     // the finished streams' fields
  std::string stream;      // the current stream's fields
  std::string instruction; // scratch: one instruction's bytes
  std::unique_ptr<nkb::Instruction> scratch; // reused for each
  bool open = false;
  size_t tooLarge = 0; // a part's size beyond the format's limit, else 0
};

/// A .nkb file around `payload` (a serialized nkb.Program, well formed or
/// not): the header with the magic, this format version, the payload's
/// length and CRC-32. The fuzz targets use it so that mutated payloads get
/// past the checksum to the parser and isa::verifyProgram.
std::string frameBinaryPayload(std::string_view payload);

absl::Status writeProgramFile(const Program &program, const std::string &path);
absl::StatusOr<Program> readProgramFile(const std::string &path);

} // namespace nki::isa

#endif // NKI_ISA_BINARY_H
