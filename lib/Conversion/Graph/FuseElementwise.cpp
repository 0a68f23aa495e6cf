//===- FuseElementwise.cpp - nki-fuse-elementwise
//--------------------------===//
//
// linalg's elementwise fusion (the patterns of upstream's
// linalg-fuse-elementwise-ops) with one difference: reshapes are not folded
// into contractions. Folding an expand_shape of a matmul's result (or a
// collapse_shape of its operand) into it by expansion generalizes the
// matmul into a generic with several M, N or K dims, which nki-tile runs on
// the vector engines instead of the PE, or rejects when the K dims are not
// contiguous. ONNX MatMul on rank-3 or rank-4 operands is imported as
// exactly that reshape + 2-D matmul + reshape. An elementwise consumer of
// the expanded result is collapsed to the matmul's shape instead, so that
// nki-tile can make it the matmul's PSUM epilogue (also when it has a
// batch of one that the matmul's result lacks). Nothing is fused into a
// copy that broadcasts it (repeat_kv), and an elementwise op over a
// concatenation runs once per part, one over the phases of a transposed or
// sub-pixel convolution once per phase. Last, the leading parallel dims of
// generics are collapsed into one, so that softmax and layernorm over
// [B, S, H] are 2-D row kernels.
//
//===----------------------------------------------------------------------===//

#include "../Common/MxMatmul.h"
#include "../Conv/ConvGeneric.h"
#include "FoldConstantGenerics.h"
#include "InterleavePhases.h"
#include "RoundBeforeClamp.h"

#include "nki/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace nki {
#define GEN_PASS_DEF_NKIFUSEELEMENTWISE
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      nki::isMxMatmul(linalgOp));
}

/// Whether `in` is a contraction's result, directly or through reshapes
/// (while the patterns run, a collapsed consumer reads
/// collapse_shape(expand_shape(result)) until that folds).
bool isEpilogueInput(Value in) {
  while (Operation *def = in.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    in = def->getOperand(0);
  }
  return isContraction(in.getDefiningOp());
}

/// An elementwise generic that reads a contraction's result.
bool isEpilogue(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0)
    return false;
  return llvm::any_of(generic.getDpsInputs(), isEpilogueInput);
}

/// A generic that reads an operand through a map that is not a projected
/// permutation (an upsample's (h floordiv 2, w floordiv 2)): nki-tile has
/// a kernel for it as it is; fused with its neighbours it would be an
/// elementwise body nothing can tile.
bool readsThroughNonPermutation(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic &&
         llvm::any_of(generic.getIndexingMapsArray(), [](AffineMap m) {
           return !m.isProjectedPermutation(
               /*allowZeroInResults=*/true);
         });
}

/// Whether `use` is the input of a copy (or cast) that broadcasts it over
/// a dim it does not have: an Expand, such as Llama's repeat_kv of K and V
/// to the query heads. Fusing a producer into it would compute the
/// producer once per copy (the rotary embedding of every K head three
/// times), and the copy itself is a view to the attention kernel.
bool isBroadcastCopyInput(OpOperand *use) {
  auto copy = dyn_cast<linalg::GenericOp>(use->getOwner());
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumReductionLoops())
    return false;
  // A loop of more than one step that the input's map does not name (it
  // may name a size-1 dim by a constant 0 instead).
  AffineMap map = copy.getMatchingIndexingMap(use);
  SmallVector<int64_t> ranges = copy.getStaticLoopRanges();
  bool broadcasts = false;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (!map.isFunctionOfDim(d) && ranges[d] != 1)
      broadcasts = true;
  if (!broadcasts)
    return false;
  Value v = copy.getRegion().front().getTerminator()->getOperand(0);
  if (auto cast = v.getDefiningOp<CastOpInterface>())
    v = cast->getOperand(0);
  return v == copy.getMatchingBlockArgument(use);
}

