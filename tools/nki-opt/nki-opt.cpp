//===- nki-opt.cpp - nki's mlir-opt ---------------------------------------===//
//
// Runs any registered pass or pipeline on MLIR input; mlir-opt conventions.
//
//===----------------------------------------------------------------------===//

#include "nki/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  nki::registerAllPasses();
  nki::registerVersionPrinter();
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nki modular optimizer driver\n", registry));
}
