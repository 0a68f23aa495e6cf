//===- DecomposeConv.h - Convolutions and pooling as matmuls ----*- C++ -*-===//
//
// Private to lib/Conversion: nki-prepare-graph rewrites linalg's
// convolution and pooling named ops into the ops tiling handles.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_DECOMPOSECONV_H
#define NKI_LIB_CONVERSION_GRAPH_DECOMPOSECONV_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {
namespace isa {
struct TargetDesc;
} // namespace isa

/// A convolution named op's input, filter and init with their types, when
/// all three are static ranked tensors and the op has one result.
struct StaticConvOperands {
  mlir::Value x, w, init;
  mlir::RankedTensorType xt, wt, yt;
};
mlir::FailureOr<StaticConvOperands>
staticConvOperands(mlir::PatternRewriter &rewriter, mlir::Operation *op);

/// Patterns that rewrite NC-first convolutions (1-D, 2-D, 3-D, grouped,
/// depthwise) into an im2col gather plus one (batch) matmul, and NC-first
/// max/sum pooling into elementwise max/add over strided windows.
/// With `poolOnChip`, 2-D NCHW max/sum poolings whose init is the
/// identity and whose rows fit stay whole for nki-tile's pooling kernel.
void populateDecomposeConvPatterns(mlir::RewritePatternSet &patterns,
                                   bool poolOnChip = false);

/// The pattern that writes a 2-D NCHW convolution as the implicit-GEMM
/// generic of Conv/ConvGeneric.h (ConvToImplicitGemm.cpp); it takes
/// precedence over the im2col decomposition where it applies, for
/// convolutions whose kernel fits `target`'s SBUF.
void populateConvToImplicitGemmPatterns(mlir::RewritePatternSet &patterns,
                                        const isa::TargetDesc &target);

/// The pattern that slices off a 2-D NCHW convolution's kernel taps that
/// read only the zero padding of its input (PaddingTaps.cpp): dilated
/// kernels whose padding is wider than the input.
void populateDropPaddingTapsPatterns(mlir::RewritePatternSet &patterns);

/// Applies those patterns (the implicit-GEMM one when `implicitGemm`) to
/// `root`, then reports every convolution or pooling op left (other
/// layouts, dynamic shapes) as unsupported.
mlir::LogicalResult decomposeConvolutions(mlir::Operation *root,
                                          bool implicitGemm = true);

/// Rewrites each stride-1 2-D NCHW convolution (constant filter) of a
/// nearest integer-factor upsample, or of a channel concatenation with
/// such parts, into stride-1 convolutions of the small tensor per output
/// phase (UpsampledConv.cpp), where that multiplies less
/// (nki-group-phases later groups the phases that fill the PE's columns
/// together).
mlir::LogicalResult rewriteUpsampledConvolutions(mlir::Operation *root);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_DECOMPOSECONV_H
