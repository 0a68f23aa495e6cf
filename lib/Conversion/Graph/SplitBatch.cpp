//===- SplitBatch.cpp - nki-split-batch: first layers per group of images -===//
//
// At batch N a network's first activations may not fit in SBUF with their
// channels on the partitions (ResNet-50's f32 residual stream at 56x56 is
// 200 KiB a partition at batch 8), so they go through HBM between kernels.
// For a group of N / G images they fit. This pass runs the first layers,
// up to the last whose result does not fit (or later, until none of those
// results is read after them), once per group (the groups' chains one
// after another: interleaving them broke the kernels' fusions and was
// slower), slicing the batch operands those layers read from
// outside and concatenating the results that later layers read. Where that
// does not pay, windows of the few layers around a result too large for the
// resident plan run per group instead, the layers before and after them on
// the whole batch (MobileNetV2's 112 x 112 expansion under auto-cast).
// Whether to split, where and in how many groups is BatchGroups.h's choice,
// from the layers' bytes per partition and estimated times.
//
//===----------------------------------------------------------------------===//

#include "../Common/ResidentLimits.h"
#include "ChannelBytes.h"

#include "nki/Analysis/BatchGroups.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nki-split-batch"

namespace nki {
#define GEN_PASS_DEF_NKISPLITBATCH
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// An op of the first layers and which of its operands hold the batch (as
/// their first dim) and are sliced per group.
struct BatchOp {
  Operation *op;
  SmallVector<bool> sliced;
  /// Rows of its results' first dim per image (a global pooling's rows of
  /// N x C: C).
  int64_t rows = 1;
};

int64_t elementBytes(Type t) {
  return (getElementTypeOrSelf(t).getIntOrFloatBitWidth() + 7) / 8;
}

/// A static tensor of numbers whose first dim is `rows` rows for each
/// image of a batch of `n`.
bool batchType(Type t, int64_t n, int64_t rows = 1) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape() && r.getRank() >= 1 &&
         r.getDimSize(0) == n * rows && r.getElementType().isIntOrFloat();
}

/// The batch values of the ops matched so far and how many rows of their
/// first dim each image has: 1, or more where a reshape merged the batch
/// with the next dims (a global pooling's [N * C, H * W] rows).
using BatchRows = DenseMap<Value, int64_t>;

/// `b.op`, a linalg op, when its first init's first dim is a parallel loop
/// that every operand read per image reads as its own first dim, with the
/// same rows per image.
std::optional<BatchOp> matchBatchLinalg(BatchOp b, int64_t n,
                                        const BatchRows &batch) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(b.op);
  if (!linalgOp || linalgOp.getNumDpsInits() == 0 ||
      !linalgOp.hasPureTensorSemantics() ||
      !linalgOp.getBlock()->getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  // The batch loop: the first dim of the first init, a parallel loop.
  AffineMap out =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  auto dim =
      out.getNumResults() ? dyn_cast<AffineDimExpr>(out.getResult(0)) : nullptr;
  if (!dim || linalgOp.getIteratorTypesArray()[dim.getPosition()] !=
                  utils::IteratorType::parallel)
    return std::nullopt;
  // The rows per image of the batch operands, all the same.
  for (OpOperand &operand : b.op->getOpOperands())
    if (int64_t rows = batch.lookup_or(operand.get(), 0)) {
      if (b.rows > 1 && rows != b.rows)
        return std::nullopt;
      b.rows = std::max(b.rows, rows);
    }
  for (OpOperand &operand : b.op->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    unsigned uses = 0;
    for (AffineExpr e : map.getResults())
      uses += e.isFunctionOfDim(dim.getPosition());
    if (uses == 0) {
      if (batch.contains(operand.get()))
        return std::nullopt;
      continue;
    }
    if (uses != 1 || map.getResult(0) != dim ||
        !batchType(operand.get().getType(), n, b.rows))
      return std::nullopt;
    b.sliced[operand.getOperandNumber()] = true;
  }
  if (!llvm::all_of(b.op->getResultTypes(),
                    [&](Type t) { return batchType(t, n, b.rows); }))
    return std::nullopt;
  return b;
}

