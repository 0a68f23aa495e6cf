//===- ForwardStores.cpp - nki-forward-stores -----------------------------===//
//
// Kernels that no plan keeps in SBUF hand each other their results through
// HBM scratch: one kernel stores a tile, a later one loads the same bytes
// back into a tile of the same type (a layernorm's row block and the matmul
// after it, a matmul's result and the residual add). Each such hand-off
// costs two DMAs in series, each with its completion latency. On
// straight-line tile code the load is the stored tile: its readers read
// the stored tile in place, or an engine copy fills the loaded tile from
// it (a load that casts) or from the several stored tiles that make up
// the loaded view (attention's heads side by side); the load goes, and a
// scratch buffer that no DMA reads any more loses its stores and its HBM
// bytes.
//
// The stored tile then stays live from the store to the loaded tile's last
// reader. Which stores are forwarded is a residency problem
// (nki/Analysis/Residency.h): a candidate per store holds its tile's bytes
// over the positions between its last use and its last forwarded load,
// against the SBUF the function's other tiles leave at each position
// (minus `margin` for the planner's fragmentation).
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "nki/Analysis/Residency.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <limits>
#include <map>

namespace nki {
#define GEN_PASS_DEF_NKIFORWARDSTORES
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace nki::planning {
namespace {

Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// What touches an HBM buffer, through views: the views (parents first),
/// the DMAs that write it and its deallocs; whether a DMA reads it, and
/// whether anything else touches it (a return, another op).
struct BufferUses {
  SmallVector<Operation *> views, stores, deallocs;
  bool read = false, other = false;
};
BufferUses usesOf(Value root) {
  BufferUses uses;
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      auto dma = dyn_cast<tile::DmaOp>(user);
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v) {
        uses.views.push_back(user);
        worklist.append(user->result_begin(), user->result_end());
      } else if (dma && dma.getDst() == v && dma.getSrc() != v) {
        uses.stores.push_back(user);
      } else if (dma) {
        uses.read = true;
      } else if (mlir::isa<memref::DeallocOp>(user)) {
        uses.deallocs.push_back(user);
      } else {
        uses.other = true;
      }
    }
  }
  return uses;
}

/// An HBM allocation of the function that only DMAs read and write
/// (through views): not an output, which must be written, and not touched
/// by anything this pass does not follow.
bool isScratch(Value root) {
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  return alloc && tile::isHbm(alloc.getType()) && !usesOf(root).other;
}

/// The first and last bit a static view of an HBM buffer touches, or
/// nullopt when its layout is not static. In bits, not elements: views of
/// one buffer may differ in element type (nki.bitcast).
std::optional<std::pair<int64_t, int64_t>> extent(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (!type.hasStaticShape() ||
      failed(tile::getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  int64_t lo = offset, hi = offset;
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides)) {
    if (ShapedType::isDynamic(stride))
      return std::nullopt;
    (stride < 0 ? lo : hi) += (size - 1) * stride;
  }
  int64_t bits = tile::storageBits(type);
  return std::make_pair(lo * bits, (hi + 1) * bits - 1);
}

/// Whether two static views of one buffer may share a byte: their
/// extents (bits) overlap, unless both have the same nested strides (each dim's
/// step spanning the inner dims' and the view's extent along them) and
/// their boxes in that grid are disjoint along some dim (a head's columns
/// of every row beside another head's).
bool mayOverlap(MemRefType a, std::pair<int64_t, int64_t> aBits, MemRefType b,
                std::pair<int64_t, int64_t> bBits) {
  if (aBits.second < bBits.first || bBits.second < aBits.first)
    return false;
  SmallVector<int64_t> sa, sb;
  int64_t oa = 0, ob = 0;
  if (a.getRank() != b.getRank() || a.getElementType() != b.getElementType() ||
      failed(tile::getStridesAndOffset(a, sa, oa)) ||
      failed(tile::getStridesAndOffset(b, sb, ob)) || sa != sb)
    return true;
  int64_t span = std::numeric_limits<int64_t>::max();
  for (auto [d, stride] : llvm::enumerate(sa)) {
    if (stride <= 0 || stride > span)
      return true;
    int64_t ca = (oa % span) / stride, cb = (ob % span) / stride;
    int64_t extent = d == 0 ? span : span / stride;
    if (ca + a.getDimSize(d) > extent || cb + b.getDimSize(d) > extent)
      return true;
    if (ca + a.getDimSize(d) <= cb || cb + b.getDimSize(d) <= ca)
      return false;
    span = stride;
  }
  return true;
}

