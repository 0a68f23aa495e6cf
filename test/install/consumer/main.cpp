// A framework embedding nki: registers its dialects, parses a function and
// compiles it to .nkb bytes in memory through the installed headers,
// libraries and CMake package.
#include "nki/InitAll.h"
#include "nki/Pipeline/Pipeline.h"
#include "nki/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>

int main() {
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @main(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
      %e = tensor.empty() : tensor<64x32xf32>
      %r = linalg.add ins(%a, %b : tensor<64x32xf32>, tensor<64x32xf32>)
                      outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
      return %r : tensor<64x32xf32>
    })mlir",
                                                        &context);
  if (!module)
    return 1;
  nki::CompileOptions options;
  options.target = "trn1";
  mlir::FailureOr<std::string> binary = nki::compileToBinary(*module, options);
  if (mlir::failed(binary))
    return 1;
  std::printf("consumer linked nki %s and compiled %zu bytes of .nkb\n",
              NKI_VERSION_STRING, binary->size());
  return 0;
}
