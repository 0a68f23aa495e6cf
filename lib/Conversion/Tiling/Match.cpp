//===- Match.cpp - What nki-tile fuses into a kernel ----------------------===//

#include "Match.h"

#include "../Common/MxMatmul.h"
#include "../Conv/ConvGeneric.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// Ops that only name or shape HBM buffers; they stay as they are.
bool tiling::isBufferBookkeeping(Operation *op) {
  return isa<memref::AllocOp, memref::SubViewOp, memref::CollapseShapeOp,
             memref::ExpandShapeOp, memref::ReinterpretCastOp, memref::CastOp,
             tile::BitcastOp, memref::DeallocOp, memref::GetGlobalOp,
             arith::ConstantOp, func::ReturnOp>(op);
}

Value tiling::viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

Value tiling::reshapeRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The ops that use `buffer` or a view of it.
DenseSet<Operation *> tiling::usersThroughViews(Value buffer) {
  DenseSet<Operation *> users;
  SmallVector<Value> work = {buffer};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      users.insert(user);
      if (isa<ViewLikeOpInterface>(user))
        llvm::append_range(work, user->getResults());
    }
  }
  return users;
}

/// The fill of `buffer` with `value` before `op` with no other use of
/// `buffer` in between (ops that do not touch it may come between).
linalg::FillOp tiling::findFill(Value buffer, Operation *op, double value) {
  DenseSet<Operation *> users = usersThroughViews(buffer);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isBufferBookkeeping(prev) || !users.contains(prev))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill || fill.getDpsInits()[0] != buffer)
      return {};
    auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    if (!cst)
      return {};
    auto f = dyn_cast<FloatAttr>(cst.getValue());
    if (!f)
      return {};
    double v = f.getValueAsDouble();
    return v == value || (std::isnan(v) && std::isnan(value))
               ? fill
               : linalg::FillOp();
  }
  return {};
}

linalg::FillOp tiling::findZeroFill(Value buffer, Operation *op) {
  return findFill(buffer, op, 0.0);
}

std::optional<FusedPool> tiling::findFusedPool(Value out, Operation *last) {
  SmallVector<Operation *> between;
  for (Operation *next = last->getNextNode(); next;
       next = next->getNextNode()) {
    if (isa<memref::AllocOp>(next))
      continue;
    if (isa<linalg::FillOp, linalg::MapOp, memref::SubViewOp, memref::CopyOp>(
            next)) {
      between.push_back(next);
      continue;
    }
    auto pool = dyn_cast<linalg::PoolingNchwMaxOp>(next);
    if (!pool)
      return std::nullopt;
    auto window = dyn_cast<MemRefType>(pool.getInputs()[1].getType());
    auto in = dyn_cast<MemRefType>(out.getType());
    auto pooled = dyn_cast<MemRefType>(pool.getOutputs()[0].getType());
    if (!window || !in || !pooled ||
        !llvm::all_of(pool.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 2; }) ||
        !llvm::all_of(pool.getDilations().getValues<int64_t>(),
                      [](int64_t d) { return d == 1; }) ||
        in.getDimSize(2) % 2 || in.getDimSize(3) % 2 ||
        pooled.getDimSize(2) != in.getDimSize(2) / 2 ||
        pooled.getDimSize(3) != in.getDimSize(3) / 2)
      return std::nullopt;
    FusedPool fused;
    fused.op = pool;
    Value x = pool.getInputs()[0];
    if (x == out && window.getShape() == ArrayRef<int64_t>{2, 2}) {
      fused.window = 2;
    } else if (window.getShape() == ArrayRef<int64_t>{3, 3}) {
      // Row 2i - 1 of pooled row i's window is the padding for i = 0 only.
      fused.padding = findConvPadding(x, pool, fused.padOps);
      const std::optional<ConvPadding> &p = fused.padding;
      if (!p || p->source != out || p->top != 1 || p->left != 1 ||
          !std::isinf(p->value) || p->value > 0)
        return std::nullopt;
      fused.window = 3;
    } else {
      return std::nullopt;
    }
    fused.fill = findFill(pool.getDpsInits()[0], pool, poolIdentity(true));
    if (!fused.fill)
      return std::nullopt;
    // Only the pooling's own fill and padding may come in between: the
    // kernel runs where the pooling was.
    for (Operation *o : between) {
      auto fill = dyn_cast<linalg::FillOp>(o);
      if (!(fill && fill.getDpsInits()[0] == pool.getDpsInits()[0]) &&
          !llvm::is_contained(fused.padOps, o))
        return std::nullopt;
    }
    // The result's readers after the kernel (its writers come before).
    fused.resultUnread =
        llvm::all_of(usersThroughViews(viewRoot(out)), [&](Operation *u) {
          return isBufferBookkeeping(u) || u == pool.getOperation() ||
                 llvm::is_contained(fused.padOps, u) ||
                 (u->getBlock() == last->getBlock() &&
                  (u == last || u->isBeforeInBlock(last)));
        });
    // 3x3 windows only then: a result kept in SBUF for other readers has
    // no -inf border for the pooling's own kernel, which runs when the
    // chunks are not pairs of rows.
    if (fused.window == 3 && !fused.resultUnread)
      return std::nullopt;
    return fused;
  }
  return std::nullopt;
}

