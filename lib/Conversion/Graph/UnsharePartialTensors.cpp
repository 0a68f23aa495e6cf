//===- UnsharePartialTensors.cpp - nki-unshare-partial-tensors ------------===//
//
// A chain of tensor.insert_slice ops into a tensor.empty builds a tensor
// piece by piece; until the chain ends, the elements no piece wrote are
// undefined. When such a partial value has more than one insert_slice user
// (CSE merges the common prefix of two gathers with constant indices that
// start alike), one-shot bufferization copies the whole partial buffer for
// one of them, and that copy reads elements nothing wrote: harmless on the
// machine, but the simulator rightly reports an uninitialised read. This
// pass gives every user but the first its own clone of the chain (the
// pieces are copied again instead of the partial buffer), so nothing reads
// undefined memory.
//
// A fill shared as the init of several linalg ops is cloned per extra user
// for a like reason: bufferization would copy the filled buffer for each,
// and the matmul or convolution kernels would not see the zero fill they
// turn into their start flag. So is a fill inserted into several tensors
// (the channel of ones that carries a transposed convolution's bias into
// its phases, once per batch group after CSE): computed in place in the
// first tensor, it kept that tensor live until the last insert copied it
// from there (the f32 unet_convt at batch 8 in two groups: its 33-channel
// 64 x 64 input then went through HBM).
//
// A tensor.empty shared as the init of several linalg ops (CSE merges
// every empty of one shape) is cloned per extra init use too: one-shot
// bufferization would give all of them one buffer, each op writing over the
// previous one's result once it is dead, which ties unrelated tensors
// together (a convolution's epilogue writing the buffer its input was
// padded from, so the input cannot be read in place, and a tensor that
// could stay in SBUF sharing a buffer with one that cannot). HBM does not
// reuse buffers in any case (docs/memory-planning.md). So is an empty that
// starts several insert chains (the per-input parts of a convolution of a
// concat, each a nest of upsampled phases): sharing one buffer, every chain
// after the first copied the first one's pieces out of it through HBM.
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace nki {
#define GEN_PASS_DEF_NKIUNSHAREPARTIALTENSORS
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// The insert_slice ops that build `v` from a tensor.empty, first to last,
/// or empty when `v` is not built that way.
SmallVector<tensor::InsertSliceOp> partialChain(Value v) {
  SmallVector<tensor::InsertSliceOp> chain;
  while (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
    chain.push_back(insert);
    v = insert.getDest();
  }
  if (chain.empty() || !v.getDefiningOp<tensor::EmptyOp>())
    return {};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

struct NKIUnsharePartialTensorsPass
    : nki::impl::NKIUnsharePartialTensorsBase<NKIUnsharePartialTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation()->walk(
        [&](tensor::InsertSliceOp op) { inserts.push_back(op); });
    for (tensor::InsertSliceOp insert : inserts) {
      Value dest = insert.getDest();
      if (dest.hasOneUse() || !dest.getDefiningOp<tensor::InsertSliceOp>())
        continue;
      SmallVector<tensor::InsertSliceOp> chain = partialChain(dest);
      if (chain.empty())
        continue;
      // The first insert_slice user keeps the chain; later ones (this one
      // when it is not the first) get a clone built right before them.
      Operation *first = nullptr;
      for (Operation *user : dest.getUsers())
        if (isa<tensor::InsertSliceOp>(user) &&
            (!first || user->isBeforeInBlock(first)))
          first = user;
      if (first == insert.getOperation())
        continue;
      OpBuilder b(insert);
      Value empty = chain.front().getDest();
      Value cloned = b.clone(*empty.getDefiningOp())->getResult(0);
      for (tensor::InsertSliceOp link : chain) {
        IRMapping map;
        map.map(link.getDest(), cloned);
        cloned = b.clone(*link, map)->getResult(0);
      }
      insert.getDestMutable().assign(cloned);
    }

    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp op) { fills.push_back(op); });
    for (linalg::FillOp fill : fills) {
      Value filled = fill.getResult(0);
      auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      if (!empty || filled.hasOneUse())
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : filled.getUses()) {
        if (use.getOwner()->getBlock() != fill->getBlock())
          continue;
        auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
        auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
        if ((user && user.isDpsInit(&use)) ||
            (insert && &use == &insert.getSourceMutable()))
          uses.push_back(&use);
      }
      // The earliest init use keeps the fill (a fill used only as an input
      // keeps it anyway).
      llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      });
      bool keep = llvm::any_of(filled.getUses(), [&](OpOperand &use) {
        return !llvm::is_contained(uses, &use);
      });
      for (OpOperand *use : uses) {
        if (!keep) {
          keep = true;
          continue;
        }
        OpBuilder b(use->getOwner());
        Operation *e = b.clone(*empty);
        IRMapping map;
        map.map(empty.getResult(), e->getResult(0));
        use->set(b.clone(*fill, map)->getResult(0));
      }
    }

    SmallVector<tensor::EmptyOp> empties;
    getOperation()->walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> inits, chainStarts;
      for (OpOperand &use : empty.getResult().getUses()) {
        Operation *user = use.getOwner();
        if (user->getBlock() != empty->getBlock())
          continue;
        if (auto op = dyn_cast<linalg::LinalgOp>(user);
            op && op.isDpsInit(&use))
          inits.push_back(&use);
        if (auto op = dyn_cast<tensor::InsertSliceOp>(user);
            op && &use == &op.getDestMutable())
          chainStarts.push_back(&use);
      }
      auto inOrder = [](OpOperand *a, OpOperand *b) {
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      };
      llvm::sort(inits, inOrder);
      llvm::sort(chainStarts, inOrder);
      // Every init use but the first (or all, when the empty has other
      // uses too) and every chain start but the first gets its own empty
      // right before its op.
      bool keep = inits.size() ==
                  size_t(std::distance(empty->use_begin(), empty->use_end()));
      for (OpOperand *use : inits) {
        if (keep) {
          keep = false;
          continue;
        }
        OpBuilder b(use->getOwner());
        use->set(b.clone(*empty)->getResult(0));
      }
      for (size_t i = 1; i < chainStarts.size(); ++i) {
        OpOperand *use = chainStarts[i];
        OpBuilder b(use->getOwner());
        use->set(b.clone(*empty)->getResult(0));
      }
    }
  }
};

} // namespace
