//===- FoldConstantGenerics.cpp - Evaluate generics on constants ----------===//
//
// Each output element runs the body: block arguments are the inputs'
// elements (through the indexing maps), values from outside the body must
// be constants, and every op is evaluated by its folder (math.rsqrt, which
// has none upstream, as 1 / sqrt in double precision, rounded to its type).
// Anything that does not fold leaves the generic alone.
//
//===----------------------------------------------------------------------===//

#include "FoldConstantGenerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

using namespace mlir;

namespace {

/// Results above this many elements stay generics: folding costs compile
/// time and constant bytes, and large elementwise ops are cheap on chip.
constexpr int64_t kMaxFoldedElements = 4096;

/// math.rsqrt has no folder upstream: 1 / sqrt in double precision,
/// rounded to x's type.
APFloat rsqrtOf(const APFloat &x) {
  bool lost = false;
  APFloat d = x;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  APFloat v(1.0 / std::sqrt(d.convertToDouble()));
  v.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return v;
}

/// The value of `op` on constant operands, or null.
Attribute evaluate(Operation *op, ArrayRef<Attribute> operands) {
  if (isa<math::RsqrtOp>(op)) {
    auto x = dyn_cast_or_null<FloatAttr>(operands[0]);
    return x ? FloatAttr::get(x.getType(), rsqrtOf(x.getValue())) : Attribute();
  }
  SmallVector<OpFoldResult> results;
  if (op->getNumResults() != 1 || failed(op->fold(operands, results)) ||
      results.size() != 1)
    return {};
  if (auto a = dyn_cast<Attribute>(results[0]))
    return a;
  // An identity fold (x * 1, x + 0) names one of the operands.
  for (auto [v, a] : llvm::zip_equal(op->getOperands(), operands))
    if (v == cast<Value>(results[0]))
      return a;
  return {};
}

/// Ops that evaluateFloat computes.
bool isFloatArithmetic(Operation &op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, math::RsqrtOp>(op);
}

/// `op` (isFloatArithmetic) on float operands with the arithmetic of its
/// folder: IEEE, to nearest even. Folding a batch norm's per-channel
/// constants one element at a time through FloatAttrs uniqued every
/// intermediate value: a fifth of ResNet-50's graph phase.
APFloat evaluateFloat(Operation *op, ArrayRef<APFloat> x) {
  if (isa<arith::AddFOp>(op))
    return x[0] + x[1];
  if (isa<arith::SubFOp>(op))
    return x[0] - x[1];
  if (isa<arith::MulFOp>(op))
    return x[0] * x[1];
  if (isa<arith::DivFOp>(op))
    return x[0] / x[1];
  if (isa<arith::NegFOp>(op))
    return -x[0];
  return rsqrtOf(x[0]);
}

/// Whether every op of `body` is float arithmetic on floats.
bool hasFloatForm(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (!isFloatArithmetic(op))
      return false;
    for (Value v : op.getOperands())
      if (!isa<FloatType>(v.getType()))
        return false;
  }
  return true;
}

/// For output element `flat` (row-major over `shape`), the flat index of
/// the element each constant of `values` gives it (unused for null ones).
void elementsRead(int64_t flat, ArrayRef<int64_t> shape,
                  ArrayRef<DenseElementsAttr> values, ArrayRef<AffineMap> maps,
                  SmallVectorImpl<int64_t> &idx, SmallVectorImpl<int64_t> &at) {
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  for (auto [i, v] : llvm::enumerate(values)) {
    if (!v)
      continue;
    int64_t lin = 0;
    for (auto [a, s] :
         llvm::zip_equal(maps[i].compose(idx), v.getType().getShape()))
      lin = lin * s + a;
    at[i] = lin;
  }
}