/// The parts of `v` when it is a chain of insert_slices into a
/// tensor.empty that covers it exactly, each part a block of one dim `dim`
/// (whole along the other dims, unit strides), sorted by offset:
/// (offset, part).
std::optional<SmallVector<std::pair<int64_t, Value>>>
assembledParts(Value v, int64_t &dim) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1)
    return std::nullopt;
  SmallVector<std::pair<int64_t, Value>> parts;
  int64_t covered = 0;
  dim = -1;
  while (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    auto src = cast<RankedTensorType>(insert.getSourceType());
    if (ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(sizes) || !insert.hasUnitStride() ||
        src.getRank() != type.getRank())
      return std::nullopt;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (offsets[d] == 0 && sizes[d] == type.getDimSize(d))
        continue;
      if (dim >= 0 && dim != d)
        return std::nullopt;
      dim = d;
    }
    if (dim < 0)
      return std::nullopt; // a whole copy, not a part
    parts.push_back({offsets[dim], insert.getSource()});
    covered += sizes[dim];
    v = insert.getDest();
  }
  if (!v.getDefiningOp<tensor::EmptyOp>() || parts.size() < 2)
    return std::nullopt;
  // Disjoint blocks that add up to the whole cover it.
  llvm::sort(parts, [](auto &a, auto &b) { return a.first < b.first; });
  int64_t next = 0;
  for (auto &[offset, part] : parts) {
    if (offset != next)
      return std::nullopt;
    next += cast<RankedTensorType>(part.getType()).getDimSize(dim);
  }
  if (next != type.getDimSize(dim) || covered != next)
    return std::nullopt;
  return parts;
}

/// Whether every part is a convolution's result.
static bool partsAreConvolutions(ArrayRef<std::pair<int64_t, Value>> parts) {
  return llvm::all_of(parts, [](auto &p) {
    auto conv = p.second.template getDefiningOp<linalg::GenericOp>();
    return conv && nki::conv::matchConvGeneric(conv);
  });
}

/// Creates `op` over the range [offset, offset + size of `part`) of its
/// loop dim `dim`, with input `split` replaced by `part` (which holds that
/// range of it) and the other inputs sliced to it; returns `whole` with
/// the result inserted. Every indexing map is a projected permutation and
/// the output's is the identity.
static Value emitPart(PatternRewriter &rewriter, linalg::GenericOp op,
                      unsigned split, Value part, int64_t dim, int64_t offset,
                      Value whole) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = op.getLoc();
  int64_t rank = op.getNumLoops();
  int64_t size = cast<RankedTensorType>(part.getType()).getDimSize(dim);
  // `v` (read through `map`) cut to the range.
  auto slice = [&](Value v, AffineMap map) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    std::optional<unsigned> at =
        map.getResultPosition(getAffineDimExpr(dim, ctx));
    if (!at)
      return v;
    SmallVector<int64_t> offsets(vt.getRank(), 0), sizes(vt.getShape()),
        strides(vt.getRank(), 1);
    offsets[*at] = offset;
    sizes[*at] = size;
    return tensor::ExtractSliceOp::create(rewriter, loc, v,
                                          getAsIndexOpFoldResult(ctx, offsets),
                                          getAsIndexOpFoldResult(ctx, sizes),
                                          getAsIndexOpFoldResult(ctx, strides));
  };
  SmallVector<Value> ins;
  for (OpOperand *in : op.getDpsInputOperands())
    ins.push_back(in->getOperandNumber() == split
                      ? part
                      : slice(in->get(), op.getMatchingIndexingMap(in)));
  Value init = slice(whole, AffineMap::getMultiDimIdentityMap(rank, ctx));
  auto perPart = linalg::GenericOp::create(
      rewriter, loc, init.getType(), ins, ValueRange{init},
      op.getIndexingMapsArray(), op.getIteratorTypesArray());
  rewriter.cloneRegionBefore(op.getRegion(), perPart.getRegion(),
                             perPart.getRegion().begin());
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  offsets[dim] = offset;
  return tensor::InsertSliceOp::create(
      rewriter, loc, perPart.getResult(0), whole,
      getAsIndexOpFoldResult(ctx, offsets),
      getAsIndexOpFoldResult(ctx,
                             cast<RankedTensorType>(init.getType()).getShape()),
      getAsIndexOpFoldResult(ctx, strides));
}

/// Whether `op` may run per part of an input: elementwise, one output
/// written whole from a tensor.empty (its value unread), and every operand
/// read through a projected permutation.
static bool splittable(linalg::GenericOp op) {
  return op.getNumDpsInits() == 1 && op.getNumReductionLoops() == 0 &&
         op.getIndexingMapsArray().back().isIdentity() &&
         op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
         op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty() &&
         llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation(/*allowZeroInResults=*/true);
         });
}

/// An elementwise generic over a concatenation (a chain of insert_slices
/// that covers a tensor.empty along one dim: rotary embeddings'
/// rotate_half, cat(-x2, x1)) runs once per part, reading the part where
/// it was computed and the other operands sliced likewise, so that the
/// concatenation is never copied together; a part's producer (the
/// negation) then fuses into its op. (Convolutions' channel blocks are
/// SplitEpilogueOverChannelBlocks' below.)
struct SplitOverConcatParts : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!splittable(op))
      return failure();
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (!op.getMatchingIndexingMap(in).isIdentity() || !in->get().hasOneUse())
        continue;
      int64_t dim;
      std::optional<SmallVector<std::pair<int64_t, Value>>> parts =
          assembledParts(in->get(), dim);
      if (!parts || partsAreConvolutions(*parts))
        continue;
      auto type = cast<RankedTensorType>(op.getResult(0).getType());
      Value whole = tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType());
      for (auto &[offset, part] : *parts)
        whole = emitPart(rewriter, op, in->getOperandNumber(), part, dim,
                         offset, whole);
      rewriter.replaceOp(op, whole);
      return success();
    }
    return failure();
  }
};

