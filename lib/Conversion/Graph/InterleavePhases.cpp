//===- InterleavePhases.cpp - nki-interleave-phases -----------------------===//
//
// A transposed convolution (the ONNX importer) and a convolution of a
// nearest upsample (UpsampledConv.cpp) write each output phase into a
// slice of the result with row and column steps. That costs nothing when
// the result stays in SBUF, but a DMA descriptor per element in HBM (the
// U-Net's last ConvTranspose at batch 8 took 79 % of the net's time).
// A result too large for SBUF (alone, or with the other phase results
// that one op reads), or one the function returns (HBM whatever its
// size), is therefore assembled from a tensor that stacks the phases
// unit-stride, [fh * fw, N, C, H / fh, W / fw], by a
// generic that nki-tile's upsample kernel runs on chip.
//
// Only for a chain of inserts into a tensor.empty of rank 4 in which every
// insert is one phase of one (fh, fw) step (the whole of N and C, offsets
// (i, j) below the steps), each phase once, nothing else in the chain.
//
//===----------------------------------------------------------------------===//

#include "InterleavePhases.h"
#include "../Common/ResidentLimits.h"
#include "ChannelBytes.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace nki {
#define GEN_PASS_DEF_NKIINTERLEAVEPHASES
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

std::optional<nki::PhaseChain> nki::matchPhaseChain(tensor::EmptyOp empty) {
  RankedTensorType type = empty.getType();
  if (type.getRank() != 4 || !type.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  nki::PhaseChain chain;
  chain.empty = empty;
  SmallVector<tensor::InsertSliceOp> &order = chain.inserts;
  Value v = empty.getResult();
  while (v.hasOneUse()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(*v.getUsers().begin());
    if (!insert || insert.getDest() != v ||
        insert->getBlock() != empty->getBlock())
      break;
    order.push_back(insert);
    v = insert.getResult();
  }
  if (order.size() < 2)
    return std::nullopt;
  auto steps = order[0].getStaticStrides();
  chain.fh = steps[2];
  chain.fw = steps[3];
  if (steps[0] != 1 || steps[1] != 1 || ShapedType::isDynamic(chain.fh) ||
      ShapedType::isDynamic(chain.fw) || chain.fh < 1 || chain.fw < 1 ||
      shape[2] % chain.fh || shape[3] % chain.fw ||
      int64_t(order.size()) != chain.fh * chain.fw)
    return std::nullopt;
  SmallVector<int64_t> sizes = {shape[0], shape[1], shape[2] / chain.fh,
                                shape[3] / chain.fw};
  SmallVector<bool> seen(order.size(), false);
  for (tensor::InsertSliceOp insert : order) {
    ArrayRef<int64_t> o = insert.getStaticOffsets();
    if (insert.getStaticStrides() != steps ||
        insert.getStaticSizes() != ArrayRef<int64_t>(sizes) ||
        insert.getSourceType().getShape() != ArrayRef<int64_t>(sizes) ||
        o[0] != 0 || o[1] != 0 || o[2] < 0 || o[2] >= chain.fh || o[3] < 0 ||
        o[3] >= chain.fw)
      return std::nullopt;
    int64_t phase = o[2] * chain.fw + o[3];
    if (seen[phase])
      return std::nullopt;
    seen[phase] = true;
    chain.phases.push_back(phase);
  }
  return chain;
}

std::optional<nki::PhaseChain> nki::phaseChainOf(Value v) {
  Value root = v;
  while (auto insert = root.getDefiningOp<tensor::InsertSliceOp>())
    root = insert.getDest();
  auto empty = root.getDefiningOp<tensor::EmptyOp>();
  std::optional<nki::PhaseChain> chain =
      empty ? nki::matchPhaseChain(empty) : std::nullopt;
  if (!chain || chain->inserts.back().getResult() != v)
    return std::nullopt;
  return chain;
}

SmallVector<nki::PhaseChain> nki::phaseChains(Operation *root) {
  SmallVector<nki::PhaseChain> chains;
  root->walk([&](tensor::EmptyOp empty) {
    if (std::optional<nki::PhaseChain> chain = nki::matchPhaseChain(empty))
      chains.push_back(*chain);
  });
  return chains;
}

namespace {

/// Whether `v` is a result of the function, itself or reshaped: it is in
/// HBM whatever its size.
bool returned(Value v) {
  return llvm::any_of(v.getUsers(), [](Operation *user) {
    if (isa<func::ReturnOp>(user))
      return true;
    return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
           returned(user->getResult(0));
  });
}

void interleave(nki::PhaseChain &chain) {
  tensor::InsertSliceOp last = chain.inserts.back();
  RankedTensorType type = chain.empty.getType();
  ArrayRef<int64_t> s = type.getShape();
  int64_t phases = chain.fh * chain.fw;
  SmallVector<int64_t> stackedShape = {phases, s[0], s[1], s[2] / chain.fh,
                                       s[3] / chain.fw};
  OpBuilder b(chain.empty);
  Location loc = chain.empty.getLoc();
  Value stacked =
      tensor::EmptyOp::create(b, loc, stackedShape, type.getElementType());
  // Each phase goes in where it went before.
  for (auto [insert, phase] : llvm::zip_equal(chain.inserts, chain.phases)) {
    b.setInsertionPoint(insert);
    SmallVector<int64_t> offsets = {phase, 0, 0, 0, 0};
    SmallVector<int64_t> sizes(stackedShape);
    sizes[0] = 1;
    stacked = tensor::InsertSliceOp::create(
        b, insert.getLoc(), insert.getSource(), stacked,
        getAsIndexOpFoldResult(b.getContext(), offsets),
        getAsIndexOpFoldResult(b.getContext(), sizes),
        getAsIndexOpFoldResult(b.getContext(), SmallVector<int64_t>(5, 1)));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> in = {
      nki::interleavedPhase(ctx, chain.fh, chain.fw), getAffineDimExpr(0, ctx),
      getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx).floorDiv(chain.fh),
      getAffineDimExpr(3, ctx).floorDiv(chain.fw)};
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, in, ctx),
                                 AffineMap::getMultiDimIdentityMap(4, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  b.setInsertionPoint(last);
  Value result = linalg::GenericOp::create(
                     b, last.getLoc(), type, ValueRange{stacked},
                     ValueRange{chain.empty.getResult()}, maps, iters,
                     [](OpBuilder &nb, Location l, ValueRange args) {
                       linalg::YieldOp::create(nb, l, args[0]);
                     })
                     .getResult(0);
  last.getResult().replaceAllUsesWith(result);
  // The old chain, last insert first: each one's result is now unused.
  for (tensor::InsertSliceOp insert : llvm::reverse(chain.inserts))
    insert.erase();
}

struct InterleavePhases : nki::impl::NKIInterleavePhasesBase<InterleavePhases> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target))
      return signalPassFailure();
    int64_t limit =
        minBytes >= 0
            ? int64_t(minBytes)
            : nki::maxInPlacePhaseBytes((*target)->sbufBytesPerPartition);
    SmallVector<nki::PhaseChain> chains = nki::phaseChains(func);
    SmallVector<int64_t> bytes;
    SmallVector<bool> take;
    DenseMap<Value, size_t> chainOf;
    for (auto [i, chain] : llvm::enumerate(chains)) {
      bytes.push_back(nki::channelMajorBytesPerPartition(
          chain.empty.getType(), (*target)->numPartitions));
      Value result = chain.inserts.back().getResult();
      take.push_back(bytes.back() > limit || returned(result));
      chainOf[result] = i;
    }
    // The chains one op reads are live together: where together they
    // exceed SBUF less the reading kernel's scratch, the residents plan
    // cannot keep them all, and one left in HBM would be written an
    // element at a time (the text detector's three upsampled FPN levels
    // at batch 4, 102,400 bytes a partition each in f32, summed by one op:
    // 3,130 us under auto-cast on trn2, 1,196 interleaved). Below that the
    // plan may keep them: at batch 2, 51,200 bytes each, they stay, 1.5 %
    // faster than interleaved on trn2 and 2.3 % on trn1 (where SBUF less
    // two kernels' scratch, liveBytesBesideAKernel, would interleave them).
    int64_t together = minBytes >= 0 ? int64_t(minBytes)
                                     : (*target)->sbufBytesPerPartition -
                                           nki::resident::kKernelScratchBytes;
    func.walk([&](Operation *op) {
      SmallVector<size_t> read;
      int64_t total = 0;
      for (Value operand : op->getOperands()) {
        auto it = chainOf.find(operand);
        if (it == chainOf.end() || llvm::is_contained(read, it->second))
          continue;
        read.push_back(it->second);
        total += bytes[it->second];
      }
      if (read.size() > 1 && total > together)
        for (size_t i : read)
          take[i] = true;
    });
    for (auto [chain, interleaved] : llvm::zip_equal(chains, take))
      if (interleaved)
        interleave(chain);
  }
};

} // namespace
