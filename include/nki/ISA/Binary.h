//===- Binary.h - The .nkb binary container --------------------*- C++ -*-===//
//
// A Protobuf container (lib/ISA/nkb.proto): magic, format version, target,
// tensor table, constants, semaphore count, streams. Encoding is
// deterministic; decode(encode(p)) == p and encode(decode(b)) == b for every
// valid b. A corrupted, truncated or wrong-version file is an error, never a
// crash. docs/binary-format.md describes the format.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_BINARY_H
#define NKI_ISA_BINARY_H

#include "nki/ISA/Program.h"

#include "absl/status/statusor.h"

#include <string>
#include <string_view>

namespace nki::isa {

constexpr std::string_view kBinaryMagic = "NKB\x01";
constexpr uint32_t kBinaryFormatVersion = 1;

std::string encodeProgram(const Program &program);
absl::StatusOr<Program> decodeProgram(std::string_view bytes);

absl::Status writeProgramFile(const Program &program, const std::string &path);
absl::StatusOr<Program> readProgramFile(const std::string &path);

} // namespace nki::isa

#endif // NKI_ISA_BINARY_H