std::optional<PhaseScatter> tiling::findPhaseScatter(linalg::GenericOp conv,
                                                     int64_t partitions) {
  Value y = conv.getDpsInits()[0];
  auto type = cast<MemRefType>(y.getType());
  linalg::FillOp zero = findZeroFill(y, conv);
  if (!y.getDefiningOp<memref::AllocOp>() || type.getRank() != 4 ||
      !type.hasStaticShape() || type.getDimSize(1) > partitions || !zero)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  PhaseScatter s;
  for (Operation *user : y.getUsers()) {
    if (user == conv.getOperation() || user == zero.getOperation())
      continue;
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || !view->hasOneUse())
      return std::nullopt;
    auto copy = dyn_cast<memref::CopyOp>(*view->getUsers().begin());
    ArrayRef<int64_t> offsets = view.getStaticOffsets(),
                      sizes = view.getStaticSizes(),
                      strides = view.getStaticStrides();
    if (!copy || copy.getSource() != view.getResult() ||
        copy->getBlock() != conv->getBlock() || sizes.size() != 4 ||
        offsets[0] != 0 || offsets[2] != 0 || offsets[3] != 0 ||
        sizes[0] != shape[0] || sizes[2] != shape[2] || sizes[3] != shape[3] ||
        ShapedType::isDynamic(offsets[1]) || ShapedType::isDynamic(sizes[1]) ||
        llvm::any_of(strides, [](int64_t v) { return v != 1; }) ||
        view.getType().getRank() != 4)
      return std::nullopt;
    s.pieces.push_back(
        {offsets[1], sizes[1], copy.getSource(), copy.getTarget(), copy});
  }
  if (s.pieces.empty())
    return std::nullopt;
  // Evacuated where the last copy was: nothing in between may touch the
  // copies' targets (only the views the copies take).
  s.last = conv;
  for (const PhaseScatter::Piece &p : s.pieces)
    if (s.last->isBeforeInBlock(p.copy))
      s.last = p.copy;
  for (Operation *o = conv->getNextNode(); o != s.last; o = o->getNextNode())
    if (!isa<memref::SubViewOp>(o) &&
        llvm::none_of(s.pieces, [&](const PhaseScatter::Piece &p) {
          return p.copy == o;
        }))
      return std::nullopt;
  llvm::sort(s.pieces,
             [](const PhaseScatter::Piece &a, const PhaseScatter::Piece &b) {
               return a.channel < b.channel;
             });
  return s;
}

