//===- ConstantValues.h - Float constants computed in double ----*- C++ -*-===//
//
// The graph passes that fold constants into others (ComposeConvs'
// composed filter and bias, AccumulateConvs' summed shifts) compute in
// double from the values as stored and round once to the constant's type.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_CONSTANTVALUES_H
#define NKI_LIB_CONVERSION_GRAPH_CONSTANTVALUES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"

namespace nki {

/// A float constant's values (f32, bf16 and f16 are exact in double).
inline llvm::SmallVector<double> toDoubles(mlir::DenseElementsAttr value) {
  llvm::SmallVector<double> out;
  out.reserve(value.getNumElements());
  for (const llvm::APFloat &v : value.getValues<llvm::APFloat>())
    out.push_back(v.convertToDouble());
  return out;
}

/// `values` rounded to nearest even in `type`'s float element type.
inline mlir::DenseElementsAttr fromDoubles(mlir::RankedTensorType type,
                                           llvm::ArrayRef<double> values) {
  const llvm::fltSemantics &sem =
      llvm::cast<mlir::FloatType>(type.getElementType()).getFloatSemantics();
  llvm::SmallVector<llvm::APFloat> out;
  out.reserve(values.size());
  for (double d : values) {
    llvm::APFloat v(d);
    bool lost;
    v.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v);
  }
  return mlir::DenseElementsAttr::get(type, out);
}

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_CONSTANTVALUES_H
