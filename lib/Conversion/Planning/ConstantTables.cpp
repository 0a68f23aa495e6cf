//===- ConstantTables.cpp - nki-gather-constants
//---------------------------===//
//
// Kernels load per-channel operands (a batch norm's scale and shift, a
// bias, a depthwise convolution's taps) as small tiles, [P, 1] to [P, 32],
// each by DMAs from a constant in HBM. Such a DMA moves a few bytes per
// partition but costs a descriptor per partition, 512 bytes' worth of a
// queue's time each (docs/machine-model.md): a [128, 1] f32 column takes
// 2.8 us of queue time for 512 bytes, and EfficientNet-B0 issued about
// 2,500 of them, often on the critical path (the first layer waited for
// its columns). Their contents are known at compile time, so this pass
// lays them out side by side in a few tables ([P, K] constants of up to
// a descriptor's 512 bytes per partition), loads each table with one
// DMA right before the first kernel that reads any of its columns (the
// scheduler may move it earlier), and makes every reader read its columns
// of the table. Identical tiles share columns.
//
// Runs on straight-line tile code (after nki-unroll), where every view has
// static offsets, before nki-plan-memory places the tables like any tile.
//
//===----------------------------------------------------------------------===//

#include "../Common/Globals.h"
#include "CompactConstants.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace nki {
#define GEN_PASS_DEF_NKIGATHERCONSTANTS
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;
using namespace nki;

namespace {

/// Tiles of at most this many bytes per partition are gathered (a [P, 32]
/// f32 tile; depthwise taps of a 5x5 kernel are 25 elements).
constexpr int64_t kMaxRowBytes = 128;
/// Bytes per partition of a table: a DMA descriptor's minimum
/// (docs/machine-model.md), so a table costs no more queue time than one
/// column did.
constexpr int64_t kTableRowBytes = 512;

/// The constant a view of HBM reads: the global's elements, or null.
DenseElementsAttr constantOf(Value view, SymbolTableCollection &symbols) {
  while (auto viewOp = view.getDefiningOp<ViewLikeOpInterface>()) {
    // A bitcast reads the constant's bytes as other elements (MX data as
    // words): its element offsets are not the constant's.
    if (isa<tile::BitcastOp>(viewOp.getOperation()))
      return {};
    view = viewOp.getViewSource();
  }
  auto get = view.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return {};
  auto global =
      symbols.lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant())
    return {};
  return dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
}

/// A tile whose every write is a DMA from a constant, and its contents.
struct Candidate {
  tile::AllocOp alloc;
  /// The DMAs that fill it and the views they write through.
  llvm::SetVector<Operation *> fills;
  int64_t firstRead = 0; // program position of the first reader
  int64_t table = -1, column = 0;
};

/// The contents of a gathered tile, the key that merges identical ones.
struct Contents {
  Type type;
  int64_t parts = 0, width = 0;
  SmallVector<APFloat> values; // row-major [parts, width]
};

struct Table {
  Type type;
  int64_t columns = 0;
  int64_t firstRead = 0;
  SmallVector<std::pair<int64_t, int64_t>> entries; // (contents, column)
  Value tile;
};

struct NKIGatherConstantsPass
    : nki::impl::NKIGatherConstantsBase<NKIGatherConstantsPass> {
  using NKIGatherConstantsBase::NKIGatherConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        gather(func, symbols);
    compactPartlyReadConstants(module, compactMinBytes);
    // Constants nothing reads any more.
    eraseUnreferencedGlobals(
        module, [](memref::GlobalOp global) { return global.isPrivate(); });
  }

  void gather(func::FuncOp func, SymbolTableCollection &symbols);
  /// The tile's contents if `alloc` qualifies, filling `c`.
  std::optional<Contents> analyze(tile::AllocOp alloc, Candidate &c,
                                  const DenseMap<Operation *, int64_t> &order,
                                  SymbolTableCollection &symbols);
};

