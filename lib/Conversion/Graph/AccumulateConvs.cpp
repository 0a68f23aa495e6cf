//===- AccumulateConvs.cpp - Two added convolutions in one accumulator ----===//
//
//   p = conv(y, Wp)        1x1, from zero, read only by E
//   m = conv(x, Wm)        from zero, same result, read only by E
//   E: f(... (p + bp) + (m + bm) ...)   the two only summed
//
// becomes
//
//   m' = conv(x, Wm) starting from p      (p + m)
//   E': f(... m' + (bp + bm) ...)
//
// A ResNet's projection shortcut (conv3(y) + downsample(x), each with its
// batch norm's shift, then a ReLU): the tiling then computes p's matmuls
// into m's PSUM accumulator (TilePass.cpp, "partner" convolutions), and the
// sum and both shifts cost one pass at the evacuation instead of three.
// The sum is reassociated (as the PE accumulates in any order); the two
// constant shifts are added in double and rounded once.
//
//===----------------------------------------------------------------------===//

#include "../Conv/ConvGeneric.h"
#include "ConstantValues.h"
#include "ElementwiseMatch.h"

#include "nki/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace nki {
#define GEN_PASS_DEF_NKIACCUMULATECONVS
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// A conv generic accumulating from zero into a filled init, read once.
std::optional<nki::conv::ConvGeneric> soleConvFromZero(Value v) {
  auto conv = v.getDefiningOp<linalg::GenericOp>();
  if (!conv || !v.hasOneUse())
    return std::nullopt;
  auto fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.value(), m_AnyZeroFloat()))
    return std::nullopt;
  return nki::conv::matchConvGeneric(conv);
}

/// The single-use additions from `v` upward in a body: v, v + t1,
/// (v + t1) + t2, ...
SmallVector<Value> sumChain(Value v) {
  SmallVector<Value> chain = {v};
  while (chain.back().hasOneUse())
    if (auto add = dyn_cast<arith::AddFOp>(*chain.back().getUsers().begin()))
      chain.push_back(add.getResult());
    else
      break;
  return chain;
}

/// `chain[1]` when it adds a per-channel f32 constant of `channels` to
/// `chain[0]`: that constant's operand.
OpOperand *shiftOf(linalg::GenericOp e, ArrayRef<Value> chain,
                   int64_t channels) {
  if (chain.size() < 2)
    return nullptr;
  auto add = chain[1].getDefiningOp<arith::AddFOp>();
  Value other = add.getLhs() == chain[0] ? add.getRhs() : add.getLhs();
  auto arg = dyn_cast<BlockArgument>(other);
  if (!arg || arg.getOwner() != e.getBody() ||
      arg.getArgNumber() >= e.getNumDpsInputs() || !arg.hasOneUse())
    return nullptr;
  OpOperand *operand = e.getDpsInputOperand(arg.getArgNumber());
  unsigned dim = 0;
  DenseElementsAttr value;
  if (!nki::perChannelPosition(e, *operand, dim) || dim != 1 ||
      !matchPattern(operand->get(), m_Constant(&value)) ||
      !value.getElementType().isF32() || value.getNumElements() != channels)
    return nullptr;
  return operand;
}

/// E's two convolution operands, `partner` (1x1) and `main`, with what
/// their sum and shifts take.
struct Match {
  linalg::GenericOp e, partner, main;
  OpOperand *partnerIn, *mainIn;
  OpOperand *partnerShift = nullptr, *mainShift = nullptr;
};

std::optional<Match> matchPair(linalg::GenericOp e, OpOperand &a,
                               OpOperand &b) {
  std::optional<nki::conv::ConvGeneric> ga = soleConvFromZero(a.get()),
                                        gb = soleConvFromZero(b.get());
  if (!ga || !gb || a.get() == b.get() ||
      a.get().getType() != b.get().getType() ||
      !getElementTypeOrSelf(a.get()).isF32() ||
      !e.getMatchingIndexingMap(&a).isIdentity() ||
      !e.getMatchingIndexingMap(&b).isIdentity())
    return std::nullopt;
  // The partner is a 1x1 convolution: the kernel reads its input pixel by
  // pixel beside the main one's taps.
  bool aPartner = ga->kh == 1 && ga->kw == 1;
  if (!aPartner && !(gb->kh == 1 && gb->kw == 1))
    return std::nullopt;
  Match m;
  m.e = e;
  m.partnerIn = aPartner ? &a : &b;
  m.mainIn = aPartner ? &b : &a;
  m.partner = m.partnerIn->get().getDefiningOp<linalg::GenericOp>();
  m.main = m.mainIn->get().getDefiningOp<linalg::GenericOp>();
  // E reads the two only through one sum.
  SmallVector<Value> pc = sumChain(e.getMatchingBlockArgument(m.partnerIn)),
                     mc = sumChain(e.getMatchingBlockArgument(m.mainIn));
  if (llvm::none_of(pc, [&](Value v) { return llvm::is_contained(mc, v); }))
    return std::nullopt;
  int64_t channels = ga->f;
  m.partnerShift = shiftOf(e, pc, channels);
  m.mainShift = shiftOf(e, mc, channels);
  if (!m.partnerShift || !m.mainShift)
    m.partnerShift = m.mainShift = nullptr;
  return m;
}

