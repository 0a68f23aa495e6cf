//===- FoldConvScales.cpp - Per-channel scales folded into filters --------===//
//
// For each elementwise generic E whose body multiplies a convolution's
// result (its only use) by a per-channel operand a:
//
//   conv -> [reshapes] -> [bias add: + B[f]] -> E: ... y * a[f] ...
//
// a (and B) are evaluated at compile time (FoldConstantGenerics), the
// filter's elements are multiplied by a of the output channel they feed,
// B by a, and E's multiply is removed. The output channel of an element of
// E is that of the convolution's output dims it linearizes (a reshape
// between them is row-major: a grouped convolution's [G, F/G] pair is one
// channel), and those dims are loop dims that index the filter directly.
//
//===----------------------------------------------------------------------===//

#include "FoldConvScales.h"

#include "ElementwiseMatch.h"
#include "FoldConstantGenerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

using namespace mlir;
using nki::binaryWithInput;
using nki::isElementwise;
using nki::perChannelPosition;

namespace {

/// An input of elementwise `op` read per channel along loop dim `dim`, as
/// its block argument's values by channel: the operand is evaluated to a
/// constant at compile time (the generics on constants that compute it
/// folded in place). Empty if it is not such an operand.
SmallVector<float> perChannelValues(linalg::GenericOp op, OpOperand &operand,
                                    unsigned dim, int64_t channels) {
  unsigned d = 0;
  std::optional<unsigned> pos = perChannelPosition(op, operand, d);
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!pos || d != dim || !type || !type.getElementType().isF32() ||
      type.getNumElements() != channels)
    return {};
  // The ops computing it (BatchNormalization's gamma * rsqrt(var + eps)),
  // folded to constants.
  SmallVector<Operation *> slice;
  SmallVector<Value> work = {operand.get()};
  while (!work.empty() && slice.size() < 32) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || llvm::is_contained(slice, def) ||
        !isa<linalg::GenericOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::EmptyOp, arith::ConstantOp>(def))
      continue;
    slice.push_back(def);
    llvm::append_range(work, def->getOperands());
  }
  RewritePatternSet patterns(op->getContext());
  nki::populateFoldConstantGenericsPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(llvm::to_vector(llvm::reverse(slice)),
                                std::move(patterns), config);
  DenseElementsAttr value;
  if (!matchPattern(operand.get(), m_Constant(&value)))
    return {};
  SmallVector<float> values(value.getValues<float>());
  if (!llvm::all_of(values, [](float v) { return std::isfinite(v); }))
    return {};
  return values;
}

/// `v`'s value when it is a constant, possibly reshaped (a grouped
/// convolution's filter viewed as [G, F/G, C/G, KH, KW]); null otherwise.
DenseElementsAttr constantThroughReshapes(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  DenseElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)))
    return {};
  return value.reshape(type);
}