struct FoldConstantGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        type.getNumElements() > kMaxFoldedElements ||
        !type.getElementType().isIntOrFloat())
      return failure();
    Block &body = op.getRegion().front();
    // Every operand whose block argument is used must be a constant.
    SmallVector<DenseElementsAttr> values(op->getNumOperands());
    for (OpOperand &operand : op->getOpOperands()) {
      if (body.getArgument(operand.getOperandNumber()).use_empty())
        continue;
      if (!matchPattern(operand.get(),
                        m_Constant(&values[operand.getOperandNumber()])))
        return failure();
    }
    if (llvm::all_of(values, [](DenseElementsAttr v) { return !v; }) &&
        !body.getArgument(0).use_empty())
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    ArrayRef<int64_t> shape = type.getShape();
    AffineMap outMap = maps.back();
    if (!outMap.isIdentity())
      return failure();

    if (hasFloatForm(body) && isa<FloatType>(type.getElementType()))
      return foldFloats(op, rewriter, type, values, maps);

    SmallVector<Attribute> out;
    out.reserve(type.getNumElements());
    SmallVector<int64_t> idx(shape.size(), 0), at(values.size(), 0);
    DenseMap<Value, Attribute> env;
    for (int64_t flat = 0; flat < type.getNumElements(); ++flat) {
      elementsRead(flat, shape, values, maps, idx, at);
      env.clear();
      for (auto [i, v] : llvm::enumerate(values))
        if (v)
          env[body.getArgument(i)] = v.getValues<Attribute>()[at[i]];
      for (Operation &inner : body.without_terminator()) {
        SmallVector<Attribute> operands;
        for (Value v : inner.getOperands()) {
          Attribute a = env.lookup(v);
          if (!a && v.getParentBlock() != &body)
            matchPattern(v, m_Constant(&a));
          if (!a)
            return failure();
          operands.push_back(a);
        }
        Attribute result = evaluate(&inner, operands);
        if (!result)
          return failure();
        env[inner.getResult(0)] = result;
      }
      Attribute y = env.lookup(body.getTerminator()->getOperand(0));
      if (!y)
        return failure();
      out.push_back(y);
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, out));
    return success();
  }

  /// The same evaluation on APFloats, for bodies of float arithmetic only.
  static LogicalResult foldFloats(linalg::GenericOp op,
                                  PatternRewriter &rewriter,
                                  RankedTensorType type,
                                  ArrayRef<DenseElementsAttr> values,
                                  ArrayRef<AffineMap> maps) {
    Block &body = op.getRegion().front();
    ArrayRef<int64_t> shape = type.getShape();
    // Constants from outside the body, once.
    DenseMap<Value, APFloat> outside;
    for (Operation &inner : body.without_terminator())
      for (Value v : inner.getOperands()) {
        if (v.getParentBlock() == &body || outside.count(v))
          continue;
        FloatAttr a;
        if (!matchPattern(v, m_Constant(&a)))
          return failure();
        outside.try_emplace(v, a.getValue());
      }
    if (llvm::any_of(values, [](DenseElementsAttr v) {
          return v && !isa<FloatType>(v.getElementType());
        }))
      return failure();
    SmallVector<APFloat> out;
    out.reserve(type.getNumElements());
    SmallVector<int64_t> idx(shape.size(), 0), at(values.size(), 0);
    DenseMap<Value, APFloat> env;
    SmallVector<APFloat> operands;
    for (int64_t flat = 0; flat < type.getNumElements(); ++flat) {
      elementsRead(flat, shape, values, maps, idx, at);
      env.clear();
      for (auto [i, v] : llvm::enumerate(values))
        if (v)
          env.try_emplace(body.getArgument(i), v.getValues<APFloat>()[at[i]]);
      for (Operation &inner : body.without_terminator()) {
        operands.clear();
        for (Value v : inner.getOperands()) {
          if (auto it = env.find(v); it != env.end())
            operands.push_back(it->second);
          else if (auto o = outside.find(v); o != outside.end())
            operands.push_back(o->second);
          else
            return failure();
        }
        env.insert_or_assign(inner.getResult(0),
                             evaluateFloat(&inner, operands));
      }
      auto y = env.find(body.getTerminator()->getOperand(0));
      if (y == env.end())
        return failure();
      out.push_back(y->second);
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, out));
    return success();
  }
};

/// f32 bits rounded to bf16, to nearest even (as APFloat does; NaNs stay
/// quiet NaNs).
uint16_t bf16Bits(uint32_t f) {
  if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x007fffffu))
    return uint16_t((f >> 16) | 0x40u);
  return uint16_t((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

/// The f32 constant `dense` rounded to bf16 as `type`, its element at
/// output index i read through the permutation `map` (output dims to input
/// dims), on raw bits: 6 bytes per element, so that a large weight costs
/// the compiler little.
/// The row-major strides of a tensor of `shape` along the loop dims that
/// the permutation `map` reads it through (loop dim d steps it by [d]).
SmallVector<int64_t> loopStrides(AffineMap map, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 0);
  int64_t stride = 1;
  for (int64_t r = int64_t(shape.size()) - 1; r >= 0; --r) {
    strides[map.getDimPosition(r)] = stride;
    stride *= shape[r];
  }
  return strides;
}

DenseElementsAttr roundToBF16(DenseElementsAttr dense, RankedTensorType type,
                              AffineMap map) {
  if (dense.isSplat())
    return DenseElementsAttr::get(
        type, APFloat(APFloat::BFloat(),
                      APInt(16, bf16Bits(dense.getSplatValue<APFloat>()
                                             .bitcastToAPInt()
                                             .getZExtValue()))));
  ArrayRef<char> raw = dense.getRawData();
  auto in = ArrayRef<uint32_t>(reinterpret_cast<const uint32_t *>(raw.data()),
                               raw.size() / 4);
  ArrayRef<int64_t> shape = type.getShape(),
                    inShape = dense.getType().getShape();
  int64_t rank = shape.size();
  // The input's row-major strides along the output's dims.
  SmallVector<int64_t> inStrides = loopStrides(map, inShape);
  std::vector<uint16_t> out;
  out.reserve(type.getNumElements());
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < type.getNumElements(); ++flat) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      at += idx[d] * inStrides[d];
    out.push_back(bf16Bits(in[at]));
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == shape[d]; --d)
      idx[d] = 0;
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(out.data()),
                           out.size() * sizeof(uint16_t)));
}