/// An elementwise generic over a tensor assembled from channel blocks that
/// convolutions computed (a depthwise convolution of more than 128
/// channels, one block per 128: ConvToImplicitGemm.cpp) runs once per
/// block on the block's result, its other operands sliced likewise, and
/// the results are assembled instead. Each block's part is then that
/// convolution's epilogue, computed while its PSUM tiles are evacuated;
/// before, the blocks were evacuated and assembled first and the
/// elementwise op (batch norm and activation) ran as a kernel of its own
/// over the whole.
struct SplitEpilogueOverChannelBlocks
    : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!splittable(op))
      return failure();
    // The input assembled from convolutions' channel blocks.
    std::optional<SmallVector<std::pair<int64_t, Value>>> parts;
    int64_t split = -1;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (!op.getMatchingIndexingMap(in).isIdentity() ||
          !in->get().hasOneUse())
        continue;
      int64_t dim;
      parts = assembledParts(in->get(), dim);
      if (parts && dim == 1 && partsAreConvolutions(*parts)) {
        split = in->getOperandNumber();
        break;
      }
      parts.reset();
    }
    if (!parts)
      return failure();

    // Each block's op goes right after its convolution (nki-tile fuses an
    // epilogue that follows its producer), and the assembly after it; the
    // other operands must be defined by then.
    Block *block = op->getBlock();
    for (auto &[offset, part] : *parts)
      if (part.getDefiningOp()->getBlock() != block)
        return failure();
    llvm::sort(*parts, [](auto &a, auto &b) {
      return a.second.getDefiningOp()->isBeforeInBlock(
          b.second.getDefiningOp());
    });
    Operation *first = parts->front().second.getDefiningOp();
    for (OpOperand *in : op.getDpsInputOperands()) {
      Operation *def = in->get().getDefiningOp();
      if (in->getOperandNumber() != split && def &&
          (def->getBlock() != block || !def->isBeforeInBlock(first)))
        return failure();
    }

    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    rewriter.setInsertionPoint(first);
    Value whole = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    for (auto &[offset, part] : *parts) {
      // The block's convolution computed into its slice of the assembled
      // tensor (for the elementwise op over the whole); it is a scratch
      // tensor now, which its zero fill overwrites.
      auto conv = part.getDefiningOp<linalg::GenericOp>();
      rewriter.setInsertionPointAfter(conv);
      auto fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      if (fill && fill.getOutputs()[0].getDefiningOp<tensor::ExtractSliceOp>()) {
        auto pt = cast<RankedTensorType>(part.getType());
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(fill);
        Value empty = tensor::EmptyOp::create(rewriter, loc, pt.getShape(),
                                              pt.getElementType());
        rewriter.modifyOpInPlace(
            fill, [&] { fill.getOutputsMutable()[0].assign(empty); });
      }
      whole = emitPart(rewriter, op, split, part, 1, offset, whole);
    }
    rewriter.replaceOp(op, whole);
    return success();
  }
};

