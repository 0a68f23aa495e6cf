//===- FoldConstantGenerics.h - Evaluate generics on constants --*- C++ -*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_FOLDCONSTANTGENERICS_H
#define NKI_LIB_CONVERSION_GRAPH_FOLDCONSTANTGENERICS_H

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {

/// A pattern that replaces an elementwise linalg.generic whose inputs are
/// all constants (and whose result has at most a few thousand elements) by
/// the constant it computes, evaluated with the body ops' own folders. An
/// inference BatchNormalization's scale, gamma * rsqrt(var + eps), and its
/// shift are computed at compile time this way instead of by a kernel of
/// their own, which also leaves the normalisation right after its
/// convolution, where nki-tile fuses it into the PSUM evacuation. Also the
/// rounding of a constant of any size to bf16 (through a permutation).
void populateFoldConstantGenericsPatterns(mlir::RewritePatternSet &patterns);

/// A pattern that folds a linalg.generic or linalg.transpose permuting a
/// constant on the constant's raw bytes, where `control` allows it (as
/// linalg::populateConstantFoldLinalgOperations, which it precedes: that
/// one builds an APFloat per element).
void populateFoldConstantPermutationPatterns(
    mlir::RewritePatternSet &patterns, mlir::linalg::ControlFusionFn control);

/// `v` rounded to bf16 (nearest even) at compile time when it is a dense
/// f32 constant, as a new constant; null otherwise. Weights that
/// --auto-cast=matmul rounds are converted once here, not read, rounded and
/// stored again by a kernel.
mlir::Value roundConstantToBF16(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value v);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_FOLDCONSTANTGENERICS_H
