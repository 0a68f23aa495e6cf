//===- ChannelGeneric.cpp - Elementwise ops on SBUF-resident tensors ------===//
//
// An elementwise generic over [N, C, H, W] whose operands are whole tensors
// of that shape, per-channel values ([C, 1, 1], [N, C, 1, 1]) or scalars,
// with the channels on the partitions: the layout of the tensors kept in
// SBUF between convolutions (Residents.h), so that a BatchNormalization +
// activation the convolution could not absorb (after a depthwise
// convolution split into channel blocks, a squeeze-and-excitation scale)
// reads and writes them in place.
//
//   for image n, block of 128 channels, chunk of whole rows (<= free chunk):
//     resident operands: views of their SBUF tiles; others: one DMA each
//     per-channel operands: one [P, 1] column per image and block
//     the body, one instruction per op; the result into the output's tile
//     (the last instruction writes there) or stored by DMA
//
//===----------------------------------------------------------------------===//

#include "Access.h"
#include "BodyLowering.h"
#include "Kernels.h"
#include "Match.h"
#include "Residents.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
enum class Kind { Scalar, Column, Full };

/// How each operand of `op` (a generic over [N, C, H, W]) varies: not at
/// all, per channel (and image), or fully with contiguous rows; nothing
/// when one does otherwise.
std::optional<SmallVector<Kind>> classify(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumLoops() != 4)
    return std::nullopt;
  // Elementwise, or reducing H and W into [N, C] (global pooling).
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  bool reduces = op.getNumReductionLoops() != 0;
  if (reduces && (op.getNumReductionLoops() != 2 ||
                  iters[2] != utils::IteratorType::reduction ||
                  iters[3] != utils::IteratorType::reduction))
    return std::nullopt;
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out || !out.hasStaticShape() ||
      (reduces ? outMap.getNumResults() == 0 || outMap.isFunctionOfDim(2) ||
                     outMap.isFunctionOfDim(3)
               : !outMap.isIdentity()))
    return std::nullopt;
  // The [N, C, H, W] space; rows must fit a chunk.
  SmallVector<int64_t> space = op.getStaticLoopRanges();
  if (space[3] > 2048)
    return std::nullopt;
  SmallVector<Kind> kinds;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (!operand.get().getDefiningOp<arith::ConstantOp>())
        return std::nullopt;
      kinds.push_back(Kind::Scalar);
      continue;
    }
    SmallVector<int64_t> memStrides;
    int64_t offset;
    if (failed(getStaticLayout(type, memStrides, offset)))
      return std::nullopt;
    int64_t strides[4] = {0, 0, 0, 0};
    for (auto [r, e] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        strides[d.getPosition()] += memStrides[r];
      else if (!llvm::isa<AffineConstantExpr>(e))
        return std::nullopt;
    }
    if (strides[2] == 0 && strides[3] == 0)
      kinds.push_back(Kind::Column);
    else if (strides[3] == 1 && strides[2] == space[3] && strides[1] != 0)
      kinds.push_back(Kind::Full);
    else
      return std::nullopt;
  }
  return kinds;
}
} // namespace