/// Dims [first, last) of `outer` that linearize dim `c` of `inner` when a
/// row-major reshape maps one to the other.
std::optional<std::pair<unsigned, unsigned>>
channelDims(ArrayRef<int64_t> outer, ArrayRef<int64_t> inner, unsigned c) {
  int64_t before = 1, size = inner[c];
  for (unsigned i = 0; i < c; ++i)
    before *= inner[i];
  unsigned first = 0;
  int64_t prod = 1;
  while (first < outer.size() && prod < before)
    prod *= outer[first++];
  // Leading unit dims of the channel's range would be ambiguous; skip them.
  while (first < outer.size() && outer[first] == 1 && size != 1)
    ++first;
  if (prod != before)
    return std::nullopt;
  unsigned last = first;
  prod = 1;
  while (last < outer.size() && prod < size)
    prod *= outer[last++];
  if (prod != size || last == first)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// Whether `op`'s body is out + x * w (a convolution, not a pooling, whose
/// window operand is not multiplied), so that scaling w scales the result.
bool multipliesAndAdds(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto add =
      body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  BlockArgument out = body->getArgument(op.getNumDpsInputs());
  Value other = add.getLhs() == out   ? add.getRhs()
                : add.getRhs() == out ? add.getLhs()
                                      : Value();
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  // The filter's element reaches the multiply (maybe extended or rounded).
  BlockArgument w = body->getArgument(1);
  auto reaches = [&](Value v) {
    while (Operation *def = v.getDefiningOp())
      if (isa<arith::ExtFOp, arith::TruncFOp>(def))
        v = def->getOperand(0);
      else
        break;
    return v == w;
  };
  return reaches(mul.getLhs()) || reaches(mul.getRhs());
}

/// The convolution whose result E's input `y` is, through a bias add (its
/// per-channel operand in `bias`) and reshapes, each its producer's only
/// use; null if it is not one this file handles.
linalg::LinalgOp producingConvolution(Value y, OpOperand *&bias) {
  bias = nullptr;
  if (!y.hasOneUse())
    return {};
  if (auto add = y.getDefiningOp<linalg::GenericOp>()) {
    if (!isElementwise(add))
      return {};
    for (OpOperand *in : add.getDpsInputOperands()) {
      auto [addf, b] = binaryWithInput<arith::AddFOp>(add, *in);
      if (addf && add.getMatchingIndexingMap(in).isIdentity() &&
          addf->getResult(0).hasOneUse() &&
          isa<linalg::YieldOp>(*addf->getUsers().begin())) {
        bias = b;
        y = in->get();
        break;
      }
    }
    if (!bias)
      return {};
  }
  while (Operation *def = y.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
        !y.hasOneUse())
      break;
    y = def->getOperand(0);
  }
  auto conv = y.getDefiningOp<linalg::LinalgOp>();
  if (!conv || !y.hasOneUse() || !linalg::isaConvolutionOpInterface(conv) ||
      conv.getNumDpsInputs() != 2 || conv.getNumDpsInits() != 1 ||
      !getElementTypeOrSelf(y.getType()).isF32() || !multipliesAndAdds(conv))
    return {};
  // A zero accumulator: a nonzero one would have to be scaled too.
  auto fill = conv.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.value(), m_AnyZeroFloat()))
    return {};
  return conv;
}