/// Whether `op` can run on a slice of the batch of `n`, and if so which
/// operands it reads the batch from. `batch` holds the results of the ops
/// before it that can: any of them read without the batch (broadcast over
/// it) makes `op` whole-batch.
std::optional<BatchOp> matchBatchOp(Operation *op, int64_t n,
                                    const BatchRows &batch) {
  BatchOp b{op, SmallVector<bool>(op->getNumOperands(), false)};
  auto rowsOf = [&](Value v) { return batch.lookup_or(v, 0); };
  if (op->getNumResults() == 0)
    return std::nullopt;
  // A reshape that keeps the batch leading its first group of dims: each
  // image's rows stay contiguous.
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
    int64_t in = rowsOf(op->getOperand(0));
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!in || !type.hasStaticShape() || type.getDimSize(0) % n)
      return std::nullopt;
    b.rows = type.getDimSize(0) / n;
    if (isa<tensor::ExpandShapeOp>(op) && in % b.rows)
      return std::nullopt;
    b.sliced[0] = true;
    return b;
  }
  if (isa<linalg::LinalgOp>(op))
    return matchBatchLinalg(b, n, batch);
  if (!llvm::all_of(op->getResultTypes(),
                    [&](Type t) { return batchType(t, n); }))
    return std::nullopt;
  if (isa<tensor::EmptyOp>(op))
    return b;
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (low[0] != 0 || high[0] != 0 || !batchType(pad.getSourceType(), n) ||
        rowsOf(pad.getSource()) > 1 ||
        llvm::any_of(op->getOperands().drop_front(),
                     [&](Value v) { return batch.contains(v); }))
      return std::nullopt;
    b.sliced[0] = true;
    return b;
  }
  // Slices of other dims (a channel block, a concat's part, a phase): the
  // whole batch, from offset 0 with unit stride.
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    Value source = op->getOperand(0);
    if (slice.getStaticOffsets()[0] != 0 || slice.getStaticStrides()[0] != 1 ||
        slice.getStaticSizes()[0] != n || !batchType(source.getType(), n) ||
        rowsOf(source) > 1 ||
        llvm::any_of(op->getOperands().drop_front(
                         isa<tensor::InsertSliceOp>(op) ? 2 : 1),
                     [&](Value v) { return batch.contains(v); }))
      return std::nullopt;
    b.sliced[0] = true;
    if (isa<tensor::InsertSliceOp>(op)) {
      if (!batchType(op->getOperand(1).getType(), n) ||
          rowsOf(op->getOperand(1)) > 1)
        return std::nullopt;
      b.sliced[1] = true;
    }
    return b;
  }
  return std::nullopt;
}

/// The input `op` scales when it is a channel scale that its one reader, a
/// convolution, takes into its filter (a squeeze-and-excitation's `x * s`;
/// the tiler's findChannelScale): an elementwise generic over [N, C, H, W]
/// yielding the product of its one input read at every pixel, used once,
/// and factors computed from inputs read per image and channel. Else null.
Value channelScaleSource(linalg::GenericOp op) {
  if (!op || op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || !op->hasOneUse())
    return {};
  auto reader = dyn_cast<linalg::LinalgOp>(*op->user_begin());
  if (!reader || reader.getNumReductionLoops() == 0)
    return {};
  Block &body = op.getRegion().front();
  auto mul = body.getTerminator()->getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul || !body.getArgument(op.getNumDpsInputs()).use_empty())
    return {};
  OpOperand *full = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isIdentity()) {
      if (full)
        return {};
      full = input;
    } else if (map.isFunctionOfDim(2) || map.isFunctionOfDim(3)) {
      return {};
    }
  }
  if (!full)
    return {};
  BlockArgument x = body.getArgument(full->getOperandNumber());
  if (!x.hasOneUse() || (mul.getLhs() != x && mul.getRhs() != x))
    return {};
  return full->get();
}

