//===- StoreRegionsInBF16.cpp - Data movement before rounding, in bf16 ----===//

#include "StoreRegionsInBF16.h"

#include "../Conv/ConvGeneric.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace nki {
namespace {

bool isF32Tensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getElementType().isF32();
}

/// The constant a pad pads with, or a fill fills with.
std::optional<APFloat> constantOf(Value v) {
  FloatAttr value;
  if (!v || !matchPattern(v, m_Constant(&value)))
    return std::nullopt;
  return value.getValue();
}

/// A tensor the region starts afresh in bf16: a tensor.empty, or a
/// constant's fill of one.
bool isFresh(Value v) {
  if (v.getDefiningOp<tensor::EmptyOp>())
    return true;
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && constantOf(fill.getInputs()[0]) &&
         fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
}

/// The region grown from one rounding convolution's input.
struct Region {
  llvm::SetVector<Value> values;
  SmallVector<std::pair<Operation *, Value>> readers;
  bool rounds = false; // a producer rounds (else nothing to gain)
};

class Grower {
public:
  Grower(Block &body, llvm::function_ref<bool(Operation *, Value)> roundingConv,
         llvm::function_ref<bool(Value)> fusible)
      : body(body), roundingConv(roundingConv), fusible(fusible) {}

  /// The region of `seed`, if it may be computed in bf16. A region that
  /// may not is remembered, so that each value is visited once however
  /// many of its readers are seeds; not its fresh tensors, which other
  /// regions may start from too (a tensor.empty that CSE shares).
  std::optional<Region> grow(Value seed) {
    Region r;
    std::optional<Region> region = growInto(seed, r);
    if (!region)
      for (Value v : r.values)
        if (!isFresh(v))
          failed.insert(v);
    return region;
  }

private:
  std::optional<Region> growInto(Value seed, Region &r) {
    SmallVector<Value> work;
    auto add = [&](Value v) {
      if (r.values.insert(v))
        work.push_back(v);
    };
    add(seed);
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!isF32Tensor(v) || failed.contains(v))
        return std::nullopt;
      // Where it comes from.
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &body)
        return std::nullopt; // a program input keeps its type
      if (isFresh(v))
        continue; // a new one in bf16; its other readers keep the old one
      if (fusible(v)) {
        r.rounds = true;
      } else if (auto pad = dyn_cast<tensor::PadOp>(def)) {
        if (!constantOf(pad.getConstantPaddingValue()))
          return std::nullopt;
        add(pad.getSource());
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
        add(slice.getSource());
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
        add(insert.getSource());
        add(insert.getDest());
      } else if (auto pool = dyn_cast<linalg::PoolingNchwMaxOp>(def)) {
        add(pool.getInputs()[0]);
        add(pool.getOutputs()[0]);
      } else {
        return std::nullopt;
      }
      // Who reads it: rounding convolutions, or moves whose results join.
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (roundingConv(user, v)) {
          r.readers.push_back({user, v});
        } else if (auto pad = dyn_cast<tensor::PadOp>(user)) {
          if (!constantOf(pad.getConstantPaddingValue()))
            return std::nullopt;
          add(pad.getResult());
        } else if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(user)) {
          add(user->getResult(0));
        } else if (auto pool = dyn_cast<linalg::PoolingNchwMaxOp>(user);
                   pool && use.getOperandNumber() != 1) {
          add(pool->getResult(0));
        } else {
          return std::nullopt;
        }
      }
    }
    if (!r.rounds)
      return std::nullopt;
    return r;
  }

  Block &body;
  llvm::function_ref<bool(Operation *, Value)> roundingConv;
  llvm::function_ref<bool(Value)> fusible;
  DenseSet<Value> failed;
};

Value roundedConstant(OpBuilder &b, Location loc, APFloat value) {
  bool lost;
  value.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven, &lost);
  return arith::ConstantOp::create(b, loc,
                                   b.getFloatAttr(b.getBF16Type(), value));
}

RankedTensorType inBF16(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return RankedTensorType::get(type.getShape(),
                               BFloat16Type::get(v.getContext()));
}

} // namespace