namespace {
/// The kernel's view of `op`: [N, C, H, W] and each operand's access in it.
struct Space {
  int64_t n = 0, c = 0, h = 0, w = 0;
  SmallVector<Access> operands;
  SmallVector<Kind> kinds;
};

/// A global pooling as the ONNX importer writes it: a reduction over
/// [N * C, H * W] (parallel, reduction) whose inputs are collapse_shape
/// [[0, 1], [2, 3]] views of one [N, C, H, W] shape (or scalars) and whose
/// output is [N * C]. Seen as the [N, C, H, W] reduction it is.
std::optional<Space> collapsedPooling(linalg::GenericOp op) {
  if (op.getNumLoops() != 2 || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getIteratorTypesArray()[1] != utils::IteratorType::reduction)
    return std::nullopt;
  Space s;
  MLIRContext *ctx = op.getContext();
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    Access a;
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type) {
      auto cst = v.getDefiningOp<arith::ConstantOp>();
      auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
      if (!f)
        return std::nullopt;
      a.elementType = v.getType();
      a.scalar = f.getValueAsDouble();
      a.strides.assign(4, 0);
      s.operands.push_back(a);
      s.kinds.push_back(Kind::Scalar);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> strides;
    if (op.isDpsInit(&operand)) {
      if (map != AffineMap::getMultiDimMapWithTargets(2, {0}, ctx) ||
          failed(getStaticLayout(type, strides, a.offset)))
        return std::nullopt;
      a.buffer = v;
      a.elementType = type.getElementType();
      s.operands.push_back(a);
      s.kinds.push_back(Kind::Column);
      continue;
    }
    auto collapse = v.getDefiningOp<memref::CollapseShapeOp>();
    SmallVector<ReassociationIndices> groups = {{0, 1}, {2, 3}};
    if (!map.isIdentity() || !collapse ||
        collapse.getReassociationIndices() != groups ||
        failed(getStaticLayout(collapse.getSrcType(), strides, a.offset)))
      return std::nullopt;
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    if (s.c && (shape[0] != s.n || shape[1] != s.c || shape[2] != s.h ||
                shape[3] != s.w))
      return std::nullopt;
    s.n = shape[0];
    s.c = shape[1];
    s.h = shape[2];
    s.w = shape[3];
    if (strides[3] != 1 || strides[2] != s.w || s.w > 2048)
      return std::nullopt;
    a.buffer = collapse.getSrc();
    a.elementType = type.getElementType();
    a.strides = strides;
    s.operands.push_back(a);
    s.kinds.push_back(Kind::Full);
  }
  if (!s.c)
    return std::nullopt;
  // The output [N * C] is per channel and image of the 4-D space.
  Access &out = s.operands.back();
  SmallVector<int64_t> outStrides;
  int64_t offset;
  (void)getStaticLayout(cast<MemRefType>(out.buffer.getType()), outStrides,
                        offset);
  out.strides = {s.c * outStrides[0], outStrides[0], 0, 0};
  return s;
}

/// The space of either form.
std::optional<Space> spaceOf(linalg::GenericOp op) {
  if (std::optional<SmallVector<Kind>> kinds = classify(op)) {
    Space s;
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    s.n = r[0];
    s.c = r[1];
    s.h = r[2];
    s.w = r[3];
    s.kinds = *kinds;
    for (OpOperand &operand : op->getOpOperands()) {
      FailureOr<Access> a = analyzeOperand(op, operand);
      if (failed(a))
        return std::nullopt;
      s.operands.push_back(*a);
    }
    return s;
  }
  return collapsedPooling(op);
}
} // namespace

bool tiling::isChannelGeneric(linalg::GenericOp op) {
  return classify(op).has_value() || collapsedPooling(op).has_value();
}

/// The combiner's identity of a reduction body `out = combine(out, expr)`.
static std::optional<double> reductionIdentity(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  Value result = body.getTerminator()->getOperand(0);
  Operation *combine = result.getDefiningOp();
  Value out = body.getArgument(op.getNumDpsInputs());
  if (!combine || combine->getNumOperands() != 2 ||
      !llvm::is_contained(combine->getOperands(), out))
    return std::nullopt;
  StringRef name = aluNameOf(combine);
  if (name == "add")
    return 0.0;
  if (name == "max")
    return -std::numeric_limits<double>::infinity();
  if (name == "min")
    return std::numeric_limits<double>::infinity();
  return std::nullopt;
}

linalg::FillOp tiling::poolingInit(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0 || !spaceOf(op))
    return {};
  std::optional<double> identity = reductionIdentity(op);
  return identity ? findFill(op.getDpsInits()[0], op, *identity)
                  : linalg::FillOp();
}

