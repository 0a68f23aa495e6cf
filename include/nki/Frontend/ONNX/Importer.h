//===- Importer.h - ONNX ModelProto to func.func on tensors ----*- C++ -*-===//
//
// Turns the bytes of an ONNX model into a module with one `func.func @main`
// in the compiler's input dialects (linalg, tensor, arith, math on tensors).
// Graph inputs that are not initializers become arguments named by
// `nki.name`; initializers become dense constants; graph outputs become the
// results in order. Errors are MLIR diagnostics; nothing here throws or
// exits. The ONNX protobuf types stay out of this header.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_FRONTEND_ONNX_IMPORTER_H
#define NKI_FRONTEND_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nki {

struct ONNXImportOptions {
  /// Static shapes for graph inputs (--input-shape=NAME:AxBxC), replacing
  /// the model's dynamic (or fixed) dimensions of that input.
  std::map<std::string, std::vector<int64_t>> inputShapes;
};

/// Parses one `NAME:AxBxC` (a scalar is `NAME:`) into `options`; on a bad
/// spec returns false and sets `error`.
bool parseONNXInputShape(llvm::StringRef spec, ONNXImportOptions &options,
                         std::string &error);

/// Imports the serialized ModelProto in `bytes`; `fileName` locates the
/// diagnostics. Returns null after emitting diagnostics on the context.
mlir::OwningOpRef<mlir::ModuleOp> importONNX(llvm::StringRef bytes,
                                             llvm::StringRef fileName,
                                             mlir::MLIRContext *context,
                                             const ONNXImportOptions &options);

/// Registers `--import-onnx` (with its `--input-shape` option) for
/// nki-translate.
void registerONNXImportTranslation();

/// The dialects the importer creates ops of.
void registerONNXImportDialects(mlir::DialectRegistry &registry);

} // namespace nki

#endif // NKI_FRONTEND_ONNX_IMPORTER_H
