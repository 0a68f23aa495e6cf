//===- QuantizeUtils.h - What the auto-cast quantisers share ----*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_QUANTIZEUTILS_H
#define NKI_LIB_CONVERSION_GRAPH_QUANTIZEUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace nki::quantize {

/// `init` is a linalg.fill of constant zero.
inline bool isZeroFill(mlir::Value init) {
  auto fill = init.getDefiningOp<mlir::linalg::FillOp>();
  mlir::FloatAttr value;
  return fill &&
         mlir::matchPattern(fill.getInputs()[0], mlir::m_Constant(&value)) &&
         value.getValue().isZero();
}

/// A linalg.generic into `init` whose body yields body(args).
inline mlir::Value
generic(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange ins,
        mlir::Value init, llvm::ArrayRef<mlir::AffineMap> maps,
        llvm::ArrayRef<mlir::utils::IteratorType> iters,
        llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>
            body) {
  return mlir::linalg::GenericOp::create(
             b, loc, init.getType(), ins, init, maps, iters,
             [&](mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange args) {
               mlir::linalg::YieldOp::create(nb, l, body(nb, l, args));
             })
      .getResult(0);
}

/// The matmul's attributes a replacement keeps (all but the operand
/// segment sizes, which the builder sets).
inline llvm::SmallVector<mlir::NamedAttribute>
keptAttributes(mlir::Operation *op) {
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  for (mlir::NamedAttribute attr : op->getAttrs())
    if (attr.getName() != "operandSegmentSizes")
      attrs.push_back(attr);
  return attrs;
}

} // namespace nki::quantize

#endif // NKI_LIB_CONVERSION_GRAPH_QUANTIZEUTILS_H
