//===- DecomposeConv.cpp - Convolutions and pooling as matmuls ------------===//
//
// A convolution is a matmul once its input is gathered im2col-style: with
// the input viewed as x[N, G, Cg, S...] and the filter as w[G, F, Cg, K...],
//
//   col[g, (c, k...), (n, o...)] = x[n, g, c, o * stride + k * dilation]
//   y[g, f, (n, o...)] = w[g, f, (c, k...)] x col[g, (c, k...), (n, o...)]
//
// so the whole contraction over C * prod(K) is one batch matmul (batch =
// groups): the tiler puts it on the partitions in blocks of 128 and
// accumulates the blocks in PSUM. The gather is N * prod(K) strided slice
// copies (HBM to HBM DMAs, no engine work); the [G, F, N * prod(O)] product
// goes to [N, G, F, O...] by N slice copies.
//
// Pooling is elementwise and separable: one spatial dim at a time, max or
// sum of that dim's strided windows of the previous result, each window a
// view (no copy), a few windows per generic so that a tile of every operand
// fits in SBUF at once.
//
// Padding is not part of linalg's ops: producers pad with tensor.pad.
//
//===----------------------------------------------------------------------===//

#include "DecomposeConv.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// Windows combined by one pooling generic: each is a tile in SBUF.
constexpr int64_t kWindowsPerGeneric = 8;

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> v) {
  return llvm::map_to_vector(
      v, [&](int64_t x) -> OpFoldResult { return b.getIndexAttr(x); });
}

/// Any static reshape with the same element count: collapse to 1-D, expand.
Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  Type elt = type.getElementType();
  if (type.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    v = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({type.getNumElements()}, elt), v,
        SmallVector<ReassociationIndices>{all});
  }
  if (shape.size() == 1)
    return v;
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc,
                                       RankedTensorType::get(shape, elt), v,
                                       SmallVector<ReassociationIndices>{all});
}

Value zeroFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type elt) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elt);
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// The float a linalg.fill (or splat constant) writes into `init`, if any.
std::optional<APFloat> filledWith(Value init) {
  Value v = init;
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    v = fill.getInputs()[0];
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValue();
  DenseElementsAttr d;
  if (matchPattern(v, m_Constant(&d)) && d.isSplat() &&
      isa<FloatType>(d.getElementType()))
    return d.getSplatValue<APFloat>();
  return std::nullopt;
}

/// An elementwise generic over `shape` (identity maps) combining `ins`.
Value combine(OpBuilder &b, Location loc, ValueRange ins,
              ArrayRef<int64_t> shape, Type elt, bool isMax) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elt);
  AffineMap id = b.getMultiDimIdentityMap(shape.size());
  SmallVector<AffineMap> maps(ins.size() + 1, id);
  SmallVector<utils::IteratorType> iters(shape.size(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ins, empty, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value acc = args[0];
        for (Value a : args.drop_front().drop_back())
          acc = isMax ? arith::MaximumFOp::create(nb, l, acc, a).getResult()
                      : arith::AddFOp::create(nb, l, acc, a).getResult();
        linalg::YieldOp::create(nb, l, acc);
      });
  return generic.getResult(0);
}

/// Calls fn with every index of a box of extents `k`.
void forEachIndex(ArrayRef<int64_t> k,
                  function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> idx(k.size(), 0);
  for (int64_t flat = 0, e = product(k); flat < e; ++flat) {
    int64_t r = flat;
    for (int64_t d = int64_t(k.size()) - 1; d >= 0; --d) {
      idx[d] = r % k[d];
      r /= k[d];
    }
    fn(idx);
  }
}

