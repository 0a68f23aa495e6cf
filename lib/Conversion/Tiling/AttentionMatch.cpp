//===- AttentionMatch.cpp - Recognising attention after bufferization -----===//
//
// Follows the scores through the ops after their matmul, by buffer: the
// prologue (at most one elementwise generic: scale and additive mask), the
// row max, exp(x - max), the row sum, the division and the matmul with V.
// Every buffer of the chain must be a fresh allocation nobody else reads,
// so the kernel may keep it on chip (or never form it).
//
//===----------------------------------------------------------------------===//

#include "Attention.h"
#include "BodyLowering.h"
#include "Match.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
struct Matcher {
  AttentionChain c;
  int64_t R = 0; // B * Sq rows of the softmax
  /// Row-major [B, Sq, Sk] (or [B * Sq, Sk], or [Sq, Sk]) over a generic of
  /// that rank: `full` for the scores' layout, otherwise rows ([B, Sq]).
  bool isRowMajor(const Access &a, bool full) const {
    SmallVector<int64_t> want, extents;
    if (a.strides.size() == 3) {
      want = {c.queries * c.keys, c.keys, 1};
      extents = {c.batch, c.queries, c.keys};
    } else {
      want = {c.keys, 1};
      extents = {R, c.keys};
    }
    if (!full) {
      for (int64_t &s : want)
        s /= c.keys;
      want.back() = 0;
    }
    // A dim of extent 1 (one query per head in a decode step) may have
    // any stride.
    for (auto [s, w, n] : llvm::zip_equal(a.strides, want, extents))
      if (n > 1 && s != w)
        return false;
    return a.offset == 0;
  }
  /// A generic over the scores' space: [B * Sq, Sk], or [B, Sq, Sk].
  bool overScores(linalg::GenericOp g) const {
    SmallVector<int64_t> r = g.getStaticLoopRanges();
    if (r.size() == 2)
      return r[0] == R && r[1] == c.keys;
    return r.size() == 3 && r[0] == c.batch && r[1] == c.queries &&
           r[2] == c.keys;
  }
  bool matchPrologue(linalg::GenericOp g, Value scores);
};
} // namespace

bool Matcher::matchPrologue(linalg::GenericOp g, Value scores) {
  Block &body = g.getRegion().front();
  std::optional<unsigned> product;
  for (OpOperand *in : g.getDpsInputOperands()) {
    std::optional<Access> a = probeOperand(g, *in);
    if (!a)
      return false;
    if (reshapeRoot(in->get()) == scores) {
      if (!isRowMajor(*a, true))
        return false;
      product = in->getOperandNumber();
    }
  }
  if (!product)
    return false;
  Value v = body.getTerminator()->getOperand(0);
  auto scaleOf = [&](Value x, double &scale) -> Value {
    auto mul = x.getDefiningOp<arith::MulFOp>();
    if (!mul)
      return x;
    for (int i = 0; i < 2; ++i)
      if (std::optional<double> k = constantFloat(mul->getOperand(i));
          k && *k > 0) {
        scale = *k;
        return mul->getOperand(1 - i);
      }
    return x;
  };
  v = scaleOf(v, c.scale);
  if (auto add = v.getDefiningOp<arith::AddFOp>()) {
    for (int i = 0; i < 2; ++i) {
      auto arg = dyn_cast<BlockArgument>(add->getOperand(i));
      if (!arg || arg.getOwner() != &body || arg.getArgNumber() == *product ||
          arg.getArgNumber() >= g.getNumDpsInputs())
        continue;
      std::optional<Access> m =
          probeOperand(g, g->getOpOperand(arg.getArgNumber()));
      if (!m || !m->buffer || !m->elementType.isF32())
        continue;
      c.mask = *m;
      c.maskRank = int(g.getNumLoops());
      v = add->getOperand(1 - i);
      break;
    }
    if (!c.mask)
      return false;
  }
  v = scaleOf(v, c.innerScale);
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &body && arg.getArgNumber() == *product &&
         body.getOperations().size() <= 4;
}