/// The rounding of a constant to bf16 (--auto-cast=matmul's cast of a
/// weight, through a transpose or not), whatever its size: a kernel would
/// read the f32 weights, round them and store them again before the matmul
/// read them (5 MB of MobileNetV2's classifier three times over).
struct FoldConstantBF16Cast : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 || op->getNumResults() != 1)
      return failure();
    Block &body = op.getRegion().front();
    auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    DenseElementsAttr dense;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!trunc || body.getOperations().size() != 2 ||
        trunc.getIn() != body.getArgument(0) ||
        yield.getOperand(0) != trunc.getResult() || !type ||
        !type.getElementType().isBF16() ||
        !matchPattern(op.getDpsInputs()[0], m_Constant(&dense)) ||
        !dense.getElementType().isF32() || !maps[0].isPermutation() ||
        !maps[1].isIdentity())
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, roundToBF16(dense, type, maps[0]));
    return success();
  }
};

/// A linalg.generic or linalg.transpose that permutes a constant (a
/// transposed weight: ONNX Gemm's B, a filter's layout), folded on its raw
/// bytes: what upstream's
/// FoldConstantTranspose computes through one APFloat per element, which
/// took an eighth of ResNet-50's compile. The same ops (one input and one
/// output of one element type, permutation maps, a body that yields the
/// input) and the same control function; element types whose width is not
/// a whole number of bytes are left to upstream's pattern.
struct FoldConstantPermutation : OpInterfaceRewritePattern<linalg::LinalgOp> {
  FoldConstantPermutation(MLIRContext *context, linalg::ControlFusionFn control)
      : OpInterfaceRewritePattern(context, /*benefit=*/2),
        control(std::move(control)) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<linalg::GenericOp, linalg::TransposeOp>(op) ||
        !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 || op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    OpOperand *input = op.getDpsInputOperand(0);
    auto inType = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape() || !inType ||
        inType.getElementType() != type.getElementType() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!llvm::all_of(maps, [](AffineMap m) { return m.isPermutation(); }) ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
      return failure();
    Block &body = *op.getBlock();
    auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
    if (!llvm::hasSingleElement(body) || !yield ||
        yield.getValues().size() != 1 ||
        yield.getValues()[0] != body.getArgument(0))
      return failure();
    DenseIntOrFPElementsAttr dense;
    if (!matchPattern(input->get(), m_Constant(&dense)) || !control(input))
      return failure();
    if (dense.isSplat() || type.getRank() == 0) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::getFromRawBuffer(type, dense.getRawData()));
      return success();
    }
    // Walk the loops in row-major order; each loop dim steps the input and
    // the output by their row-major strides along the dims it indexes.
    int64_t rank = type.getRank();
    size_t bytes = type.getElementTypeBitWidth() / 8;
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    SmallVector<int64_t> inStep = loopStrides(maps[0], inType.getShape());
    SmallVector<int64_t> outStep = loopStrides(maps[1], type.getShape());
    ArrayRef<char> in = dense.getRawData();
    std::unique_ptr<char[]> out(new char[in.size()]); // not zero-filled
    SmallVector<int64_t> idx(rank, 0);
    int64_t from = 0, to = 0, inner = rank - 1;
    for (int64_t n = type.getNumElements(); n > 0;) {
      // The innermost loop in one go.
      for (int64_t i = 0; i < bounds[inner]; ++i)
        std::memcpy(&out[(to + i * outStep[inner]) * bytes],
                    &in[(from + i * inStep[inner]) * bytes], bytes);
      n -= bounds[inner];
      for (int64_t d = inner - 1; d >= 0; --d) {
        from += inStep[d];
        to += outStep[d];
        if (++idx[d] < bounds[d])
          break;
        from -= idx[d] * inStep[d];
        to -= idx[d] * outStep[d];
        idx[d] = 0;
      }
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::getFromRawBuffer(
                type, ArrayRef<char>(out.get(), in.size())));
    return success();
  }

  linalg::ControlFusionFn control;
};

} // namespace

void nki::populateFoldConstantPermutationPatterns(
    RewritePatternSet &patterns, linalg::ControlFusionFn control) {
  patterns.add<FoldConstantPermutation>(patterns.getContext(),
                                        std::move(control));
}

void nki::populateFoldConstantGenericsPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldConstantGeneric, FoldConstantBF16Cast>(
      patterns.getContext());
}

Value nki::roundConstantToBF16(OpBuilder &b, Location loc, Value v) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || !dense.getElementType().isF32())
    return {};
  auto type = cast<RankedTensorType>(v.getType()).clone(b.getBF16Type());
  return arith::ConstantOp::create(
      b, loc,
      roundToBF16(dense, type, b.getMultiDimIdentityMap(type.getRank())));
}
