//===- nkb-decode.cpp - Fuzz the .nkb decoder and isa::verifyProgram
//-------===//
//
// Input: a .nkb file, or (first byte odd) a byte then a payload that gets
// a correct header (frameBinaryPayload), so that mutations reach the
// protobuf parser and isa::verifyProgram past the checksum. decodeProgram
// (which runs isa::verifyProgram) must accept or refuse with a status, never
// crash; a program it accepts must encode again to bytes that decode to the
// same encoding (what nki-translate --binary-to-nisa and back relies on).
// Seeds: programs of the lit suites and nki-sim-example.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Binary.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string framed;
  if (size && (data[0] & 1)) // a .nkb starts with 'N', which is even
    bytes = framed = nki::isa::frameBinaryPayload(bytes.substr(1));
  absl::StatusOr<nki::isa::Program> program = nki::isa::decodeProgram(bytes);
  if (!program.ok())
    return 0;
  std::string again = nki::isa::encodeProgram(*program);
  absl::StatusOr<nki::isa::Program> second = nki::isa::decodeProgram(again);
  if (!second.ok() || nki::isa::encodeProgram(*second) != again) {
    std::fprintf(stderr,
                 "nki fuzz finding: a decoded program does not "
                 "round-trip through encodeProgram: %s\n",
                 second.ok() ? "different bytes"
                             : std::string(second.status().message()).c_str());
    std::abort();
  }
  return 0;
}
