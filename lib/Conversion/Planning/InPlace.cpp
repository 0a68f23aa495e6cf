//===- InPlace.cpp - Elementwise ops that write over a dead input ---------===//
//
// An elementwise op whose input tile dies at the op and whose output is a
// fresh tile of the same type writes its result over the input instead:
// the two allocs become one. Every alloc costs bytes of the Rotate plan's
// ring whether it lives for one op or many, so a chain of elementwise ops
// over one row block (layernorm's centring, scaling, gamma and beta) takes
// one tile's bytes instead of one per op, and more row blocks fit in SBUF
// at once. Position by position the machine reads an element before it
// writes it, so the op needs no other buffer.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace nki::planning {

/// The operands of `op` that it reads element by element at the positions
/// it writes `dst`, or nothing for ops that are not elementwise.
static SmallVector<OpOperand *> elementwiseInputs(Operation *op, Value &dst) {
  return llvm::TypeSwitch<Operation *, SmallVector<OpOperand *>>(op)
      .Case([&](tile::ActivationOp o) {
        dst = o.getDst();
        return SmallVector<OpOperand *>{&o.getSrcMutable()};
      })
      .Case([&](tile::TensorScalarOp o) {
        dst = o.getDst();
        return SmallVector<OpOperand *>{&o.getSrcMutable()};
      })
      .Case([&](tile::TensorTensorOp o) {
        dst = o.getDst();
        return SmallVector<OpOperand *>{&o.getLhsMutable(), &o.getRhsMutable()};
      })
      .Case([&](tile::CopyOp o) {
        dst = o.getDst();
        return SmallVector<OpOperand *>{&o.getSrcMutable()};
      })
      .Case([&](tile::SelectOp o) {
        dst = o.getDst();
        return SmallVector<OpOperand *>{
            &o.getPredMutable(), &o.getOnTrueMutable(), &o.getOnFalseMutable()};
      })
      .Default([](Operation *) { return SmallVector<OpOperand *>{}; });
}

/// The alloc whose bytes `value` names, looking through views.
static tile::AllocOp rootAlloc(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value.getDefiningOp<tile::AllocOp>();
}

void reuseDeadInputs(func::FuncOp func) {
  Block &block = func.getBody().front();
  // First and last op of the block that touches each alloc's bytes.
  DenseMap<Operation *, std::pair<Operation *, Operation *>> range;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      if (!mlir::isa<ViewLikeOpInterface>(op))
        if (tile::AllocOp alloc = rootAlloc(operand)) {
          auto [it, inserted] = range.try_emplace(alloc, &op, &op);
          if (!inserted)
            it->second.second = &op;
        }

  for (Operation &op : block) {
    Value dst;
    SmallVector<OpOperand *> inputs = elementwiseInputs(&op, dst);
    auto out = dst ? dst.getDefiningOp<tile::AllocOp>() : tile::AllocOp();
    if (!out || range.lookup(out).first != &op)
      continue;
    for (OpOperand *input : inputs) {
      auto in = input->get().getDefiningOp<tile::AllocOp>();
      if (!in || in == out || in.getType() != out.getType() ||
          range.lookup(in).second != &op)
        continue;
      // Elsewhere in the op (a [P,1] scale or bias, an accumulator) the
      // input would be read or written out of step with the output.
      if (llvm::any_of(op.getOpOperands(), [&](OpOperand &o) {
            return rootAlloc(o.get()) == in && !llvm::is_contained(inputs, &o);
          }))
        continue;
      range[in].second = range.lookup(out).second;
      range.erase(out);
      out.getResult().replaceAllUsesWith(in.getResult());
      out.erase();
      break;
    }
  }
}

} // namespace nki::planning
