//===- PrepareGraph.cpp - nki-prepare-graph
//--------------------------------===//
//
// The compiler's front door: picks the entry function, rejects what it cannot
// compile with a diagnostic at the offending op or argument (never a crash),
// and rewrites the rest into the forms tiling handles: softmax and concat
// decomposed, transposes that move only size-1 dims as reshapes, and with
// auto-cast=matmul matmul inputs rounded to bf16 (auto-cast=fp8: matmuls of
// an activation and a weight in fp8 e4m3 with scales, QuantizeFp8.h; the
// others in bf16).
//
//===----------------------------------------------------------------------===//

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"

#include "DecomposeConv.h"

#include "../Conv/ConvGeneric.h"
#include "ExpandInt.h"
#include "ExpandMath.h"
#include "FoldConstantGenerics.h"
#include "FoldConvScales.h"
#include "QuantizeFp8.h"
#include "QuantizeMx.h"
#include "StoreRegionsInBF16.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace nki {
#define GEN_PASS_DEF_NKIPREPAREGRAPH
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {
/// `v` reshaped to `to` through `middle`, a shape that both `v`'s shape
/// and `to` refine: a collapse_shape to `middle`, then an expand_shape to
/// `to`, each left out where it would do nothing; null if `middle` is not
/// a common refinement.
static Value reshapeThrough(PatternRewriter &rewriter, Location loc, Value v,
                            RankedTensorType to, ArrayRef<int64_t> middle) {
  auto from = cast<RankedTensorType>(v.getType());
  std::optional<SmallVector<ReassociationIndices>> in =
      getReassociationIndicesForCollapse(from.getShape(), middle);
  std::optional<SmallVector<ReassociationIndices>> out =
      getReassociationIndicesForCollapse(to.getShape(), middle);
  if (!in || !out)
    return {};
  if (middle.size() != size_t(from.getRank()))
    v = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get(middle, from.getElementType()), v,
        *in);
  if (middle.size() != size_t(to.getRank()))
    v = tensor::ExpandShapeOp::create(rewriter, loc, to, v, *out);
  return v;
}

/// A transpose that only moves dims of size 1 (ONNX's batch-first /
/// sequence-first swaps at batch 1: [1, S, H] -> [S, 1, H]) keeps the
/// elements in order: it is a reshape, a view instead of a copy.
struct TransposeOfUnitDimsAsReshape : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto out = dyn_cast<RankedTensorType>(op.getInit().getType());
    if (!in || !out || !op.hasPureTensorSemantics())
      return failure();
    SmallVector<int64_t> kept;
    int64_t last = -1;
    for (int64_t d : op.getPermutation()) {
      if (in.getDimSize(d) == 1)
        continue;
      if (d < last)
        return failure();
      last = d;
      kept.push_back(in.getDimSize(d));
    }
    if (kept.empty())
      return failure();
    Value flat =
        reshapeThrough(rewriter, op.getLoc(), op.getInput(), out, kept);
    if (!flat)
      return failure();
    rewriter.replaceOp(op, flat);
    return success();
  }
};

/// expand_shape(collapse_shape(x)) through a shape coarser than both ends
/// (ONNX's Reshape of [S, 1, H] to [S, heads, d] is imported through the
/// flat [S * H]) goes through the finest shape both ends refine instead
/// ([S, H]): a strided view, such as the q/k/v slice of a fused
/// projection, stays a view rather than being copied to be flattened.
struct ReshapeThroughCommonShape : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto collapse = op.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse)
      return failure();
    RankedTensorType from = collapse.getSrcType(), to = op.getResultType();
    if (!from.hasStaticShape() || !to.hasStaticShape())
      return failure();
    // The common refinement: cut where both ends' running products meet.
    SmallVector<int64_t> common;
    int64_t a = 1, b = 1, last = 1;
    size_t i = 0, j = 0;
    while (i < size_t(from.getRank()) || j < size_t(to.getRank())) {
      if (j == size_t(to.getRank()) || (i < size_t(from.getRank()) && a <= b))
        a *= from.getDimSize(i++);
      else
        b *= to.getDimSize(j++);
      if (a == b && a != last) {
        common.push_back(a / last);
        last = a;
      }
    }
    if (common.size() <= size_t(op.getSrcType().getRank()))
      return failure();
    Value v =
        reshapeThrough(rewriter, op.getLoc(), collapse.getSrc(), to, common);
    if (!v)
      return failure();
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// A concat of more than kMaxParts parts becomes a concat of concats of at
/// most kMaxParts parts each. A concat decomposes into one chain of
/// insert_slices, and one-shot bufferization's analysis of a chain grows
/// with the cube of its length (a Gather of 200 scattered constant indices
/// spent 48 s there); in chunks each element is copied once more per level.
struct SplitLongConcat : OpRewritePattern<tensor::ConcatOp> {
  static constexpr size_t kMaxParts = 32;
  SplitLongConcat(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    OperandRange parts = op.getInputs();
    if (parts.size() <= kMaxParts)
      return failure();
    int64_t dim = op.getDim();
    SmallVector<Value> chunks;
    for (size_t i = 0; i < parts.size(); i += kMaxParts) {
      ValueRange chunk =
          ValueRange(parts).slice(i, std::min(kMaxParts, parts.size() - i));
      chunks.push_back(
          chunk.size() == 1
              ? chunk.front()
              : tensor::ConcatOp::create(rewriter, op.getLoc(), dim, chunk)
                    .getResult());
    }
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, op.getType(), dim,
                                                  chunks);
    return success();
  }
};
} // namespace

