//===- nki-opt.cpp - nki's mlir-opt ---------------------------------------===//
//
// Runs any registered pass or pipeline on MLIR input; mlir-opt conventions.
//
//===----------------------------------------------------------------------===//

#include "nki/InitAll.h"
#ifdef NKI_INCLUDE_TEST_PASSES
#include "TestPasses.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  nki::registerAllPasses();
#ifdef NKI_INCLUDE_TEST_PASSES
  nki::test::registerTestPasses();
#endif
  nki::registerVersionPrinter();
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nki modular optimizer driver\n", registry));
}