std::optional<PartnerConv> tiling::findPartnerConv(linalg::GenericOp conv,
                                                   const conv::ConvGeneric &g) {
  Value y = conv.getDpsInits()[0];
  if (findZeroFill(y, conv) || !y.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  // The op before `conv` that writes its init: the partner.
  DenseSet<Operation *> users = usersThroughViews(y);
  linalg::GenericOp partner;
  for (Operation *prev = conv->getPrevNode(); prev && !partner;
       prev = prev->getPrevNode()) {
    if (isBufferBookkeeping(prev) || !users.contains(prev))
      continue;
    partner = dyn_cast<linalg::GenericOp>(prev);
    if (!partner || partner.getDpsInits()[0] != y)
      return std::nullopt;
  }
  if (!partner)
    return std::nullopt;
  std::optional<conv::ConvGeneric> pg = conv::matchConvGeneric(partner);
  linalg::FillOp fill = findZeroFill(y, partner);
  if (!pg || !fill || pg->kh != 1 || pg->kw != 1 || pg->n != g.n ||
      pg->f != g.f || pg->oh != g.oh || pg->ow != g.ow ||
      pg->inputType != g.inputType)
    return std::nullopt;
  // Nothing else touches the result but the epilogue reading the sum.
  linalg::GenericOp epilogue = findEpilogue(conv, linalg::FillOp());
  for (Operation *user : users)
    if (isa<func::ReturnOp>(user) ||
        (!isBufferBookkeeping(user) && user != conv.getOperation() &&
         user != partner.getOperation() && user != fill.getOperation() &&
         user != epilogue.getOperation()))
      return std::nullopt;
  // Its input, an unpadded buffer of its own, is not written in between.
  Value x = partner.getDpsInputs()[0];
  if (!isa_and_nonnull<memref::AllocOp>(viewRoot(x).getDefiningOp()) &&
      !isa<BlockArgument>(viewRoot(x)))
    return std::nullopt;
  DenseSet<Operation *> xUsers = usersThroughViews(viewRoot(x));
  for (Operation *op = partner->getNextNode(); op != conv.getOperation();
       op = op->getNextNode()) {
    if (!xUsers.contains(op))
      continue;
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    if (isa<memref::CopyOp>(op) ||
        (dps && llvm::any_of(dps.getDpsInits(), [&](Value v) {
           return viewRoot(v) == viewRoot(x);
         })))
      return std::nullopt;
  }
  return PartnerConv{partner, fill, *pg};
}

std::optional<ChainedConv> tiling::findChainedConv(linalg::GenericOp conv,
                                                   const conv::ConvGeneric &g,
                                                   linalg::GenericOp epilogue,
                                                   int64_t partitions) {
  Operation *last = epilogue ? epilogue.getOperation() : conv.getOperation();
  Value mid = epilogue ? epilogue.getDpsInits()[0] : conv.getDpsInits()[0];
  if (g.f > partitions || !mid.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  // What the producer reads: nothing the kernel's new place (after the
  // ops up to the 1x1) may have written.
  DenseSet<Value> reads;
  for (Value v : conv.getDpsInputs())
    reads.insert(viewRoot(v));
  if (epilogue)
    for (Value v : epilogue.getDpsInputs())
      reads.insert(viewRoot(v));
  // The next op past bookkeeping and fills (the 1x1's own, checked below)
  // of buffers the producer does not read.
  Operation *next = last->getNextNode();
  while (next && ((isBufferBookkeeping(next) && !isa<func::ReturnOp>(next)) ||
                  isa<linalg::FillOp>(next))) {
    if (auto fill = dyn_cast<linalg::FillOp>(next);
        fill && reads.contains(viewRoot(fill.getDpsInits()[0])))
      return std::nullopt;
    next = next->getNextNode();
  }
  auto consumer = dyn_cast_or_null<linalg::GenericOp>(next);
  std::optional<conv::ConvGeneric> c =
      consumer ? conv::matchConvGeneric(consumer) : std::nullopt;
  if (!c || consumer.getDpsInputs()[0] != mid ||
      reads.contains(viewRoot(consumer.getDpsInits()[0])) || c->kh != 1 ||
      c->kw != 1 || c->strideH != 1 || c->strideW != 1 || c->n != g.n ||
      c->c != g.f || c->h != g.oh || c->w != g.ow || c->f > g.f)
    return std::nullopt;
  // The producer's result has no other reader (nor writer but the
  // producer's zero fill: the epilogue may write the product's buffer in
  // place); it is not a result of the function.
  linalg::FillOp zero = findZeroFill(conv.getDpsInits()[0], conv);
  for (Operation *user : usersThroughViews(mid))
    if (isa<func::ReturnOp>(user) ||
        (!isBufferBookkeeping(user) && user != conv.getOperation() &&
         user != last && user != consumer.getOperation() &&
         user != zero.getOperation()))
      return std::nullopt;
  linalg::FillOp fill = findZeroFill(consumer.getDpsInits()[0], consumer);
  if (!fill)
    return std::nullopt;
  // Its epilogue reads nothing else pixel by pixel (a bias, not a residual):
  // the kernel loads those operands as per-channel columns.
  linalg::GenericOp epi = findEpilogue(cast<linalg::LinalgOp>(*consumer), fill);
  if (epi && reads.contains(viewRoot(epi.getDpsInits()[0])))
    return std::nullopt;
  if (epi)
    for (OpOperand *in : epi.getDpsInputOperands()) {
      if (in->get() == consumer.getDpsInits()[0])
        continue;
      AffineMap map = epi.getMatchingIndexingMap(in);
      if (map.getNumDims() != 4 ||
          llvm::any_of(map.getResults(), [](AffineExpr e) {
            return e.isFunctionOfDim(2) || e.isFunctionOfDim(3);
          }))
        return std::nullopt;
    }
  return ChainedConv{consumer, fill, epi};
}

/// The convolution whose epilogue `epilogue` is: the op before it, past
/// buffer bookkeeping.
static linalg::GenericOp convOfEpilogue(linalg::GenericOp epilogue) {
  Operation *prev = epilogue->getPrevNode();
  while (prev && isBufferBookkeeping(prev))
    prev = prev->getPrevNode();
  auto conv = dyn_cast_or_null<linalg::GenericOp>(prev);
  if (!conv || !conv::matchConvGeneric(conv))
    return {};
  Value y = conv.getDpsInits()[0];
  if (findEpilogue(cast<linalg::LinalgOp>(conv.getOperation()),
                   findZeroFill(y, conv)) != epilogue)
    return {};
  return conv;
}

/// The first channel of the block of whole channels of [N, C, H, W] `root`
/// that `view` is (root itself, or a unit-stride subview of it offset along
/// C only).
static std::optional<int64_t> channelBlockStart(Value view, Value root) {
  if (view == root)
    return 0;
  auto sv = view.getDefiningOp<memref::SubViewOp>();
  if (!sv || sv.getSource() != root)
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<MemRefType>(root.getType()).getShape();
  ArrayRef<int64_t> offsets = sv.getStaticOffsets(),
                    sizes = sv.getStaticSizes(),
                    strides = sv.getStaticStrides();
  if (offsets.size() != 4 || offsets[0] != 0 || offsets[2] != 0 ||
      offsets[3] != 0 || ShapedType::isDynamic(offsets[1]) ||
      sizes[0] != shape[0] || sizes[2] != shape[2] || sizes[3] != shape[3] ||
      llvm::any_of(strides, [](int64_t s) { return s != 1; }))
    return std::nullopt;
  return offsets[1];
}

DenseMap<Operation *, FusedGlobalPool>
tiling::findFusedGlobalPools(ArrayRef<Operation *> ops,
                             std::deque<GlobalPoolSum> &pools) {
  DenseMap<Operation *, FusedGlobalPool> fused;
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    std::optional<GlobalPoolSum> pool =
        generic ? matchGlobalPoolSum(generic) : std::nullopt;
    if (!pool || !pool->source.getDefiningOp<memref::AllocOp>() ||
        !reshapeRoot(pool->out.buffer).getDefiningOp<memref::AllocOp>())
      continue;
    // The result: only its fill comes before the pooling (the kernels
    // write it from the first convolution on).
    bool ok = llvm::all_of(
        usersThroughViews(pool->out.buffer), [&, i = i](Operation *u) {
          return isBufferBookkeeping(u) || u == pool->fill.getOperation() ||
                 !position.contains(u) || position.lookup(u) >= i;
        });
    // Every writer of the source: a convolution's epilogue before the
    // pooling, storing a block of whole channels; readers may be anywhere.
    SmallVector<std::pair<Operation *, int64_t>> blocks;
    SmallVector<std::pair<int64_t, int64_t>> ranges;
    for (Operation *user : usersThroughViews(pool->source)) {
      if (!ok)
        break;
      if (user == op || isBufferBookkeeping(user))
        continue;
      if (isa<func::ReturnOp>(user))
        continue;
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        ok = viewRoot(copy.getTarget()) != pool->source;
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
      if (!linalgOp) {
        ok = false;
        break;
      }
      if (llvm::none_of(linalgOp.getDpsInits(),
                        [&](Value v) { return viewRoot(v) == pool->source; }))
        continue;
      auto epilogue = dyn_cast<linalg::GenericOp>(user);
      linalg::GenericOp conv = epilogue && epilogue.getNumDpsInits() == 1
                                   ? convOfEpilogue(epilogue)
                                   : linalg::GenericOp();
      std::optional<int64_t> c0 =
          conv ? channelBlockStart(epilogue.getDpsInits()[0], pool->source)
               : std::nullopt;
      if (!c0 || !position.contains(user) || position.lookup(user) > i) {
        ok = false;
        break;
      }
      int64_t cs =
          cast<MemRefType>(epilogue.getDpsInits()[0].getType()).getDimSize(1);
      blocks.push_back({conv, *c0});
      ranges.push_back({*c0, *c0 + cs});
    }
    llvm::sort(ranges);
    int64_t covered = 0;
    for (auto [from, to] : ranges) {
      ok &= from == covered;
      covered = to;
    }
    if (!ok ||
        covered != cast<MemRefType>(pool->source.getType()).getDimSize(1))
      continue;
    pools.push_back(std::move(*pool));
    for (auto [conv, c0] : blocks)
      fused[conv] = FusedGlobalPool{&pools.back(), c0};
  }
  return fused;
}

/// A 2-D NCHW max or sum pooling (kept whole by nki-prepare-graph) and
/// whether it is a max.
std::optional<bool> tiling::isPooling(Operation *op) {
  if (isa<linalg::PoolingNchwMaxOp>(op))
    return true;
  if (isa<linalg::PoolingNchwSumOp>(op))
    return false;
  return std::nullopt;
}

/// The identity of a pooling's combiner.
double tiling::poolIdentity(bool isMax) {
  return isMax ? -std::numeric_limits<double>::infinity() : 0.0;
}

/// An elementwise generic that consumes the matmul's product, right after
/// it, where the product buffer is a scratch allocation used by nothing
/// else.
linalg::GenericOp tiling::findEpilogue(linalg::LinalgOp matmul,
                                       linalg::FillOp fill) {
  Value product = matmul.getDpsInits()[0];
  // The product's buffer, or a reshape view of it (a result of another
  // shape that freshResults gave the allocation).
  Operation *view = product.getDefiningOp();
  if (!isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(view))
    view = nullptr;
  Value root = view ? view->getOperand(0) : product;
  if (!root.getDefiningOp<memref::AllocOp>())
    return {};
  // Fills of other allocations may come between (the next matmul's zero
  // init, which the graph puts before this epilogue: a classifier's
  // `fc2(hardswish(fc1(x)))`); the epilogue must not touch what they fill.
  SmallVector<Value> filled;
  Operation *next = matmul->getNextNode();
  while (next && !isa<func::ReturnOp>(next)) {
    if (auto f = dyn_cast<linalg::FillOp>(next);
        f && f.getDpsInits()[0].getDefiningOp<memref::AllocOp>() &&
        f.getDpsInits()[0] != root)
      filled.push_back(f.getDpsInits()[0]);
    else if (!isBufferBookkeeping(next))
      break;
    next = next->getNextNode();
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (generic && llvm::any_of(generic->getOperands(), [&](Value v) {
        return llvm::is_contained(filled, viewRoot(v));
      }))
    return {};
  // The epilogue may write the product's own buffer (bufferization does that
  // when it reuses the allocation): it reads each element before writing it.
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return {};
  auto productType = cast<MemRefType>(product.getType());
  if (generic.getNumLoops() != unsigned(productType.getRank()) ||
      productType.getRank() < 2)
    return {};
  bool usesProduct = false;
  for (OpOperand *in : generic.getDpsInputOperands()) {
    if (in->get() != product)
      continue;
    if (!generic.getMatchingIndexingMap(in).isIdentity())
      return {};
    usesProduct = true;
  }
  if (!usesProduct)
    return {};
  // Nobody else may see the bare product; when the epilogue writes the
  // product's buffer, later readers see the epilogue's result, which the
  // fused kernel stores.
  // Ops before the matmul write its init (a partner convolution's result,
  // findPartnerConv).
  bool inPlace = generic.getDpsInits()[0] == product;
  for (Operation *user : product.getUsers())
    if (user != matmul.getOperation() && user != generic.getOperation() &&
        user != fill.getOperation() && !user->isBeforeInBlock(matmul) &&
        !(inPlace && generic->isBeforeInBlock(user)))
      return {};
  if (view)
    for (Operation *user : root.getUsers())
      if (user != view && !(inPlace && generic->isBeforeInBlock(user)))
        return {};
  // The epilogue writes whole rows of its output in the product's shape.
  auto outType = cast<MemRefType>(generic.getDpsInits()[0].getType());
  if (outType.getShape() != productType.getShape())
    return {};
  return generic;
}

linalg::MatmulOp tiling::findSiblingMatmul(ArrayRef<Operation *> ops,
                                           linalg::LinalgOp matmul,
                                           linalg::GenericOp epilogue) {
  auto m1 = dyn_cast<linalg::MatmulOp>(matmul.getOperation());
  if (!m1 || !epilogue)
    return {};
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    Value out0 = in->get();
    if (out0 == m1.getDpsInits()[0] ||
        !epilogue.getMatchingIndexingMap(in).isIdentity() ||
        !out0.getDefiningOp<memref::AllocOp>() ||
        !cast<MemRefType>(out0.getType()).getElementType().isF32() ||
        epilogue.getDpsInits()[0] == out0)
      continue;
    linalg::MatmulOp m0;
    for (Operation *user : out0.getUsers())
      if (auto m = dyn_cast<linalg::MatmulOp>(user);
          m && m.getDpsInits()[0] == out0)
        m0 = m;
    if (!m0 || m0 == m1 || m0.getDpsInputs()[0] != m1.getDpsInputs()[0] ||
        m0.getStaticLoopRanges() != m1.getStaticLoopRanges() ||
        cast<MemRefType>(m0.getDpsInputs()[1].getType()).getElementType() !=
            cast<MemRefType>(m1.getDpsInputs()[1].getType()).getElementType() ||
        m0->getBlock() != epilogue->getBlock() || !m0->isBeforeInBlock(m1))
      continue;
    linalg::FillOp fill = findZeroFill(out0, m0);
    if (!fill)
      continue;
    // Nothing but the matmul, its fill and the epilogue touches the product.
    if (llvm::any_of(out0.getUsers(), [&](Operation *user) {
          return user != m0.getOperation() && user != fill.getOperation() &&
                 user != epilogue.getOperation() && !isBufferBookkeeping(user);
        }))
      continue;
    // Its inputs still hold what it would have read where the epilogue is.
    Value a = viewRoot(m0.getDpsInputs()[0]),
          b = viewRoot(m0.getDpsInputs()[1]);
    bool written = false, between = false;
    for (Operation *op : ops) {
      if (op == epilogue.getOperation())
        break;
      if (op == m0.getOperation()) {
        between = true;
        continue;
      }
      if (!between)
        continue;
      SmallVector<Value> targets;
      if (auto d = dyn_cast<DestinationStyleOpInterface>(op))
        targets.append(d.getDpsInits().begin(), d.getDpsInits().end());
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        targets.push_back(copy.getTarget());
      for (Value t : targets)
        written |= viewRoot(t) == a || viewRoot(t) == b;
    }
    if (!written)
      return m0;
  }
  return {};
}

/// A convolution input `x` that is a bufferized tensor.pad: an allocation
/// filled with a constant (linalg.fill or linalg.map yielding it) whose
/// middle a memref.copy writes from the source, read by nothing but `conv`.
/// The fill, the copy and the view are returned in `ops` (the kernel reads
/// the source instead, so they become dead).
/// Whether `a` comes before `b` in their block, by walking out from `a` in
/// both directions at once: steps in proportion to how far apart they are.
/// Operation::isBeforeInBlock renumbers the whole block after any
/// insertion, and nki-tile inserts a kernel's ops between two questions,
/// which made the matchers it asks then (padding, channel scale) quadratic
/// in the block (7 % of EfficientNet-B0's compile at batch 8).
static bool comesBefore(Operation *a, Operation *b) {
  if (a->getBlock() != b->getBlock() || a == b)
    return false;
  Operation *next = a->getNextNode(), *prev = a->getPrevNode();
  while (next || prev) {
    if (next == b)
      return true;
    if (prev == b)
      return false;
    next = next ? next->getNextNode() : nullptr;
    prev = prev ? prev->getPrevNode() : nullptr;
  }
  return false;
}

std::optional<ConvPadding>
tiling::findConvPadding(Value x, Operation *conv,
                        SmallVectorImpl<Operation *> &ops) {
  auto alloc = x.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return std::nullopt;
  Operation *fill = nullptr;
  memref::CopyOp copy;
  memref::SubViewOp view;
  std::optional<double> value;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv)
      continue;
    if (auto f = dyn_cast<linalg::FillOp>(user)) {
      auto c = f.getInputs()[0].getDefiningOp<arith::ConstantOp>();
      auto attr = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
      if (fill || !attr || f.getDpsInits()[0] != x)
        return std::nullopt;
      fill = f;
      value = attr.getValueAsDouble();
      continue;
    }
    if (auto m = dyn_cast<linalg::MapOp>(user)) {
      auto yield = cast<linalg::YieldOp>(m.getMapper().front().getTerminator());
      auto c = yield.getOperand(0).getDefiningOp<arith::ConstantOp>();
      auto attr = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
      if (fill || !attr || !m.getInputs().empty() || m.getInit() != x)
        return std::nullopt;
      fill = m;
      value = attr.getValueAsDouble();
      continue;
    }
    auto sv = dyn_cast<memref::SubViewOp>(user);
    if (view || !sv || !sv->hasOneUse())
      return std::nullopt;
    view = sv;
    copy = dyn_cast<memref::CopyOp>(*sv->getUsers().begin());
    if (!copy || copy.getTarget() != sv.getResult())
      return std::nullopt;
  }
  if (!fill || !view || !comesBefore(fill, copy) || !comesBefore(copy, conv) ||
      !view.hasUnitStride() || view.getSourceType().getRank() != 4 ||
      view.getType().getRank() != 4)
    return std::nullopt;
  // The kernel reads the source where the convolution (or, fused, its
  // epilogue right after it) is, not where the copy was: nothing may use the
  // source's buffer in between (bufferization may reuse it for the
  // epilogue's result).
  Value root = copy.getSource();
  while (auto v = root.getDefiningOp<ViewLikeOpInterface>())
    root = v.getViewSource();
  DenseSet<Operation *> users = usersThroughViews(root);
  Operation *end = conv->getNextNode();
  while (end && isBufferBookkeeping(end) && !isa<func::ReturnOp>(end))
    end = end->getNextNode();
  Operation *stop = end ? end->getNextNode() : nullptr;
  for (Operation *o = copy->getNextNode(); o && o != stop; o = o->getNextNode())
    if (users.contains(o) && !isBufferBookkeeping(o))
      return std::nullopt;
  ArrayRef<int64_t> offsets = view.getStaticOffsets();
  ArrayRef<int64_t> sizes = view.getStaticSizes();
  if (llvm::any_of(offsets, ShapedType::isDynamic) || offsets[0] != 0 ||
      offsets[1] != 0)
    return std::nullopt;
  ops.assign({fill, copy, view});
  return ConvPadding{copy.getSource(), offsets[2], offsets[3],
                     sizes[2],         sizes[3],   *value};
}

