//===- RowGroup.cpp - Row-wise kernels kept whole (softmax, layernorm) ------===//
//
// A run of consecutive 2-D generics over the same [R, C] space, at least one
// of them a reduction along C (softmax, layernorm, their relatives after
// decomposition), runs as ONE kernel: each block of 128 rows is loaded once
// with its full rows in SBUF, every generic of the run is computed on it in
// order (row statistics stay [P,1] columns), and only results that someone
// outside the run reads go back to HBM. This is "keep softmax / layernorm
// whole": HBM traffic drops to one read of the input and one write of the
// output, which is the DMA-bound floor these kernels are measured against.
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Kernels.h"
#include "Match.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cmath>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
/// How a member reads or writes a buffer over the [R, C] space.
enum class Shape { Full, Row, Col, Scalar }; // (d0,d1), (d0), (d1), ()

struct Member {
  Operation *op;
  bool isFill = false, isCopy = false, isReduction = false;
  SmallVector<Access> access;  // per operand (inputs, then the output)
  SmallVector<Shape> shapes;   // per operand
};
} // namespace

static std::optional<Shape> shapeOf(const Access &a) {
  if (!a.buffer)
    return Shape::Scalar;
  bool rows = a.strides[0] != 0, cols = a.strides[1] != 0;
  if (rows && cols)
    return Shape::Full;
  if (rows)
    return Shape::Row;
  if (cols)
    return Shape::Col;
  return Shape::Scalar;
}

/// Buffers a group may keep on chip must be whole allocations or arguments,
/// or reshape views of one ([B*S, H] of a [B, S, H] tensor); findRowGroup
/// checks that the group names each buffer by one Value.
static bool isRootBuffer(Value v) {
  v = reshapeRoot(v);
  if (isa<BlockArgument>(v))
    return true;
  return isa_and_nonnull<memref::AllocOp, memref::GetGlobalOp>(
      v.getDefiningOp());
}

static std::optional<Member> asMember(Operation *op, int64_t R, int64_t C) {
  Member m;
  m.op = op;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    auto type = dyn_cast<MemRefType>(fill.getDpsInits()[0].getType());
    if (!type || type.getRank() != 1 || type.getDimSize(0) != R ||
        !fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() ||
        !isRootBuffer(fill.getDpsInits()[0]))
      return std::nullopt;
    m.isFill = true;
    return m;
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    // Bufferization copies a shared reduction init (two zero fills that CSE
    // merged); inside the group it is just another name for the value.
    for (Value v : {copy.getSource(), copy.getTarget()}) {
      auto type = cast<MemRefType>(v.getType());
      SmallVector<int64_t> strides;
      Access a;
      a.buffer = v;
      a.elementType = type.getElementType();
      if (!isRootBuffer(v) || failed(getStaticLayout(type, strides, a.offset)))
        return std::nullopt;
      if (type.getShape() == ArrayRef<int64_t>{R}) {
        a.strides = {strides[0], 0};
        m.shapes.push_back(Shape::Row);
      } else if (type.getShape() == ArrayRef<int64_t>{R, C}) {
        a.strides = strides;
        m.shapes.push_back(Shape::Full);
      } else {
        return std::nullopt;
      }
      m.access.push_back(a);
    }
    m.isCopy = true;
    return m;
  }
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumLoops() != 2 || g.getNumDpsInits() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  auto iters = g.getIteratorTypesArray();
  if (ranges[0] != R || ranges[1] != C ||
      iters[0] != utils::IteratorType::parallel)
    return std::nullopt;
  m.isReduction = iters[1] == utils::IteratorType::reduction;
  for (OpOperand &operand : g->getOpOperands()) {
    if (isa<MemRefType>(operand.get().getType()) &&
        !isRootBuffer(operand.get()))
      return std::nullopt;
    // Probe quietly: a failure here just means "not a group member".
    AffineMap map = g.getMatchingIndexingMap(&operand);
    if (!llvm::all_of(map.getResults(), [](AffineExpr e) {
          return isa<AffineDimExpr>(e);
        }))
      return std::nullopt;
    std::optional<Access> a = probeOperand(g, operand);
    if (!a)
      return std::nullopt;
    std::optional<Shape> s = shapeOf(*a);
    if (!s)
      return std::nullopt;
    m.access.push_back(*a);
    m.shapes.push_back(*s);
  }
  Shape out = m.shapes.back();
  if (out != (m.isReduction ? Shape::Row : Shape::Full))
    return std::nullopt;
  return m;
}

