//===- nki-translate.cpp - nki's mlir-translate ---------------------------===//
//
// Converts between MLIR and other formats (the .nkb binary, ONNX models);
// mlir-translate conventions.
//
//===----------------------------------------------------------------------===//

#include "nki/InitAll.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  nki::registerAllTranslations();
  nki::registerVersionPrinter();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "nki translation driver\n"));
}
