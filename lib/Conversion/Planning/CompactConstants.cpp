//===- CompactConstants.cpp - Keep only the parts of constants read -------===//
//
// A kernel may read only part of a large constant: the attention kernel
// loads the mixed blocks of a causal mask (at 8,192 x 8,192 f32, four
// distinct [128, 512] blocks of a 256 MiB constant) and skips the rest. The
// whole constant would still be imported, verified, planned into HBM and
// written into the binary. Once every view has static offsets (after
// nki-unroll), a constant that only DMAs read, through static views, and of
// which they read at most half, is replaced by one holding just the regions
// read, each stored once (identical regions shared), row-major.
//
//===----------------------------------------------------------------------===//

#include "CompactConstants.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace {

/// The strides and offset of a view with a static shape and layout.
bool staticLayout(MemRefType type, llvm::SmallVectorImpl<int64_t> &strides,
                  int64_t &offset) {
  return type.hasStaticShape() &&
         succeeded(nki::tile::getStridesAndOffset(type, strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// One DMA's read of the constant.
struct Read {
  nki::tile::DmaOp dma;
  MemRefType type; // the source view: static shape, strides and offset
};

/// The DMAs that read `get`'s constant, through views only; nullopt if
/// anything else uses it or a view is not static.
std::optional<llvm::SmallVector<Read>> readsOf(memref::GetGlobalOp get) {
  llvm::SmallVector<Read> reads;
  llvm::SmallVector<Value> work{get.getResult()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto dma = dyn_cast<nki::tile::DmaOp>(user);
          dma && use.get() == dma.getSrc() && dma.getDst() != v) {
        auto type = cast<MemRefType>(v.getType());
        SmallVector<int64_t> strides;
        int64_t offset;
        if (!staticLayout(type, strides, offset))
          return std::nullopt;
        reads.push_back({dma, type});
        continue;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (!view || view.getViewSource() != v || user->getNumResults() != 1)
        return std::nullopt;
      work.push_back(user->getResult(0));
    }
  }
  return reads;
}

} // namespace

llvm::SmallVector<int64_t> nki::elementOffsets(MemRefType type) {
  llvm::SmallVector<int64_t> strides;
  int64_t offset;
  if (!staticLayout(type, strides, offset))
    return {};
  llvm::SmallVector<int64_t> out;
  llvm::SmallVector<int64_t> index(type.getRank(), 0);
  for (int64_t n = type.getNumElements(); n > 0; --n) {
    int64_t at = offset;
    for (auto [i, s] : llvm::zip(index, strides))
      at += i * s;
    out.push_back(at);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return out;
}

void nki::compactPartlyReadConstants(ModuleOp module, int64_t minBytes) {
  llvm::StringMap<llvm::SmallVector<memref::GetGlobalOp>> gets;
  module.walk(
      [&](memref::GetGlobalOp get) { gets[get.getName()].push_back(get); });
  SymbolTable symbols(module);
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>())) {
    auto data =
        dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
    auto it = gets.find(global.getSymName());
    if (!global.getConstant() || !global.isPrivate() || !data ||
        data.isSplat() || it == gets.end() ||
        !data.getElementType().isIntOrFloat() ||
        data.getElementType().getIntOrFloatBitWidth() % 8 != 0)
      continue;
    int64_t bytes = data.getElementType().getIntOrFloatBitWidth() / 8;
    if (data.getNumElements() * bytes < minBytes)
      continue;
    llvm::SmallVector<Read> reads;
    bool ok = true;
    for (memref::GetGlobalOp get : it->second) {
      std::optional<llvm::SmallVector<Read>> r = readsOf(get);
      if (!r) {
        ok = false;
        break;
      }
      reads.append(r->begin(), r->end());
    }
    if (!ok || reads.empty())
      continue;
    // At most half read? Views of one type read the same elements; a
    // constant that kernels read whole (a weight) is left here, before its
    // elements are looked at.
    llvm::DenseSet<MemRefType> views;
    int64_t read = 0;
    for (const Read &r : reads)
      if (views.insert(r.type).second)
        read += r.type.getNumElements();
    if (read * 2 > data.getNumElements())
      continue;

    // The regions, each stored once: keyed by shape and bytes.
    ArrayRef<char> raw = data.getRawData();
    std::vector<char> packed;
    llvm::StringMap<int64_t> placed;
    llvm::SmallVector<int64_t> at; // per read: element offset in `packed`
    for (const Read &r : reads) {
      SmallVector<int64_t> from = nki::elementOffsets(r.type);
      std::string key;
      llvm::raw_string_ostream os(key);
      for (int64_t d : r.type.getShape())
        os << d << 'x';
      for (int64_t e : from) {
        if (e < 0 || e >= data.getNumElements()) {
          ok = false;
          break;
        }
        os.write(raw.data() + e * bytes, bytes);
      }
      if (!ok)
        break;
      int64_t offset = int64_t(packed.size()) / bytes;
      auto [entry, inserted] = placed.try_emplace(key, offset);
      if (inserted)
        for (int64_t e : from)
          packed.insert(packed.end(), raw.data() + e * bytes,
                        raw.data() + (e + 1) * bytes);
      at.push_back(entry->second);
    }
    int64_t elements = int64_t(packed.size()) / bytes;
    if (!ok)
      continue;

    OpBuilder b(global);
    auto type = MemRefType::get({elements}, data.getElementType());
    auto compact = memref::GlobalOp::create(
        b, global.getLoc(), global.getSymName(), b.getStringAttr("private"),
        type,
        DenseElementsAttr::getFromRawBuffer(
            RankedTensorType::get({elements}, data.getElementType()), packed),
        /*constant=*/true, global.getAlignmentAttr());
    symbols.insert(compact); // renamed: the old one still holds the name
    DenseMap<Operation *, Value> perFunc;
    for (auto [r, offset] : llvm::zip(reads, at)) {
      auto func = r.dma->getParentOfType<func::FuncOp>();
      Value &base = perFunc[func];
      if (!base) {
        OpBuilder fb = OpBuilder::atBlockBegin(&func.getBody().front());
        base = memref::GetGlobalOp::create(fb, global.getLoc(), type,
                                           compact.getSymName());
      }
      ArrayRef<int64_t> shape = r.type.getShape();
      llvm::SmallVector<int64_t> strides(shape.size(), 1);
      for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * shape[d + 1];
      OpBuilder rb(r.dma);
      auto view = memref::ReinterpretCastOp::create(
          rb, r.dma.getLoc(),
          MemRefType::get(
              shape, data.getElementType(),
              StridedLayoutAttr::get(b.getContext(), offset, strides)),
          base, offset, shape, strides);
      r.dma.getSrcMutable().assign(view);
    }
    // The old views and get_globals, now unused.
    std::function<void(Operation *)> eraseTree = [&](Operation *op) {
      for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
        eraseTree(user);
      op->erase();
    };
    for (memref::GetGlobalOp get : it->second)
      eraseTree(get);
    global.erase();
  }
}