/// An elementwise generic over the phases of a transposed or sub-pixel
/// convolution (a bias add, an activation: per channel or the same for
/// every pixel) runs once per distinct phase result, right after the
/// convolution that computed it, and the results are inserted instead, so
/// that nki-tile computes it as that convolution's epilogue. Before, the
/// phases were assembled first and the op ran as a pass of its own over
/// the whole upsampled tensor (a DB text detector's head: its last bias and
/// sigmoid read the 320 x 320 map back from HBM).
struct SplitEpilogueOverPhases : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!splittable(op) || op.getNumLoops() != 4)
      return failure();
    OpOperand *split = nullptr;
    std::optional<nki::PhaseChain> chain;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in);
      if (map.isIdentity() && in->get().hasOneUse() && !split &&
          (chain = nki::phaseChainOf(in->get()))) {
        split = in;
        continue;
      }
      // Every other operand is the same for every pixel.
      if (map.isFunctionOfDim(2) || map.isFunctionOfDim(3))
        return failure();
    }
    if (!split)
      return failure();
    Block *block = op->getBlock();
    // The other operands must be defined before the earliest piece's
    // producer, where its op goes.
    auto before = [&](Value v, Operation *at) {
      Operation *def = v.getDefiningOp();
      return !def || (def->getBlock() == block && def->isBeforeInBlock(at));
    };
    for (tensor::InsertSliceOp insert : chain->inserts) {
      Operation *def = insert.getSource().getDefiningOp();
      if (!def || def->getBlock() != block)
        return failure();
      for (OpOperand *in : op.getDpsInputOperands())
        if (in != split && !before(in->get(), def))
          return failure();
    }
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    llvm::DenseMap<Value, Value> done;
    for (tensor::InsertSliceOp insert : chain->inserts) {
      Value piece = insert.getSource();
      if (done.count(piece))
        continue;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(piece.getDefiningOp());
      auto pt = cast<RankedTensorType>(piece.getType());
      Value init = tensor::EmptyOp::create(rewriter, loc, pt.getShape(),
                                           type.getElementType());
      SmallVector<Value> ins;
      for (OpOperand *in : op.getDpsInputOperands())
        ins.push_back(in == split ? piece : in->get());
      auto perPiece = linalg::GenericOp::create(
          rewriter, loc, init.getType(), ins, ValueRange{init},
          op.getIndexingMapsArray(), op.getIteratorTypesArray());
      rewriter.cloneRegionBefore(op.getRegion(), perPiece.getRegion(),
                                 perPiece.getRegion().begin());
      done[piece] = perPiece.getResult(0);
    }
    // The pieces' results in their phases, in the chain's order.
    Value whole = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    for (tensor::InsertSliceOp insert : chain->inserts)
      whole = tensor::InsertSliceOp::create(
          rewriter, loc, done[insert.getSource()], whole,
          insert.getMixedOffsets(), insert.getMixedSizes(),
          insert.getMixedStrides());
    rewriter.replaceOp(op, whole);
    return success();
  }
};

/// A contraction, a convolution, a convolution's consumer (its epilogue,
/// computed on its PSUM tiles in the convolution's [N, F, OH, OW] space) or
/// a diagonal filter (the kernel builds it on chip) keeps its form.
/// A generic with an e8m0 operand: an MX scale or a quantisation by it.
static bool hasMxScale(linalg::GenericOp op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    return isa<Float8E8M0FNUType>(getElementTypeOrSelf(v.getType()));
  });
}

/// --auto-cast=mxfp8's activation generics (QuantizeMx.cpp), over
/// [M, K/32, 32]: the block maxima (read by the scales' generic), the
/// scales and the division. Collapsing M with K/32 would put 32-element
/// rows on the partitions, a DMA descriptor for every 128 bytes.
static bool isMxQuantisation(linalg::GenericOp op) {
  if (hasMxScale(op))
    return true;
  return op->getNumResults() == 1 &&
         llvm::any_of(op->getResult(0).getUsers(), [](Operation *user) {
           auto g = dyn_cast<linalg::GenericOp>(user);
           return g && hasMxScale(g);
         });
}

/// A reshape read by an MX quantisation generic, directly or through more
/// reshapes (the graph's [1, S, H] activations reach it as collapse and
/// expand of the [M, K/32, 32] view until those compose).
static bool feedsMxQuantisation(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) &&
         llvm::any_of(op->getResult(0).getUsers(), [](Operation *user) {
           auto g = dyn_cast<linalg::GenericOp>(user);
           return (g && isMxQuantisation(g)) || feedsMxQuantisation(user);
         });
}

static bool isMxQuantisationOp(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  return g && isMxQuantisation(g);
}

bool keepsItsSpace(linalg::GenericOp op) {
  return isContraction(op) || isMxQuantisation(op) ||
         nki::conv::matchConvGeneric(op) ||
         nki::conv::matchDiagonalFilter(op) ||
         nki::conv::matchSplatDiagonalFilter(op) ||
         llvm::any_of(op.getDpsInputs(), [](Value in) {
           auto conv = in.getDefiningOp<linalg::GenericOp>();
           return conv && nki::conv::matchConvGeneric(conv);
         });
}

/// `v` collapse_shape'd to `shape` (which must be a collapse of its shape),
/// or `v` itself when the ranks agree.
static Value collapseTo(PatternRewriter &rewriter, Location loc, Value v,
                        ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (shape.size() == size_t(type.getRank()))
    return v;
  return tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v,
      *getReassociationIndicesForCollapse(type.getShape(), shape));
}

