//===- ComposeConvs.cpp - A 1x1 convolution of a convolution, composed ----===//
//
//   conv1: p = conv(x, W1)            W1 [C, KH, KW, M], constant
//   [bias: q = p + b1[m]]             elementwise, nothing else
//   conv2: e = conv(q, W2)            W2 [M, 1, 1, F], constant, stride 1
//   E:     ... e + b2[f] ...          elementwise, e's only reader
//
// is conv(x, W) with W = W1 W2 (contracting M) and E adding
// b2 + W2^T b1: one convolution instead of two, and no M-channel tensor.
// Linear algebra, so exact but for rounding: W is computed in double from
// the filters as the PE would multiply them and rounded once. Under
// auto-cast the bf16 rounding of q, which the composite no longer
// computes, is gone too.
//
//===----------------------------------------------------------------------===//

#include "../Conv/ConvGeneric.h"
#include "ConstantValues.h"
#include "ElementwiseMatch.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"

#include <vector>

namespace nki {
#define GEN_PASS_DEF_NKICOMPOSECONVS
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// The chain of the file comment, matched from conv2.
struct Chain {
  linalg::GenericOp conv1, bias1, conv2;
  nki::conv::ConvGeneric g1, g2;
  DenseElementsAttr w1, w2;
  /// b1 (may be null: no bias) and E's operand holding b2 (null when b1
  /// is).
  DenseElementsAttr b1, b2Value;
  OpOperand *b2 = nullptr;
};

/// A constant filter in f32 or bf16.
DenseElementsAttr constantFilter(Value v) {
  DenseElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)))
    return {};
  Type t = value.getElementType();
  return t.isF32() || t.isBF16() ? value : DenseElementsAttr();
}

/// A conv generic accumulating from zero into a filled init.
bool startsFromZero(linalg::GenericOp conv) {
  auto fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.value(), m_AnyZeroFloat());
}

/// `operand` of elementwise `op` when it is an f32 constant read per
/// channel along loop dim 1 (NCHW's channels) with `channels` elements.
DenseElementsAttr channelConstant(linalg::GenericOp op, OpOperand &operand,
                                  int64_t channels) {
  unsigned dim = 0;
  DenseElementsAttr value;
  if (!nki::perChannelPosition(op, operand, dim) || dim != 1 ||
      !matchPattern(operand.get(), m_Constant(&value)) ||
      !value.getElementType().isF32() || value.getNumElements() != channels)
    return {};
  return value;
}

/// `in`'s element plus a per-channel input's, rounded or not to the
/// output's type, and nothing else; that input's operand, or null.
OpOperand *biasOnly(linalg::GenericOp op, OpOperand &in) {
  if (!nki::isElementwise(op) || op.getNumDpsInputs() != 2 ||
      !op.getMatchingIndexingMap(&in).isIdentity())
    return nullptr;
  auto [add, bias] = nki::binaryWithInput<arith::AddFOp>(op, in);
  if (!add || !op.getMatchingBlockArgument(bias).hasOneUse() ||
      !add->hasOneUse())
    return nullptr;
  Value yielded = op.getBody()->getTerminator()->getOperand(0);
  if (auto trunc = yielded.getDefiningOp<arith::TruncFOp>())
    yielded = trunc.getIn();
  return yielded == add.getResult() ? bias : nullptr;
}

std::optional<Chain> matchChain(linalg::GenericOp conv2) {
  Chain c;
  c.conv2 = conv2;
  std::optional<nki::conv::ConvGeneric> g2 = nki::conv::matchConvGeneric(conv2);
  if (!g2 || g2->kh != 1 || g2->kw != 1 || g2->strideH != 1 ||
      g2->strideW != 1 || !startsFromZero(conv2) ||
      !conv2->getResult(0).hasOneUse())
    return std::nullopt;
  c.g2 = *g2;
  c.w2 = constantFilter(conv2.getDpsInputs()[1]);
  Value q = conv2.getDpsInputs()[0];
  if (!c.w2 || !q.hasOneUse())
    return std::nullopt;
  // The bias between them, if any.
  Value p = q;
  if (auto bias1 = q.getDefiningOp<linalg::GenericOp>();
      bias1 && !nki::conv::matchConvGeneric(bias1)) {
    c.bias1 = bias1;
    for (OpOperand *in : bias1.getDpsInputOperands())
      if (OpOperand *b1 = biasOnly(bias1, *in)) {
        c.b1 = channelConstant(bias1, *b1, g2->c);
        p = in->get();
        break;
      }
    if (!c.b1)
      return std::nullopt;
  }
  c.conv1 = p.getDefiningOp<linalg::GenericOp>();
  if (!c.conv1 || !p.hasOneUse() || !startsFromZero(c.conv1))
    return std::nullopt;
  std::optional<nki::conv::ConvGeneric> g1 =
      nki::conv::matchConvGeneric(c.conv1);
  if (!g1 || g1->f != g2->c || g1->oh != g2->oh || g1->ow != g2->ow ||
      getElementTypeOrSelf(p) != getElementTypeOrSelf(conv2->getResult(0)))
    return std::nullopt;
  c.g1 = *g1;
  c.w1 = constantFilter(c.conv1.getDpsInputs()[1]);
  if (!c.w1 || c.w1.getElementType() != c.w2.getElementType())
    return std::nullopt;
  // E adds b2 per channel to the product, which it reads nowhere else.
  if (c.b1) {
    auto e = dyn_cast<linalg::GenericOp>(*conv2->getUsers().begin());
    if (!e || !nki::isElementwise(e))
      return std::nullopt;
    for (OpOperand *in : e.getDpsInputOperands()) {
      if (in->get() != conv2->getResult(0) ||
          !e.getMatchingIndexingMap(in).isIdentity())
        continue;
      auto [add, b2] = nki::binaryWithInput<arith::AddFOp>(e, *in);
      if (add && e.getMatchingBlockArgument(b2).hasOneUse() &&
          (c.b2Value = channelConstant(e, *b2, g2->f)))
        c.b2 = b2;
      break;
    }
    if (!c.b2)
      return std::nullopt;
  }
  return c;
}