/// Where the static view `loaded` of a buffer lies within the view
/// `stored` of it, as offsets along `stored`'s dims, when it is a box of
/// it on the same first dim (the same partitions of a tile of `stored`'s
/// shape): the same strides, outermost first, the same extent along dim 0.
std::optional<SmallVector<int64_t>> boxWithin(MemRefType stored,
                                              MemRefType loaded) {
  SmallVector<int64_t> s, l;
  int64_t so = 0, lo = 0;
  if (stored.getElementType() != loaded.getElementType() ||
      stored.getRank() != loaded.getRank() || !stored.hasStaticShape() ||
      !loaded.hasStaticShape() ||
      failed(tile::getStridesAndOffset(stored, s, so)) ||
      failed(tile::getStridesAndOffset(loaded, l, lo)) || s != l ||
      ShapedType::isDynamic(so) || ShapedType::isDynamic(lo) || lo < so ||
      stored.getDimSize(0) != loaded.getDimSize(0))
    return std::nullopt;
  // The stored view must not alias itself (each element its own bytes, the
  // outer dims' steps spanning the inner ones): then the load's element i
  // is the one the store wrote at i plus the box's offsets.
  SmallVector<int64_t> offsets;
  int64_t delta = lo - so;
  for (auto [d, stride] : llvm::enumerate(s)) {
    if (ShapedType::isDynamic(stride) || stride <= 0 ||
        (d + 1 < s.size() && stride < s[d + 1] * stored.getDimSize(d + 1)))
      return std::nullopt;
    offsets.push_back(delta / stride);
    delta %= stride;
    if (offsets.back() + loaded.getDimSize(d) > stored.getDimSize(d))
      return std::nullopt;
  }
  if (delta != 0 || offsets.front() != 0)
    return std::nullopt;
  return offsets;
}

/// Whether every reader of `v` is a tile op that takes any layout, or a
/// subview whose readers are: `v` may become a view of another tile.
bool readersTakeViews(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    if (auto sub = dyn_cast<memref::SubViewOp>(user))
      return readersTakeViews(sub.getResult());
    return user->getDialect() &&
           user->getDialect()->getNamespace() ==
               tile::NKIDialect::getDialectNamespace() &&
           !mlir::isa<ViewLikeOpInterface>(user);
  });
}

/// Replaces `old` by `view` (of another type): subviews of `old` are built
/// again on `view`, right after it.
void replaceByView(OpBuilder &b, Value old, Value view) {
  for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
    auto sub = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!sub) {
      use.set(view);
      continue;
    }
    b.setInsertionPointAfterValue(view);
    Value rebuilt =
        memref::SubViewOp::create(b, sub.getLoc(), view, sub.getMixedOffsets(),
                                  sub.getMixedSizes(), sub.getMixedStrides());
    replaceByView(b, sub.getResult(), rebuilt);
    sub.erase();
  }
}

/// The ops that write the bytes of the tile `alloc` (through views).
SmallVector<Operation *> writersOf(tile::AllocOp alloc) {
  SmallVector<Operation *> writers;
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v) {
        worklist.append(user->result_begin(), user->result_end());
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        writers.push_back(user); // unknown: taken as a writer
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      if (llvm::any_of(list, [&](const MemoryEffects::EffectInstance &e) {
            return mlir::isa<MemoryEffects::Write>(e.getEffect()) &&
                   e.getValue() == v;
          }))
        writers.push_back(user);
    }
  }
  return writers;
}

/// A load of stored bytes, and what it becomes: the stored tile itself
/// (`Alias`: a box of one stored view, in its element type, into a tile
/// nothing else writes, whose readers take views), or engine copies into
/// the loaded tile (`Copy`: a box of one stored view, cast or not;
/// `Gather`: the union of several stored views, each a box of the load's).
struct Load {
  enum Kind { Alias, Copy, Gather } kind = Alias;
  tile::DmaOp dma;
  /// Alias and Copy: the box's offsets in the stored tile. Gather: each
  /// store's offsets in the loaded tile, by store index.
  SmallVector<int64_t> offsets;
  SmallVector<std::pair<size_t, SmallVector<int64_t>>> pieces;
};