std::optional<Value> tiling::findDiagonalFilter(Value w,
                                                linalg::GenericOp &builder) {
  if (!w.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  builder = {};
  std::optional<Value> compact;
  for (OpOperand &use : w.getUses()) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic)
      return std::nullopt;
    if (std::optional<Value> c = nki::conv::matchDiagonalFilter(generic);
        c && generic.getDpsInits()[0] == w && !builder) {
      builder = generic;
      compact = c;
      continue;
    }
    if (!nki::conv::matchConvGeneric(generic) || use.getOperandNumber() != 1)
      return std::nullopt;
  }
  if (!builder)
    return std::nullopt;
  return compact;
}

std::optional<ChannelScale> tiling::findChannelScale(Value x, Operation *conv) {
  if (!x.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp writer;
  for (Operation *user : usersThroughViews(x)) {
    if (user == conv || isBufferBookkeeping(user))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || writer || g.getNumDpsInits() != 1 || g.getDpsInits()[0] != x)
      return std::nullopt;
    writer = g;
  }
  if (!writer || !comesBefore(writer, conv))
    return std::nullopt;
  std::optional<ChannelScale> scale = matchChannelScale(writer);
  if (!scale)
    return std::nullopt;
  // Absorbed, each image's filter rows are scaled: C x F multiplies an
  // image, where the scale's own kernel does C x H x W (every image in one
  // product a block when they are small: tileChannelGeneric). So not where
  // the convolution has more filters than an image has pixels
  // (EfficientNet-B0's 7 x 7 blocks, 1,152 -> 192 and 320 filters: at batch
  // 8 1,169.0 -> 1,153.1 us under auto-cast, 2,435.5 -> 2,343.0 in fp32).
  auto xType = dyn_cast<MemRefType>(x.getType());
  auto linalgConv = dyn_cast<linalg::LinalgOp>(conv);
  if (xType && linalgConv && xType.getRank() == 4 &&
      linalgConv.getNumDpsInits() == 1) {
    auto yType = dyn_cast<MemRefType>(linalgConv.getDpsInits()[0].getType());
    if (yType && yType.getRank() == 4 &&
        yType.getShape()[1] > xType.getShape()[2] * xType.getShape()[3])
      return std::nullopt;
  }
  // The convolution reads the scale's operands later: nothing between may
  // touch them (bufferization may reuse a buffer).
  for (Value v : writer.getDpsInputs()) {
    if (!isa<MemRefType>(v.getType()))
      continue;
    DenseSet<Operation *> users = usersThroughViews(v);
    for (Operation *op = writer->getNextNode(); op != conv;
         op = op->getNextNode())
      if (users.contains(op) && !isBufferBookkeeping(op))
        return std::nullopt;
  }
  return scale;
}