/// Gives `op` the inputs `ins`, read through `maps` (the output's last).
static void replaceInputs(PatternRewriter &rewriter, linalg::GenericOp op,
                          ArrayRef<Value> ins, ArrayRef<AffineMap> maps) {
  rewriter.modifyOpInPlace(op, [&] {
    op.getInputsMutable().assign(ins);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
}

/// Whether `t` moves dims but keeps the innermost one in place (a head
/// transpose [S, H, d] -> [H, S, d]): read through it, rows stay rows.
static bool keepsInnermost(linalg::TransposeOp t) {
  ArrayRef<int64_t> perm = t.getPermutation();
  return t.hasPureTensorSemantics() && !perm.empty() &&
         perm.back() == int64_t(perm.size()) - 1;
}

/// Whether `op` computes something (not just a copy or a cast, which other
/// kernels look through as they are).
static bool computes(linalg::GenericOp op) {
  return llvm::any_of(op.getRegion().front().without_terminator(),
                      [](Operation &o) { return !isa<CastOpInterface>(o); });
}

/// An elementwise op reads a head transpose's input through its own
/// indexing map instead of the transposed copy (the rotary embedding of
/// [H, S, d] heads read from the projection's [S, H, d]).
struct TransposeIntoElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() != 0 || !computes(op) || keepsItsSpace(op))
      return failure();
    SmallVector<Value> ins(op.getDpsInputs());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool changed = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto t = in->get().getDefiningOp<linalg::TransposeOp>();
      AffineMap map = maps[in->getOperandNumber()];
      if (!t || !keepsInnermost(t) || !map.isProjectedPermutation())
        continue;
      // out[i] = in[j] with j[perm[k]] = i[k].
      ArrayRef<int64_t> perm = t.getPermutation();
      SmallVector<AffineExpr> results(perm.size());
      for (auto [k, p] : llvm::enumerate(perm))
        results[p] = map.getResult(k);
      ins[in->getOperandNumber()] = t.getInput();
      maps[in->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, results, getContext());
      changed = true;
    }
    if (!changed)
      return failure();
    replaceInputs(rewriter, op, ins, maps);
    return success();
  }
};

/// A slice of a head transpose that only such ops read is the transpose of
/// the slice of its input, which they then read in place.
struct SliceOfTranspose : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto t = slice.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!t || !keepsInnermost(t) || !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != slice.getType().getRank() ||
        !slice.getType().hasStaticShape() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return failure();
    for (Operation *user : slice->getUsers()) {
      auto g = dyn_cast<linalg::GenericOp>(user);
      if (!g || g.getNumReductionLoops() != 0 || !computes(g) ||
          keepsItsSpace(g))
        return failure();
    }
    ArrayRef<int64_t> perm = t.getPermutation();
    int64_t rank = perm.size();
    SmallVector<int64_t> offsets(rank), sizes(rank), strides(rank, 1);
    for (int64_t k = 0; k < rank; ++k) {
      offsets[perm[k]] = slice.getStaticOffsets()[k];
      sizes[perm[k]] = slice.getStaticSizes()[k];
    }
    MLIRContext *ctx = getContext();
    Location loc = slice.getLoc();
    Value part = tensor::ExtractSliceOp::create(
        rewriter, loc, t.getInput(), getAsIndexOpFoldResult(ctx, offsets),
        getAsIndexOpFoldResult(ctx, sizes),
        getAsIndexOpFoldResult(ctx, strides));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, slice.getType().getShape(),
                                slice.getType().getElementType());
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(slice, part, init, perm);
    return success();
  }
};