/// The layer of `op` in the problem: its result's bytes and estimated
/// times at the whole batch.
nki::BatchLayer layerOf(const BatchOp &b, const nki::isa::TargetDesc &t) {
  nki::BatchLayer l;
  l.splittable = true;
  Operation *op = b.op;
  l.name = op->getName().getStringRef().str();
  // An empty tensor, a fill (a matmul's start flag), a pad (the
  // convolution reading it loads its source with borders) and a reshape are
  // no data of their own; the analysis gives a pad and a reshape their
  // source's bytes (as large a tensor, for the prefix's end).
  l.view =
      isa<tensor::PadOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
  if (isa<tensor::EmptyOp, tensor::PadOp, linalg::FillOp,
          tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    return l;
  // A slice is a view or written in place (empty-tensor elimination): it
  // moves nothing, but a concatenation or a channel block's result is a
  // tensor of its own, which its readers read from HBM when it is stored
  // there.
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    l.bytes = nki::channelMajorBytesPerPartition(type, t.numPartitions);
    l.packedBytes = nki::packedBytesPerPartition(type, t.numPartitions);
    if (isa<tensor::InsertSliceOp>(op))
      l.hbmBytes = type.getNumElements() * elementBytes(type) *
                   std::distance(op->getUsers().begin(), op->getUsers().end());
    return l;
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t lanes = type.getRank() >= 2 ? std::clamp<int64_t>(type.getDimSize(1),
                                                            1, t.numPartitions)
                                      : 1;
  l.bytes = nki::channelMajorBytesPerPartition(type, t.numPartitions);
  l.packedBytes = nki::packedBytesPerPartition(type, t.numPartitions);
  int64_t readers = std::distance(op->getUsers().begin(), op->getUsers().end());
  l.hbmBytes = type.getNumElements() * elementBytes(type) * (1 + readers);
  double perLane = double(type.getNumElements()) / double(lanes);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  // A channel scale its convolution takes: no pass, no tensor.
  if (channelScaleSource(dyn_cast<linalg::GenericOp>(op))) {
    l.bytes = l.packedBytes = l.hbmBytes = 0;
    l.view = true;
    return l;
  }
  if (!linalgOp || linalgOp.getNumReductionLoops() == 0) {
    // A copy or an elementwise pass: about an element a cycle per lane.
    l.vectorNs = perLane * 1000.0 / double(t.dveClockMHz);
    return l;
  }
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  double total = 1, reduced = 1;
  for (auto [range, it] : llvm::zip(ranges, iterators)) {
    total *= double(range);
    if (it == utils::IteratorType::reduction)
      reduced *= double(range);
  }
  // The output channel loop; when an activation (an input read per image)
  // reads it too (depthwise, pooling), a multiply-accumulate per lane on
  // the vector engines, else a matmul.
  AffineMap out =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  auto channel = out.getNumResults() >= 2
                     ? dyn_cast<AffineDimExpr>(out.getResult(1))
                     : nullptr;
  bool perChannel =
      channel &&
      llvm::any_of(linalgOp.getDpsInputOperands(), [&](OpOperand *o) {
        ArrayRef<AffineExpr> r =
            linalgOp.getMatchingIndexingMap(o).getResults();
        return b.sliced[o->getOperandNumber()] &&
               llvm::is_contained(r, channel);
      });
  if (perChannel) {
    l.vectorNs = total / double(lanes) * 1000.0 / double(t.dveClockMHz);
    return l;
  }
  // A reduction of one input over rows (a global pooling of [N * C, H *
  // W]): the vector engines, the rows on the lanes.
  if (linalgOp.getNumDpsInputs() == 1) {
    double rowLanes = std::min<double>(t.numPartitions, type.getDimSize(0));
    l.vectorNs = total / rowLanes * 1000.0 / double(t.dveClockMHz);
    l.barrier = b.rows > 1;
    return l;
  }
  double rows = std::min<double>(t.numPartitions, reduced);
  bool fp32 = llvm::all_of(linalgOp.getDpsInputOperands(), [](OpOperand *o) {
    return getElementTypeOrSelf(o->get().getType()).isF32();
  });
  l.peNs = total / (rows * double(lanes)) * double(fp32 ? t.peFp32Factor : 1) *
           1000.0 / double(t.peClockMHz);
  // Its evacuation from PSUM, which computes an elementwise reader (the
  // epilogue): the product never reaches HBM then.
  l.vectorNs = perLane * 1000.0 / double(t.actClockMHz);
  if (op->hasOneUse())
    if (auto reader = dyn_cast<linalg::LinalgOp>(*op->user_begin());
        reader && reader.getNumReductionLoops() == 0) {
      l.bytes = l.packedBytes = l.hbmBytes = 0;
      l.view = true;
    }
  return l;
}

/// Moves the ops of the prefix `run[0, end)` after its last op that the
/// groups must run: one whose result does not fit at the whole batch, one
/// reading such a result, and what those read. The others (ResNet-50's
/// layer3.0 conv2 and conv3, between conv1 and the downsample that both
/// read layer2's 512 channels) run once on the whole batch, as they did:
/// per image their matmuls would be half as wide and their filters loaded
/// once per group. Their order among themselves is kept. Returns whether
/// any moved.
bool sinkUnneeded(ArrayRef<BatchOp> run, const nki::BatchGroupProblem &problem,
                  int64_t end) {
  DenseSet<Operation *> inPrefix, need;
  for (int64_t i = 0; i < end; ++i)
    inPrefix.insert(run[i].op);
  // The results that do not fit, and their readers, through the views
  // that take no memory of their own (a depthwise convolution's channel
  // block, its padding): at the whole batch such a view would be the
  // large tensor in HBM again.
  SmallVector<Operation *> work, readers;
  for (int64_t i = 0; i < end; ++i)
    if (problem.layers[i].bytes > problem.capacity)
      readers.push_back(run[i].op);
  while (!readers.empty()) {
    Operation *op = readers.pop_back_val();
    work.push_back(op);
    for (Operation *user : op->getUsers())
      if (inPrefix.contains(user)) {
        if (isa<tensor::ExtractSliceOp, tensor::PadOp>(user))
          readers.push_back(user);
        else
          work.push_back(user);
      }
  }
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!need.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && inPrefix.contains(def))
        work.push_back(def);
  }
  Operation *last = nullptr;
  for (int64_t i = 0; i < end; ++i)
    if (need.contains(run[i].op))
      last = run[i].op;
  if (!last)
    return false;
  Operation *after = last;
  bool moved = false;
  for (int64_t i = 0; i < end; ++i) {
    Operation *op = run[i].op;
    if (need.contains(op) || !op->isBeforeInBlock(last))
      continue;
    op->moveAfter(after);
    after = op;
    moved = true;
  }
  return moved;
}