/// A store of a whole tile into a static view of a scratch buffer, and the
/// loads of that view or a box of it into tiles of the box's shape that
/// come before anything writes the view's bytes again.
struct Store {
  tile::DmaOp dma;
  tile::AllocOp tile;
  MemRefType view;
  std::pair<int64_t, int64_t> bits; // the first and last bit it covers
  SmallVector<Load> loads; // a gather is in each of its stores' lists
};

} // namespace

/// Forwards stores to loads in `func` (straight-line tile code).
static LogicalResult forwardStores(func::FuncOp func,
                                   const isa::TargetDesc &target,
                                   int64_t margin) {
  Block &block = func.getBody().front();
  // Program order: the stores whose bytes are still as stored, per root,
  // by the first byte they cover (an interval query then finds those a
  // load may read or a write overlaps without visiting every store).
  struct Live {
    std::multimap<int64_t, size_t> byFirst;
    int64_t longest = 0;
  };
  std::vector<Store> stores;
  DenseMap<Value, Live> current;
  DenseMap<Value, bool> scratch;
  DenseMap<Operation *, Operation *> lastWriter;
  for (Operation &op : block) {
    auto dma = dyn_cast<tile::DmaOp>(op);
    if (!dma)
      continue;
    Value src = rootOf(dma.getSrc()), dst = rootOf(dma.getDst());
    auto srcType = cast<MemRefType>(dma.getSrc().getType());
    auto dstType = cast<MemRefType>(dma.getDst().getType());
    // A load of stored bytes, element for element into a whole tile of the
    // view's shape (engine copies keep their partitions).
    auto into = dma.getDst().getDefiningOp<tile::AllocOp>();
    auto it = current.find(src);
    std::optional<std::pair<int64_t, int64_t>> read;
    if (it != current.end() && into && dstType.getShape() == srcType.getShape())
      read = extent(srcType);
    if (read) {
      Live &live = it->second;
      SmallVector<size_t> overlapping;
      for (auto s = live.byFirst.lower_bound(read->first - live.longest);
           s != live.byFirst.end() && s->first <= read->second; ++s)
        if (mayOverlap(stores[s->second].view, stores[s->second].bits, srcType,
                       *read))
          overlapping.push_back(s->second);
      if (overlapping.size() == 1) {
        Store &st = stores[overlapping.front()];
        if (std::optional<SmallVector<int64_t>> box =
                boxWithin(st.view, srcType)) {
          bool alias = dstType.getElementType() == srcType.getElementType() &&
                       writersOf(into).size() == 1 &&
                       (st.tile.getType() == dstType ||
                        readersTakeViews(into.getResult()));
          st.loads.push_back(
              Load{alias ? Load::Alias : Load::Copy, dma, *box, {}});
        }
      } else if (overlapping.size() > 1) {
        // Stored views that tile the load exactly (they are disjoint: a
        // store ends the ones it overlaps).
        Load gather{Load::Gather, dma, {}, {}};
        int64_t covered = 0;
        for (size_t s : overlapping) {
          std::optional<SmallVector<int64_t>> box =
              boxWithin(srcType, stores[s].view);
          if (!box)
            break;
          gather.pieces.push_back({s, *box});
          covered += stores[s].view.getNumElements();
        }
        if (gather.pieces.size() == overlapping.size() &&
            covered == srcType.getNumElements()) {
          for (size_t s : overlapping)
            stores[s].loads.push_back(gather);
        }
      }
    }
    if (!tile::isHbm(dstType))
      continue;
    // A write over HBM bytes ends the stores it overlaps.
    std::optional<std::pair<int64_t, int64_t>> written = extent(dstType);
    Live &live = current[dst];
    if (!written) {
      live.byFirst.clear();
      continue;
    }
    for (auto s = live.byFirst.lower_bound(written->first - live.longest);
         s != live.byFirst.end() && s->first <= written->second;)
      s = mayOverlap(stores[s->second].view, stores[s->second].bits, dstType,
                     *written)
              ? live.byFirst.erase(s)
              : std::next(s);
    auto from = dma.getSrc().getDefiningOp<tile::AllocOp>();
    if (!from || !tile::isSbuf(from.getType()) ||
        from.getType().getElementType() != dstType.getElementType() ||
        from.getType().getShape() != dstType.getShape())
      continue;
    auto [known, inserted] = scratch.try_emplace(dst, false);
    if (inserted)
      known->second = isScratch(dst);
    if (!known->second)
      continue;
    // The stored tile must keep its values: nothing writes it afterwards
    // (a tile kept in SBUF across kernels has many readers: its last
    // writer is found once).
    auto [last, first] = lastWriter.try_emplace(from, nullptr);
    if (first)
      for (Operation *w : writersOf(from))
        if (!last->second || last->second->isBeforeInBlock(w))
          last->second = w;
    if (last->second && op.isBeforeInBlock(last->second))
      continue;
    live.byFirst.emplace(written->first, stores.size());
    live.longest = std::max(live.longest, written->second - written->first);
    stores.push_back(Store{dma, from, dstType, *written, {}});
  }

  if (llvm::all_of(stores, [](const Store &st) { return st.loads.empty(); }))
    return success();
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = int64_t(i);

  // The residency problem: the SBUF other tiles leave at each position
  // (their bytes summed over live ranges as differences, then prefix sums).
  FailureOr<std::vector<TileBuffer>> tiles = collectTiles(func, target);
  if (failed(tiles))
    return failure();
  DenseMap<Operation *, const TileBuffer *> tileOf;
  ResidencyProblem problem;
  std::vector<int64_t> used(block.getOperations().size() + 1, 0);
  for (const TileBuffer &t : *tiles) {
    tileOf[t.alloc] = &t;
    if (t.space != tile::MemorySpace::SBUF)
      continue;
    used[t.liveStart] += llvm::alignTo(t.size, kSbufAlignment);
    used[t.liveEnd + 1] -= llvm::alignTo(t.size, kSbufAlignment);
  }
  used.pop_back();
  problem.capacity.reserve(used.size());
  int64_t live = 0;
  for (int64_t delta : used) {
    live += delta;
    problem.capacity.push_back(std::max<int64_t>(
        0, int64_t(target.sbufBytesPerPartition) - margin - live));
  }
  SmallVector<size_t> candidateStore;
  SmallVector<size_t> free; // forwarded without holding a position longer
  for (auto [s, st] : llvm::enumerate(stores)) {
    if (st.loads.empty())
      continue;
    const TileBuffer *t = tileOf.lookup(st.tile);
    int64_t lastLoad = position[st.loads.back().dma];
    ResidencyCandidate c;
    c.bytes = llvm::alignTo(t->size, kSbufAlignment);
    c.liveStart = t->liveEnd + 1;
    c.liveEnd = lastLoad - 1;
    c.benefit = c.bytes * int64_t(st.loads.size() + 1);
    if (c.liveStart > c.liveEnd) {
      free.push_back(s);
      continue;
    }
    candidateStore.push_back(s);
    problem.candidates.push_back(c);
  }
  ResidencySolution solution;
  if (absl::Status status = solve(problem, solution); !status.ok())
    return func.emitError()
           << "forwarding stores: " << std::string(status.message());
  DenseSet<size_t> chosen(free.begin(), free.end());
  for (auto [i, s] : llvm::enumerate(candidateStore))
    if (solution.resident[i])
      chosen.insert(s);

  // The loads' readers read the stored tile; scratch nothing reads any more
  // loses its stores.
  llvm::SetVector<Value> roots;
  auto box = [](OpBuilder &b, Location loc, Value tile,
                ArrayRef<int64_t> offsets, ArrayRef<int64_t> shape) -> Value {
    if (cast<MemRefType>(tile.getType()).getShape() == shape)
      return tile;
    SmallVector<OpFoldResult> o, n, one;
    for (auto [at, size] : llvm::zip_equal(offsets, shape)) {
      o.push_back(b.getIndexAttr(at));
      n.push_back(b.getIndexAttr(size));
      one.push_back(b.getIndexAttr(1));
    }
    return memref::SubViewOp::create(b, loc, tile, o, n, one);
  };
  DenseSet<Operation *> done;
  // A loaded tile may itself be stored again later (a tile stored, loaded
  // and stored once more: MaxViT's attention); once its load is forwarded
  // it is erased, and that store stores what replaced it: the stored tile
  // or a view of it. By the erased alloc (a key only, never dereferenced);
  // stores go in program order, so a replacement is never itself replaced.
  DenseMap<Operation *, Value> replacement;
  auto storedTile = [&](Store &st) -> Value {
    auto it = replacement.find(st.tile.getOperation());
    return it == replacement.end() ? st.tile.getResult() : it->second;
  };
  for (auto [s, st] : llvm::enumerate(stores)) {
    if (!chosen.contains(s))
      continue;
    Value stored = storedTile(st);
    auto storedType = cast<MemRefType>(stored.getType());
    for (Load &load : st.loads) {
      if (done.contains(load.dma))
        continue;
      // A gather needs every store it reads.
      if (load.kind == Load::Gather &&
          !llvm::all_of(load.pieces, [&](const auto &p) {
            return chosen.contains(p.first);
          }))
        continue;
      done.insert(load.dma);
      roots.insert(rootOf(load.dma.getSrc()));
      auto into = load.dma.getDst().getDefiningOp<tile::AllocOp>();
      OpBuilder b(load.dma);
      Location loc = load.dma.getLoc();
      ArrayRef<int64_t> shape = into.getType().getShape();
      // A stored tile that became a view aliases only readers that take
      // views; others get a copy.
      Load::Kind kind = load.kind;
      if (kind == Load::Alias && into.getType() != storedType &&
          !readersTakeViews(into.getResult()))
        kind = Load::Copy;
      Value replacedBy;
      if (kind == Load::Gather) {
        for (auto &[piece, offsets] : load.pieces) {
          Value from = storedTile(stores[piece]);
          tile::CopyOp::create(
              b, loc, from,
              box(b, loc, into, offsets,
                  cast<MemRefType>(from.getType()).getShape()));
        }
      } else if (kind == Load::Copy) {
        tile::CopyOp::create(b, loc, box(b, loc, stored, load.offsets, shape),
                             into);
      } else if (into.getType() == storedType) {
        replacedBy = stored;
        into.getResult().replaceAllUsesWith(stored);
      } else {
        replacedBy = box(b, into.getLoc(), stored, load.offsets, shape);
        replaceByView(b, into.getResult(), replacedBy);
      }
      load.dma.erase();
      if (into.use_empty()) {
        replacement[into.getOperation()] = replacedBy;
        into.erase();
      }
    }
  }
  for (Value root : roots) {
    BufferUses uses = usesOf(root);
    if (uses.read || uses.other)
      continue;
    for (Operation *op : llvm::concat<Operation *>(uses.stores, uses.deallocs))
      op->erase();
    for (Operation *view : llvm::reverse(uses.views))
      if (view->use_empty())
        view->erase();
    if (root.use_empty())
      root.getDefiningOp()->erase();
  }
  return success();
}

} // namespace nki::planning

namespace {
struct NKIForwardStoresPass
    : nki::impl::NKIForwardStoresBase<NKIForwardStoresPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target) || failed(nki::planning::checkStraightLine(func)))
      return signalPassFailure();
    int64_t sbuf = int64_t((*target)->sbufBytesPerPartition);
    // The margin adds to the reserve: a plan that fragments and is tiled
    // again with a margin forwards less.
    int64_t reserve = sbuf / kReserveFraction + margin;
    if (failed(nki::planning::forwardStores(func, **target, reserve)))
      signalPassFailure();
  }
  /// The share of SBUF left to the planner at least: the kernels sized
  /// their tiles against all of it, and its Rotate policy fragments (with a
  /// quarter, ResNet-50's forwarded 14 x 14 chunks at batch 8 in f32 ran
  /// trn3 0.24 % slower, with half as before).
  static constexpr int64_t kReserveFraction = 2;
};
} // namespace