/// An elementwise op on a matmul's result that also has a parallel loop of
/// one step which the result does not name (the residual add of a [1, S, H]
/// activation and the [S, H] output projection) runs without that loop:
/// the operands that name it are collapsed, the result expanded back. In
/// the matmul's own space it is the matmul's epilogue (or joins the row
/// group after it), instead of a kernel of its own over [1, S, H].
struct DropUnitLoopsOfEpilogue : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (keepsItsSpace(op) || !isEpilogue(op) || op.getNumDpsInits() != 1)
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    // The unit loops to drop: named by plain dims only, and not by the
    // matmul's result (its epilogue keeps the result's rank).
    SmallVector<AffineMap> productMaps;
    for (OpOperand *in : op.getDpsInputOperands())
      if (isEpilogueInput(in->get()))
        productMaps.push_back(maps[in->getOperandNumber()]);
    llvm::SmallBitVector drop(ranges.size());
    for (unsigned d = 0; d < ranges.size(); ++d) {
      if (ranges[d] != 1 || iterators[d] != utils::IteratorType::parallel)
        continue;
      bool plain = llvm::all_of(maps, [&](AffineMap map) {
        return llvm::all_of(map.getResults(), [&](AffineExpr e) {
          return !e.isFunctionOfDim(d) || isa<AffineDimExpr>(e);
        });
      });
      if (plain && llvm::none_of(productMaps, [&](AffineMap map) {
            return map.isFunctionOfDim(d);
          }))
        drop.set(d);
    }
    if (drop.none() || drop.count() == ranges.size())
      return failure();
    MLIRContext *ctx = getContext();
    // Loop d becomes d minus the dropped loops before it.
    SmallVector<AffineExpr> newDims;
    unsigned next = 0;
    for (unsigned d = 0; d < ranges.size(); ++d)
      newDims.push_back(drop[d] ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(next++, ctx));
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    SmallVector<AffineMap> newMaps;
    SmallVector<SmallVector<int64_t>> shapes;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = maps[operand.getOperandNumber()];
      auto type = cast<RankedTensorType>(operand.get().getType());
      SmallVector<AffineExpr> results;
      SmallVector<int64_t> shape;
      for (auto [r, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (dim && drop[dim.getPosition()])
          continue;
        results.push_back(e.replaceDims(newDims));
        shape.push_back(type.getDimSize(r));
      }
      if (shape.size() != size_t(type.getRank()) &&
          !getReassociationIndicesForCollapse(type.getShape(), shape))
        return failure();
      shapes.push_back(shape);
      newMaps.push_back(AffineMap::get(next, 0, results, ctx));
    }
    // Nothing is created before the match is certain.
    for (auto [operand, shape] : llvm::zip_equal(op->getOpOperands(), shapes))
      operands.push_back(collapseTo(rewriter, loc, operand.get(), shape));
    SmallVector<utils::IteratorType> newIterators;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (!drop[d])
        newIterators.push_back(iterators[d]);
    Value init = operands.pop_back_val();
    auto smaller =
        linalg::GenericOp::create(rewriter, loc, init.getType(), operands,
                                  ValueRange{init}, newMaps, newIterators);
    rewriter.inlineRegionBefore(op.getRegion(), smaller.getRegion(),
                                smaller.getRegion().begin());
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    Value result = smaller.getResult(0);
    if (result.getType() != type)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, type, result,
          *getReassociationIndicesForCollapse(
              type.getShape(),
              cast<RankedTensorType>(result.getType()).getShape()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An input read with a constant 0 in its indexing map (a broadcast dim of
/// size 1, as ONNX's keepdims reductions leave them: layernorm's
/// `x - mean` reads the mean as [B, S, 1] through (d0, d1, 0)) is read
/// without that dim: a collapse_shape drops it and the map loses the 0.
/// The collapse of leading dims then applies (it takes dims only), and the
/// collapse folds into the expand_shape that made the size-1 dim.
struct DropBroadcastUnitDims : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (keepsItsSpace(op))
      return failure();
    MLIRContext *ctx = getContext();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> ins(op.getDpsInputs());
    bool changed = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(in->get().getType());
      AffineMap map = maps[in->getOperandNumber()];
      if (!type || type.getRank() != int64_t(map.getNumResults()))
        continue;
      // Keep dims that are not a constant 0 over size 1; at least one.
      SmallVector<int64_t> keep;
      for (auto [r, expr] : llvm::enumerate(map.getResults())) {
        auto c = dyn_cast<AffineConstantExpr>(expr);
        if (!(c && c.getValue() == 0 && type.getDimSize(r) == 1))
          keep.push_back(r);
      }
      if (keep.size() == size_t(type.getRank()) || keep.empty())
        continue;
      SmallVector<AffineExpr> results;
      SmallVector<int64_t> shape;
      for (int64_t r : keep) {
        results.push_back(map.getResult(r));
        shape.push_back(type.getDimSize(r));
      }
      if (!getReassociationIndicesForCollapse(type.getShape(), shape))
        continue;
      ins[in->getOperandNumber()] =
          collapseTo(rewriter, op.getLoc(), in->get(), shape);
      maps[in->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, ctx);
      changed = true;
    }
    if (!changed)
      return failure();
    replaceInputs(rewriter, op, ins, maps);
    return success();
  }
};

/// Gives back their compact weights to depthwise filters whose splat
/// weights (a box filter's) the fusion patterns folded into their bodies
/// (linalg's FoldScalarOrSplatConstant, which takes no control function):
/// nki-tile builds a diagonal filter on chip from its compact weights.
static void restoreSplatDiagonals(Operation *root) {
  SmallVector<std::pair<linalg::GenericOp, FloatAttr>> folded;
  root->walk([&](linalg::GenericOp op) {
    if (std::optional<FloatAttr> w = nki::conv::matchSplatDiagonalFilter(op))
      folded.push_back({op, *w});
  });
  for (auto [op, weight] : folded) {
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    auto compactType = RankedTensorType::get(type.getShape().drop_back(),
                                             type.getElementType());
    Value compact = arith::ConstantOp::create(
        b, op.getLoc(),
        DenseElementsAttr::get(compactType, cast<Attribute>(weight)));
    op.getResult(0).replaceAllUsesWith(
        nki::conv::buildDiagonalFilter(b, op.getLoc(), compact));
    Operation *init = op.getDpsInits()[0].getDefiningOp();
    op.erase();
    if (init && isOpTriviallyDead(init))
      init->erase();
  }
}