/// Folds `mul` (E's y * a) into the convolution that computes y, if it is
/// one this file handles.
bool foldScale(RewriterBase &rewriter, linalg::GenericOp e, OpOperand &yOperand,
               arith::MulFOp mul, OpOperand &aOperand) {
  auto eType = cast<RankedTensorType>(e->getResult(0).getType());
  unsigned channelDim = 0;
  if (!perChannelPosition(e, aOperand, channelDim) ||
      !e.getMatchingIndexingMap(&yOperand).isIdentity())
    return false;
  int64_t channels = eType.getDimSize(channelDim);
  OpOperand *biasOperand = nullptr;
  linalg::LinalgOp conv = producingConvolution(yOperand.get(), biasOperand);
  if (!conv)
    return false;
  linalg::GenericOp biasAdd;
  if (biasOperand)
    biasAdd = cast<linalg::GenericOp>(biasOperand->getOwner());
  Value y = conv->getResult(0);
  OpOperand *filterOperand = conv.getDpsInputOperand(1);
  auto filterType = cast<RankedTensorType>(filterOperand->get().getType());
  DenseElementsAttr filter = constantThroughReshapes(filterOperand->get());
  if (!filterType.getElementType().isF32() || !filter)
    return false;

  // Output dims that make the channel, and where their loop dims index the
  // filter.
  auto outType = cast<RankedTensorType>(y.getType());
  std::optional<std::pair<unsigned, unsigned>> range =
      channelDims(outType.getShape(), eType.getShape(), channelDim);
  if (!range)
    return false;
  AffineMap outMap = conv.getMatchingIndexingMap(conv.getDpsInitOperand(0));
  AffineMap filterMap = conv.getMatchingIndexingMap(filterOperand);
  SmallVector<unsigned> filterPos;
  SmallVector<int64_t> sizes;
  for (unsigned i = range->first; i < range->second; ++i) {
    auto d = dyn_cast<AffineDimExpr>(outMap.getResult(i));
    if (!d)
      return false;
    std::optional<unsigned> p = filterMap.getResultPosition(d);
    if (!p)
      return false;
    filterPos.push_back(*p);
    sizes.push_back(outType.getDimSize(i));
  }

  SmallVector<float> scale =
      perChannelValues(e, aOperand, channelDim, channels);
  if (scale.empty())
    return false;
  SmallVector<float> bias;
  if (biasOperand) {
    unsigned biasDim = 0;
    if (!perChannelPosition(biasAdd, *biasOperand, biasDim) ||
        biasDim != channelDim)
      return false;
    bias = perChannelValues(biasAdd, *biasOperand, channelDim, channels);
    if (bias.empty())
      return false;
  }

  // w'[idx] = w[idx] * a[channel(idx)], on the raw floats (not an APFloat
  // or an iterator step per element: ResNet-50's 25 M weights): the channel
  // is a sum over the filter's dims of index times a step, kept as the
  // index moves in row-major order. The copy is not zero-filled first (a
  // 100 MB memset of fresh pages).
  int64_t count = filterType.getNumElements();
  std::unique_ptr<float[]> w(new float[count]);
  ArrayRef<char> raw = filter.getRawData();
  if (filter.isSplat())
    std::fill(w.get(), w.get() + count, filter.getSplatValue<float>());
  else
    std::memcpy(w.get(), raw.data(), count * sizeof(float));
  ArrayRef<int64_t> shape = filterType.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> step(rank, 0);
  int64_t channelStride = 1;
  for (int64_t i = int64_t(filterPos.size()) - 1; i >= 0; --i) {
    step[filterPos[i]] += channelStride;
    channelStride *= sizes[i];
  }
  SmallVector<int64_t> idx(rank, 0);
  int64_t inner = rank - 1, c = 0;
  int64_t rows = shape[inner] ? count / shape[inner] : 0;
  for (int64_t r = 0; r < rows; ++r) {
    float *row = w.get() + r * shape[inner];
    for (int64_t i = 0; i < shape[inner]; ++i)
      row[i] *= scale[c + i * step[inner]];
    for (int64_t d = inner - 1; d >= 0; --d) {
      c += step[d];
      if (++idx[d] < shape[d])
        break;
      c -= idx[d] * step[d];
      idx[d] = 0;
    }
  }
  rewriter.setInsertionPoint(conv);
  Value newFilter = arith::ConstantOp::create(
      rewriter, conv.getLoc(), filterType,
      DenseElementsAttr::get(filterType, ArrayRef<float>(w.get(), count)));
  rewriter.modifyOpInPlace(conv, [&] { filterOperand->set(newFilter); });
  if (biasOperand) {
    for (auto [b, s] : llvm::zip_equal(bias, scale))
      b *= s;
    auto biasType = cast<RankedTensorType>(biasOperand->get().getType());
    rewriter.setInsertionPoint(biasAdd);
    Value newBias = arith::ConstantOp::create(
        rewriter, biasAdd.getLoc(), biasType,
        DenseElementsAttr::get(biasType, ArrayRef<float>(bias)));
    rewriter.modifyOpInPlace(biasAdd, [&] { biasOperand->set(newBias); });
  }
  Value product = e.getMatchingBlockArgument(&yOperand);
  rewriter.replaceOp(mul, product);
  return true;
}

} // namespace

void nki::foldConvolutionScales(func::FuncOp func) {
  SmallVector<linalg::GenericOp> candidates;
  // Structurally first: folding the factors' generics erases ops.
  func.walk([&](linalg::GenericOp op) {
    OpOperand *bias;
    if (isElementwise(op) &&
        llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
          return producingConvolution(in->get(), bias);
        }))
      candidates.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  SmallVector<Operation *> changed;
  for (linalg::GenericOp e : candidates) {
    for (OpOperand *in : e.getDpsInputOperands()) {
      auto [mul, a] = binaryWithInput<arith::MulFOp>(e, *in);
      if (mul && foldScale(rewriter, e, *in, mul, *a)) {
        changed.push_back(e);
        break;
      }
    }
  }
  if (changed.empty())
    return;
  // The factor's operand, now unread, leaves the generics.
  RewritePatternSet patterns(func.getContext());
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(changed, std::move(patterns), config);
}