/// Whether operand `i` of `op` (a generic over [N, C, H, W] that classify()
/// takes) indexes its buffer as the loops run: its dimension r is loop r, or
/// a constant where the loop is a single image or channel, or a row or
/// column (a per-channel operand). The kernel reads a resident tensor at the
/// loops' (n, c): one read through a transposing map ([C, N, H, W] read as
/// [N, C, H, W]) must come from HBM, where its strides are honoured.
static bool indexesInPlace(linalg::GenericOp op, unsigned i) {
  AffineMap map = op.getMatchingIndexingMap(&op->getOpOperand(i));
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  for (auto [r, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() != r)
        return false;
    } else if (r < 2 && loops[r] != 1) {
      return false;
    }
  }
  return true;
}

SmallVector<std::pair<Value, bool>>
tiling::channelTensors(linalg::GenericOp op) {
  SmallVector<std::pair<Value, bool>> tensors;
  std::optional<Space> s = spaceOf(op);
  if (!s)
    return tensors;
  bool reduces = op.getNumReductionLoops() != 0;
  // Buffers some operand does not index in place go from and to HBM, for
  // every operand that names them (a collapsedPooling's maps are checked
  // there).
  llvm::SmallDenseSet<Value, 4> viaHbm;
  if (classify(op))
    for (auto [i, a] : llvm::enumerate(s->operands))
      if (a.buffer && !indexesInPlace(op, unsigned(i)))
        viaHbm.insert(viewRoot(a.buffer));
  for (auto [i, a] : llvm::enumerate(s->operands)) {
    if (a.buffer && viaHbm.contains(viewRoot(a.buffer)))
      continue;
    bool init = i + 1 == s->operands.size();
    bool read = !init || !op.getRegion().front().getArgument(i).use_empty();
    if (s->kinds[i] == Kind::Column && a.buffer && !init) {
      tensors.push_back({a.buffer, false}); // per-channel, [N, C, 1, 1]
      continue;
    }
    if (init && reduces) {
      if (poolingInit(op))
        tensors.push_back({a.buffer, true});
      continue;
    }
    if (s->kinds[i] != Kind::Full)
      continue;
    if (read)
      tensors.push_back({a.buffer, false});
    if (init)
      tensors.push_back({a.buffer, true});
  }
  return tensors;
}

/// The per-channel operand `a` of image n, channels [c0, c0 + cs), as a
/// [cs, 1] tile; with `images` > 1 (then from image 0: every image of the
/// tensor), the [cs, images] columns of them all. A view of it in SBUF
/// when it is kept there, else loaded by DMA.
static Value loadColumn(OpBuilder &b, Location loc, const Access &a, int64_t n,
                        int64_t c0, int64_t cs, const Residents *residents,
                        int64_t images = 1) {
  if (std::optional<ResidentRef> r =
          residents && a.buffer ? residents->lookup(a.buffer) : std::nullopt)
    return images == 1
               ? residents->view(b, loc, *r, n, c0, cs, 0, 1, 1, 0, 1, 1)
               : residents->imageColumns(b, loc, *r, c0, cs);
  Value column = allocTile(b, loc, {cs, images}, a.elementType);
  tile::DmaOp::create(
      b, loc,
      hbmView(
          b, loc, a.buffer,
          indexConst(b, loc, a.offset + n * a.strides[0] + c0 * a.strides[1]),
          {cs, images}, {a.strides[1], images == 1 ? 1 : a.strides[0]}),
      column);
  return column;
}

/// The SBUF view of channels [c0, c0 + cs) of images [n, n + images) of a
/// per-channel operand `a` ([N, C, 1, 1], or a global pooling's [N * C])
/// when it is kept there and the images are one view's columns, else null.
static Value residentColumns(OpBuilder &b, Location loc, const Access &a,
                             int64_t n, int64_t c0, int64_t cs,
                             const Residents *residents, int64_t images) {
  std::optional<ResidentRef> r =
      residents && a.buffer ? residents->lookup(a.buffer) : std::nullopt;
  if (!r)
    return {};
  if (images == 1)
    return residents->view(b, loc, *r, n, c0, cs, 0, 1, 1, 0, 1, 1);
  if (n + images > r->tensor->n - r->n)
    return {};
  return tileSlice(b, loc, residents->imageColumns(b, loc, *r, c0, cs), 0, cs,
                   n, images);
}