/// im2col of windows that tile x[N, G, C, S...] (kernel `k` = stride):
/// x's first O * K of each spatial dim as [N, G, C, O0, K0, O1, K1, ...],
/// transposed to [G, C, K..., N, O...] and collapsed to `colType`, [G, C *
/// prod(K), N * prod(O)].
Value patchesOf(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> k,
                ArrayRef<int64_t> out, RankedTensorType colType) {
  auto xt = cast<RankedTensorType>(x.getType());
  Type elt = xt.getElementType();
  size_t s = k.size();
  SmallVector<int64_t> used(xt.getShape().take_front(3));
  for (size_t d = 0; d < s; ++d)
    used.push_back(out[d] * k[d]);
  if (ArrayRef<int64_t>(used) != xt.getShape()) {
    SmallVector<int64_t> zeros(used.size(), 0), ones(used.size(), 1);
    x = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(used, elt), x, indexAttrs(b, zeros),
        indexAttrs(b, used), indexAttrs(b, ones));
  }
  SmallVector<int64_t> split(used.begin(), used.begin() + 3);
  SmallVector<ReassociationIndices> expand = {{0}, {1}, {2}};
  for (size_t d = 0; d < s; ++d) {
    expand.push_back({int64_t(split.size()), int64_t(split.size()) + 1});
    split.append({out[d], k[d]});
  }
  Value x2 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(split, elt), x, expand);
  // [G, C, K0, K1, ..., N, O0, O1, ...]
  SmallVector<int64_t> perm = {1, 2};
  for (size_t d = 0; d < s; ++d)
    perm.push_back(4 + 2 * int64_t(d));
  perm.push_back(0);
  for (size_t d = 0; d < s; ++d)
    perm.push_back(3 + 2 * int64_t(d));
  SmallVector<int64_t> permuted;
  for (int64_t i : perm)
    permuted.push_back(split[i]);
  Value empty = tensor::EmptyOp::create(b, loc, permuted, elt);
  Value t = linalg::TransposeOp::create(b, loc, x2, empty, perm).getResult()[0];
  SmallVector<ReassociationIndices> collapse = {{0}, {}, {}};
  for (size_t i = 1; i < 2 + s; ++i)
    collapse[1].push_back(int64_t(i));
  for (size_t i = 2 + s; i < perm.size(); ++i)
    collapse[2].push_back(int64_t(i));
  return tensor::CollapseShapeOp::create(b, loc, colType, t, collapse);
}