/// The factor by which the body of a generic scales its only input
/// (1 for a copy), when it is a copy, possibly multiplied or divided by a
/// positive constant (torch scales Q by 1/sqrt(d) before Q K^T), and
/// possibly rounded (truncf) or widened (extf).
static std::optional<double> castScale(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  Value v = body.getTerminator()->getOperand(0);
  if (auto def = v.getDefiningOp();
      isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(def))
    v = def->getOperand(0);
  double factor = 1.0;
  if (auto mul = v.getDefiningOp<arith::MulFOp>()) {
    for (int i = 0; i < 2 && v == mul.getResult(); ++i)
      if (std::optional<double> k = constantFloat(mul->getOperand(i));
          k && *k > 0) {
        factor = *k;
        v = mul->getOperand(1 - i);
      }
  } else if (auto div = v.getDefiningOp<arith::DivFOp>()) {
    if (std::optional<double> k = constantFloat(div.getRhs()); k && *k > 0) {
      factor = 1.0 / *k;
      v = div.getLhs();
    }
  }
  if (v != body.getArgument(0))
    return std::nullopt;
  return factor;
}

/// Rewrites `a`, a walk over `extents` through a row-major buffer of
/// `shape`, to walk the same elements of `to`, where element (i0, i1, ...)
/// of the first is at toOffset + sum(i_d * toStrides[d]) in `to`. Each walk
/// dim must step through one dim of `shape` (no carries into the next), or
/// with unit step through all of a dim and on into the one before it when
/// `to` walks the two alike. When `group` is given, walk dim `groupDim`
/// (the batch) may also step through two dims [n, g] of `shape` the second
/// of which `to` broadcasts (stride 0): grouped-query attention's K and V
/// heads, each read by g query heads. Then *group = g, and the walk's
/// stride applies to its index divided by g. Walk dim `splitDim` (the
/// batch) may step through a dim of `shape` and carry into the one before
/// it where `to` walks the two with unrelated strides: a sequence-first
/// projection's [S, N, heads * d] read as [N * heads, S, d], the images a
/// row apart and each image's heads side by side (Access's split).
static bool remap(Access &a, ArrayRef<int64_t> extents, ArrayRef<int64_t> shape,
                  Value to, ArrayRef<int64_t> toStrides, int64_t toOffset,
                  int groupDim = -1, int64_t *group = nullptr,
                  int splitDim = -1) {
  // Each matmul dim walks one dim of x (no carries into the next), so the
  // same walk over the input is affine too.
  SmallVector<int64_t> xStrides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    xStrides[d] = xStrides[d + 1] * shape[d + 1];
  SmallVector<int64_t> reach(shape.size(), 0);
  int64_t rest = a.offset;
  for (auto [d, s] : llvm::enumerate(xStrides)) {
    reach[d] = rest / s;
    rest %= s;
  }
  Access out = a;
  out.buffer = to;
  out.elementType = cast<MemRefType>(to.getType()).getElementType();
  out.offset = toOffset;
  for (auto [d, r] : llvm::enumerate(reach))
    out.offset += r * toStrides[d];
  int64_t g = 1;
  for (auto [m, stride] : llvm::enumerate(a.strides)) {
    int64_t sigma = stride;
    if (sigma == 0)
      continue;
    auto d =
        llvm::find_if(xStrides, [&](int64_t s) { return sigma % s == 0; }) -
        xStrides.begin();
    int64_t step = sigma / xStrides[d];
    // A unit-step walk through all of dim d and on into dim d - 1 (the
    // batch of [kv heads, group] or [heads, 1]): linear in `to` when dim
    // d - 1 steps over all of dim d there too; else a group when `to`
    // broadcasts dim d.
    if (step == 1 && d > 0 && reach[d] == 0 && extents[m] > shape[d] &&
        extents[m] % shape[d] == 0) {
      bool linear = toStrides[d - 1] == toStrides[d] * shape[d];
      bool grouped = group && int(m) == groupDim && toStrides[d] == 0;
      if (linear || grouped) {
        reach[d] = shape[d] - 1;
        reach[d - 1] += extents[m] / shape[d] - 1;
        out.strides[m] = toStrides[d];
        if (grouped) {
          g = shape[d];
          out.strides[m] = toStrides[d - 1];
        }
        continue;
      }
    }
    // Index i at (i / count) steps of dim d - 1 and (i % count) * step
    // of dim d; the reach check below keeps the carry exact.
    int64_t count = step <= shape[d] ? shape[d] / step : 0;
    if (int(m) == splitDim && out.splitDim < 0 && d > 0 && count > 0 &&
        step * count == shape[d] && extents[m] > count &&
        extents[m] % count == 0) {
      reach[d] += step * (count - 1);
      reach[d - 1] += extents[m] / count - 1;
      out.strides[m] = toStrides[d - 1];
      if (toStrides[d - 1] == toStrides[d] * shape[d]) {
        out.strides[m] = step * toStrides[d];
      } else {
        out.splitDim = m;
        out.splitCount = count;
        out.splitStride = step * toStrides[d];
      }
      continue;
    }
    reach[d] += step * (extents[m] - 1);
    out.strides[m] = step * toStrides[d];
  }
  for (auto [d, r] : llvm::enumerate(reach))
    if (r >= shape[d])
      return false;
  a = out;
  if (group)
    *group = g;
  return true;
}