/// The [cs, images] columns `columns` as channels [c0, c0 + cs) of images
/// [n, n + images) of a per-channel operand `a`: into its SBUF tile when it
/// is kept there, else stored by DMA.
static void storeColumn(OpBuilder &b, Location loc, const Access &a,
                        Value columns, int64_t n, int64_t c0, int64_t cs,
                        const Residents *residents, int64_t images = 1) {
  if (Value view = residentColumns(b, loc, a, n, c0, cs, residents, images)) {
    tile::CopyOp::create(b, loc, columns, view);
    return;
  }
  if (std::optional<ResidentRef> r =
          residents && a.buffer ? residents->lookup(a.buffer) : std::nullopt) {
    for (int64_t i = 0; i < images; ++i)
      tile::CopyOp::create(
          b, loc, tileSlice(b, loc, columns, 0, cs, i, 1),
          residents->view(b, loc, *r, n + i, c0, cs, 0, 1, 1, 0, 1, 1));
    return;
  }
  tile::DmaOp::create(
      b, loc, columns,
      hbmView(
          b, loc, a.buffer,
          indexConst(b, loc, a.offset + n * a.strides[0] + c0 * a.strides[1]),
          {cs, images}, {a.strides[1], images == 1 ? 1 : a.strides[0]}));
}

std::optional<GlobalPoolSum> tiling::matchGlobalPoolSum(linalg::GenericOp op) {
  std::optional<Space> space = collapsedPooling(op);
  if (!space || space->operands.size() != 2 || space->kinds[0] != Kind::Full ||
      !cast<MemRefType>(space->operands[0].buffer.getType())
           .getElementType()
           .isF32())
    return std::nullopt;
  // out = out + x (or x / c, x * c: a mean), x the input element itself.
  Block &body = op.getRegion().front();
  Value result = body.getTerminator()->getOperand(0);
  Operation *combine = result.getDefiningOp();
  BlockArgument out = body.getArgument(1), x = body.getArgument(0);
  if (!combine || aluNameOf(combine) != "add" ||
      combine->getNumOperands() != 2 || !result.getType().isF32())
    return std::nullopt;
  ReductionBody reduction{"add", combine->getOperand(0) == out
                                     ? combine->getOperand(1)
                                     : combine->getOperand(0)};
  if (!llvm::is_contained(combine->getOperands(), out))
    return std::nullopt;
  std::optional<SumFactor> factor = sumFactor(reduction);
  if ((factor ? factor->of : reduction.expr) != x)
    return std::nullopt;
  linalg::FillOp fill = poolingInit(op);
  if (!fill)
    return std::nullopt;
  GlobalPoolSum pool;
  pool.op = op;
  pool.fill = fill;
  pool.source = space->operands[0].buffer;
  pool.out = space->operands[1];
  pool.factor = factor;
  return pool;
}

/// The f32 [cs, images] sums `sum` times `factor` (when there is one) as
/// channels [c0, c0 + cs) of images [n, n + images) of a pooling's result
/// `out`: kept in SBUF, the scaling writes its tile itself.
static void storeScaledSums(OpBuilder &b, Location loc, const Access &out,
                            const std::optional<SumFactor> &factor, Value sum,
                            int64_t n, int64_t images, int64_t c0, int64_t cs,
                            const Residents *residents) {
  if (factor)
    if (Value view =
            residentColumns(b, loc, out, n, c0, cs, residents, images)) {
      scaleBySumFactor(b, loc, sum, *factor, view);
      return;
    }
  if (factor)
    sum = scaleBySumFactor(b, loc, sum, *factor);
  storeColumn(b, loc, out, sum, n, c0, cs, residents, images);
}

