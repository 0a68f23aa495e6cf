//===- nisa-parse.cpp - Fuzz the nisa (and nki) parsers and verifiers
//------===//
//
// Input: MLIR text. Parsing, the dialects' custom parsers and verifiers,
// and programFromNISA (the whole-program ISA check) must answer every input
// with a module or a diagnostic. A program they accept must encode to a
// .nkb that decodes: the two checks (MLIR and ISA) agree.
// Seeds: the cases of test/Dialect/NISA and test/Dialect/NKI.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "nki/Dialect/NISA/NISA.h"
#include "nki/ISA/Binary.h"
#include "nki/Target/NISABinary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto context = nki::fuzz::makeContext();
  nki::fuzz::QuietDiagnostics quiet(context.get());
  // NUL-terminated, as the tools' file buffers are: MLIR's lexer reads the
  // terminator (a bare StringRef of the input read one byte past it).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(context.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (!module)
    return 0;
  for (auto program : module->getOps<nki::nisa::ProgramOp>()) {
    mlir::FailureOr<nki::isa::Program> isa = nki::programFromNISA(program);
    if (failed(isa))
      continue;
    absl::StatusOr<nki::isa::Program> decoded =
        nki::isa::decodeProgram(nki::isa::encodeProgram(*isa));
    if (!decoded.ok())
      nki::fuzz::finding("a nisa.program programFromNISA accepts encodes to "
                         "a binary decodeProgram refuses: " +
                         std::string(decoded.status().message()));
  }
  return 0;
}