/// Upper bound on the [P, C] tiles a member creates: its full-row inputs and
/// every body op that computes on a full row (the reduction's combine works
/// on columns).
static int64_t countFullTiles(linalg::GenericOp g, const Member &m) {
  Block &body = g.getRegion().front();
  DenseSet<Value> full;
  int64_t n = 0;
  for (auto [i, shape] : llvm::enumerate(m.shapes))
    if (shape == Shape::Full || shape == Shape::Col) {
      full.insert(body.getArgument(i));
      ++n;
    }
  Operation *combine =
      m.isReduction ? body.getTerminator()->getOperand(0).getDefiningOp()
                    : nullptr;
  for (Operation &op : body.without_terminator()) {
    if (&op == combine)
      continue;
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return full.contains(v); })) {
      full.insert(op.getResults().begin(), op.getResults().end());
      ++n;
    }
  }
  return n;
}

SmallVector<Operation *> tiling::findRowGroup(ArrayRef<Operation *> ops,
                                              size_t start,
                                              const TileOptions &options) {
  // The group may open with the fills that initialise its reductions.
  linalg::GenericOp first;
  for (size_t i = start; i < ops.size() && !first; ++i) {
    if (isa<linalg::FillOp, memref::CopyOp, memref::AllocOp, arith::ConstantOp>(
            ops[i]))
      continue;
    first = dyn_cast<linalg::GenericOp>(ops[i]);
    if (!first)
      return {};
  }
  if (!first || first.getNumLoops() != 2 ||
      !isa<linalg::LinalgOp>(ops[start]))
    return {};
  SmallVector<int64_t> ranges = first.getStaticLoopRanges();
  int64_t R = ranges[0], C = ranges[1];
  if (ShapedType::isDynamic(R) || ShapedType::isDynamic(C))
    return {};
  SmallVector<Operation *> group;
  SmallVector<Member> members;
  // Fills of other buffers the run steps over (the zero init of the matmul
  // after a softmax, which bufferization may put before the softmax's last
  // op): they stay where they are, so no member may touch their buffers.
  SmallVector<Value> passed;
  int64_t fullTiles = 0, reductions = 0, elementBytes = 1;
  for (size_t i = start; i < ops.size(); ++i) {
    Operation *op = ops[i];
    // Buffers, constants and views (a [B*S, H] collapse of a [B, S, H]
    // result) compute nothing; the group's code goes after its last member.
    if (isa<memref::AllocOp, arith::ConstantOp, memref::CollapseShapeOp,
            memref::ExpandShapeOp>(op))
      continue;
    std::optional<Member> m = asMember(op, R, C);
    if (!m && isa<linalg::FillOp>(op) && !members.empty()) {
      passed.push_back(reshapeRoot(op->getOperand(1)));
      continue;
    }
    if (!m)
      break;
    group.push_back(op);
    reductions += m->isReduction;
    if (!m->isFill && !m->isCopy)
      fullTiles += countFullTiles(cast<linalg::GenericOp>(op), *m);
    for (const Access &a : m->access)
      if (a.buffer)
        elementBytes =
            std::max<int64_t>(elementBytes, tile::storageBytes(a.elementType));
    members.push_back(std::move(*m));
  }
  // Trailing fills belong to whatever comes next.
  while (!members.empty() && (members.back().isFill || members.back().isCopy)) {
    members.pop_back();
    group.pop_back();
  }
  if (reductions == 0 || members.size() < 2)
    return {};
  for (Operation *op : group)
    for (Value v : op->getOperands())
      if (isa<MemRefType>(v.getType()) &&
          llvm::is_contained(passed, reshapeRoot(v)))
        return {};
  // The full-row tiles of one row block must fit in SBUF; twice lets the
  // next block's loads overlap this block's compute (the tile planner
  // rotates them when they fit), once still keeps every intermediate on
  // chip (a softmax over 8,192 f32 columns would otherwise run step by
  // step through HBM).
  if (fullTiles * C * elementBytes > options.sbufBytesPerPartition)
    return {};
  // One Value per buffer: the group keeps values on chip by Value, so a
  // buffer reached both directly and through a view (or two views) would
  // be read stale.
  DenseMap<Value, Value> nameOf;
  for (Operation *op : group)
    for (Value v : op->getOperands()) {
      if (!isa<MemRefType>(v.getType()))
        continue;
      auto [it, inserted] = nameOf.try_emplace(reshapeRoot(v), v);
      if (!inserted && it->second != v)
        return {};
    }
  // A buffer made in the group is read in the group with the shape it was
  // made in.
  DenseMap<Value, Shape> made;
  for (const Member &m : members) {
    if (m.isFill) {
      made[m.op->getOperand(1)] = Shape::Row;
      continue;
    }
    for (auto [i, operand] : llvm::enumerate(m.op->getOperands())) {
      auto it = made.find(operand);
      if (it != made.end() && it->second != m.shapes[i])
        return {};
    }
    made[m.op->getOperands().back()] = m.shapes.back();
  }
  return group;
}

