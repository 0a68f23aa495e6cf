//===- FoldConvScales.h - Scales folded into filters ----------*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_FOLDCONVSCALES_H
#define NKI_LIB_CONVERSION_GRAPH_FOLDCONVSCALES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace nki {

/// Folds the per-output-channel factor of an elementwise op that reads a
/// convolution's result, y * a[f] (an inference BatchNormalization's
/// gamma / sqrt(var + eps), computed from constants), into the
/// convolution's constant filter at compile time: conv(x, w) * a =
/// conv(x, w'), w'[.., f, ..] = w[.., f, ..] * a[f]; a bias the
/// convolution adds on the way (ONNX Conv's B) is scaled too. The
/// convolution is a named linalg convolution (any layout, grouped and
/// depthwise ones included, its result possibly reshaped) that
/// multiplies and accumulates from zero, with an f32 constant filter (a
/// new constant: another reader keeps the old one); the factor must be
/// finite. The elementwise op then adds the shift alone, which
/// the PSUM evacuation does in the same instruction as a ReLU (a
/// tensor_scalar's second op) instead of a second pass. Runs before
/// auto-cast rounds the filter, so the bf16 filter is round(w * a).
void foldConvolutionScales(mlir::func::FuncOp func);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_FOLDCONVSCALES_H
