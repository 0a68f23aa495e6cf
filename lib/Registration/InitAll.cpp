//===- InitAll.cpp - Register everything nki provides ---------------------===//

#include "nki/InitAll.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/Frontend/ONNX/Importer.h"
#include "nki/Pipeline/Pipeline.h"
#include "nki/Target/NISABinary.h"
#include "nki/Version.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

void nki::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect,
                  mlir::linalg::LinalgDialect, mlir::tosa::TosaDialect,
                  mlir::scf::SCFDialect, mlir::memref::MemRefDialect,
                  mlir::bufferization::BufferizationDialect,
                  nki::tile::NKIDialect, nki::nisa::NISADialect>();
  mlir::func::registerInlinerExtension(registry);
  mlir::tensor::registerInferTypeOpInterfaceExternalModels(registry);
  // One-shot bufferization of the compiler's input dialects.
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
}

void nki::registerAllPasses() {
  nki::registerNKIConversionPasses();
  nki::registerPipelines();
  // Upstream passes the pipeline is made of, runnable on their own.
  mlir::registerTransformsPasses();
  mlir::registerLinalgPasses();
  mlir::bufferization::registerBufferizationPasses();
  mlir::tosa::registerTosaPasses();
  mlir::registerTosaToLinalg();
  mlir::registerTosaToLinalgNamed();
  mlir::registerTosaToArithPass();
  mlir::registerTosaToTensorPass();
  mlir::tosa::registerTosaToLinalgPipelines();
}

void nki::registerAllTranslations() {
  nki::registerNISABinaryTranslations();
  nki::registerONNXImportTranslation();
}

void nki::registerVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "nki version " << NKI_VERSION_STRING << "\n";
  });
}

void nki::showOnlyOptions(llvm::cl::OptionCategory &category,
                          llvm::ArrayRef<llvm::StringRef> shown) {
  static llvm::cl::OptionCategory mlir("MLIR options");
  for (auto &[name, option] : llvm::cl::getRegisteredOptions()) {
    // The tool's own, and LLVM's --help and --version.
    if (llvm::any_of(option->Categories, [&](llvm::cl::OptionCategory *c) {
          return c == &category || c->getName() == "Generic Options";
        }))
      continue;
    if (llvm::is_contained(shown, name.str())) {
      option->Categories.assign({&mlir});
      continue;
    }
    if (option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}
