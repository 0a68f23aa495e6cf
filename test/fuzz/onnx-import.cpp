//===- onnx-import.cpp - Fuzz the ONNX importer
//----------------------------===//
//
// Input: a byte k, then k % 4 NUL-terminated `--input-shape` specs
// (NAME:AxB), then the bytes of a ModelProto. The importer must answer
// every input with a module or a diagnostic, and a module it returns must
// pass the MLIR verifier (an invalid module would crash a later pass).
// Seeds: the ONNX conformance models, prefixed with k = 0.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "nki/Frontend/ONNX/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  llvm::StringRef rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  nki::ONNXImportOptions options;
  for (int pins = data[0] % 4; pins > 0; --pins) {
    size_t nul = rest.find('\0');
    if (nul == llvm::StringRef::npos)
      return 0;
    std::string error;
    if (!nki::parseONNXInputShape(rest.take_front(nul), options, error))
      return 0; // the driver reports a bad spec before importing
    rest = rest.drop_front(nul + 1);
  }
  auto context = nki::fuzz::makeContext();
  nki::fuzz::QuietDiagnostics quiet(context.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      nki::importONNX(rest, "fuzz.onnx", context.get(), options);
  if (module && failed(mlir::verify(*module)))
    nki::fuzz::finding("the importer returned a module that does not "
                       "verify: " +
                       quiet.first);
  return 0;
}