/// Element types the compiler computes on (i1 is stored as a 0/1 byte).
static bool isSupportedElementType(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || nki::tile::isFp8Type(t) ||
         nki::tile::isFp4Type(t) || isa<Float8E8M0FNUType>(t) ||
         t.isSignlessInteger(32) || t.isSignlessInteger(8) ||
         t.isSignlessInteger(1);
}

static LogicalResult checkType(Type type, Location loc, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    if (type.isIntOrIndexOrFloat())
      return success();
    return emitError(loc) << what << " has type " << type
                          << "; the nki compiler needs ranked tensors";
  }
  if (!tensor.hasStaticShape())
    return emitError(loc) << what << " has dynamic shape " << type
                          << "; static shapes are required";
  if (!isSupportedElementType(tensor.getElementType()))
    return emitError(loc)
           << what << " has element type " << tensor.getElementType()
           << "; supported: f32, bf16, f16, f8E4M3FN, f8E5M2, f4E2M1FN and "
              "f8E8M0FNU (MX data and scales), i32, i8, i1";
  if (nki::tile::isFp4Type(tensor.getElementType()) &&
      (tensor.getRank() == 0 || tensor.getShape().back() % 2))
    return emitError(loc) << what << " has type " << type
                          << "; f4E2M1FN tensors are stored two values a "
                             "byte, so their innermost dim must be even";
  return success();
}

/// Ops the tiler understands after this pass (and bufferization).
static bool isSupportedOp(Operation *op) {
  Dialect *d = op->getDialect();
  if (!d)
    return false;
  StringRef ns = d->getNamespace();
  if (ns == "arith" || ns == "math")
    return true;
  if (isa<func::ReturnOp, bufferization::ToTensorOp,
          bufferization::MaterializeInDestinationOp>(op))
    return true;
  if (isa<linalg::LinalgOp, linalg::AggregatedOpInterface>(op))
    return true;
  return isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
             tensor::ConcatOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             tensor::ReshapeOp, tensor::PadOp, tensor::CastOp, tensor::YieldOp>(
      op);
}