/// Where the partner goes: before the main convolution and its padding (a
/// kernel reads a padded input's source where the convolution is, and
/// nothing may read that source in between), if it is not there already;
/// null when its operands come later.
Operation *partnerSlot(Match m) {
  Operation *first = m.main;
  if (auto pad = m.main.getDpsInputs()[0].getDefiningOp<tensor::PadOp>();
      pad && pad->getBlock() == m.main->getBlock())
    first = pad;
  if (m.partner->isBeforeInBlock(first))
    return m.partner;
  // The partner, its zero fill and that fill's empty tensor move there.
  SmallVector<Operation *> moved = {m.partner};
  auto fill = m.partner.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill->isBeforeInBlock(first)) {
    moved.push_back(fill);
    if (Operation *empty = fill.getDpsInits()[0].getDefiningOp();
        empty && !empty->isBeforeInBlock(first))
      moved.push_back(empty);
  }
  for (Operation *op : moved)
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == first->getBlock() &&
          !def->isBeforeInBlock(first) && !llvm::is_contained(moved, def))
        return nullptr;
  return first;
}

void accumulate(Match m, Operation *slot) {
  linalg::GenericOp e = m.e;
  // The partner first (with its fill), then the main convolution where it
  // was, starting from the partner's result.
  if (slot != m.partner) {
    auto fill = m.partner.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (Operation *empty = fill.getDpsInits()[0].getDefiningOp();
        empty && !empty->isBeforeInBlock(slot))
      empty->moveBefore(slot);
    if (!fill->isBeforeInBlock(slot))
      fill->moveBefore(slot);
    m.partner->moveBefore(slot);
  }
  OpBuilder b(m.main);
  Location loc = e.getLoc();
  IRMapping map;
  map.map(m.main.getDpsInits()[0], m.partner->getResult(0));
  Operation *sum = b.clone(*m.main, map);
  sum->setLoc(
      FusedLoc::get(b.getContext(), {m.main.getLoc(), m.partner.getLoc()}));
  // Both shifts in the main one's operand, in double, rounded once.
  Value partnerValue = e.getMatchingBlockArgument(m.partnerIn);
  if (m.partnerShift) {
    DenseElementsAttr ps, ms;
    matchPattern(m.partnerShift->get(), m_Constant(&ps));
    matchPattern(m.mainShift->get(), m_Constant(&ms));
    SmallVector<double> shift = nki::toDoubles(ms);
    for (auto [s, p] : llvm::zip_equal(shift, nki::toDoubles(ps)))
      s += p;
    auto type = cast<RankedTensorType>(m.mainShift->get().getType());
    m.mainShift->set(
        arith::ConstantOp::create(b, loc, type, nki::fromDoubles(type, shift)));
  }
  // E reads the sum where it read the main result; the partner's term (its
  // shifted value when the shift moved) is -0.0 (x + -0.0 == x, which
  // canonicalization folds).
  m.mainIn->set(sum->getResult(0));
  OpBuilder body = OpBuilder::atBlockBegin(e.getBody());
  Value negZero =
      arith::ConstantOp::create(body, loc, body.getF32FloatAttr(-0.0f));
  if (m.partnerShift) {
    Operation *shifted = *partnerValue.getUsers().begin();
    shifted->getResult(0).replaceAllUsesWith(negZero);
    shifted->erase();
  } else {
    partnerValue.replaceAllUsesWith(negZero);
  }
  // Drop the inputs nothing reads now.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> dead;
  for (OpOperand *in : e.getDpsInputOperands()) {
    if (e.getMatchingBlockArgument(in).use_empty()) {
      dead.push_back(in->getOperandNumber());
      continue;
    }
    inputs.push_back(in->get());
    maps.push_back(e.getMatchingIndexingMap(in));
  }
  for (OpOperand &out : e.getDpsInitsMutable())
    maps.push_back(e.getMatchingIndexingMap(&out));
  b.setInsertionPoint(e);
  auto fresh = linalg::GenericOp::create(b, loc, e->getResultTypes(), inputs,
                                         e.getDpsInits(), maps,
                                         e.getIteratorTypesArray());
  fresh->setDiscardableAttrs(e->getDiscardableAttrDictionary());
  fresh.getRegion().takeBody(e.getRegion());
  for (unsigned i : llvm::reverse(dead))
    fresh.getBody()->eraseArgument(i);
  e->replaceAllUsesWith(fresh);
  e.erase();
  m.main.erase();
}

struct AccumulateConvs : nki::impl::NKIAccumulateConvsBase<AccumulateConvs> {
  void runOnOperation() override {
    SmallVector<Match> matches;
    getOperation().walk([&](linalg::GenericOp e) {
      if (!nki::isElementwise(e))
        return;
      for (OpOperand *a : e.getDpsInputOperands())
        for (OpOperand *b : e.getDpsInputOperands())
          if (a->getOperandNumber() < b->getOperandNumber())
            if (std::optional<Match> m = matchPair(e, *a, *b);
                m && partnerSlot(*m)) {
              matches.push_back(*m);
              return;
            }
    });
    for (const Match &m : matches)
      accumulate(m, partnerSlot(m));
  }
};

} // namespace