/// The one generic that writes `buffer` (its DPS init), before `reader`;
/// other users may read it.
static linalg::GenericOp writerOf(Value buffer, Operation *reader) {
  linalg::GenericOp writer;
  for (Operation *user : usersThroughViews(buffer)) {
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || g.getNumDpsInits() != 1 || g.getDpsInits()[0] != buffer)
      continue;
    if (writer)
      return {};
    writer = g;
  }
  if (!writer || writer->getBlock() != reader->getBlock() ||
      !writer->isBeforeInBlock(reader))
    return {};
  return writer;
}

/// writerOf, when nothing but `reader` (and bookkeeping and fills) uses
/// `buffer` besides it.
static linalg::GenericOp onlyWriter(Value buffer, Operation *reader) {
  linalg::GenericOp writer = writerOf(buffer, reader);
  if (!writer)
    return {};
  for (Operation *user : usersThroughViews(buffer))
    if (user != reader && user != writer.getOperation() &&
        !isBufferBookkeeping(user) && !isa<linalg::FillOp>(user))
      return {};
  return writer;
}

/// The source of `writer` when it is a cast between `reader`'s operand and
/// a same-shaped, identity-layout buffer (one input, identity maps, a body
/// that only converts the element type) that nothing writes between the
/// cast and `reader`.
static Value castSource(linalg::GenericOp writer, Operation *reader) {
  if (!writer || writer.getNumDpsInputs() != 1 ||
      writer.getNumReductionLoops() != 0 ||
      !llvm::all_of(writer.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  Block &body = writer.getRegion().front();
  Operation *convert = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(convert) ||
      convert->getOperand(0) != body.getArgument(0) || &body.front() != convert)
    return {};
  Value source = writer.getDpsInputs()[0];
  auto type = cast<MemRefType>(writer.getDpsInits()[0].getType());
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  if (!sourceType || sourceType.getShape() != type.getShape() ||
      !sourceType.getLayout().isIdentity() || sourceType.getMemorySpace())
    return {};
  // The reader reads the source later: nothing between may write it.
  DenseSet<Operation *> users = usersThroughViews(source);
  for (Operation *op = writer->getNextNode(); op != reader;
       op = op->getNextNode())
    if (users.contains(op) && !isBufferBookkeeping(op))
      return {};
  return source;
}

/// A linalg.matmul's A operand when it is read as [m, k] from a static,
/// row-major [M, K] buffer.
static Value rowMajorA(linalg::LinalgOp matmul) {
  auto mm = dyn_cast<linalg::MatmulOp>(matmul.getOperation());
  if (!mm)
    return {};
  MLIRContext *ctx = mm.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), k = getAffineDimExpr(2, ctx);
  Value a = mm.getDpsInputs()[0];
  auto type = dyn_cast<MemRefType>(a.getType());
  if (mm.getIndexingMapsArray()[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      !type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return {};
  return a;
}

/// rowMajorA, when it is an allocation of at most `maxRows` rows.
static Value allocatedA(linalg::LinalgOp matmul, int64_t maxRows) {
  Value a = rowMajorA(matmul);
  if (!a || cast<MemRefType>(a.getType()).getDimSize(0) > maxRows ||
      !a.getDefiningOp<memref::AllocOp>())
    return {};
  return a;
}

std::optional<PooledMatmulInput>
tiling::findPooledMatmulInput(linalg::LinalgOp matmul, int64_t partitions) {
  Value a = allocatedA(matmul, partitions);
  if (!a)
    return std::nullopt;
  Operation *mm = matmul.getOperation();
  auto isGlobalPooling = [](linalg::GenericOp g) {
    return g && g.getNumReductionLoops() == 2 && isChannelGeneric(g);
  };
  linalg::GenericOp writer = onlyWriter(a, mm);
  if (isGlobalPooling(writer))
    return PooledMatmulInput{
        a, {}, true, viewRoot(writer.getDpsInputs()[0]), {}};
  Value source = castSource(writer, mm);
  if (!source || !source.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  linalg::GenericOp pooling = onlyWriter(source, writer);
  if (!isGlobalPooling(pooling))
    return std::nullopt;
  return PooledMatmulInput{
      source, writer, true, viewRoot(pooling.getDpsInputs()[0]), {}};
}

std::optional<PooledMatmulInput>
tiling::findCastMatmulInput(linalg::LinalgOp matmul) {
  Value a = allocatedA(matmul, std::numeric_limits<int64_t>::max());
  if (!a)
    return std::nullopt;
  Operation *mm = matmul.getOperation();
  linalg::GenericOp writer = onlyWriter(a, mm);
  Value source = castSource(writer, mm);
  // A program input (through views): never kept in SBUF (Residents.cpp
  // plans allocations only), so HBM holds it when the matmul runs.
  Value root = source;
  while (root && root.getDefiningOp<ViewLikeOpInterface>())
    root = root.getDefiningOp<ViewLikeOpInterface>().getViewSource();
  if (!root)
    return std::nullopt;
  PooledMatmulInput in{source, writer, /*pooling=*/false, Value(), {}};
  if (isa<BlockArgument>(root))
    return in;
  // A computed one: the whole result of a transpose (PyTorch's
  // sequence-first attention at batch > 1 transposes its input, then
  // rounds it for the projection) or of an elementwise generic (an LSTM's
  // hidden state, which the output sequence reads too), written once
  // before the cast. Its writer stores it in HBM unless a kernel absorbs
  // the writer (or the cast: a row group writes its rounded result) or the
  // residency plan keeps it in SBUF; nki-tile asks once it has planned.
  if (!root.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  for (Operation *user : usersThroughViews(root)) {
    if (user == writer.getOperation() || isBufferBookkeeping(user))
      continue;
    auto copy = dyn_cast<memref::CopyOp>(user);
    auto dps = dyn_cast<DestinationStyleOpInterface>(user);
    bool writes = copy
                      ? viewRoot(copy.getTarget()) == root
                      : dps && llvm::any_of(dps.getDpsInits(), [&](Value init) {
                          return viewRoot(init) == root;
                        });
    if (!writes)
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (in.sourceWriter || !user->isBeforeInBlock(writer) ||
        !(t ? t.getInit() == root
            : g && g.getNumDpsInits() == 1 && g.getDpsInits()[0] == root &&
                  g.getNumReductionLoops() == 0))
      return std::nullopt;
    in.sourceWriter = user;
  }
  if (!in.sourceWriter)
    return std::nullopt;
  return in;
}

std::optional<PooledMatmulInput>
tiling::findTransposedMatmulInput(linalg::LinalgOp matmul) {
  Value a = rowMajorA(matmul);
  if (!a)
    return std::nullopt;
  Operation *mm = matmul.getOperation();
  int64_t cols = cast<MemRefType>(a.getType()).getDimSize(1);
  // A, or the source of the cast that writes A (and that only it reads).
  Operation *reader = mm;
  linalg::GenericOp castOp;
  Value source = a;
  if (a.getDefiningOp<memref::AllocOp>())
    if (linalg::GenericOp writer = onlyWriter(a, mm))
      if (Value s = castSource(writer, mm)) {
        castOp = writer;
        source = s;
        reader = writer;
      }
  // A reshape of the transpose's result, which nothing else writes.
  Value result = reshapeRoot(source);
  auto resultType = dyn_cast<MemRefType>(result.getType());
  if (!result.getDefiningOp<memref::AllocOp>() || !resultType ||
      !resultType.getLayout().isIdentity() || !resultType.hasStaticShape())
    return std::nullopt;
  linalg::TransposeOp transpose;
  bool otherReaders = false;
  for (Operation *user : usersThroughViews(result)) {
    if (user == reader || isBufferBookkeeping(user))
      continue;
    auto dps = dyn_cast<DestinationStyleOpInterface>(user);
    bool writes = isa<memref::CopyOp>(user) ||
                  (dps && llvm::any_of(dps.getDpsInits(), [&](Value init) {
                     return viewRoot(init) == result;
                   }));
    if (!writes) {
      otherReaders = true;
      continue;
    }
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || reshapeRoot(t.getInit()) != result)
      return std::nullopt;
    transpose = t;
  }
  auto initType =
      transpose ? dyn_cast<MemRefType>(transpose.getInit().getType()) : nullptr;
  if (!initType || !initType.getLayout().isIdentity() ||
      !comesBefore(transpose, reader))
    return std::nullopt;
  // Element (m, k) of A is element m * cols + k of the result: the result's
  // dims after `split` hold k, those before it m, each at most one of them
  // more than one long.
  ArrayRef<int64_t> shape = initType.getShape();
  int64_t split = shape.size(), tail = 1;
  while (split > 0 && tail < cols)
    tail *= shape[--split];
  if (tail != cols)
    return std::nullopt;
  auto onlyLongDim = [&](int64_t begin, int64_t end) -> std::optional<int> {
    int dim = -1;
    for (int64_t d = begin; d < end; ++d)
      if (shape[d] != 1) {
        if (dim >= 0)
          return std::nullopt;
        dim = d;
      }
    return dim;
  };
  std::optional<int> mDim = onlyLongDim(0, split),
                     kDim = onlyLongDim(split, shape.size());
  if (!mDim || !kDim)
    return std::nullopt;
  // The transpose's input: a static strided view of an allocation or a
  // program input, which nothing writes before the matmul reads it.
  Value input = transpose.getInput();
  Value root = viewRoot(input);
  auto inputType = dyn_cast<MemRefType>(input.getType());
  auto rootType = dyn_cast<MemRefType>(root.getType());
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (!inputType || !rootType || !rootType.getLayout().isIdentity() ||
      rootType.getMemorySpace() || inputType.getMemorySpace() ||
      (!isa<BlockArgument>(root) && !root.getDefiningOp<memref::AllocOp>()) ||
      failed(tile::getStridesAndOffset(inputType, strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  DenseSet<Operation *> users = usersThroughViews(root);
  for (Operation *op = transpose->getNextNode(); op != mm;
       op = op->getNextNode())
    if (users.contains(op) && !isBufferBookkeeping(op))
      return std::nullopt;
  // Result dim d is input dim perm[d].
  ArrayRef<int64_t> perm = transpose.getPermutation();
  PooledMatmulInput in{root, castOp, /*pooling=*/false, Value(), transpose};
  in.transposeRead = otherReaders;
  in.offset = offset;
  in.mStride = *mDim < 0 ? 0 : strides[perm[*mDim]];
  in.kStride = *kDim < 0 ? 0 : strides[perm[*kDim]];
  return in;
}

/// The op that defines what `g`'s body yields (null for a block argument).
static Operation *yielded(linalg::GenericOp g) {
  return g.getRegion().front().getTerminator()->getOperand(0).getDefiningOp();
}

std::optional<MxQuantizedA> tiling::findMxQuantizedA(linalg::LinalgOp mx) {
  Value a8 = mx.getDpsInputs()[0], scales = mx.getDpsInputs()[1];
  auto collapse = a8.getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse || !collapse.getSrc().getDefiningOp<memref::AllocOp>() ||
      !scales.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  // A8 = e4m3(A / scale): inputs (A viewed [M, K/32, 32], scales).
  linalg::GenericOp divide = writerOf(collapse.getSrc(), mx);
  if (!divide || divide.getNumDpsInputs() != 2 ||
      divide.getDpsInputs()[1] != scales)
    return std::nullopt;
  auto truncQ = dyn_cast_or_null<arith::TruncFOp>(yielded(divide));
  auto div = truncQ ? truncQ.getIn().getDefiningOp<arith::DivFOp>() : nullptr;
  Block &qBody = divide.getRegion().front();
  auto ext = div ? div.getRhs().getDefiningOp<arith::ExtFOp>() : nullptr;
  if (!div || div.getLhs() != qBody.getArgument(0) || !ext ||
      ext.getIn() != qBody.getArgument(1))
    return std::nullopt;
  // A viewed [M, K/32, 32]: an expand_shape of A [M, K] (the source), or
  // another view of a buffer (a collapse of [1, M, K/32, 32]: the source
  // is then the blocked view itself).
  Value blockedA = divide.getDpsInputs()[0];
  auto blockedType = cast<MemRefType>(blockedA.getType());
  if (blockedType.getRank() != 3 || blockedType.getDimSize(2) != kMxBlock)
    return std::nullopt;
  Value source = blockedA;
  if (auto expand = blockedA.getDefiningOp<memref::ExpandShapeOp>();
      expand && expand.getReassociationIndices() ==
                    SmallVector<ReassociationIndices>{{0}, {1, 2}})
    source = expand.getSrc();
  // The same view of the same buffer.
  auto sameBlocks = [&](Value v) {
    if (v == blockedA)
      return true;
    auto expand = v.getDefiningOp<memref::ExpandShapeOp>();
    return source != blockedA && expand && expand.getSrc() == source &&
           expand.getResultType() == blockedType;
  };
  // scales = e8m0(maxima x c).
  linalg::GenericOp scale = writerOf(scales, divide);
  auto truncS = scale ? dyn_cast_or_null<arith::TruncFOp>(yielded(scale))
                      : arith::TruncFOp();
  auto mul = truncS ? truncS.getIn().getDefiningOp<arith::MulFOp>() : nullptr;
  FloatAttr factor;
  if (!mul || scale.getNumDpsInputs() != 1 ||
      mul.getLhs() != scale.getRegion().front().getArgument(0) ||
      !matchPattern(mul.getRhs(), m_Constant(&factor)))
    return std::nullopt;
  Value maxima = scale.getDpsInputs()[0];
  // maxima = max |A| over each block of 32, into a zero fill.
  linalg::GenericOp reduce = writerOf(maxima, scale);
  linalg::FillOp fill = reduce ? findZeroFill(maxima, reduce) : nullptr;
  auto max = reduce ? dyn_cast_or_null<arith::MaximumFOp>(yielded(reduce))
                    : arith::MaximumFOp();
  if (!fill || !max || reduce.getNumDpsInputs() != 1 ||
      reduce.getNumReductionLoops() != 1)
    return std::nullopt;
  Block &rBody = reduce.getRegion().front();
  auto abs = max.getLhs().getDefiningOp<math::AbsFOp>();
  if (!abs || abs.getOperand() != rBody.getArgument(0) ||
      max.getRhs() != rBody.getArgument(1) ||
      !sameBlocks(reduce.getDpsInputs()[0]))
    return std::nullopt;
  // Each intermediate buffer is read only where the chain reads it, or by
  // other MX matmuls of the same A (CSE made one chain of the q, k and v
  // projections'; each kernel quantises A itself).
  auto readOnlyBy = [](Value buffer, ArrayRef<Operation *> allowed) {
    for (Operation *user : usersThroughViews(buffer)) {
      auto linalgUser = dyn_cast<linalg::LinalgOp>(user);
      if (!isBufferBookkeeping(user) && !llvm::is_contained(allowed, user) &&
          !(linalgUser && isMxMatmul(linalgUser)))
        return false;
    }
    return true;
  };
  Operation *mxOp = mx.getOperation();
  if (!readOnlyBy(collapse.getSrc(), {divide}) ||
      !readOnlyBy(scales, {scale, divide}) ||
      !readOnlyBy(maxima, {fill, reduce, scale}))
    return std::nullopt;
  // The matmul reads A later: nothing between may write it.
  DenseSet<Operation *> users = usersThroughViews(source);
  for (Operation *op = reduce->getNextNode(); op != mxOp;
       op = op->getNextNode())
    if (users.contains(op) && op != divide.getOperation() &&
        !isBufferBookkeeping(op))
      return std::nullopt;
  return MxQuantizedA{
      source, float(factor.getValueAsDouble()), {fill, reduce, scale, divide}};
}