/// x[N, G, Cg, S...] (already padded) conv w[G, F, Cg, K...] into
/// [N, G, F, O...] with element type `outElt`, accumulated from zero.
Value convNGC(OpBuilder &b, Location loc, Value x, Value w,
              ArrayRef<int64_t> out, ArrayRef<int64_t> strides,
              ArrayRef<int64_t> dilations, Type outElt) {
  auto xt = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> xs = xt.getShape();
  ArrayRef<int64_t> ws = cast<RankedTensorType>(w.getType()).getShape();
  int64_t n = xs[0], g = xs[1], cg = xs[2], f = ws[1];
  ArrayRef<int64_t> k = ws.drop_front(3);
  size_t s = out.size();
  Type elt = xt.getElementType();

  // The filter as [G, F, C*prod(K)]: a view (nki-fuse-elementwise does not
  // fold reshapes into contractions).
  int64_t kk = product(k), kc = cg * kk, p = product(out);
  SmallVector<ReassociationIndices> wFlat = {{0}, {1}, {}};
  for (size_t d = 2; d < ws.size(); ++d)
    wFlat.back().push_back(d);
  Value a = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({g, f, kc}, elt), w, wFlat);

  // The images go through in chunks, each an im2col and one contraction
  // over (c, k...) batched over groups. im2col is built directly in the
  // matmul's [G, C*prod(K), images*prod(O)] shape: one strided window of
  // every (g, c) per image and kernel offset, its output dims collapsed,
  // goes to rows c*prod(K) + k. A chunk's windows are one chain of
  // insert_slices, whose one-shot bufferization analysis grows with the
  // cube of the chain's length (180 windows took 36 s), so a chunk holds at
  // most kMaxWindows windows (or one image).
  constexpr int64_t kMaxWindows = 32;
  int64_t chunk = std::max<int64_t>(1, kMaxWindows / kk);
  // Windows that tile the input (kernel = stride, no dilation: a vision
  // transformer's 16 x 16 patches) are all of im2col at once: one
  // transpose of x seen as [N, G, C, O0, K0, O1, K1, ...] to [G, C, K...,
  // N, O...], instead of prod(K) windows an image (ViT-B/16's 256 windows
  // took bufferization 71 s).
  bool patches = true;
  for (size_t d = 0; d < s; ++d)
    patches &= k[d] > 1 && strides[d] == k[d] && dilations[d] == 1;
  if (patches)
    chunk = n;
  SmallVector<int64_t> pieceShape = {g, cg};
  llvm::append_range(pieceShape, out);
  auto pieceType = RankedTensorType::get(pieceShape, elt);
  SmallVector<int64_t> srcSizes = {1, g, cg}, srcStrides = {1, 1, 1};
  llvm::append_range(srcSizes, out);
  llvm::append_range(srcStrides, strides);
  SmallVector<ReassociationIndices> flat = {{0}, {1}, {}};
  for (size_t d = 0; d < s; ++d)
    flat.back().push_back(2 + d);
  Value y =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n, g, f, p}, outElt);
  auto rowType = RankedTensorType::get({g, f, p}, outElt);
  for (int64_t first = 0; first < n; first += chunk) {
    int64_t images = std::min(chunk, n - first);
    auto colType = RankedTensorType::get({g, kc, images * p}, elt);
    // One strided window of every (g, c) per image and kernel offset.
    auto windows = [&]() -> Value {
      Value col = tensor::EmptyOp::create(b, loc, colType.getShape(), elt);
      int64_t kidx = 0;
      forEachIndex(k, [&](ArrayRef<int64_t> kpos) {
        for (int64_t img = 0; img < images; ++img) {
          SmallVector<int64_t> srcOffsets = {first + img, 0, 0};
          for (size_t d = 0; d < s; ++d)
            srcOffsets.push_back(kpos[d] * dilations[d]);
          Value piece = tensor::ExtractSliceOp::create(
              b, loc, pieceType, x, indexAttrs(b, srcOffsets),
              indexAttrs(b, srcSizes), indexAttrs(b, srcStrides));
          if (s > 1)
            piece = tensor::CollapseShapeOp::create(
                b, loc, RankedTensorType::get({g, cg, p}, elt), piece, flat);
          col = tensor::InsertSliceOp::create(
              b, loc, piece, col, indexAttrs(b, {0, kidx, img * p}),
              indexAttrs(b, {g, cg, p}), indexAttrs(b, {1, kk, 1}));
        }
        ++kidx;
      });
      return col;
    };
    Value col = patches ? patchesOf(b, loc, x, k, out, colType) : windows();
    Value init = zeroFilled(b, loc, {g, f, images * p}, outElt);
    Value prod =
        linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                      ValueRange{a, col}, ValueRange{init})
            .getResult(0);
    // [G, F, (images, P)] -> y[first + img, G, F, P], one slice per image.
    for (int64_t img = 0; img < images; ++img) {
      Value row = tensor::ExtractSliceOp::create(
          b, loc, rowType, prod, indexAttrs(b, {0, 0, img * p}),
          indexAttrs(b, {g, f, p}), indexAttrs(b, {1, 1, 1}));
      y = tensor::InsertSliceOp::create(
          b, loc, row, y, indexAttrs(b, {first + img, 0, 0, 0}),
          indexAttrs(b, {1, g, f, p}), indexAttrs(b, {1, 1, 1, 1}));
    }
  }
  SmallVector<int64_t> result = {n, g, f};
  llvm::append_range(result, out);
  return reshape(b, loc, y, result);
}

enum class Layout {
  Plain,     // x[N, C, S...], w[F, C, K...], y[N, F, O...]
  Grouped,   // x[N, G, C, S...], w[G, F, C, K...], y[N, G, F, O...]
  Depthwise, // x[N, C, S...], w[C, K...], y[N, C, O...]
};

SmallVector<int64_t> values(DenseIntElementsAttr a) {
  return llvm::to_vector(a.getValues<int64_t>());
}

template <typename ConvOp, Layout L>
struct DecomposeConvOp : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<nki::StaticConvOperands> operands =
        nki::staticConvOperands(rewriter, op);
    if (failed(operands))
      return failure();
    auto [x, w, init, xt, wt, yt] = *operands;
    Location loc = op.getLoc();
    ArrayRef<int64_t> xs = xt.getShape(), ws = wt.getShape(),
                      ys = yt.getShape();
    // Bring every layout to x[N, G, Cg, S...], w[G, F, Cg, K...].
    SmallVector<int64_t> x5 = {xs[0]}, w5, out;
    switch (L) {
    case Layout::Plain:
      x5.append({1, xs[1]});
      w5 = {1, ws[0], ws[1]};
      out.assign(ys.begin() + 2, ys.end());
      break;
    case Layout::Grouped:
      x5.append({xs[1], xs[2]});
      w5 = {ws[0], ws[1], ws[2]};
      out.assign(ys.begin() + 3, ys.end());
      break;
    case Layout::Depthwise:
      x5.append({xs[1], 1});
      w5 = {ws[0], 1, 1};
      out.assign(ys.begin() + 2, ys.end());
      break;
    }
    size_t spatial = L == Layout::Grouped ? 3 : 2;
    x5.append(xs.begin() + spatial, xs.end());
    w5.append(ws.begin() + (L == Layout::Depthwise ? 1 : spatial), ws.end());
    Value y =
        convNGC(rewriter, loc, reshape(rewriter, loc, x, x5),
                reshape(rewriter, loc, w, w5), out, values(op.getStrides()),
                values(op.getDilations()), yt.getElementType());
    y = reshape(rewriter, loc, y, ys);
    // linalg's convolutions accumulate into their init.
    std::optional<APFloat> c = filledWith(init);
    if (!c || !c->isZero())
      y = combine(rewriter, loc, {y, init}, ys, yt.getElementType(),
                  /*isMax=*/false);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Whether a 2-D pooling runs as nki-tile's on-chip kernel (Tiling/Pool.cpp)
