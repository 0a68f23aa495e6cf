// Registers nki's dialects into a context and parses a function: proves the
// installed headers, libraries and CMake package are usable from outside.
#include "nki/InitAll.h"
#include "nki/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>

int main() {
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : "
      "tensor<2xf32> }",
      &context);
  if (!module)
    return 1;
  std::printf("consumer linked nki %s\n", NKI_VERSION_STRING);
  return 0;
}