void storeRegionsInBF16(
    RewriterBase &rewriter, func::FuncOp func,
    llvm::function_ref<bool(Operation *, Value)> roundingConv,
    llvm::function_ref<bool(Value)> fusible,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> round) {
  SmallVector<Value> seeds;
  func.walk([&](linalg::GenericOp op) {
    if (op.getNumDpsInputs() >= 1 && roundingConv(op, op.getDpsInputs()[0]) &&
        isF32Tensor(op.getDpsInputs()[0]))
      seeds.push_back(op.getDpsInputs()[0]);
  });
  Grower grower(func.getBody().front(), roundingConv, fusible);
  DenseSet<Value> done;
  for (Value seed : seeds) {
    if (done.contains(seed) || !isF32Tensor(seed))
      continue;
    std::optional<Region> region = grower.grow(seed);
    if (!region)
      continue;
    done.insert(region->values.begin(), region->values.end());
    // Rebuilt in program order (one block: the function's body), each new
    // value where its old one was made.
    SmallVector<Value> order(region->values.begin(), region->values.end());
    llvm::sort(order, [](Value a, Value b) {
      return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
    });
    DenseMap<Value, Value> bf16;
    SmallVector<Operation *> old, fresh;
    for (Value v : order) {
      Operation *def = v.getDefiningOp();
      Location loc = def->getLoc();
      if (isFresh(v)) {
        rewriter.setInsertionPoint(def);
        Value empty = tensor::EmptyOp::create(
            rewriter, loc, inBF16(v).getShape(), rewriter.getBF16Type());
        if (auto fill = dyn_cast<linalg::FillOp>(def))
          empty = linalg::FillOp::create(
                      rewriter, loc,
                      ValueRange{roundedConstant(
                          rewriter, loc, *constantOf(fill.getInputs()[0]))},
                      ValueRange{empty})
                      .getResult(0);
        bf16[v] = empty;
        fresh.push_back(def);
        continue;
      }
      if (fusible(v)) {
        rewriter.setInsertionPointAfterValue(v);
        bf16[v] = round(rewriter, v.getLoc(), v);
        continue;
      }
      rewriter.setInsertionPoint(def);
      Value made;
      if (auto pad = dyn_cast<tensor::PadOp>(def)) {
        made = tensor::PadOp::create(
            rewriter, loc, inBF16(v), bf16.lookup(pad.getSource()),
            pad.getMixedLowPad(), pad.getMixedHighPad(),
            roundedConstant(rewriter, loc,
                            *constantOf(pad.getConstantPaddingValue())));
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
        made = tensor::ExtractSliceOp::create(
            rewriter, loc, inBF16(v), bf16.lookup(slice.getSource()),
            slice.getMixedOffsets(), slice.getMixedSizes(),
            slice.getMixedStrides());
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
        made = tensor::InsertSliceOp::create(
            rewriter, loc, bf16.lookup(insert.getSource()),
            bf16.lookup(insert.getDest()), insert.getMixedOffsets(),
            insert.getMixedSizes(), insert.getMixedStrides());
      } else {
        auto pool = cast<linalg::PoolingNchwMaxOp>(def);
        made = linalg::PoolingNchwMaxOp::create(
                   rewriter, loc, TypeRange{inBF16(v)},
                   ValueRange{bf16.lookup(pool.getInputs()[0]),
                              pool.getInputs()[1]},
                   ValueRange{bf16.lookup(pool.getOutputs()[0])},
                   ArrayRef<NamedAttribute>{
                       rewriter.getNamedAttr("strides", pool.getStrides()),
                       rewriter.getNamedAttr("dilations", pool.getDilations())})
                   ->getResult(0);
      }
      bf16[v] = made;
      old.push_back(def);
    }
    for (auto [conv, v] : region->readers)
      conv::readInputInBF16(rewriter, cast<linalg::GenericOp>(conv),
                            bf16.lookup(v));
    // The old moves, last first (each one's readers are gone by then), and
    // the fresh tensors nothing else reads.
    for (Operation *op : llvm::reverse(old))
      rewriter.eraseOp(op);
    for (Operation *op : llvm::reverse(fresh))
      if (op->use_empty())
        rewriter.eraseOp(op);
  }
}

} // namespace nki
