//===- InterleavePhases.h - Phase chains and their interleave ---*- C++ -*-===//
//
// A transposed convolution (the ONNX importer) and a convolution of a
// nearest upsample (UpsampledConv.cpp) write each output phase into a
// strided slice of a tensor.empty: matchPhaseChain recognises that chain
// (nki-interleave-phases interleaves it, nki-fuse-elementwise runs an
// elementwise consumer per phase). nki-interleave-phases builds, and
// nki-tile's upsample kernel matches, a generic over [N, C, H, W] reading
// phase tensors stacked as [fh * fw, N, C, H / fh, W / fw];
// interleavedPhase is the stacked index of output (h, w), dims 2 and 3 of
// the generic.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H
#define NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace nki {

/// A chain of phase inserts, in program order (each writes into the
/// previous one's result), inserts[k] writing phase phases[k] = i * fw + j:
/// every insert a [N, C, H / fh, W / fw] piece at (0, 0, i, j) with steps
/// (1, 1, fh, fw), each phase once (one piece may fill several).
struct PhaseChain {
  mlir::tensor::EmptyOp empty;
  llvm::SmallVector<mlir::tensor::InsertSliceOp> inserts;
  llvm::SmallVector<int64_t> phases;
  int64_t fh = 0, fw = 0;
};

/// The chain of phase inserts that starts at `empty` (of rank 4, each link
/// used only by the next), if it is one.
std::optional<PhaseChain> matchPhaseChain(mlir::tensor::EmptyOp empty);

/// The phase chain whose last insert's result is `v`, if there is one.
std::optional<PhaseChain> phaseChainOf(mlir::Value v);

/// The phase chains in `root`, in program order.
llvm::SmallVector<PhaseChain> phaseChains(mlir::Operation *root);

/// The most bytes a partition (channels on the partitions) a phase chain's
/// result may take and still be written in place in SBUF: half of one.
/// nki-interleave-phases assembles a larger one from stacked phases.
inline int64_t maxInPlacePhaseBytes(int64_t sbufBytesPerPartition) {
  return sbufBytesPerPartition / 2;
}

/// (h mod fh) * fw + w mod fw.
inline mlir::AffineExpr interleavedPhase(mlir::MLIRContext *ctx, int64_t fh,
                                         int64_t fw) {
  return mlir::getAffineDimExpr(2, ctx) % fh * fw +
         mlir::getAffineDimExpr(3, ctx) % fw;
}

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_INTERLEAVEPHASES_H