namespace {
struct NKIPrepareGraphPass
    : nki::impl::NKIPrepareGraphBase<NKIPrepareGraphPass> {
  using NKIPrepareGraphBase::NKIPrepareGraphBase;

  func::FuncOp selectEntry(ModuleOp module) {
    SmallVector<func::FuncOp> publics;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        publics.push_back(f);
    if (!entry.empty()) {
      auto f = module.lookupSymbol<func::FuncOp>(entry);
      if (!f)
        module.emitError() << "entry function '" << entry << "' not found";
      return f;
    }
    if (auto f = module.lookupSymbol<func::FuncOp>("main"))
      return f;
    if (publics.size() == 1)
      return publics.front();
    auto diag = module.emitError()
                << "cannot choose the entry function: no 'main' and "
                << publics.size() << " public functions; pass --entry=NAME";
    return {};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!nki::isAutoCastMode(autoCast)) {
      module.emitError() << "auto-cast must be " << nki::kAutoCastModes
                         << ", got '" << autoCast << "'";
      return signalPassFailure();
    }
    if (convLowering != "implicit-gemm" && convLowering != "im2col") {
      module.emitError() << "conv must be 'implicit-gemm' or 'im2col', got '"
                         << convLowering << "'";
      return signalPassFailure();
    }
    func::FuncOp func = selectEntry(module);
    if (!func)
      return signalPassFailure();
    if (func.isExternal()) {
      func.emitError("entry function has no body");
      return signalPassFailure();
    }
    // Only the entry is compiled; the others were inlined or are unused.
    for (auto other : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (other != func) {
        if (!SymbolTable::symbolKnownUseEmpty(other, module)) {
          other.emitError("calls are not supported: inline this function");
          return signalPassFailure();
        }
        other.erase();
      }
    func.setPublic();
    if (!func.getBody().hasOneBlock()) {
      func.emitError("the entry function must be a single block");
      return signalPassFailure();
    }

    bool ok = true;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      ok &= succeeded(checkType(type, func.getArgument(i).getLoc(),
                                "argument #" + std::to_string(i)));
    for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
      ok &= succeeded(
          checkType(type, func.getLoc(), "result #" + std::to_string(i)));
    // A body that reads a computed tensor at computed indices (a reversal
    // or a gather lowered to linalg) has no kernel: said here, at the op the
    // user wrote, before bufferization. (Reads of constants may still fold.)
    func.walk([&](tensor::ExtractOp op) {
      if (!op->getParentOfType<linalg::LinalgOp>() ||
          matchPattern(op.getTensor(), m_Constant()))
        return;
      op->emitOpError(
          "reads a tensor at computed indices inside a linalg body (a "
          "gather, a reversal or another data-dependent access), which the "
          "nki compiler does not support");
      ok = false;
    });
    func.walk([&](Operation *op) {
      if (op == func.getOperation() ||
          op->getParentOfType<linalg::LinalgOp>() ||
          op->getParentOfType<linalg::SoftmaxOp>() ||
          op->getParentOfType<tensor::PadOp>())
        return;
      if (!isSupportedOp(op)) {
        op->emitOpError("is not supported by the nki compiler");
        ok = false;
        return;
      }
      for (Value r : op->getResults())
        ok &= succeeded(checkType(
            r.getType(), op->getLoc(),
            "result of '" + op->getName().getStringRef().str() + "'"));
    });
    if (!ok)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    // Softmax and other aggregates become generics.
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    func.walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> repl = op.decomposeOperation(rewriter);
      if (failed(repl)) {
        op->emitOpError("cannot be decomposed for the nki compiler");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *repl);
    }
    // While convolutions are named ops, and before auto-cast rounds their
    // filters.
    nki::foldConvolutionScales(func);
    // Before concatenations are decomposed: a decoder's convolution reads
    // the upsample through the concat of its skip connection.
    if (subPixel && failed(nki::rewriteUpsampledConvolutions(func)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitLongConcat, TransposeOfUnitDimsAsReshape,
                 ReshapeThroughCommonShape>(&getContext());
    tensor::populateDecomposeTensorConcatPatterns(patterns);
    nki::populateExpandIntPatterns(patterns);
    nki::populateDropPaddingTapsPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))) ||
        failed(nki::expandMathFunctions(func)))
      return signalPassFailure();
    if (failed(
            nki::decomposeConvolutions(func, convLowering == "implicit-gemm")))
      return signalPassFailure();

    if (autoCast == "mxfp8" || autoCast == "mxfp4") {
      const nki::isa::TargetDesc *target = nki::tile::findTarget(module);
      if (!target || !target->hasMx()) {
        module.emitError() << "--auto-cast=" << autoCast
                           << " needs a target with matmul_mx (trn3), not "
                           << (target ? target->name : "this one");
        return signalPassFailure();
      }
    }
    if (autoCast != "none")
      castMatmulInputs(rewriter, func, autoCast);
  }

  /// `v` (an f32 tensor) rounded to bf16 by an elementwise generic.
  static Value roundedToBF16(OpBuilder &b, Location loc, Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    Type bf16 = b.getBF16Type();
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), bf16);
    auto map = b.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iters(type.getRank(),
                                           utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, empty.getType(), v, empty, ArrayRef<AffineMap>{map, map},
               iters,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value t = arith::TruncFOp::create(nb, l, bf16, args[0]);
                 linalg::YieldOp::create(nb, l, t);
               })
        .getResult(0);
  }

  /// Under auto-cast a tensor that only convolutions read, each rounding
  /// it to bf16 first (directly, or through moves that commute with the
  /// rounding: constant pads, a depthwise convolution's channel-block
  /// slices, max poolings, concatenations and phase scatters), is stored
  /// in bf16 (StoreRegionsInBF16.h): its producer (an elementwise op or a
  /// convolution, into whose epilogue the cast fuses) rounds it once, and
  /// when it does not stay in SBUF it moves half the bytes through HBM.
  /// The program's inputs keep their type (their cast would be a pass of
  /// its own).
  void storeConvInputsInBF16(IRRewriter &rewriter, func::FuncOp func) {
    // A convolution that reads `v` as its input (not its filter) and rounds
    // it. Matched first: another user of `v` may be a generic with one input
    // (the hardswish of a detector's feature map).
    auto roundingConv = [](Operation *user, Value v) {
      auto g = dyn_cast<linalg::GenericOp>(user);
      return g && nki::conv::matchConvGeneric(g) && g.getNumDpsInputs() >= 2 &&
             g.getDpsInputs()[0] == v && g.getDpsInputs()[1] != v &&
             nki::conv::roundsInputToBF16(g);
    };
    // Computed from constants only (a BatchNorm's gamma * rsqrt(var + eps)
    // is folded later, by nki-fuse-elementwise).
    std::function<bool(Value, int)> isConstant = [&](Value v, int depth) {
      Operation *def = v.getDefiningOp();
      if (!def || depth > 8)
        return false;
      if (matchPattern(v, m_Constant()))
        return true;
      if (!isa<linalg::GenericOp, linalg::FillOp, tensor::EmptyOp,
               tensor::ExpandShapeOp, tensor::CollapseShapeOp,
               tensor::ExtractSliceOp>(def))
        return false;
      return llvm::all_of(def->getOperands(),
                          [&](Value o) { return isConstant(o, depth + 1); });
    };
    // A producer the cast fuses into: a convolution or an elementwise op,
    // whose operands may broadcast constants (an inference BatchNorm's
    // [C, 1, 1] scale and shift read through (d1, 0, 0)). Not a computed
    // per-channel factor: a squeeze-and-excitation scale is folded into
    // the next convolution's filter (Match.h's ChannelScale), which a cast
    // after it would prevent.
    auto fusible = [&](Value v) {
      auto g = v.getDefiningOp<linalg::GenericOp>();
      if (!g)
        return false;
      if (nki::conv::matchConvGeneric(g))
        return true;
      return g.getNumLoops() == g.getNumParallelLoops() &&
             llvm::all_of(g->getOpOperands(), [&](OpOperand &o) {
               AffineMap m = g.getMatchingIndexingMap(&o);
               return m.isProjectedPermutation() ||
                      (m.isProjectedPermutation(/*allowZeroInResults=*/true) &&
                       isConstant(o.get(), 0));
             });
    };
    nki::storeRegionsInBF16(rewriter, func, roundingConv, fusible,
                            roundedToBF16);
  }

  /// f32 matmul inputs are rounded to bf16 (the PE then runs at full
  /// rate); accumulation stays fp32.
  void castMatmulInputs(IRRewriter &rewriter, func::FuncOp func,
                        StringRef mode) {
    // Implicit-GEMM convolutions round their f32 operands in the body (the
    // kernel's loads do it on the way in; a constant filter is converted
    // here).
    SmallVector<linalg::GenericOp> convs;
    func.walk([&](linalg::GenericOp op) {
      std::optional<nki::conv::ConvGeneric> g = nki::conv::matchConvGeneric(op);
      if (g && g->inputType.isF32() && g->filterType.isF32())
        convs.push_back(op);
    });
    for (linalg::GenericOp op : convs)
      nki::conv::castConvGenericToBF16(rewriter, op);
    storeConvInputsInBF16(rewriter, func);

    SmallVector<linalg::LinalgOp> matmuls;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls) {
      auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
      if (matmul && mode == "fp8" && nki::quantizeMatmulToFp8(rewriter, matmul))
        continue;
      if (matmul && (mode == "mxfp8" || mode == "mxfp4") &&
          nki::quantizeMatmulToMx(rewriter, matmul,
                                  mode == "mxfp4" ? nki::MxFormat::Fp4
                                                  : nki::MxFormat::Fp8))
        continue;
      rewriter.setInsertionPoint(op);
      SmallVector<Value> inputs;
      bool changed = false;
      for (Value in : op.getDpsInputs()) {
        auto type = cast<RankedTensorType>(in.getType());
        if (!type.getElementType().isF32()) {
          inputs.push_back(in);
          continue;
        }
        Location loc = op.getLoc();
        changed = true;
        if (Value rounded = nki::roundConstantToBF16(rewriter, loc, in)) {
          inputs.push_back(rounded);
          continue;
        }
        inputs.push_back(roundedToBF16(rewriter, loc, in));
      }
      if (!changed)
        continue;
      // Rebuild the named op so its body takes bf16 operands.
      SmallVector<NamedAttribute> attrs;
      for (NamedAttribute a : op->getAttrs())
        if (a.getName() != "operandSegmentSizes")
          attrs.push_back(a);
      Operation *repl;
      if (isa<linalg::MatmulOp>(op))
        repl = linalg::MatmulOp::create(rewriter, op.getLoc(),
                                        op->getResultTypes(), inputs,
                                        op.getDpsInits(), attrs);
      else
        repl = linalg::BatchMatmulOp::create(rewriter, op.getLoc(),
                                             op->getResultTypes(), inputs,
                                             op.getDpsInits(), attrs);
      rewriter.replaceOp(op, repl->getResults());
    }
  }
};
} // namespace