void tiling::storePooledSum(OpBuilder &b, Location loc,
                            const GlobalPoolSum &pool, Value sum, int64_t n,
                            int64_t images, int64_t c0, int64_t cs,
                            const Residents *residents) {
  storeScaledSums(b, loc, pool.out, pool.factor, sum, n, images, c0, cs,
                  residents);
}

std::optional<ChannelScale> tiling::matchChannelScale(linalg::GenericOp op) {
  std::optional<SmallVector<Kind>> kinds = classify(op);
  if (!kinds || op.getNumReductionLoops() != 0)
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != &body ||
      !body.getArgument(op.getNumDpsInputs()).use_empty())
    return std::nullopt;
  // One full input, used once: as a factor of the yielded product.
  std::optional<unsigned> full;
  for (unsigned i = 0; i < op.getNumDpsInputs(); ++i)
    if ((*kinds)[i] == Kind::Full && !body.getArgument(i).use_empty()) {
      if (full)
        return std::nullopt;
      full = i;
    }
  if (!full)
    return std::nullopt;
  BlockArgument x = body.getArgument(*full);
  if (!x.hasOneUse() || (mul.getLhs() != x && mul.getRhs() != x))
    return std::nullopt;
  return ChannelScale{op, op.getDpsInputs()[*full],
                      mul.getLhs() == x ? mul.getRhs() : mul.getLhs()};
}

SmallVector<Value> tiling::channelScaleColumns(const ChannelScale &scale) {
  SmallVector<Value> columns;
  linalg::GenericOp op = scale.op;
  std::optional<Space> space = spaceOf(op);
  if (!space)
    return columns;
  for (auto [i, a] : llvm::enumerate(space->operands))
    if (space->kinds[i] == Kind::Column && a.buffer &&
        int64_t(i) < op.getNumDpsInputs())
      columns.push_back(a.buffer);
  return columns;
}

FailureOr<Value> tiling::channelScaleImages(OpBuilder &b, Location loc,
                                            const ChannelScale &scale,
                                            int64_t c0, int64_t cs,
                                            int64_t images,
                                            const Residents *residents) {
  linalg::GenericOp op = scale.op;
  std::optional<Space> space = spaceOf(op);
  if (!space)
    return failure();
  Block &body = op.getRegion().front();
  BodyLowering lowering(b, loc, cs, images);
  for (auto [i, a] : llvm::enumerate(space->operands)) {
    BlockArgument arg = body.getArgument(i);
    if (arg.use_empty() || space->kinds[i] == Kind::Full)
      continue;
    if (space->kinds[i] == Kind::Scalar) {
      lowering.bind(arg, {TileValue::Scalar, a.scalar, {}, a.elementType});
      continue;
    }
    if (a.strides[0] == 0 || images == 1) {
      lowering.bind(arg, {TileValue::Column, 0.0,
                          loadColumn(b, loc, a, 0, c0, cs, residents),
                          a.elementType});
      continue;
    }
    // Per image ([N, C, 1, 1]): every image's column, [cs, images].
    lowering.bind(arg, {TileValue::Full, 0.0,
                        loadColumn(b, loc, a, 0, c0, cs, residents, images),
                        a.elementType});
  }
  FailureOr<TileValue> factor = lowering.lower(scale.factor);
  if (failed(factor))
    return failure();
  if (images == 1)
    return lowering.materializeColumn(*factor, b.getF32Type());
  return lowering.materializeFull(*factor, b.getF32Type());
}