std::optional<Contents>
NKIGatherConstantsPass::analyze(tile::AllocOp alloc, Candidate &c,
                                const DenseMap<Operation *, int64_t> &order,
                                SymbolTableCollection &symbols) {
  MemRefType type = alloc.getType();
  auto elt = dyn_cast<FloatType>(type.getElementType());
  if (!tile::isSbuf(type) || type.getRank() != 2 || !elt ||
      type.getDimSize(1) * tile::storageBytes(elt) > kMaxRowBytes)
    return std::nullopt;
  Contents contents{elt, type.getDimSize(0), type.getDimSize(1), {}};
  contents.values.assign(type.getNumElements(),
                         APFloat::getZero(elt.getFloatSemantics()));
  SmallVector<bool> written(type.getNumElements(), false);
  int64_t lastWrite = -1;
  c.firstRead = INT64_MAX;
  // The uses of the tile, directly or through subviews of it.
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : alloc->getUses()) {
    auto view = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!view) {
      uses.push_back(&use);
      continue;
    }
    for (OpOperand &viewUse : view->getUses()) {
      if (isa<memref::SubViewOp>(viewUse.getOwner()))
        return std::nullopt; // views of views: not worth handling
      uses.push_back(&viewUse);
    }
  }
  for (OpOperand *use : uses) {
    Operation *user = use->getOwner();
    auto dma = dyn_cast<tile::DmaOp>(user);
    if (dma && use->get() == dma.getDst()) {
      DenseElementsAttr data = constantOf(dma.getSrc(), symbols);
      SmallVector<int64_t> from =
          elementOffsets(cast<MemRefType>(dma.getSrc().getType()));
      SmallVector<int64_t> to =
          elementOffsets(cast<MemRefType>(dma.getDst().getType()));
      if (!data || !isa<FloatType>(data.getElementType()) || from.empty() ||
          from.size() != to.size() || !order.count(user))
        return std::nullopt;
      auto values = data.getValues<APFloat>();
      for (auto [src, dst] : llvm::zip(from, to)) {
        if (dst < 0 || dst >= int64_t(written.size()) || written[dst] ||
            src < 0 || src >= data.getNumElements())
          return std::nullopt;
        APFloat v = data.isSplat() ? *values.begin() : *(values.begin() + src);
        bool lost;
        // The DMA's cast rounds to nearest even (docs/machine-model.md).
        v.convert(elt.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        contents.values[dst] = v;
        written[dst] = true;
      }
      lastWrite = std::max(lastWrite, order.lookup(user));
      c.fills.insert(user);
      if (use->get() != alloc.getResult())
        c.fills.insert(use->get().getDefiningOp());
      continue;
    }
    // Any other use must only read the tile, and not be a view of another
    // kind (one that assumes the tile's own layout, such as a
    // reinterpret_cast, would not follow it into the table).
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects || isa<ViewLikeOpInterface>(user) || !order.count(user))
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffectsOnValue(use->get(), list);
    if (llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
          return !isa<MemoryEffects::Read>(e.getEffect());
        }))
      return std::nullopt;
    c.firstRead = std::min(c.firstRead, order.lookup(user));
  }
  // Written whole, by constants only, before anything reads it.
  if (c.fills.empty() || c.firstRead == INT64_MAX || lastWrite > c.firstRead ||
      llvm::count(written, false))
    return std::nullopt;
  c.alloc = alloc;
  return contents;
}

