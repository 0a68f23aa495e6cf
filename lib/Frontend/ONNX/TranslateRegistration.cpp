//===- TranslateRegistration.cpp - --import-onnx --------------------------===//

#include "nki/Frontend/ONNX/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void nki::registerONNXImportTranslation() {
  // Created on registration, so only tools that register the translation
  // (nki-translate) get the flag; nki-compile declares its own.
  static llvm::cl::list<std::string> inputShapes(
      "input-shape",
      llvm::cl::desc("--import-onnx: static shape of a graph input, "
                     "NAME:AxBxC (repeatable)"),
      llvm::cl::value_desc("NAME:AxBxC"));
  static TranslateToMLIRRegistration importONNX(
      "import-onnx", "import an ONNX model (.onnx) as func.func on tensors",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        nki::ONNXImportOptions options;
        for (const std::string &spec : inputShapes) {
          std::string error;
          if (!nki::parseONNXInputShape(spec, options, error)) {
            emitError(UnknownLoc::get(context)) << error;
            return nullptr;
          }
        }
        OwningOpRef<ModuleOp> module =
            nki::importONNX(buffer->getBuffer(), buffer->getBufferIdentifier(),
                            context, options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        nki::registerONNXImportDialects(registry);
      });
}