LogicalResult tiling::tileChannelGeneric(OpBuilder &b, linalg::GenericOp op,
                                         bool identityInit,
                                         const TileOptions &options) {
  Location loc = op.getLoc();
  std::optional<Space> space = spaceOf(op);
  if (!space)
    return op->emitOpError("is not an elementwise op or global pooling over "
                           "[N, C, H, W] with per-channel or row-major "
                           "operands");
  int64_t N = space->n, C = space->c, H = space->h, W = space->w;
  SmallVector<Access> &operands = space->operands;
  SmallVector<Kind> *kinds = &space->kinds;
  const Residents *residents = options.residents;
  auto residentOf = [&](const Access &a) -> std::optional<ResidentRef> {
    return residents && a.buffer ? residents->lookup(a.buffer) : std::nullopt;
  };
  Block &body = op.getRegion().front();
  unsigned outArg = op.getNumDpsInputs();
  // A reduction over H and W (into [N, C]): its body is out = combine(out,
  // expr); each chunk's expr is reduced along the free axis into a [P, 1]
  // column, the columns combined, and the output's initial value with them.
  // A mean's 1 / (H * W) scales the sum once (sumFactor); its chunks are
  // then summed by ACT identity passes, which read f32 at one element a
  // cycle where the DVE's reduce is slower (and the DVE also carries the
  // depthwise convolutions' PSUM adds).
  bool reduces = op.getNumReductionLoops() != 0;
  std::optional<ReductionBody> reduction;
  std::optional<SumFactor> factor;
  if (reduces) {
    FailureOr<ReductionBody> r = matchReductionBody(op, body, outArg);
    if (failed(r))
      return failure();
    reduction = *r;
    if ((factor = sumFactor(*reduction)))
      reduction->expr = factor->of;
  }
  const Access &out = operands.back();
  std::optional<ResidentRef> outRes = residentOf(out);
  int64_t P = options.partitions;
  int64_t chunkRows = std::clamp<int64_t>(options.freeChunk / W, 1, H);
  // A global pooling of small images kept in SBUF (the 7x7 maps before a
  // classifier): several images in one pass ([cs, images, H, W] views),
  // each image's sum a column of one reduce over the trailing axis, and
  // the mean's scaling and the store one instruction for them all, where
  // image by image each 49-element instruction pays the fixed cost.
  int64_t images = std::min<int64_t>(N, options.freeChunk / (H * W));
  bool batched = reduces && identityInit && images > 1 && chunkRows == H;
  for (auto [i, a] : llvm::enumerate(operands)) {
    if (!batched || body.getArgument(i).use_empty() || i == outArg)
      continue;
    if ((*kinds)[i] == Kind::Column)
      batched = a.strides[0] == 0; // the same for every image
    else if ((*kinds)[i] == Kind::Full)
      batched = residentOf(a).has_value();
  }
  if (batched) {
    for (int64_t n = 0; n < N; n += images)
      for (int64_t c0 = 0; c0 < C; c0 += P) {
        int64_t cs = std::min(P, C - c0), imgs = std::min(images, N - n);
        BodyLowering lowering(b, loc, cs, imgs * H * W);
        for (auto [i, a] : llvm::enumerate(operands)) {
          BlockArgument arg = body.getArgument(i);
          if (arg.use_empty() || i == outArg)
            continue;
          if ((*kinds)[i] == Kind::Scalar)
            lowering.bind(arg,
                          {TileValue::Scalar, a.scalar, {}, a.elementType});
          else if ((*kinds)[i] == Kind::Column)
            lowering.bind(arg, {TileValue::Column, 0.0,
                                loadColumn(b, loc, a, 0, c0, cs, residents),
                                a.elementType});
          else
            lowering.bind(arg, {TileValue::Full, 0.0,
                                residents->view(b, loc, *residentOf(a), n, c0,
                                                cs, 0, H, 1, 0, W, 1, imgs),
                                a.elementType});
        }
        FailureOr<TileValue> v = lowering.lower(reduction->expr);
        if (failed(v))
          return failure();
        Value full = lowering.materializeFull(*v, v->elementType);
        // [cs, imgs, H * W] (or the bound view: [cs, imgs, H, W], [cs, H,
        // W] for one image): one sum per image, over the axes after the
        // images'.
        auto fullType = cast<MemRefType>(full.getType());
        if (fullType.getRank() == 2)
          full = memref::ExpandShapeOp::create(
              b, loc,
              MemRefType::get({cs, imgs, H * W}, fullType.getElementType(),
                              MemRefLayoutAttrInterface(),
                              fullType.getMemorySpace()),
              full, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
        int64_t axes = fullType.getRank() == 2 ? 1 : 2;
        Value sums = allocTile(b, loc, {cs, imgs}, b.getF32Type());
        tile::ReduceOp::create(b, loc, b.getStringAttr(reduction->combine),
                               full, sums, b.getI64IntegerAttr(axes), Value());
        storeScaledSums(b, loc, out, factor, sums, n, imgs, c0, cs, residents);
      }
    return success();
  }
  // A channel scale of small images kept in SBUF (the 7 x 7 maps of
  // EfficientNet-B0's last blocks, when the convolution that reads them
  // does not absorb it: Match.h's findChannelScale): its factor for every
  // image at once (channelScaleImages, an instruction per op over [cs, N])
  // and one product a block over every image, the factor broadcast along
  // the pixels. Image by image, each op of the factor and each product of
  // 49 elements paid an instruction's fixed cost.
  if (!reduces && N > 1 && N * H * W <= options.freeChunk && outRes &&
      !outRes->tensor->packed)
    if (std::optional<ChannelScale> scale = matchChannelScale(op)) {
      unsigned xi = 0;
      while (op.getDpsInputs()[xi] != scale->source)
        ++xi;
      std::optional<ResidentRef> xRes = residentOf(operands[xi]);
      if (xRes && !xRes->tensor->packed) {
        for (int64_t c0 = 0; c0 < C; c0 += P) {
          int64_t cs = std::min(P, C - c0);
          FailureOr<Value> f =
              channelScaleImages(b, loc, *scale, c0, cs, N, residents);
          if (failed(f))
            return failure();
          Value broadcast =
              stridedView(b, loc, *f, {cs, N, H, W}, {N, 1, 0, 0}, 0);
          Value x =
              residents->view(b, loc, *xRes, 0, c0, cs, 0, H, 1, 0, W, 1, N);
          Value dst =
              residents->view(b, loc, *outRes, 0, c0, cs, 0, H, 1, 0, W, 1, N);
          tile::TensorTensorOp::create(b, loc, b.getStringAttr("mul"), x,
                                       broadcast, dst);
        }
        return success();
      }
    }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c0 = 0; c0 < C; c0 += P) {
      int64_t cs = std::min(P, C - c0);
      // Per-channel operands: one column per image and block.
      SmallVector<Value> columns(operands.size());
      for (auto [i, a] : llvm::enumerate(operands))
        if ((*kinds)[i] == Kind::Column && !body.getArgument(i).use_empty() &&
            !(reduces && i == outArg)) {
          columns[i] = loadColumn(b, loc, a, n, c0, cs, residents);
        }
      Value acc; // a reduction's [cs, 1] fp32 column so far
      for (int64_t r0 = 0; r0 < H; r0 += chunkRows) {
        int64_t rc = std::min(chunkRows, H - r0), cols = rc * W;
        auto fullView = [&](const Access &a) -> Value {
          if (std::optional<ResidentRef> r = residentOf(a))
            return residents->view(b, loc, *r, n, c0, cs, r0, rc, 1, 0, W, 1);
          return {};
        };
        auto hbmChunk = [&](const Access &a) {
          return hbmView(b, loc, a.buffer,
                         indexConst(b, loc,
                                    a.offset + n * a.strides[0] +
                                        c0 * a.strides[1] + r0 * a.strides[2]),
                         {cs, cols}, {a.strides[1], 1});
        };
        Value dst = outRes && !reduces ? fullView(out) : Value();
        BodyLowering lowering(b, loc, cs, cols);
        for (auto [i, a] : llvm::enumerate(operands)) {
          BlockArgument arg = body.getArgument(i);
          if (arg.use_empty() || (reduces && i == outArg))
            continue;
          if ((*kinds)[i] == Kind::Scalar) {
            lowering.bind(arg,
                          {TileValue::Scalar, a.scalar, {}, a.elementType});
            continue;
          }
          if ((*kinds)[i] == Kind::Column) {
            lowering.bind(arg,
                          {TileValue::Column, 0.0, columns[i], a.elementType});
            continue;
          }
          Value t = i == outArg && dst ? dst : fullView(a);
          if (!t) {
            t = allocTile(b, loc, {cs, cols}, a.elementType);
            tile::DmaOp::create(b, loc, hbmChunk(a), t);
          }
          lowering.bind(arg, {TileValue::Full, 0.0, t, a.elementType});
        }
        auto yield = cast<linalg::YieldOp>(body.getTerminator());
        if (reduces) {
          FailureOr<TileValue> v = lowering.lower(reduction->expr);
          FailureOr<Value> part =
              failed(v) ? FailureOr<Value>(failure())
                        : lowering.reduceRows(
                              reduction->combine, *v,
                              allocTile(b, loc, {cs, cols}, b.getF32Type()),
                              /*valueDies=*/true, /*eitherEngine=*/!factor);
          if (failed(part))
            return failure();
          if (acc)
            tile::TensorTensorOp::create(b, loc, reduction->combine, acc, *part,
                                         acc);
          else
            acc = *part;
          continue;
        }
        FailureOr<TileValue> r = lowering.lower(yield.getOperand(0));
        if (failed(r))
          return failure();
        Value t = lowering.materializeFull(*r, out.elementType);
        if (!dst) {
          tile::DmaOp::create(b, loc, t, hbmChunk(out));
          continue;
        }
        // The instruction that made a fresh tile writes the output's
        // instead (rounding to its type, when that is narrower, as a copy
        // would, if nothing else reads the fresh tile); a value that is an
        // operand's tile is copied.
        auto alloc = t.getDefiningOp<tile::AllocOp>();
        if (alloc && (t.hasOneUse() ||
                      cast<MemRefType>(t.getType()).getElementType() ==
                          cast<MemRefType>(dst.getType()).getElementType())) {
          t.replaceAllUsesWith(dst);
          alloc->erase();
        } else if (t != dst) {
          tile::CopyOp::create(b, loc, t, dst);
        }
      }
      if (!reduces)
        continue;
      if (factor)
        acc = scaleBySumFactor(b, loc, acc, *factor);
      // combine(initial value, reduction) as the [cs, 1] column of image n
      // (a per-channel output: strides 0 along H and W), in the output's
      // SBUF tile or stored; the reduction alone when the initial value is
      // the combiner's identity.
      if (identityInit) {
        storeColumn(b, loc, out, acc, n, c0, cs, residents);
        continue;
      }
      if (outRes) {
        Value dst =
            residents->view(b, loc, *outRes, n, c0, cs, 0, 1, 1, 0, 1, 1);
        tile::TensorTensorOp::create(b, loc, reduction->combine, dst, acc, dst);
        continue;
      }
      Value column = hbmView(
          b, loc, out.buffer,
          indexConst(b, loc,
                     out.offset + n * out.strides[0] + c0 * out.strides[1]),
          {cs, 1}, {out.strides[1], 1});
      Value old = allocTile(b, loc, {cs, 1}, out.elementType);
      tile::DmaOp::create(b, loc, column, old);
      Value result = allocTile(b, loc, {cs, 1}, out.elementType);
      tile::TensorTensorOp::create(b, loc, reduction->combine, old, acc,
                                   result);
      tile::DmaOp::create(b, loc, result, column);
    }
  return success();
}