struct SplitBatch : nki::impl::NKISplitBatchBase<SplitBatch> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target))
      return signalPassFailure();
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"groups", groups},
                               {"chains", chains},
                               {"chain-images", chainImages}})
      if (value < 0) {
        func.emitError("nki-split-batch: ")
            << name << " must be >= 0, not " << value;
        return signalPassFailure();
      }
    // The batch: the first dim of the first argument (the images).
    auto input = func.getNumArguments()
                     ? dyn_cast<RankedTensorType>(func.getArgumentTypes()[0])
                     : RankedTensorType();
    if (!input || !input.hasStaticShape() || input.getRank() < 2)
      return;
    int64_t n = input.getDimSize(0);
    if (n < 2)
      return;
    const nki::isa::TargetDesc &t = **target;
    SmallVector<BatchOp> run;
    // The ops the groups share (above): once split, those only the whole
    // batch's ops read (an empty tensor, a fill) are dead.
    SmallVector<Operation *> shared;
    nki::BatchGroupProblem problem;
    nki::BatchGroupSolution solution;
    // The first ops that can run on a slice of the batch, as a problem.
    auto analyze = [&]() -> absl::Status {
      run.clear();
      shared.clear();
      BatchRows batch;
      // Results of ops that cannot run per group, and of ops reading them:
      // whole-batch values whose first dim need not be the batch.
      DenseSet<Value> whole;
      SmallVector<bool> splittable;
      for (Operation &op : func.getBody().front()) {
        if (isa<arith::ConstantOp>(op) || op.getNumResults() == 0)
          continue;
        // Ops that read neither the function's batch arguments (the
        // images) nor what depends on them stay where they are, shared by
        // the groups: a pooling's window tensor, a depthwise layer's
        // diagonal filter built from its weights, an empty tensor or a
        // fill. Their shape may lead with the batch's size by chance (at
        // batch 32, a 32-channel layer's [32, 3, 3, 32] filter, once taken
        // for a batch value that no group could slice, kept every later
        // layer whole); a reader that reads one along its batch loop takes
        // a slice of it, a fresh empty tensor or fill per group (split's
        // emit).
        auto fromLayers = [&](Value v) {
          return (isa<BlockArgument>(v) && batchType(v.getType(), n)) ||
                 batch.contains(v) || whole.contains(v);
        };
        if (llvm::none_of(op.getOperands(), fromLayers)) {
          shared.push_back(&op);
          continue;
        }
        std::optional<BatchOp> b;
        if (llvm::none_of(op.getOperands(),
                          [&](Value v) { return whole.contains(v); }))
          b = matchBatchOp(&op, n, batch);
        splittable.push_back(b.has_value());
        if (!b) {
          // A layer neither the prefix nor a window holds.
          run.push_back(BatchOp{&op, SmallVector<bool>(op.getNumOperands())});
          whole.insert(op.result_begin(), op.result_end());
          continue;
        }
        run.push_back(*b);
        for (Value r : op.getResults())
          batch[r] = b->rows;
      }
      problem = nki::BatchGroupProblem();
      problem.batch = n;
      problem.capacity = t.sbufBytesPerPartition / 4;
      problem.windowCapacity = nki::resident::maxTensorBytes(t);
      problem.liveCapacity = nki::resident::liveBytesBesideAKernel(t);
      problem.dmaBytesPerNs = double(t.dmaBytesPerNs * t.numDmaQueues);
      problem.margin = margin;
      problem.peBoundMargin = peBoundMargin;
      problem.barrierNs = barrierUs * 1e3;
      problem.windows = windows;
      problem.windowMargin = windowMargin;
      problem.trafficRatio = trafficRatio;
      problem.chainImages = chainImages;
      DenseMap<Operation *, int64_t> index;
      for (auto [i, b] : llvm::enumerate(run))
        index[b.op] = int64_t(i);
      // What the program moves at least: its inputs, outputs and constants;
      // each constant counted for the first layer that reads it.
      auto bytesOf = [](Type type) -> int64_t {
        auto r = dyn_cast<RankedTensorType>(type);
        return r && r.hasStaticShape() && r.getElementType().isIntOrFloat()
                   ? r.getNumElements() * elementBytes(r)
                   : 0;
      };
      for (Type type : func.getArgumentTypes())
        problem.programBytes += bytesOf(type);
      for (Type type : func.getResultTypes())
        problem.programBytes += bytesOf(type);
      DenseSet<Value> constants;
      for (auto constant : func.getBody().getOps<arith::ConstantOp>())
        problem.programBytes += bytesOf(constant.getType());
      for (auto [b, split] : llvm::zip_equal(run, splittable)) {
        nki::BatchLayer &layer = problem.layers.emplace_back();
        if (split)
          layer = layerOf(b, t);
        else
          layer.name = b.op->getName().getStringRef().str();
        for (Value v : b.op->getOperands())
          if (v.getDefiningOp<arith::ConstantOp>() &&
              constants.insert(v).second)
            layer.constantBytes += bytesOf(v.getType());
        // A reshape or a pad is its source in another shape, as large: its
        // readers read that result (a global pooling's [N * C, H * W] rows,
        // a depthwise convolution's padded input).
        if (split &&
            isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::PadOp>(
                b.op))
          if (auto it = index.find(b.op->getOperand(0).getDefiningOp());
              it != index.end()) {
            layer.bytes = problem.layers[it->second].bytes;
            layer.packedBytes = problem.layers[it->second].packedBytes;
            if (!isa<tensor::PadOp>(b.op))
              layer.through = it->second;
          }
        // The plan packs a tensor only for one convolution that reads it
        // (beside a pooling, and a concatenation's copy, a tensor of its
        // own): not the input of an upsampled convolution's phases.
        if (split && layer.packedBytes < layer.bytes &&
            llvm::count_if(b.op->getUsers(), [op = b.op](Operation *user) {
              auto into = dyn_cast<tensor::InsertSliceOp>(user);
              return !(into && into.getSource() == op->getResult(0)) &&
                     !isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(
                         user);
            }) > 1)
          layer.packedBytes = layer.bytes;
        // A partial tensor (an insert chain's value before its last insert)
        // is no tensor of its own; the groups must complete it, or a group
        // would copy its unwritten elements. So are a convolution's
        // upsampled phases (inserts with steps) whole: the convolution that
        // sums them in its accumulator reads them in its own kernel.
        // The chain's last value moves the tensor through HBM when it is
        // stored there.
        auto insert = dyn_cast<tensor::InsertSliceOp>(b.op);
        bool chained = llvm::any_of(b.op->getUses(), [](OpOperand &use) {
          auto next = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
          return next && &use == &next.getDestMutable();
        });
        if (split && insert && (!insert.hasUnitStride() || chained)) {
          layer.view = layer.partial = true;
          if (chained)
            layer.hbmBytes = 0;
        }
        // A phase, which its kernel writes into the upsampled tensor's
        // strided positions, is no tensor of its own.
        if (split && b.op->hasOneUse())
          if (auto into = dyn_cast<tensor::InsertSliceOp>(*b.op->user_begin());
              into && !into.hasUnitStride() &&
              into.getSource() == b.op->getResult(0)) {
            layer.bytes = layer.packedBytes = layer.hbmBytes = 0;
            layer.view = true;
          }
        // A channel scale reads its full input through: the convolution
        // that takes it reads that input.
        if (split && layer.view)
          if (Value source =
                  channelScaleSource(dyn_cast<linalg::GenericOp>(b.op)))
            if (auto it = index.find(source.getDefiningOp()); it != index.end())
              layer.through = it->second;
        // A result the function returns is stored in HBM whatever the
        // split; the groups' parts are stored in place there.
        for (Operation *user : b.op->getUsers())
          if (!isa<func::ReturnOp>(user))
            layer.lastReader = std::max(
                layer.lastReader, index.lookup_or(user, int64_t(run.size())));
      }
      absl::Status status = nki::solve(problem, solution, groups, chains);
      return status.ok() ? nki::verify(problem, solution) : status;
    };
    absl::Status status = analyze();
    if (run.empty())
      return;
    // Ops the groups need not run move after them and take the whole
    // batch; the prefix shrinks to what it must hold, so solve again.
    if (status.ok() && solution.chains == 1 && solution.layers > 0 &&
        sinkUnneeded(run, problem, solution.layers))
      status = analyze();
    if (!status.ok()) {
      func.emitError("nki-split-batch: ") << std::string(status.message());
      return signalPassFailure();
    }
    LLVM_DEBUG(llvm::dbgs()
               << "nki-split-batch: " << solution.layers << " layers in "
               << solution.groups << " groups; HBM " << solution.hbmNs
               << " ns against compute " << solution.computeNs << " ns\n");
    Builder b(func.getContext());
    // Each window named by the source ops (ONNX nodes) of its first and
    // last layers.
    SmallVector<Attribute> windowAttrs;
    for (const nki::BatchWindow &w : solution.windows) {
      auto source = [&](int64_t i) {
        return b.getStringAttr(
            nki::nisa::locationToString(run[i].op->getLoc()));
      };
      windowAttrs.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("first", b.getI64IntegerAttr(w.begin)),
           b.getNamedAttr("ops", b.getI64IntegerAttr(w.end - w.begin)),
           b.getNamedAttr("groups", b.getI64IntegerAttr(w.groups)),
           b.getNamedAttr("hbm_us", b.getF64FloatAttr(w.hbmNs / 1e3)),
           b.getNamedAttr("compute_us", b.getF64FloatAttr(w.computeNs / 1e3)),
           b.getNamedAttr("from", source(w.begin)),
           b.getNamedAttr("to", source(w.end - 1)),
           b.getNamedAttr("traffic", b.getBoolAttr(w.traffic)),
           b.getNamedAttr("escapes", b.getBoolAttr(w.escapes))}));
    }
    func->setAttr(
        nki::tile::kBatchGroupsAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("ops", b.getI64IntegerAttr(solution.layers)),
             b.getNamedAttr("groups", b.getI64IntegerAttr(solution.groups)),
             b.getNamedAttr("hbm_us", b.getF64FloatAttr(solution.hbmNs / 1e3)),
             b.getNamedAttr("compute_us",
                            b.getF64FloatAttr(solution.computeNs / 1e3)),
             b.getNamedAttr("pe_bound", b.getBoolAttr(solution.peBound)),
             b.getNamedAttr("packed", b.getBoolAttr(solution.packed)),
             b.getNamedAttr("traffic", b.getBoolAttr(solution.traffic)),
             b.getNamedAttr("why", b.getStringAttr(solution.why)),
             b.getNamedAttr("alternative",
                            b.getI64IntegerAttr(solution.alternative)),
             b.getNamedAttr("chains", b.getI64IntegerAttr(solution.chains)),
             b.getNamedAttr("alternative_chains",
                            b.getI64IntegerAttr(solution.alternativeChains)),
             b.getNamedAttr("windows", b.getArrayAttr(windowAttrs))}));
    // Chains: every layer once per chain, then each chain's own windows
    // and prefix on its clones (the layers' order, the same operands
    // sliced).
    SmallVector<SmallVector<BatchOp>> chains;
    if (solution.chains > 1) {
      SmallVector<SmallVector<Operation *>> clones;
      split(run, n, solution.chains, /*overlap=*/false, &clones);
      for (ArrayRef<Operation *> chain : clones) {
        SmallVector<BatchOp> &ops = chains.emplace_back();
        for (auto [op, b] : llvm::zip_equal(chain, run))
          ops.push_back(BatchOp{op, b.sliced, b.rows});
      }
      n /= solution.chains;
    } else {
      chains.push_back(std::move(run));
    }
    // The windows last first, then the prefix: a split only clones and
    // erases its own ops, so the others' stay valid.
    for (ArrayRef<BatchOp> ops : chains) {
      for (const nki::BatchWindow &w : llvm::reverse(solution.windows))
        split(ops.slice(w.begin, w.end - w.begin), n, w.groups,
              /*overlap=*/false);
      if (solution.layers > 0)
        split(ops.take_front(solution.layers), n, solution.groups,
              solution.peBound);
    }
    for (Operation *op : llvm::reverse(shared))
      if (isOpTriviallyDead(op))
        op->erase();
  }

  /// Clones `prefix` (the first layers, or a window) once per group after
  /// its last op, the batch operands from outside sliced, and concatenates
  /// what later ops read; with
  /// `overlap`, each group's clones start half way through the previous
  /// group's. `clones`, when given, gets each group's clones in the order
  /// of `prefix`.
  void split(ArrayRef<BatchOp> prefix, int64_t n, int64_t groups, bool overlap,
             SmallVector<SmallVector<Operation *>> *clones = nullptr) {
    int64_t m = n / groups;
    DenseSet<Operation *> inPrefix;
    for (const BatchOp &b : prefix)
      inPrefix.insert(b.op);
    OpBuilder builder(prefix.back().op->getContext());
    builder.setInsertionPointAfter(prefix.back().op);
    // A group's part of a batch value: m images of its rows per image.
    auto sliceType = [&](Type type) {
      auto r = cast<RankedTensorType>(type);
      SmallVector<int64_t> shape(r.getShape());
      shape[0] = shape[0] / n * m;
      return RankedTensorType::get(shape, r.getElementType(), r.getEncoding());
    };
    auto unitStrides = [&](int64_t rank) {
      return SmallVector<OpFoldResult>(rank, builder.getIndexAttr(1));
    };
    // Where group g's part starts in `type`.
    auto offsetsOf = [&](int64_t g, RankedTensorType type) {
      SmallVector<OpFoldResult> o(type.getRank(), builder.getIndexAttr(0));
      o[0] = builder.getIndexAttr(g * m * (type.getDimSize(0) / n));
      return o;
    };
    auto sizesOf = [&](RankedTensorType type) {
      SmallVector<OpFoldResult> s;
      for (int64_t d : type.getShape())
        s.push_back(builder.getIndexAttr(d));
      return s;
    };
    SmallVector<IRMapping> maps(groups);
    if (clones)
      clones->assign(groups, SmallVector<Operation *>(prefix.size()));
    auto emit = [&](int64_t g, int64_t i) {
      const BatchOp &b = prefix[i];
      for (auto [operand, sliced] : llvm::zip(b.op->getOperands(), b.sliced)) {
        if (!sliced || maps[g].contains(operand))
          continue;
        auto type = cast<RankedTensorType>(operand.getType());
        RankedTensorType part = sliceType(type);
        Location loc = b.op->getLoc();
        Value slice;
        // A group's part of a filled empty tensor is a fill of its own,
        // not a view of the whole: the kernels see a fresh init (a global
        // pooling's zero sums, which the convolutions writing its source
        // then compute as they evacuate).
        // So is a group's part of an empty tensor: a slice of the whole
        // one would start a chain of inserts (a convolution's upsampled
        // phases) from a copy of undefined elements, not from an empty.
        // (Each at the location of the op it replaces: the kernels' fills
        // of its buffer are charged to that op's source.)
        auto fill = operand.getDefiningOp<linalg::FillOp>();
        if (auto empty = operand.getDefiningOp<tensor::EmptyOp>()) {
          slice = tensor::EmptyOp::create(
              builder, empty.getLoc(), part.getShape(), part.getElementType());
        } else if (auto init = fill ? fill.getDpsInits()[0]
                                          .getDefiningOp<tensor::EmptyOp>()
                                    : tensor::EmptyOp()) {
          Value empty = tensor::EmptyOp::create(
              builder, init.getLoc(), part.getShape(), part.getElementType());
          slice = linalg::FillOp::create(builder, fill.getLoc(),
                                         fill.getInputs(), ValueRange{empty})
                      .getResult(0);
        } else {
          slice = tensor::ExtractSliceOp::create(
              builder, loc, part, operand, offsetsOf(g, type), sizesOf(part),
              unitStrides(type.getRank()));
        }
        maps[g].map(operand, slice);
      }
      Operation *clone = builder.clone(*b.op, maps[g]);
      if (clones)
        (*clones)[g][i] = clone;
      for (Value r : clone->getResults())
        r.setType(sliceType(r.getType()));
      // A slice's sizes and an expand_shape's static shape hold the
      // batch too.
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(clone))
        expand.setStaticOutputShape(expand.getResultType().getShape());
      if (auto slice = dyn_cast<OffsetSizeAndStrideOpInterface>(clone)) {
        SmallVector<int64_t> sizes(slice.getStaticSizes());
        sizes[0] = m;
        clone->setAttr(isa<tensor::ExtractSliceOp>(clone)
                           ? tensor::ExtractSliceOp::getStaticSizesAttrName(
                                 clone->getName())
                           : tensor::InsertSliceOp::getStaticSizesAttrName(
                                 clone->getName()),
                       builder.getDenseI64ArrayAttr(sizes));
      }
    };
    // Units: a contraction with the ops before it and its elementwise
    // epilogue, kept together (the tiler fuses them when adjacent).
    SmallVector<int64_t> unitStart = {0};
    bool contraction = false;
    for (auto [i, b] : llvm::enumerate(prefix)) {
      auto lin = dyn_cast<linalg::LinalgOp>(b.op);
      if (lin && lin.getNumReductionLoops() > 0)
        contraction = true;
      else if (lin && contraction && !isa<linalg::FillOp>(b.op)) {
        unitStart.push_back(int64_t(i) + 1);
        contraction = false;
      }
    }
    if (unitStart.back() != int64_t(prefix.size()))
      unitStart.push_back(prefix.size());
    int64_t units = int64_t(unitStart.size()) - 1;
    // Each group starts `lag` units after the previous one: all of them
    // (one group after another), or half, rounded down, when `overlap`, so
    // that the next group's first convolutions fill the PE while this one's
    // last layers drain (two groups in flight, three for an odd count of
    // units; rounding up instead, ResNet-50 in f32 at batch 8 ran 4,494
    // rather than 4,441 us).
    int64_t lag = overlap ? std::max<int64_t>(1, units / 2) : units;
    for (int64_t step = 0; step < (groups - 1) * lag + units; ++step)
      for (int64_t g = 0; g < groups; ++g)
        if (int64_t u = step - g * lag; u >= 0 && u < units)
          for (int64_t i = unitStart[u]; i < unitStart[u + 1]; ++i)
            emit(g, i);
    // What later ops read: the groups' parts, concatenated.
    for (const BatchOp &b : prefix) {
      if (isa<tensor::EmptyOp>(b.op))
        continue;
      for (Value r : b.op->getResults()) {
        if (llvm::all_of(r.getUsers(), [&](Operation *user) {
              return inPrefix.contains(user);
            }))
          continue;
        auto type = cast<RankedTensorType>(r.getType());
        Location loc = b.op->getLoc();
        Value whole = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType());
        for (int64_t g = 0; g < groups; ++g) {
          Value part = maps[g].lookup(r);
          whole = tensor::InsertSliceOp::create(
              builder, loc, part, whole, offsetsOf(g, type),
              sizesOf(cast<RankedTensorType>(part.getType())),
              unitStrides(type.getRank()));
        }
        r.replaceUsesWithIf(whole, [&](OpOperand &use) {
          return !inPrefix.contains(use.getOwner());
        });
      }
    }
    // Later prefix ops first, so that each op's readers are gone; an empty
    // tensor later ops also fill stays.
    for (const BatchOp &b : llvm::reverse(prefix))
      if (b.op->use_empty())
        b.op->erase();
  }
};

} // namespace
