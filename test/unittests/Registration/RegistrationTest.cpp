//===- RegistrationTest.cpp - What registerAllDialects provides -----------===//

#include "nki/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

namespace {

TEST(Registration, RegistersEveryInputDialect) {
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  for (llvm::StringRef name : {"func", "arith", "math", "tensor", "linalg",
                               "tosa", "scf", "memref", "bufferization"})
    EXPECT_TRUE(llvm::is_contained(registry.getDialectNames(), name))
        << name.str();
}

TEST(Registration, ParsesALinalgFunction) {
  mlir::DialectRegistry registry;
  nki::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  const char *source = R"mlir(
    func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
      %init = tensor.empty() : tensor<4x2xf32>
      %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>)
                         outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
      return %r : tensor<4x2xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
}

} // namespace