/// instead of decomposed: its init is the combiner's identity and two bands
/// of one output row fit a quarter of the smallest target's SBUF.
template <typename PoolOp> bool poolsOnChip(PoolOp op, bool isMax) {
  if (!isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op))
    return false;
  auto xt = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto kt = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto yt = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  if (!xt || !kt || !yt || !xt.hasStaticShape() || !kt.hasStaticShape() ||
      !yt.hasStaticShape() || xt.getElementType() != yt.getElementType() ||
      !isa<FloatType>(yt.getElementType()) ||
      yt.getElementType().getIntOrFloatBitWidth() > 32)
    return false;
  std::optional<APFloat> c = filledWith(op.getOutputs()[0]);
  if (!c || !(isMax ? c->isInfinity() && c->isNegative() : c->isZero()))
    return false;
  int64_t bytes = yt.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t rows = (kt.getShape()[0] - 1) * values(op.getDilations())[0] + 1;
  int64_t w = xt.getShape()[3], ow = yt.getShape()[3];
  return 2 * bytes * (rows * (w + ow) + ow) <= 48 * 1024;
}

template <typename PoolOp, bool IsMax>
struct DecomposePoolOp : OpRewritePattern<PoolOp> {
  DecomposePoolOp(MLIRContext *ctx, bool onChip)
      : OpRewritePattern<PoolOp>(ctx), onChip(onChip) {}
  bool onChip;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    if (onChip && poolsOnChip(op, IsMax))
      return rewriter.notifyMatchFailure(op, "runs as the on-chip kernel");
    Value x = op.getInputs()[0], window = op.getInputs()[1];
    Value init = op.getOutputs()[0];
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto kt = dyn_cast<RankedTensorType>(window.getType());
    auto yt = dyn_cast<RankedTensorType>(init.getType());
    if (!xt || !kt || !yt || !xt.hasStaticShape() || !kt.hasStaticShape() ||
        !yt.hasStaticShape() || op->getNumResults() != 1 ||
        !isa<FloatType>(yt.getElementType()) ||
        xt.getElementType() != yt.getElementType())
      return rewriter.notifyMatchFailure(op, "needs static float tensors");
    Location loc = op.getLoc();
    Type elt = yt.getElementType();
    ArrayRef<int64_t> ys = yt.getShape();
    SmallVector<int64_t> strides = values(op.getStrides());
    SmallVector<int64_t> dilations = values(op.getDilations());
    ArrayRef<int64_t> k = kt.getShape();
    // The init takes part unless it is the combiner's identity.
    std::optional<APFloat> c = filledWith(init);
    bool identity =
        c && (IsMax ? c->isInfinity() && c->isNegative() : c->isZero());
    // Max and sum are separable: pool one spatial dim at a time over
    // strided views (sum(K) windows instead of prod(K)).
    Value acc = x;
    for (size_t d = 0; d < k.size(); ++d) {
      size_t dim = d + 2;
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(acc.getType()).getShape());
      if (k[d] == 1 && strides[d] == 1 && shape[dim] == ys[dim])
        continue;
      shape[dim] = ys[dim];
      auto type = RankedTensorType::get(shape, elt);
      SmallVector<int64_t> steps(shape.size(), 1);
      steps[dim] = strides[d];
      SmallVector<Value> windows;
      for (int64_t i = 0; i < k[d]; ++i) {
        SmallVector<int64_t> offsets(shape.size(), 0);
        offsets[dim] = i * dilations[d];
        windows.push_back(tensor::ExtractSliceOp::create(
            rewriter, loc, type, acc, indexAttrs(rewriter, offsets),
            indexAttrs(rewriter, shape), indexAttrs(rewriter, steps)));
      }
      if (windows.size() == 1) {
        acc = windows.front();
        continue;
      }
      Value partial;
      for (size_t i = 0; i < windows.size(); i += kWindowsPerGeneric) {
        SmallVector<Value> ins;
        if (partial)
          ins.push_back(partial);
        for (size_t j = i; j < std::min(windows.size(), i + kWindowsPerGeneric);
             ++j)
          ins.push_back(windows[j]);
        partial = combine(rewriter, loc, ins, shape, elt, IsMax);
      }
      acc = partial;
    }
    if (!identity)
      acc = combine(rewriter, loc, {acc, init}, ys, elt, IsMax);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