void NKIGatherConstantsPass::gather(func::FuncOp func,
                                    SymbolTableCollection &symbols) {
  if (!func.getBody().hasOneBlock())
    return;
  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> order;
  for (auto [i, op] : llvm::enumerate(body))
    order[&op] = int64_t(i);

  SmallVector<Candidate> candidates;
  SmallVector<Contents> contents;
  SmallVector<int64_t> contentsOf; // candidate -> contents index
  llvm::StringMap<int64_t> known;
  for (auto alloc : body.getOps<tile::AllocOp>()) {
    Candidate c;
    std::optional<Contents> data = analyze(alloc, c, order, symbols);
    if (!data)
      continue;
    // Identical contents (type, shape and bits) share columns.
    std::string key;
    llvm::raw_string_ostream os(key);
    os << data->type << ' ' << data->parts << 'x' << data->width;
    for (const APFloat &v : data->values)
      os << ' ' << v.bitcastToAPInt().getZExtValue();
    auto [it, inserted] = known.try_emplace(key, int64_t(contents.size()));
    int64_t k = it->second;
    if (inserted)
      contents.push_back(std::move(*data));
    candidates.push_back(std::move(c));
    contentsOf.push_back(k);
  }
  if (candidates.empty())
    return;

  // Contents in the order their first reader runs, packed into tables of
  // one element type, kTableRowBytes per partition each.
  SmallVector<int64_t> firstRead(contents.size(), INT64_MAX);
  for (auto [c, k] : llvm::zip(candidates, contentsOf))
    firstRead[k] = std::min(firstRead[k], c.firstRead);
  SmallVector<int64_t> byFirstRead(contents.size());
  for (auto [i, k] : llvm::enumerate(byFirstRead))
    k = int64_t(i);
  // Ties in index order: stable, without stable_sort's temporary buffer
  // (libstdc++ 12's get_temporary_buffer, which clang flags deprecated).
  llvm::sort(byFirstRead, [&](int64_t a, int64_t b) {
    return firstRead[a] != firstRead[b] ? firstRead[a] < firstRead[b] : a < b;
  });
  SmallVector<Table> tables;
  llvm::DenseMap<Type, int64_t> open; // the table being filled per type
  SmallVector<std::pair<int64_t, int64_t>> placed(contents.size());
  for (int64_t k : byFirstRead) {
    const Contents &data = contents[k];
    int64_t capacity = kTableRowBytes / tile::storageBytes(data.type);
    auto it = open.find(data.type);
    if (it == open.end() ||
        tables[it->second].columns + data.width > capacity) {
      tables.push_back(Table{data.type, 0, firstRead[k], {}, {}});
      open[data.type] = int64_t(tables.size()) - 1;
      it = open.find(data.type);
    }
    Table &t = tables[it->second];
    t.entries.push_back({k, t.columns});
    placed[k] = {it->second, t.columns};
    t.columns += data.width;
  }

  // Each table: a constant global, loaded right before its first reader.
  auto module = func->getParentOfType<ModuleOp>();
  SymbolTable &moduleSymbols = symbols.getSymbolTable(module);
  // The table serves many ops: in a profile its load is "constant table",
  // not the function's (the model file's) location.
  Location loc = NameLoc::get(
      StringAttr::get(func.getContext(), "constant table"), func.getLoc());
  SmallVector<Operation *> byOrder(body.getOperations().size());
  for (auto &[op, i] : order)
    byOrder[i] = op;
  for (Table &t : tables) {
    // As many partitions as its tallest tile.
    int64_t partitions = 0;
    for (auto [k, column] : t.entries)
      partitions = std::max(partitions, contents[k].parts);
    SmallVector<APFloat> values(
        partitions * t.columns,
        APFloat::getZero(cast<FloatType>(t.type).getFloatSemantics()));
    for (auto [k, column] : t.entries) {
      const Contents &data = contents[k];
      for (int64_t p = 0; p < data.parts; ++p)
        for (int64_t j = 0; j < data.width; ++j)
          values[p * t.columns + column + j] = data.values[p * data.width + j];
    }
    auto hbmType = MemRefType::get({partitions, t.columns}, t.type);
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto global = memref::GlobalOp::create(
        b, loc, "__nki_constant_table", b.getStringAttr("private"), hbmType,
        DenseElementsAttr::get(
            RankedTensorType::get(hbmType.getShape(), t.type), values),
        /*constant=*/true, b.getI64IntegerAttr(64));
    moduleSymbols.insert(global);
    b.setInsertionPoint(byOrder[t.firstRead]);
    Value src =
        memref::GetGlobalOp::create(b, loc, hbmType, global.getSymName());
    t.tile =
        tile::AllocOp::create(b, loc,
                              tile::getTileType({partitions, t.columns}, t.type,
                                                tile::MemorySpace::SBUF),
                              IntegerAttr());
    tile::DmaOp::create(b, loc, src, t.tile);
  }

  // Readers read the table's columns; the fills and old tiles go.
  for (auto [c, k] : llvm::zip(candidates, contentsOf)) {
    auto [index, column] = placed[k];
    Table &t = tables[index];
    const Contents &data = contents[k];
    OpBuilder b(t.tile.getContext());
    b.setInsertionPointAfter(t.tile.getDefiningOp());
    Value view = memref::SubViewOp::create(
        b, loc, t.tile,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(column)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(data.parts),
                               b.getIndexAttr(data.width)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    // The DMAs first: the other fills (views they read) may then be unused.
    // Erased ops are not looked at again (the sanitizer build caught that).
    SmallVector<Operation *> others;
    for (Operation *fill : c.fills) {
      if (isa<tile::DmaOp>(fill))
        fill->erase();
      else
        others.push_back(fill);
    }
    for (Operation *fill : others)
      if (fill->use_empty())
        fill->erase();
    for (OpOperand &use : llvm::make_early_inc_range(c.alloc->getUses())) {
      auto sub = dyn_cast<memref::SubViewOp>(use.getOwner());
      if (!sub) {
        use.set(view);
        continue;
      }
      // Right after the table's view: the old subview may come earlier
      // than the table (only its readers come after).
      b.setInsertionPointAfterValue(view);
      Value rebuilt = memref::SubViewOp::create(
          b, sub.getLoc(), view, sub.getMixedOffsets(), sub.getMixedSizes(),
          sub.getMixedStrides());
      sub.getResult().replaceAllUsesWith(rebuilt);
      sub.erase();
    }
    c.alloc.erase();
  }
  // Views of constants and get_globals that fed only the erased DMAs.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isa<ViewLikeOpInterface, memref::GetGlobalOp>(op) && op.use_empty() &&
          !isa<tile::AllocOp>(op)) {
        op.erase();
        changed = true;
      }
  }
}

} // namespace