static bool isIdentity(StringRef combine, double v) {
  if (combine == "add")
    return v == 0.0;
  if (combine == "max")
    return std::isnan(v) || v == -INFINITY;
  return std::isnan(v) || v == INFINITY;
}

LogicalResult tiling::tileRowGroup(OpBuilder &b, ArrayRef<Operation *> group,
                                   const TileOptions &options) {
  SmallVector<Member> members;
  auto first = cast<linalg::GenericOp>(
      *llvm::find_if(group, [](Operation *op) { return isa<linalg::GenericOp>(op); }));
  // The kernel's source op is its first generic: a fill the group steps
  // over may be shared by other groups (CSE), and a profile named every
  // layernorm of an encoder after the first one's fill.
  Location loc = first.getLoc();
  SmallVector<int64_t> ranges = first.getStaticLoopRanges();
  int64_t R = ranges[0], C = ranges[1], P = options.partitions;
  for (Operation *op : group)
    members.push_back(*asMember(op, R, C));

  DenseSet<Operation *> inGroup(group.begin(), group.end());
  // Buffers whose final value someone outside the group reads. A view (a
  // collapse_shape of an allocation, say) may alias what others read
  // through other views: always stored.
  auto neededOutside = [&](Value buffer) {
    if (!buffer.getDefiningOp<memref::AllocOp>())
      return true;
    for (Operation *user : buffer.getUsers())
      if (!inGroup.contains(user) && !isa<memref::DeallocOp>(user))
        return true;
    return false;
  };
  SetVector<Value> written;
  for (Operation *op : group)
    written.insert(op->getOperands().back());

  // Row-broadcast operands ([C] vectors such as layernorm's gamma) do not
  // depend on the row block: load them once for all blocks.
  DenseMap<Value, Value> hoisted;
  for (const Member &m : members)
    for (auto [i, a] : llvm::enumerate(m.access))
      if (m.shapes[i] == Shape::Col && !written.contains(a.buffer) &&
          !hoisted.count(a.buffer)) {
        int64_t pp = std::min(R, P);
        Value view = hbmView(b, loc, a.buffer, indexConst(b, loc, a.offset),
                             {pp, C}, {0, a.strides[1]});
        Value tile = allocTile(b, loc, {pp, C}, a.elementType);
        tile::DmaOp::create(b, loc, view, tile);
        hoisted[a.buffer] = tile;
      }

  // Row sums whose elementwise values nobody reads write them here: one
  // tile for all row blocks instead of a fresh one per block (each takes
  // bytes that could hold another row block in flight).
  Value scratch = allocTile(b, loc, {std::min(R, P), C}, b.getBF16Type());

  LogicalResult status = success();
  tileLoop(b, loc, R, P, [&](OpBuilder &rb, Value rOff, int64_t pp) {
    BodyLowering lowering(rb, loc, pp, C);
    Value blockScratch = tileSlice(rb, loc, scratch, 0, pp, 0, C);
    DenseMap<Value, TileValue> current;
    // Inputs read by several members are loaded once per row block.
    DenseMap<std::pair<Value, int>, TileValue> loaded;
    auto load = [&](const Access &a, Shape shape) -> TileValue {
      SmallVector<Value> ivs = {rOff, Value()};
      if (shape == Shape::Scalar && !a.buffer)
        return {TileValue::Scalar, a.scalar, {}, a.elementType};
      if (shape == Shape::Col)
        return {TileValue::Full, 0.0, tileSlice(rb, loc, hoisted[a.buffer], 0, pp, 0, C),
                a.elementType};
      bool full = shape == Shape::Full;
      Value view = hbmView(rb, loc, a.buffer, a.offsetAt(rb, loc, ivs),
                           {pp, full ? C : 1},
                           {a.strides[0], full ? a.strides[1] : 1});
      Value tile = allocTile(rb, loc, {pp, full ? C : 1}, a.elementType);
      tile::DmaOp::create(rb, loc, view, tile);
      return {full ? TileValue::Full : TileValue::Column, 0.0, tile,
              a.elementType};
    };
    auto loadOnce = [&](const Access &a, Shape shape) -> TileValue {
      if (!a.buffer)
        return load(a, shape);
      auto key = std::make_pair(a.buffer, int(shape));
      auto it = loaded.find(key);
      if (it != loaded.end() && a.offset == 0)
        return it->second;
      TileValue t = load(a, shape);
      if (a.offset == 0)
        loaded[key] = t;
      return t;
    };
    for (const Member &m : members) {
      if (failed(status))
        return;
      if (m.isFill) {
        auto fill = cast<linalg::FillOp>(m.op);
        auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
        double v = 0;
        if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
          v = f.getValueAsDouble();
        else
          v = double(cast<IntegerAttr>(cst.getValue()).getInt());
        current[fill.getDpsInits()[0]] = {TileValue::Scalar, v, {},
                                          cst.getType()};
        continue;
      }
      if (m.isCopy) {
        Value src = m.op->getOperand(0), dst = m.op->getOperand(1);
        auto it = current.find(src);
        current[dst] =
            it != current.end() ? it->second : loadOnce(m.access[0], m.shapes[0]);
        continue;
      }
      auto g = cast<linalg::GenericOp>(m.op);
      Block &body = g.getRegion().front();
      unsigned numInputs = g.getNumDpsInputs();
      Value out = g.getDpsInits()[0];
      for (auto [i, a] : llvm::enumerate(m.access)) {
        BlockArgument arg = body.getArgument(i);
        bool isOut = i == numInputs;
        if (arg.use_empty() || (isOut && m.isReduction))
          continue;
        Value buffer = g->getOperand(i);
        auto it = buffer ? current.find(buffer) : current.end();
        lowering.bind(arg, it != current.end() ? it->second
                                               : loadOnce(a, m.shapes[i]));
      }
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      if (!m.isReduction) {
        FailureOr<TileValue> r = lowering.lower(yield.getOperand(0));
        if (failed(r)) {
          status = failure();
          return;
        }
        // Pending ops stay pending: later members may absorb them.
        current[out] =
            r->kind == TileValue::Full
                ? *r
                : TileValue{TileValue::Full, 0.0,
                            lowering.materializeFull(*r, r->elementType),
                            r->elementType};
        continue;
      }
      // out = combine(out, expr): reduce expr along the row.
      FailureOr<ReductionBody> reduction =
          matchReductionBody(g, body, numInputs);
      Value summand;
      std::optional<SumFactor> factor;
      if (succeeded(reduction)) {
        factor = sumFactor(*reduction);
        summand = factor ? factor->of : reduction->expr;
      }
      FailureOr<TileValue> expr = succeeded(reduction)
                                      ? lowering.lower(summand)
                                      : FailureOr<TileValue>(failure());
      FailureOr<Value> reduced =
          succeeded(expr)
              ? lowering.reduceRows(reduction->combine, *expr, blockScratch,
                                    summand.hasOneUse())
              : FailureOr<Value>(failure());
      if (failed(reduced)) {
        status = failure();
        return;
      }
      StringRef name = reduction->combine;
      Type f32 = rb.getF32Type();
      Value partial = *reduced;
      if (factor)
        partial = scaleBySumFactor(rb, loc, partial, *factor);
      TileValue partialValue{TileValue::Column, 0.0, partial, f32};
      Type outType = m.access.back().elementType;
      auto it = current.find(out);
      TileValue init = it != current.end()
                           ? it->second
                           : load(m.access.back(), Shape::Row);
      if (init.kind == TileValue::Scalar && isIdentity(name, init.scalar)) {
        current[out] = partialValue;
        if (BodyLowering::storageType(outType) != f32) {
          Value rounded = allocTile(rb, loc, {pp, 1}, outType);
          tile::CopyOp::create(rb, loc, partial, rounded);
          current[out] = {TileValue::Column, 0.0, rounded, outType};
        }
        continue;
      }
      FailureOr<TileValue> acc =
          lowering.binary(name, init, partialValue, outType);
      if (failed(acc)) {
        status = failure();
        return;
      }
      current[out] = *acc;
    }
    if (failed(status))
      return;
    // Final values that outside readers see go back to HBM.
    for (const Member &m : members) {
      Value buffer = m.op->getOperands().back();
      auto it = current.find(buffer);
      if (it == current.end() || !neededOutside(buffer))
        continue;
      // Store each buffer once, from its last writer.
      if (m.op != llvm::find_if(llvm::reverse(group), [&](Operation *op) {
                    return op->getOperands().back() == buffer;
                  }).operator*())
        continue;
      const Access &a = m.access.empty() ? Access() : m.access.back();
      Access dst = a;
      if (m.isFill) {
        FailureOr<Access> fa = analyzeOperand(
            cast<linalg::LinalgOp>(m.op), m.op->getOpOperand(1));
        if (failed(fa)) {
          status = failure();
          return;
        }
        dst = *fa;
        dst.strides = {dst.strides[0], 0};
      }
      bool full = it->second.kind == TileValue::Full;
      Value tile =
          full ? lowering.materializeFull(it->second, it->second.elementType)
               : lowering.materializeColumn(it->second, it->second.elementType);
      SmallVector<Value> ivs = {rOff, Value()};
      Value view = hbmView(rb, loc, buffer, dst.offsetAt(rb, loc, ivs),
                           {pp, full ? C : 1},
                           {dst.strides[0], full ? dst.strides[1] : 1});
      tile::DmaOp::create(rb, loc, tile, view);
    }
  });
  // No sum needed the scratch tile.
  if (llvm::all_of(scratch.getUsers(), [](Operation *user) {
        return isa<memref::SubViewOp>(user) && user->use_empty();
      })) {
    for (Operation *view : llvm::make_early_inc_range(scratch.getUsers()))
      view->erase();
    scratch.getDefiningOp()->erase();
  }
  return status;
}