/// Whether the composite multiplies no more than the two: matmuls per
/// output column, taps x input blocks x output blocks of `partitions`.
bool pays(const Chain &c, int64_t partitions) {
  auto blocks = [&](int64_t n) { return (n + partitions - 1) / partitions; };
  int64_t taps = c.g1.kh * c.g1.kw;
  int64_t before =
      taps * blocks(c.g1.c) * blocks(c.g1.f) + blocks(c.g2.c) * blocks(c.g2.f);
  return taps * blocks(c.g1.c) * blocks(c.g2.f) <= before;
}

void compose(Chain c) {
  int64_t rows = c.g1.c * c.g1.kh * c.g1.kw, m = c.g1.f, f = c.g2.f;
  SmallVector<double> w1 = nki::toDoubles(c.w1), w2 = nki::toDoubles(c.w2);
  // W [C, KH, KW, F]: rows of W1 [C * KH * KW, M] times W2 [M, F].
  SmallVector<double> w(rows * f, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < m; ++k)
      if (double a = w1[r * m + k])
        for (int64_t j = 0; j < f; ++j)
          w[r * f + j] += a * w2[k * f + j];
  OpBuilder b(c.conv2);
  auto wType = RankedTensorType::get({c.g1.c, c.g1.kh, c.g1.kw, f},
                                     c.w1.getElementType());
  Value filter = arith::ConstantOp::create(b, c.conv1.getLoc(), wType,
                                           nki::fromDoubles(wType, w));
  IRMapping map;
  map.map(c.conv1.getDpsInputs()[1], filter);
  map.map(c.conv1.getDpsInits()[0], c.conv2.getDpsInits()[0]);
  Operation *composite = b.clone(*c.conv1, map);
  composite->getResult(0).setType(c.conv2->getResult(0).getType());
  // Named after the second: its result is what the composite computes.
  composite->setLoc(
      FusedLoc::get(b.getContext(), {c.conv2.getLoc(), c.conv1.getLoc()}));
  if (c.b1) {
    // b2 + W2^T b1, in double, rounded once to f32.
    SmallVector<double> bias = nki::toDoubles(c.b2Value);
    SmallVector<double> b1 = nki::toDoubles(c.b1);
    for (int64_t j = 0; j < f; ++j)
      for (int64_t k = 0; k < m; ++k)
        bias[j] += w2[k * f + j] * b1[k];
    auto type = cast<RankedTensorType>(c.b2->get().getType());
    b.setInsertionPoint(c.b2->getOwner());
    c.b2->set(arith::ConstantOp::create(b, c.conv2.getLoc(), type,
                                        nki::fromDoubles(type, bias)));
  }
  c.conv2->getResult(0).replaceAllUsesWith(composite->getResult(0));
  // The chain and the constants only it read (an earlier composite's
  // filter when three convolutions compose).
  llvm::SetVector<Operation *> constants;
  SmallVector<Value> read = {c.conv1.getDpsInputs()[1],
                             c.conv2.getDpsInputs()[1]};
  if (c.bias1)
    llvm::append_range(read, c.bias1.getDpsInputs());
  for (Value v : read)
    if (auto cst = v.getDefiningOp<arith::ConstantOp>())
      constants.insert(cst);
  c.conv2.erase();
  if (c.bias1)
    c.bias1.erase();
  c.conv1.erase();
  for (Operation *cst : constants)
    if (cst->use_empty())
      cst->erase();
}

struct ComposeConvs : nki::impl::NKIComposeConvsBase<ComposeConvs> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target))
      return signalPassFailure();
    // A composite may be the first convolution of the next chain (three
    // 1x1 convolutions in a row), so match again until nothing composes.
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<Chain> chains;
      func.walk([&](linalg::GenericOp op) {
        std::optional<Chain> c = matchChain(op);
        if (c && pays(*c, (*target)->numPartitions) &&
            llvm::none_of(chains, [&](const Chain &o) {
              return o.conv1 == c->conv2 || o.conv2 == c->conv1;
            }))
          chains.push_back(*c);
      });
      for (Chain &c : chains)
        compose(c);
      changed = !chains.empty();
    }
  }
};

} // namespace
