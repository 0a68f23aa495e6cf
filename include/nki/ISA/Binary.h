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
#include <string>
#include <string_view>

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

/// A .nkb file around `payload` (a serialized nkb.Program, well formed or
/// not): the header with the magic, this format version, the payload's
/// length and CRC-32. The fuzz targets use it so that mutated payloads get
/// past the checksum to the parser and isa::verifyProgram.
std::string frameBinaryPayload(std::string_view payload);

absl::Status writeProgramFile(const Program &program, const std::string &path);
absl::StatusOr<Program> readProgramFile(const std::string &path);

} // namespace nki::isa

#endif // NKI_ISA_BINARY_H