/// The fresh row-major allocation under `a`'s reshapes, or null.
static Value freshAllocation(const Access &a) {
  Value x = reshapeRoot(a.buffer);
  auto type = dyn_cast<MemRefType>(x.getType());
  return x.getDefiningOp<memref::AllocOp>() && type.getLayout().isIdentity()
             ? x
             : Value();
}

/// The one op outside `chain` (and bookkeeping) that uses `x`, through
/// views; null if there are none or several.
static Operation *soleOtherUser(Value x, const DenseSet<Operation *> &chain) {
  Operation *other = nullptr;
  for (Operation *user : usersThroughViews(x)) {
    if (chain.contains(user) || isBufferBookkeeping(user))
      continue;
    if (other)
      return nullptr;
    other = user;
  }
  return other;
}

/// Whether an op of `ops` after `from` and before `end` writes the buffer
/// under `v`.
static bool writtenBetween(ArrayRef<Operation *> ops, Operation *from,
                           Operation *end, Value v) {
  Value root = viewRoot(v);
  bool after = false;
  for (Operation *op : ops) {
    if (op == end)
      break;
    if (op == from) {
      after = true;
      continue;
    }
    if (!after)
      continue;
    if (auto d = dyn_cast<DestinationStyleOpInterface>(op))
      for (Value init : d.getDpsInits())
        if (viewRoot(init) == root)
          return true;
    // memref.copy (a concatenation's parts) is not destination-style.
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      if (viewRoot(copy.getTarget()) == root)
        return true;
  }
  return false;
}