/// An elementwise op on a convolution's result seen through a collapse
/// that only drops unit dims (a 1-D convolution runs as the 2-D one of
/// one-pixel rows, Conv1DAsConv2D: its bias, batch norm and activation
/// read [N, C, W] of the [N, C, 1, W] result) runs in the result's own
/// space: its loops gain the unit dims, each operand's map names the
/// dims it named there, and the result is collapsed after it. It is then
/// the convolution's epilogue (PointNet's first layer, 3 -> 64 channels
/// over 1,024 points: its bias add had taken a DMA of 8 elements a
/// partition for every channel, 47.6 us).
struct ExpandOverUnitCollapseOfConv : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
        !op.getIndexingMapsArray().back().isIdentity() ||
        !op.hasPureTensorSemantics())
      return failure();
    tensor::CollapseShapeOp collapse;
    OpOperand *read = nullptr;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto c = in->get().getDefiningOp<tensor::CollapseShapeOp>();
      auto conv = c ? c.getSrc().getDefiningOp<linalg::GenericOp>()
                    : linalg::GenericOp();
      if (conv && nki::conv::matchConvGeneric(conv) &&
          op.getMatchingIndexingMap(in).isIdentity()) {
        collapse = c;
        read = in;
        break;
      }
    }
    if (!collapse)
      return failure();
    // Each collapsed dim is the one dim of its group that is not 1 (the
    // last when all are).
    auto source = collapse.getSrcType();
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> dimOf;
    for (const ReassociationIndices &g : groups) {
      auto wide = llvm::make_filter_range(
          g, [&](int64_t d) { return source.getDimSize(d) != 1; });
      int64_t n = llvm::range_size(wide);
      if (n > 1)
        return failure();
      dimOf.push_back(getAffineDimExpr(n ? *wide.begin() : g.back(), ctx));
    }
    // Its init is written whole, elementwise: the body does not read it.
    if (!op.getRegionOutputArgs()[0].use_empty())
      return rewriter.notifyMatchFailure(op, "reads its output");
    unsigned rank = source.getRank();
    SmallVector<AffineMap> maps;
    SmallVector<Value> ins;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (in == read) {
        maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
        ins.push_back(collapse.getSrc());
        continue;
      }
      maps.push_back(op.getMatchingIndexingMap(in).replaceDimsAndSymbols(
          dimOf, {}, rank, 0));
      ins.push_back(in->get());
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Value init = tensor::EmptyOp::create(rewriter, loc, source.getShape(),
                                         resultType.getElementType());
    auto expanded = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ins, init, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(op.getRegion(), expanded.getRegion(),
                                expanded.getRegion().end());
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, resultType, expanded.getResult(0), groups);
    return success();
  }
};