FailureOr<nki::StaticConvOperands>
nki::staticConvOperands(PatternRewriter &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return rewriter.notifyMatchFailure(op, "needs two inputs and one result");
  StaticConvOperands r{linalgOp.getDpsInputs()[0],
                       linalgOp.getDpsInputs()[1],
                       linalgOp.getDpsInits()[0],
                       {},
                       {},
                       {}};
  r.xt = dyn_cast<RankedTensorType>(r.x.getType());
  r.wt = dyn_cast<RankedTensorType>(r.w.getType());
  r.yt = dyn_cast<RankedTensorType>(r.init.getType());
  if (!r.xt || !r.wt || !r.yt || !r.xt.hasStaticShape() ||
      !r.wt.hasStaticShape() || !r.yt.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "needs static tensors");
  return r;
}

void nki::populateDecomposeConvPatterns(RewritePatternSet &patterns,
                                        bool poolOnChip) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<DecomposePoolOp<linalg::PoolingNcwMaxOp, true>,
               DecomposePoolOp<linalg::PoolingNchwMaxOp, true>,
               DecomposePoolOp<linalg::PoolingNcwSumOp, false>,
               DecomposePoolOp<linalg::PoolingNchwSumOp, false>>(ctx,
                                                                 poolOnChip);
  patterns.add<
      DecomposeConvOp<linalg::Conv1DNcwFcwOp, Layout::Plain>,
      DecomposeConvOp<linalg::Conv2DNchwFchwOp, Layout::Plain>,
      DecomposeConvOp<linalg::Conv3DNcdhwFcdhwOp, Layout::Plain>,
      DecomposeConvOp<linalg::Conv2DNgchwGfchwOp, Layout::Grouped>,
      DecomposeConvOp<linalg::DepthwiseConv1DNcwCwOp, Layout::Depthwise>,
      DecomposeConvOp<linalg::DepthwiseConv2DNchwChwOp, Layout::Depthwise>,
      DecomposeConvOp<linalg::DepthwiseConv3DNcdhwCdhwOp, Layout::Depthwise>>(
      ctx);
}

LogicalResult nki::decomposeConvolutions(Operation *root, bool implicitGemm) {
  RewritePatternSet patterns(root->getContext());
  if (implicitGemm) {
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(root);
    if (failed(target))
      return failure();
    nki::populateConvToImplicitGemmPatterns(patterns, **target);
  }
  populateDecomposeConvPatterns(patterns, /*poolOnChip=*/implicitGemm);
  if (failed(applyPatternsGreedily(root, std::move(patterns))))
    return failure();
  bool ok = true;
  root->walk([&](linalg::ConvolutionOpInterface op) {
    if (implicitGemm &&
        ((llvm::isa<linalg::PoolingNchwMaxOp>(op) &&
          poolsOnChip(cast<linalg::PoolingNchwMaxOp>(op), true)) ||
         (llvm::isa<linalg::PoolingNchwSumOp>(op) &&
          poolsOnChip(cast<linalg::PoolingNchwSumOp>(op), false))))
      return;
    op->emitOpError("is not supported by the nki compiler: supported "
                    "convolutions are the NC-first (ncw, nchw, ncdhw) "
                    "forms, grouped ngchw_gfchw and depthwise, and pooling "
                    "ncw/nchw max and sum, on static shapes");
    ok = false;
  });
  return success(ok);
}