/// Rewrites `a` (an operand of a matmul over `extents`) to read the same
/// elements from the input of the op that wrote its buffer, when that op
/// is a cast or copy generic or a linalg.transpose, its output a whole
/// fresh buffer that nothing but the chain reads, and nothing writes its
/// input until `end` (the chain's last op). The writer joins `absorbed`.
/// A cast that also scales is looked through when `scale` may take its
/// factor (a factor of Q or K scales the scores). With `group` (K and V),
/// a copy that broadcasts each head to a group of query heads (Llama's
/// repeat_kv) is looked through too: see remap's `group`.
static bool lookThrough(Access &a, ArrayRef<int64_t> extents,
                        ArrayRef<Operation *> ops, Operation *end,
                        DenseSet<Operation *> &chain,
                        const DenseSet<Operation *> &taken,
                        SmallVectorImpl<Operation *> &absorbed, double *scale,
                        int batchDim = -1, int64_t *group = nullptr) {
  Value x = freshAllocation(a);
  // A split batch is the end of the walk back (remap does not carry one).
  if (!x || a.splitDim >= 0)
    return false;
  auto type = cast<MemRefType>(x.getType());
  Operation *writer = soleOtherUser(x, chain);
  if (taken.contains(writer))
    return false;
  // The writer's input strides over the output's (= x's) dims.
  Value in;
  SmallVector<int64_t> inStrides;
  int64_t inOffset = 0;
  double factor = 1.0;
  if (auto g = dyn_cast_or_null<linalg::GenericOp>(writer)) {
    std::optional<double> k;
    if (g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
        g.getNumReductionLoops() != 0 || !(k = castScale(g)) ||
        (*k != 1.0 && !scale) || g.getDpsInits()[0] != x ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return false;
    std::optional<Access> ia = probeOperand(g, *g.getDpsInputOperand(0));
    if (!ia || !ia->buffer)
      return false;
    in = ia->buffer;
    inStrides = ia->strides;
    inOffset = ia->offset;
    factor = *k;
  } else if (auto t = dyn_cast_or_null<linalg::TransposeOp>(writer)) {
    if (t.getInit() != x)
      return false;
    auto inType = cast<MemRefType>(t.getInput().getType());
    SmallVector<int64_t> strides;
    if (failed(getStaticLayout(inType, strides, inOffset)))
      return false;
    in = t.getInput();
    for (int64_t p : t.getPermutation())
      inStrides.push_back(strides[p]);
  } else if (auto copy = dyn_cast_or_null<memref::CopyOp>(writer)) {
    // Bufferization's copy of a slice that a reshape cannot view (Q, K or
    // V of a sequence-first projection at batch > 1: [S, N, d] of [S, N,
    // 3 d] collapsed to [S, N * d]), read in place through a split batch.
    if (copy.getTarget() != x ||
        failed(getStaticLayout(cast<MemRefType>(copy.getSource().getType()),
                               inStrides, inOffset)))
      return false;
    in = copy.getSource();
  } else {
    return false;
  }
  // Once grouped, the batch walk's stride applies to the K/V head index,
  // batch / group: it walks that many heads, and no second group is taken.
  SmallVector<int64_t> walk(extents);
  bool grouped = group && *group > 1;
  if (grouped)
    walk[batchDim] /= *group;
  int64_t g = 1;
  // Nothing may write the input before the kernel reads it.
  if (writtenBetween(ops, writer, end, in) ||
      !remap(a, walk, type.getShape(), in, inStrides, inOffset, batchDim,
             group && !grouped ? &g : nullptr, grouped ? -1 : batchDim))
    return false;
  if (group && !grouped)
    *group = g;
  if (scale)
    *scale *= factor;
  chain.insert(writer);
  absorbed.push_back(writer);
  return true;
}

/// When `a` (K^T or V, a walk over `extents` whose dim `keyDim` is the
/// keys) reads a fresh buffer that nothing but copies of key ranges wrote
/// (a concatenation: a KV cache and the new token's keys), the copies'
/// sources by key range, read in place; the copies join `absorbed`.
static bool lookThroughAssembly(const Access &a, ArrayRef<int64_t> extents,
                                int keyDim, ArrayRef<Operation *> ops,
                                Operation *end, DenseSet<Operation *> &chain,
                                const DenseSet<Operation *> &taken,
                                SmallVectorImpl<Operation *> &absorbed,
                                SmallVectorImpl<KeySegment> &segments) {
  Value x = freshAllocation(a);
  if (!x)
    return false;
  ArrayRef<int64_t> shape = cast<MemRefType>(x.getType()).getShape();
  SmallVector<int64_t> xStrides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    xStrides[d] = xStrides[d + 1] * shape[d + 1];
  // The dim of x the keys walk, one element at a time.
  int64_t sigma = a.strides[keyDim];
  auto kd = llvm::find(xStrides, sigma) - xStrides.begin();
  if (kd == int64_t(shape.size()))
    return false;
  int64_t first = a.offset / xStrides[kd] % shape[kd]; // key 0's index
  struct Part {
    memref::CopyOp copy;
    int64_t at, size;
  };
  SmallVector<Part> parts;
  for (Operation *user : usersThroughViews(x)) {
    if (chain.contains(user) || isBufferBookkeeping(user))
      continue;
    if (taken.contains(user))
      return false;
    auto copy = dyn_cast<memref::CopyOp>(user);
    auto target =
        copy ? copy.getTarget().getDefiningOp<memref::SubViewOp>() : nullptr;
    if (!target || target.getSource() != x || !target.hasUnitStride())
      return false;
    // A slab of x along the key dim, whole in every other dim.
    ArrayRef<int64_t> offsets = target.getStaticOffsets(),
                      sizes = target.getStaticSizes();
    for (auto [d, n] : llvm::enumerate(shape))
      if (int64_t(d) != kd && (offsets[d] != 0 || sizes[d] != n))
        return false;
    if (ShapedType::isDynamic(offsets[kd]) || ShapedType::isDynamic(sizes[kd]))
      return false;
    parts.push_back({copy, offsets[kd], sizes[kd]});
  }
  if (parts.empty())
    return false;
  llvm::sort(parts, [](const Part &l, const Part &r) { return l.at < r.at; });
  int64_t covered = 0;
  for (const Part &p : parts) {
    if (p.at != covered)
      return false;
    covered += p.size;
  }
  if (covered != shape[kd])
    return false;
  SmallVector<KeySegment> out;
  for (Part &p : parts) {
    int64_t begin = std::max<int64_t>(p.at - first, 0),
            stop = std::min<int64_t>(p.at + p.size - first, extents[keyDim]);
    if (begin >= stop)
      continue;
    // Nothing may write the copy's source before the kernel reads it.
    Value src = p.copy.getSource();
    SmallVector<int64_t> srcStrides;
    int64_t srcOffset;
    if (failed(getStaticLayout(cast<MemRefType>(src.getType()), srcStrides,
                               srcOffset)) ||
        srcStrides.size() != shape.size())
      return false;
    if (writtenBetween(ops, p.copy, end, src))
      return false;
    // Element (i) of x in the slab is element (i - slab offset) of src.
    KeySegment seg;
    seg.begin = begin;
    seg.end = stop;
    seg.a = a;
    seg.a.offset += begin * sigma;
    SmallVector<int64_t> ext(extents);
    ext[keyDim] = stop - begin;
    int64_t toOffset = srcOffset - p.at * srcStrides[kd];
    if (!remap(seg.a, ext, shape, src, srcStrides, toOffset))
      return false;
    out.push_back(std::move(seg));
  }
  for (Part &p : parts) {
    chain.insert(p.copy);
    absorbed.push_back(p.copy);
  }
  segments = std::move(out);
  return true;
}

/// Rewrites `a` (the context's output, over `extents`) to write where the
/// one op that reads its buffer puts the elements, when that op is a
/// linalg.transpose of the whole buffer or a cast generic (torch's head
/// merge [b, h, s, d] -> [b, s, h, d], rounded for the output projection):
/// the kernel stores to the reader's output and the reader joins
/// `absorbed`. `ops` are the function's ops after the chain; the reader's
/// output buffer must be a fresh allocation that none of them uses before
/// the reader, and its allocation and views join `hoist` (the kernel,
/// emitted at the context, writes it).
static bool lookThroughOutput(Access &a, ArrayRef<int64_t> extents,
                              ArrayRef<Operation *> ops,
                              DenseSet<Operation *> &chain,
                              const DenseSet<Operation *> &taken,
                              SmallVectorImpl<Operation *> &absorbed,
                              SmallVectorImpl<Operation *> &hoist) {
  Value x = freshAllocation(a);
  if (!x)
    return false;
  auto type = cast<MemRefType>(x.getType());
  Operation *reader = soleOtherUser(x, chain);
  if (taken.contains(reader))
    return false;
  // Where the reader puts element (i0, i1, ...) of x, per dim of x.
  Value y;
  SmallVector<int64_t> yStrides;
  int64_t yOffset = 0;
  ArrayRef<int64_t> shape = type.getShape();
  if (auto t = dyn_cast_or_null<linalg::TransposeOp>(reader)) {
    SmallVector<int64_t> strides;
    if (t.getInput() != x ||
        failed(getStaticLayout(cast<MemRefType>(t.getInit().getType()), strides,
                               yOffset)))
      return false;
    y = t.getInit();
    yStrides.resize(shape.size());
    for (auto [j, d] : llvm::enumerate(t.getPermutation()))
      yStrides[d] = strides[j];
  } else if (auto g = dyn_cast_or_null<linalg::GenericOp>(reader)) {
    std::optional<double> k;
    if (g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
        g.getNumReductionLoops() != 0 || !(k = castScale(g)) || *k != 1.0 ||
        reshapeRoot(g.getDpsInputs()[0]) != x ||
        !llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return false;
    // Both sides are row-major views of whole buffers: element i of x is
    // element i of y.
    y = g.getDpsInits()[0];
    auto yRootType = dyn_cast<MemRefType>(reshapeRoot(y).getType());
    if (!yRootType || !yRootType.getLayout().isIdentity())
      return false;
    yStrides.assign(shape.size(), 1);
    for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
      yStrides[d] = yStrides[d + 1] * shape[d + 1];
  } else {
    return false;
  }
  // y: reshape views of a fresh allocation, nothing touching it before.
  SmallVector<Operation *> defs;
  Value root = y;
  while (auto view = root.getDefiningOp()) {
    defs.push_back(view);
    if (isa<memref::AllocOp>(view))
      break;
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(view))
      return false;
    root = view->getOperand(0);
  }
  if (defs.empty() || !isa<memref::AllocOp>(defs.back()))
    return false;
  for (Operation *op : ops) {
    if (op == reader)
      break;
    if (llvm::is_contained(defs, op))
      continue;
    for (Value v : op->getOperands())
      if (reshapeRoot(v) == root)
        return false;
  }
  if (!remap(a, extents, shape, y, yStrides, yOffset))
    return false;
  hoist.append(defs.rbegin(), defs.rend());
  chain.insert(reader);
  absorbed.push_back(reader);
  return true;
}

/// `out` of `g` is `exp(x - m)` of its inputs x (full) and m (rows), or
/// `x / l` possibly rounded: the elementwise steps of the softmax.
static bool bodyIs(linalg::GenericOp g, StringRef what) {
  Block &body = g.getRegion().front();
  Value v = body.getTerminator()->getOperand(0);
  if (what == "div") {
    if (auto t = v.getDefiningOp<arith::TruncFOp>())
      v = t.getIn();
    auto div = v.getDefiningOp<arith::DivFOp>();
    return div && div.getLhs() == body.getArgument(0) &&
           div.getRhs() == body.getArgument(1);
  }
  auto exp = v.getDefiningOp<math::ExpOp>();
  auto sub =
      exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : arith::SubFOp();
  return sub && sub.getLhs() == body.getArgument(0) &&
         sub.getRhs() == body.getArgument(1);
}

std::optional<AttentionChain>
tiling::findAttention(ArrayRef<Operation *> ops, size_t start,
                      const DenseSet<Operation *> &taken,
                      const TileOptions &options) {
  auto m1 = dyn_cast<linalg::LinalgOp>(ops[start]);
  if (!m1 || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(ops[start]))
    return std::nullopt;
  Matcher m;
  AttentionChain &c = m.c;
  c.scores = m1;
  auto dims = [](linalg::LinalgOp op, int &b, int &row, int &col,
                 int &red) -> std::optional<SmallVector<int64_t>> {
    FailureOr<linalg::ContractionDimensions> d =
        linalg::inferContractionDims(op);
    if (failed(d) || d->m.size() != 1 || d->n.size() != 1 || d->k.size() != 1 ||
        d->batch.size() > 1)
      return std::nullopt;
    b = d->batch.empty() ? -1 : int(d->batch[0]);
    row = int(d->m[0]);
    col = int(d->n[0]);
    red = int(d->k[0]);
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    if (llvm::any_of(r, ShapedType::isDynamic))
      return std::nullopt;
    return r;
  };
  int b1, m1Row, m1Col, m1Red;
  std::optional<SmallVector<int64_t>> r1 = dims(m1, b1, m1Row, m1Col, m1Red);
  if (!r1)
    return std::nullopt;
  c.batch = b1 < 0 ? 1 : (*r1)[b1];
  c.queries = (*r1)[m1Row];
  c.keys = (*r1)[m1Col];
  c.headDim = (*r1)[m1Red];
  m.R = c.batch * c.queries;
  std::optional<Access> q = probeOperand(m1, m1->getOpOperand(0));
  std::optional<Access> kT = probeOperand(m1, m1->getOpOperand(1));
  std::optional<Access> s = probeOperand(m1, m1->getOpOperand(2));
  if (!q || !kT || !s || q->elementType != kT->elementType)
    return std::nullopt;
  c.scoresType = q->elementType;
  c.q = *q;
  c.kT = *kT;
  c.qB = c.kB = b1;
  c.qRow = m1Row;
  c.qCol = m1Red;
  c.kRow = m1Red;
  c.kCol = m1Col;
  Value scores = m1.getDpsInits()[0];
  linalg::FillOp scoresFill = findZeroFill(scores, m1);
  if (!scores.getDefiningOp<memref::AllocOp>() || !scoresFill)
    return std::nullopt;
  {
    // The product as a [B, Sq, Sk] row-major buffer.
    SmallVector<int64_t> want(r1->size(), 0);
    if (b1 >= 0)
      want[b1] = c.queries * c.keys;
    want[m1Row] = c.keys;
    want[m1Col] = 1;
    if (s->offset != 0 || s->strides != want)
      return std::nullopt;
  }
  c.absorbed.push_back(scoresFill);

  // The chain, step by step: each step reads the buffer the previous one
  // wrote.
  enum Step { Prologue, Max, Exp, Sum, Div, Context, Done } step = Prologue;
  Value cur = scores, rowMax, exps, rowSum, probs;
  DenseSet<Value> chainBuffers = {scores};
  auto readsRoot = [](Operation *op, Value root) {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return reshapeRoot(v) == root; });
  };
  for (size_t i = start + 1; i < ops.size() && step != Done; ++i) {
    Operation *op = ops[i];
    if (isBufferBookkeeping(op) && !isa<func::ReturnOp>(op))
      continue;
    if (isa<linalg::FillOp>(op))
      continue; // checked with the op it initialises
    bool touches = llvm::any_of(
        chainBuffers, [&](Value root) { return readsRoot(op, root); });
    if (!touches) {
      // Unrelated work in between (the cast of V): it stays, unless it
      // reads or writes what the chain has yet to make.
      if (isa<func::ReturnOp>(op))
        return std::nullopt;
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(op);
    auto reduce = [&](StringRef combine, Value in, double init) -> Value {
      if (!g || !m.overScores(g) || g.getNumDpsInputs() != 1 ||
          g.getNumReductionLoops() != 1 ||
          g.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
          reshapeRoot(g.getDpsInputs()[0]) != in)
        return {};
      std::optional<Access> x = probeOperand(g, *g.getDpsInputOperand(0));
      std::optional<Access> o = probeOperand(g, *g.getDpsInitOperand(0));
      if (!x || !o || !m.isRowMajor(*x, true) || !m.isRowMajor(*o, false))
        return {};
      FailureOr<ReductionBody> rb =
          matchReductionBody(g, g.getRegion().front(), 1);
      if (failed(rb) || rb->combine != combine ||
          rb->expr != g.getRegion().front().getArgument(0))
        return {};
      Value out = reshapeRoot(g.getDpsInits()[0]);
      linalg::FillOp fill = findFill(out, g, init);
      // maxnumf ignores NaN: its identity may be NaN instead of -inf.
      Operation *combineOp =
          g.getRegion().front().getTerminator()->getOperand(0).getDefiningOp();
      if (!fill && isa_and_nonnull<arith::MaxNumFOp>(combineOp))
        fill = findFill(out, g, NAN);
      if (!out.getDefiningOp<memref::AllocOp>() || !fill)
        return {};
      c.absorbed.push_back(fill);
      return out;
    };
    auto elementwise = [&](StringRef what, Value full, Value rows) -> Value {
      if (!g || !m.overScores(g) || g.getNumDpsInputs() != 2 ||
          g.getNumReductionLoops() != 0 ||
          reshapeRoot(g.getDpsInputs()[0]) != full ||
          reshapeRoot(g.getDpsInputs()[1]) != rows || !bodyIs(g, what))
        return {};
      std::optional<Access> x = probeOperand(g, *g.getDpsInputOperand(0));
      std::optional<Access> r = probeOperand(g, *g.getDpsInputOperand(1));
      std::optional<Access> o = probeOperand(g, *g.getDpsInitOperand(0));
      if (!x || !r || !o || !m.isRowMajor(*x, true) ||
          !m.isRowMajor(*r, false) || !m.isRowMajor(*o, true))
        return {};
      Value out = reshapeRoot(g.getDpsInits()[0]);
      return out.getDefiningOp<memref::AllocOp>() ? out : Value();
    };
    switch (step) {
    case Prologue:
      if (g && m.overScores(g) && g.getNumReductionLoops() == 0 &&
          g.getNumDpsInits() == 1) {
        Value out = reshapeRoot(g.getDpsInits()[0]);
        std::optional<Access> o = probeOperand(g, *g.getDpsInitOperand(0));
        if (!out.getDefiningOp<memref::AllocOp>() || !o ||
            !m.isRowMajor(*o, true) || !o->elementType.isF32() ||
            !m.matchPrologue(g, scores))
          return std::nullopt;
        cur = out;
        step = Max;
        break;
      }
      [[fallthrough]];
    case Max:
      rowMax = reduce("max", cur, -INFINITY);
      if (!rowMax)
        return std::nullopt;
      step = Exp;
      break;
    case Exp:
      exps = elementwise("exp", cur, rowMax);
      if (!exps)
        return std::nullopt;
      step = Sum;
      break;
    case Sum:
      rowSum = reduce("add", exps, 0.0);
      if (!rowSum)
        return std::nullopt;
      step = Div;
      break;
    case Div:
      probs = elementwise("div", exps, rowSum);
      if (!probs)
        return std::nullopt;
      step = Context;
      break;
    case Context: {
      auto m2 = dyn_cast<linalg::LinalgOp>(op);
      if (!m2 || !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
          reshapeRoot(m2.getDpsInputs()[0]) != probs ||
          reshapeRoot(m2.getDpsInputs()[1]) == probs)
        return std::nullopt;
      int b2, row, col, red;
      std::optional<SmallVector<int64_t>> r2 = dims(m2, b2, row, col, red);
      if (!r2 || (b2 >= 0) != (b1 >= 0) || (*r2)[row] != c.queries ||
          (*r2)[red] != c.keys || (b2 >= 0 && (*r2)[b2] != c.batch))
        return std::nullopt;
      std::optional<Access> p = probeOperand(m2, m2->getOpOperand(0));
      std::optional<Access> v = probeOperand(m2, m2->getOpOperand(1));
      std::optional<Access> o = probeOperand(m2, m2->getOpOperand(2));
      SmallVector<int64_t> want(r2->size(), 0);
      if (b2 >= 0)
        want[b2] = c.queries * c.keys;
      want[row] = c.keys;
      want[red] = 1;
      if (!p || !v || !o || p->offset != 0 || p->strides != want ||
          p->elementType != v->elementType)
        return std::nullopt;
      linalg::FillOp fill = findZeroFill(m2.getDpsInits()[0], m2);
      if (!fill)
        return std::nullopt;
      c.absorbed.push_back(fill);
      c.context = m2;
      c.v = *v;
      c.out = *o;
      c.vB = c.oB = b2;
      c.vRow = red;
      c.vCol = col;
      c.oRow = row;
      c.oCol = col;
      c.valueDim = (*r2)[col];
      c.multiplyType = p->elementType;
      step = Done;
      continue;
    }
    case Done:
      break;
    }
    c.absorbed.push_back(op);
    chainBuffers.insert(reshapeRoot(op->getOperands().back()));
  }
  if (step != Done)
    return std::nullopt;
  // Nobody outside the chain may see its buffers (they are never formed).
  DenseSet<Operation *> chain(c.absorbed.begin(), c.absorbed.end());
  chain.insert(m1);
  chain.insert(c.context);
  for (Value root : chainBuffers)
    for (Operation *user : usersThroughViews(root))
      if (!chain.contains(user) && !isBufferBookkeeping(user))
        return std::nullopt;
  // Q, K and V from the buffers their casts and transposes read.
  auto upTo = [&](Operation *op) {
    return ops.take_front(llvm::find(ops, op) - ops.begin());
  };
  SmallVector<int64_t> r2 = c.context.getStaticLoopRanges();
  ArrayRef<Operation *> before = upTo(c.context);
  for (int i = 0; i < 3 && lookThrough(c.q, *r1, before, c.context, chain,
                                       taken, c.absorbed, &c.innerScale, c.qB);
       ++i)
    ;
  // K^T and V through their casts, K's transpose, a broadcast to the
  // query heads and the head transpose before it.
  for (int i = 0;
       i < 4 && lookThrough(c.kT, *r1, before, c.context, chain, taken,
                            c.absorbed, &c.innerScale, c.kB, &c.kGroup);
       ++i)
    ;
  for (int i = 0;
       i < 4 && lookThrough(c.v, r2, before, c.context, chain, taken,
                            c.absorbed, /*scale=*/nullptr, c.vB, &c.vGroup);
       ++i)
    ;
  // K and V assembled from key ranges (a KV cache and the new token's)
  // are read from the ranges' sources.
  if (c.kGroup == 1)
    lookThroughAssembly(c.kT, *r1, c.kCol, before, c.context, chain, taken,
                        c.absorbed, c.kSegments);
  if (c.vGroup == 1)
    lookThroughAssembly(c.v, r2, c.vRow, before, c.context, chain, taken,
                        c.absorbed, c.vSegments);
  // And O to where the transpose or cast that reads it puts it.
  ArrayRef<Operation *> after =
      ops.drop_front(llvm::find(ops, c.context) - ops.begin() + 1);
  for (int i = 0; i < 2 && lookThroughOutput(c.out, r2, after, chain, taken,
                                             c.absorbed, c.hoist);
       ++i)
    ;
  // One PSUM bank holds a query block's context; K^T and V of one batch
  // stay in SBUF, in at most half of the budget.
  int64_t P = options.partitions;
  if (c.valueDim > options.bankColumns || c.headDim > 4 * P)
    return std::nullopt;
  int64_t kBytes = tile::storageBytes(c.kT.elementType);
  int64_t resident = llvm::divideCeil(c.headDim, P) * c.keys * kBytes +
                     llvm::divideCeil(c.keys, P) * c.valueDim *
                         tile::storageBytes(c.v.elementType);
  if (resident * 2 > options.sbufBytesPerPartition)
    return std::nullopt;
  // A constant mask's values decide, block by block, what the kernel
  // skips (all -inf) and what it need not add (all zero).
  if (c.mask) {
    if (auto global =
            reshapeRoot(c.mask->buffer).getDefiningOp<memref::GetGlobalOp>()) {
      auto g = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          global, global.getNameAttr());
      if (g && g.getConstant())
        if (auto init = dyn_cast_or_null<DenseElementsAttr>(
                g.getInitialValue().value_or(Attribute())))
          c.maskValues = init;
    }
  }
  return c;
}