struct NKIFuseElementwisePass
    : nki::impl::NKIFuseElementwiseBase<NKIFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // As upstream: fuse a producer only into its single user.
    // Nothing is fused into an implicit-GEMM convolution: its kernel reads
    // the input once into SBUF and would recompute a fused producer per tap.
    // Nor into or out of an upsample.
    linalg::ControlFusionFn fuse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
      return producer && producer->hasOneUse() &&
             !(consumer && nki::conv::matchConvGeneric(consumer)) &&
             !(consumer && nki::isMxMatmul(consumer)) &&
             !isBroadcastCopyInput(fused) &&
             !readsThroughNonPermutation(producer) &&
             !readsThroughNonPermutation(consumer);
    };
    // A reshape is not folded into a contraction, nor into the elementwise
    // consumer of one (its epilogue): that consumer is instead collapsed to
    // the contraction's shape below, and expanding it again would undo that.
    // Nor is --auto-cast=mxfp8's [M, K/32, 32] view of an activation pushed
    // into the activation's producer: that would run the producer on rows
    // of 32 and take it out of its matmul's epilogue.
    linalg::ControlFusionFn expand = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() && !isContraction(producer) &&
             !isContraction(fused->getOwner()) && !isEpilogue(producer) &&
             !isEpilogue(fused->getOwner()) &&
             !feedsMxQuantisation(fused->getOwner()) &&
             !isMxQuantisationOp(fused->getOwner());
    };
    // An elementwise op reading a contraction's result through an
    // expand_shape runs on the unexpanded result, so that nki-tile can
    // compute it on the matmul's PSUM tiles (the epilogue).
    linalg::ControlFusionFn collapse = [](OpOperand *fused) {
      auto reshape = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
      return reshape && reshape->hasOneUse() &&
             isContraction(reshape.getSrc().getDefiningOp());
    };
    // Computations on constants first (BatchNormalization's scale and
    // shift), before fusion mixes them into generics that also read
    // activations.
    {
      RewritePatternSet folding(context);
      nki::populateFoldConstantGenericsPatterns(folding);
      (void)applyPatternsGreedily(getOperation(), std::move(folding));
    }
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, expand);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, collapse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    nki::populateFoldConstantPermutationPatterns(patterns, fuse);
    linalg::populateConstantFoldLinalgOperations(patterns, fuse);
    nki::populateFoldConstantGenericsPatterns(patterns);
    // Not converging leaves valid, less fused IR (upstream's pass ignores
    // it); say so rather than fail the compile.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      getOperation()->emitWarning(
          "nki-fuse-elementwise did not converge; fusion may be incomplete");

    // Elementwise ops over convolutions' channel blocks, per block (their
    // epilogues), once fusion has made them one op.
    {
      RewritePatternSet split(context);
      split.add<SplitEpilogueOverChannelBlocks, SplitOverConcatParts,
                SplitEpilogueOverPhases, TransposeIntoElementwise,
                SliceOfTranspose, ExpandOverUnitCollapseOfConv>(context);
      tensor::populateFoldTensorEmptyPatterns(split);
      linalg::populateElementwiseOpsFusionPatterns(split, fuse);
      (void)applyPatternsGreedily(getOperation(), std::move(split));
    }

    // Then, with no folding by expansion left to undo it, the leading
    // parallel dims of each generic are collapsed into one where every
    // operand walks them in order: softmax and layernorm over [B, S, H]
    // become generics over [B*S, H], which nki-tile runs as one row group.
    RewritePatternSet collapseDims(context);
    linalg::populateCollapseDimensions(collapseDims, collapseLeadingDims);
    collapseDims.add<DropBroadcastUnitDims, DropUnitLoopsOfEpilogue>(context);
    // A reduction's fill init follows the collapse: collapse(fill(empty))
    // becomes fill(empty) of the collapsed shape.
    linalg::FillOp::getCanonicalizationPatterns(collapseDims, context);
    tensor::populateFoldTensorEmptyPatterns(collapseDims);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(collapseDims, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(collapseDims, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(collapseDims))))
      getOperation()->emitWarning("nki-fuse-elementwise: collapsing dims did "
                                  "not converge");

    // Generics that only the collapse made alike fuse now: a Linear's bias
    // add (its matmul's epilogue, on the matmul's [M, N]) and the GELU
    // after it (on [B, S, N] until the collapse) become one epilogue, and
    // the product is stored once, in bf16 under auto-cast. A clamp rounded
    // to bf16 rounds inside instead (RoundBeforeClamp.h).
    RewritePatternSet refuse(context);
    linalg::populateElementwiseOpsFusionPatterns(refuse, fuse);
    nki::populateRoundBeforeClampPatterns(refuse);
    (void)applyPatternsGreedily(getOperation(), std::move(refuse));
    restoreSplatDiagonals(getOperation());
  }

  /// Dims 0..k-1 of a generic that is not a contraction, with k the leading
  /// parallel dims before the last dim (at least two), when every operand
  /// names them together and in order or not at all.
  static SmallVector<ReassociationIndices>
  collapseLeadingDims(linalg::LinalgOp op) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || keepsItsSpace(generic))
      return {};
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < int64_t(iterators.size()) &&
                        iterators[d] == utils::IteratorType::parallel;
         ++d)
      leading.push_back(d);
    if (leading.size() < 2)
      return {};
    // Every operand names the leading dims together and in order, or none
    // of them, with dims only (a constant 0 of a broadcast size-1 dim is not
    // handled by the pattern; DropBroadcastUnitDims removes those first).
    for (AffineMap map : op.getIndexingMapsArray()) {
      SmallVector<int64_t> at;
      for (auto [r, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          return {};
        if (dim.getPosition() < leading.size())
          at.push_back(r);
      }
      if (at.empty())
        continue;
      if (at.size() != leading.size())
        return {};
      for (auto [k, r] : llvm::enumerate(at))
        if (r != at.front() + int64_t(k) ||
            cast<AffineDimExpr>(map.getResult(r)).getPosition() != k)
          return {};
    }
    return {leading};
  }
};

} // namespace
