//===- EliminateEmptyTensors.cpp - nki-eliminate-empty-tensors ------------===//
//
// Upstream empty-tensor elimination, for nests of insert_slice chains.
// An op whose result is inserted into a larger tensor (a channel block of a
// convolution, a part of a concat, a phase of a transposed convolution)
// computes it in place there when the tensor.empty it writes is replaced by
// the slice of the destination it ends up in. Upstream does this one chain
// at a time, in program order, and only where the destination dominates the
// empty's use. A nest (the phases inserted into a transposed convolution's
// result, which a concat inserts into its own) needs more:
//
//   1. the empties chains start from move to the top of their block, so an
//      outer chain's empty (created when the concat was imported, after the
//      phases) dominates the inner chain's uses;
//   2. upstream elimination: the inner ops write slices of the inner
//      chain's empty, and the inner chain starts from a slice of the outer
//      tensor;
//   3. a slice of an empty that no longer roots a chain (step 2 replaced
//      it there with a slice of the outer tensor) folds to a new empty;
//   4. upstream elimination again: those empties become slices of the
//      outer tensor, so the whole nest is written in place (a deeper nest
//      takes more rounds of 3 and 4).
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace nki {
#define GEN_PASS_DEF_NKIELIMINATEEMPTYTENSORS
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

constexpr int kMaxRounds = 4;

/// Whether `v` is the destination of an insert_slice: the root of a chain.
bool isChainRoot(Value v) {
  return llvm::any_of(v.getUsers(), [&](Operation *user) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(user);
    return insert && insert.getDest() == v;
  });
}

/// Replaces each slice of an empty that no longer roots a chain (an outer
/// elimination replaced it there) with an empty of the slice's type, which
/// the next round of elimination replaces with a slice of the outer tensor.
/// Whether anything changed.
bool foldOrphanSlices(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<tensor::ExtractSliceOp> slices;
  func.walk([&](tensor::ExtractSliceOp slice) {
    auto empty = slice.getSource().getDefiningOp<tensor::EmptyOp>();
    if (empty && !isChainRoot(empty.getResult()) &&
        slice.getType().hasStaticShape())
      slices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : slices) {
    rewriter.setInsertionPoint(slice);
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        slice, slice.getType().getShape(), slice.getType().getElementType());
  }
  return !slices.empty();
}

struct EliminateEmptyTensors
    : nki::impl::NKIEliminateEmptyTensorsBase<EliminateEmptyTensors> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<tensor::EmptyOp> roots;
    func.walk([&](tensor::EmptyOp empty) {
      if (empty->getNumOperands() == 0 && isChainRoot(empty.getResult()))
        roots.push_back(empty);
    });
    for (tensor::EmptyOp empty : llvm::reverse(roots))
      empty->moveBefore(&empty->getBlock()->front());

    IRRewriter rewriter(func.getContext());
    // Each round links one more level of a nest; a few suffice for any
    // graph the importer writes.
    for (int round = 0; round < kMaxRounds; ++round) {
      if (failed(bufferization::eliminateEmptyTensors(rewriter, func)))
        return signalPassFailure();
      if (!foldOrphanSlices(rewriter, func))
        break;
    }
    // The empties elimination replaced everywhere.
    func.walk([&](tensor::EmptyOp empty) {
      if (empty->use_empty())
        rewriter.eraseOp(empty);
    });
  }
};

} // namespace
