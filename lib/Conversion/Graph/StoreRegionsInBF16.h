//===- StoreRegionsInBF16.h - Data movement before rounding, in bf16 -*- C++
//-*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_STOREREGIONSINBF16_H
#define NKI_LIB_CONVERSION_GRAPH_STOREREGIONSINBF16_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {

/// Under auto-cast: a region of f32 tensors that only move data, if at all
/// (constant pads, slices, inserts into a concatenation or a phase
/// scatter, max poolings from a constant init), between producers that
/// can round their result (`fusible`: a convolution or an elementwise op)
/// and readers that round it to bf16 first (`roundingConv`: convolutions)
/// is computed in bf16 instead. Rounding to nearest even is monotone and the
/// moves copy, so every reader sees the same bf16 values; every tensor of the
/// region takes half the bytes. Each value in the region must be read by the
/// region or by rounding readers only, and come from the region, a fusible
/// producer, or a tensor.empty or constant fill (a new bf16 one each).
/// `round` rounds a fusible producer's f32 result (the cast that
/// nki-fuse-elementwise then moves into its epilogue).
///
/// A region may be a producer and its rounding readers alone (a ReLU's
/// result read by the next convolutions), or reach through moves: a
/// ResNet stem's max pooling; a U-Net's skip connection, pooled for the
/// next level and concatenated for the decoder; a transposed
/// convolution's phases scattered into a concatenation's part.
void storeRegionsInBF16(
    mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
    llvm::function_ref<bool(mlir::Operation *, mlir::Value)> roundingConv,
    llvm::function_ref<bool(mlir::Value)> fusible,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value)>
        round);

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_STOREREGIONSINBF16_H
