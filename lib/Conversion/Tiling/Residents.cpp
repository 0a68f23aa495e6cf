//===- Residents.cpp - Tensors kept in SBUF between kernels ---------------===//
//
// The plan: every HBM allocation [N, C, H, W] is a candidate when each of
// its uses is a kernel that can work on an SBUF-resident tensor (a
// convolution's or pooling's input or output, an operand of a
// convolution's fused epilogue, a [N, C, H, W] operand of a channel-major
// elementwise op or global pooling, an upsample's input or output, a
// concat part's copy) through a unit-stride view; one other
// use (another elementwise kernel, a matmul, a copy, a result) keeps it in
// HBM. Its
// live range runs over the positions of those kernels; a kernel's capacity
// is the SBUF its own tiles leave, estimated the way the kernel sizes
// them.
//
//===----------------------------------------------------------------------===//

#include "Residents.h"

#include "../Common/ResidentLimits.h"
#include "../Conv/ConvGeneric.h"
#include "Match.h"
#include "PhasePartner.h"
#include "TileUtils.h"
#include "WindowInput.h"

#include "nki/Analysis/Residency.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
using resident::kKernelScratchBytes;

/// The [N, C, H, W] an identity-layout HBM allocation holds, if it may
/// become resident: a 4-D one, a 2-D [N, C] one (a global pooling's result
/// that a classifier's matmul reads), or a 1-D one of N * C elements that
/// is read as [N, C, 1, 1] through an expand_shape (a global pooling's
/// result as the importer writes it, then the input of a
/// squeeze-and-excitation's first convolution).
std::optional<std::array<int64_t, 4>> shapeOf(Value root) {
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return std::nullopt;
  MemRefType t = alloc.getType();
  if (!t.hasStaticShape() || !t.getLayout().isIdentity())
    return std::nullopt;
  ArrayRef<int64_t> s = t.getShape();
  if (t.getRank() == 4)
    return std::array<int64_t, 4>{s[0], s[1], s[2], s[3]};
  if (t.getRank() == 2)
    return std::array<int64_t, 4>{s[0], s[1], 1, 1};
  if (t.getRank() != 1)
    return std::nullopt;
  for (Operation *user : root.getUsers())
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      ArrayRef<int64_t> e = expand.getResultType().getShape();
      if (e.size() == 4 && e[2] == 1 && e[3] == 1)
        return std::array<int64_t, 4>{e[0], e[1], 1, 1};
    }
  return std::nullopt;
}

bool isCandidateRoot(Value root) { return shapeOf(root).has_value(); }

/// Where a view starts in its root's [N, C, H, W] coordinates, and the
/// steps between its rows and columns.
struct Start {
  std::array<int64_t, 4> at{};
  int64_t rowStep = 1, colStep = 1;
  bool stepped() const { return rowStep != 1 || colStep != 1; }
};

/// Where `v` (`root` or a view of it) starts, when it is the root or a 4-D
/// view, unit-stride but for its rows and columns.
std::optional<Start> startOf(Value v, Value root) {
  if (v == root)
    return Start{};
  auto type = cast<MemRefType>(v.getType());
  std::optional<std::array<int64_t, 4>> shape = shapeOf(root);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!shape || type.getRank() != 4 || !type.hasStaticShape() ||
      failed(tile::getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  ArrayRef<int64_t> s = *shape;
  int64_t rowMajor[4] = {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  Start start;
  if (type.getDimSize(2) > 1 && strides[2] % rowMajor[2] == 0)
    start.rowStep = strides[2] / rowMajor[2];
  if (type.getDimSize(3) > 1)
    start.colStep = strides[3];
  int64_t steps[4] = {1, 1, start.rowStep, start.colStep};
  for (int d = 0; d < 4; ++d)
    if (strides[d] != rowMajor[d] * steps[d] && type.getDimSize(d) > 1)
      return std::nullopt;
  if (start.rowStep < 1 || start.colStep < 1)
    return std::nullopt;
  for (int d = 0; d < 4; ++d) {
    start.at[d] = offset / rowMajor[d];
    offset %= rowMajor[d];
  }
  // A window of the root: its last row, column, ... within the root's. A
  // reshape's strides can match the root's where a size-1 dimension hides
  // the difference ([1, 8, 14, 1] seen as [1, 8, 1, 14]); its extents
  // cannot.
  for (int d = 0; d < 4; ++d)
    if (start.at[d] + (type.getDimSize(d) - 1) * steps[d] >= s[d])
      return std::nullopt;
  return start;
}

/// What the plan knows of one candidate.
struct Candidate {
  bool ok = true;
  int64_t first = INT64_MAX, last = -1, writes = 0, reads = 0;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  std::optional<double> padValue;
  /// Every read is a convolution that multiplies in this type (bf16 under
  /// auto-cast), or a max pooling, upsample or copy whose result is only
  /// read so (`through`): the tensor is kept in it (narrowTypes).
  std::optional<Type> convReadType;
  bool otherReads = false;
  /// A kernel writes it through a view with row or column steps (a phase
  /// of a transposed convolution).
  bool steppedWrites = false;
  /// The results of reads that commute with rounding to a narrower type
  /// (a max of rounded values is the rounded max; a copy moves them).
  SmallVector<Value> through;
  /// Reads as a convolution's input (the last such convolution), and
  /// writes as a convolution's result or its fused pooling's: a tensor one
  /// of each touches may be packed for its reader (Residents::packable).
  Operation *convReader = nullptr, *convWriter = nullptr;
  int64_t convReads = 0, convWrites = 0;
  /// Reads by its writer's kernel for a fused max pooling, which that
  /// kernel only makes when it cannot pool its own chunks.
  int64_t poolRereads = 0;
};

struct Planner {
  ArrayRef<Operation *> ops;
  const DenseSet<Operation *> &absorbed;
  const isa::TargetDesc &target;
  const DenseMap<Operation *, FusedPool> &fusedPools;
  const DenseMap<Operation *, FusedGlobalPool> &globalPools;
  const DenseMap<Operation *, ChainedConv> &chainedConvs;
  const DenseMap<Operation *, PhaseScatter> &phaseScatters;
  const DenseMap<Operation *, PartnerConv> &partnerConvs;
  const DenseMap<Operation *, PhasePartner> &phasePartners;
  int64_t sbufBytes, partitions;
  llvm::MapVector<Value, Candidate> candidates;
  std::vector<int64_t> capacity;
  DenseMap<Operation *, int64_t> kernelPos; // op -> where its code lands
  /// The first op of the kernel at a position (a convolution before its
  /// epilogue), where the code before the kernel goes.
  DenseMap<Operation *, Operation *> anchor;
  /// Convolutions that read one constant filter alike (its global, view
  /// and the geometry that shapes its tiles), the candidates for
  /// Residents::SharedFilter.
  using FilterKey = std::tuple<const void *, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, const void *>;
  struct FilterReaders {
    SmallVector<Operation *> convs;
    int64_t first = 0, last = 0; // kernel positions
    int64_t bytes = 0;           // a partition's, loaded whole
    int64_t hbmBytes = 0;        // one load's
  };
  llvm::MapVector<FilterKey, FilterReaders> filterReaders; // program order

  Planner(ArrayRef<Operation *> ops, const DenseSet<Operation *> &absorbed,
          const isa::TargetDesc &target,
          const DenseMap<Operation *, FusedPool> &fusedPools,
          const DenseMap<Operation *, FusedGlobalPool> &globalPools,
          const DenseMap<Operation *, ChainedConv> &chainedConvs,
          const DenseMap<Operation *, PhaseScatter> &phaseScatters,
          const DenseMap<Operation *, PartnerConv> &partnerConvs,
          const DenseMap<Operation *, PhasePartner> &phasePartners)
      : ops(ops), absorbed(absorbed), target(target), fusedPools(fusedPools),
        globalPools(globalPools), chainedConvs(chainedConvs),
        phaseScatters(phaseScatters), partnerConvs(partnerConvs),
        phasePartners(phasePartners), sbufBytes(target.sbufBytesPerPartition),
        partitions(target.numPartitions), capacity(ops.size(), sbufBytes) {}

  Candidate *at(Value v) {
    Value root = viewRoot(v);
    if (!isCandidateRoot(root))
      return nullptr;
    return &candidates[root];
  }
  /// A use the plan does not handle: the tensor stays in HBM, and its
  /// value is read as it is (no narrower type).
  void reject(Value v) {
    if (Candidate *c = at(v)) {
      c->ok = false;
      c->otherReads = true;
    }
  }
  /// A use by a kernel at `pos`; `pad` for a padded windowed read. `byDma`:
  /// only DMAs touch the view (no start-partition rule). A read by a
  /// convolution multiplying in `convType`, or one whose result `through`
  /// is a max, upsample or copy of it. `stepped`: the kernel takes a view
  /// with row and column steps.
  void use(Value v, int64_t pos, bool write, const ConvPadding *pad = nullptr,
           std::optional<Type> convType = std::nullopt, bool byDma = false,
           Value through = {}, bool stepped = false) {
    Candidate *c = at(v);
    if (!c)
      return;
    if (!write) {
      if (convType && (!c->convReadType || *c->convReadType == *convType))
        c->convReadType = *convType;
      else if (through && isCandidateRoot(viewRoot(through)))
        c->through.push_back(viewRoot(through));
      else
        c->otherReads = true;
    }
    Value root = viewRoot(v);
    std::optional<Start> start = startOf(v, root);
    if (!start || (start->stepped() && !stepped)) {
      c->ok = false;
      return;
    }
    int64_t cs = v == root ? (*shapeOf(root))[1]
                           : cast<MemRefType>(v.getType()).getDimSize(1);
    int64_t p0 = start->at[1] % partitions;
    // Channel blocks of the view start at partition p0: the engines'
    // start-partition rule.
    bool partitionsOk =
        p0 == 0 || byDma ||
        (p0 + cs <= partitions && target.computeTileStartOk(p0, cs));
    if (!partitionsOk) {
      c->ok = false;
      return;
    }
    c->steppedWrites |= write && start->stepped();
    c->first = std::min(c->first, pos);
    c->last = std::max(c->last, pos);
    (write ? c->writes : c->reads) += 1;
    if (!pad)
      return;
    if (c->padValue && *c->padValue != pad->value) {
      c->ok = false;
      return;
    }
    c->padValue = pad->value;
    c->top = std::max(c->top, pad->top);
    c->left = std::max(c->left, pad->left);
  }
  void padBelow(Value v, int64_t bottom, int64_t right) {
    if (Candidate *c = at(v)) {
      c->bottom = std::max(c->bottom, bottom);
      c->right = std::max(c->right, right);
    }
  }

  /// The padding's bottom and right border (ConvPadding names top and left).
  void recordPadding(Value x, const ConvPadding &pad) {
    auto padded = cast<MemRefType>(x.getType());
    padBelow(pad.source, padded.getDimSize(2) - pad.top - pad.height,
             padded.getDimSize(3) - pad.left - pad.width);
  }

  /// `op`'s filter when it is a row-major view of a constant ([C, KH, KW,
  /// F], the channels' stride free), read by its kernel at `kpos` into
  /// tiles of `bytes` a partition.
  void recordFilter(linalg::GenericOp op, const conv::ConvGeneric &g,
                    int64_t kpos, int64_t bytes) {
    Value w = op.getDpsInputs()[1];
    auto global = viewRoot(w).getDefiningOp<memref::GetGlobalOp>();
    auto type = cast<MemRefType>(w.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!global || type.getRank() != 4 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) || ShapedType::isDynamic(strides[0]) ||
        strides[3] != 1 || strides[2] != g.f || strides[1] != g.kw * g.f)
      return;
    FilterKey key{global.getNameAttr().getAsOpaquePointer(),
                  offset,
                  strides[0],
                  g.c,
                  g.kh,
                  g.kw,
                  g.f,
                  g.filterType.getAsOpaquePointer()};
    auto [it, fresh] = filterReaders.try_emplace(key);
    FilterReaders &r = it->second;
    if (fresh) {
      r.first = r.last = kpos;
      r.bytes = bytes;
      r.hbmBytes =
          g.c * g.kh * g.kw * g.f * tile::storageBytes(type.getElementType());
    }
    r.convs.push_back(op);
    r.first = std::min(r.first, kpos);
    r.last = std::max(r.last, kpos);
  }

  void visitConv(linalg::GenericOp op, const conv::ConvGeneric &g, int64_t pos,
                 DenseSet<Operation *> &fused) {
    Value x = op.getDpsInputs()[0], y = op.getDpsInits()[0];
    SmallVector<Operation *> padOps;
    std::optional<ConvPadding> pad = findConvPadding(x, op, padOps);
    linalg::FillOp fill = findZeroFill(y, op);
    linalg::GenericOp epilogue =
        findEpilogue(cast<linalg::LinalgOp>(op.getOperation()), fill);
    int64_t kpos = pos;
    if (epilogue) {
      fused.insert(epilogue);
      kpos = llvm::find(ops, epilogue.getOperation()) - ops.begin();
    }
    // A chained 1x1 convolution (absorbed): the kernel runs where it ends.
    std::optional<ChainedConv> chain;
    if (auto it = chainedConvs.find(op); it != chainedConvs.end())
      chain = it->second;
    if (chain)
      kpos = llvm::find(ops, chain->epilogue ? chain->epilogue.getOperation()
                                             : chain->op.getOperation()) -
             ops.begin();
    // A phase scatter: the kernel runs where the last copy was.
    const PhaseScatter *scatter = nullptr;
    if (auto it = phaseScatters.find(op); it != phaseScatters.end()) {
      scatter = &it->second;
      kpos = llvm::find(ops, scatter->last) - ops.begin();
    }
    kernelPos[op] = kpos;
    anchor[ops[kpos]] = op;
    Value in = pad ? pad->source : x;
    // An absorbed channel scale: the kernel reads its source, and its
    // per-channel operands by DMA.
    if (std::optional<ChannelScale> scale = findChannelScale(x, op);
        scale && absorbed.contains(scale->op)) {
      in = scale->source;
      SmallVector<Value> columns = channelScaleColumns(*scale);
      for (Value v : scale->op.getDpsInputs()) {
        if (v == in || !llvm::isa<MemRefType>(v.getType()))
          continue;
        if (llvm::is_contained(columns, v))
          use(v, kpos, false); // [N, C, 1, 1], read per image and block
        else
          reject(v);
      }
    }
    use(in, kpos, false, pad ? &*pad : nullptr, g.inputType);
    if (Candidate *c = at(in)) {
      c->convReader = op;
      ++c->convReads;
    }
    if (pad)
      recordPadding(x, *pad);
    reject(op.getDpsInputs()[1]); // the filter
    Value out = y;
    if (epilogue) {
      out = epilogue.getDpsInits()[0];
      for (OpOperand *in : epilogue.getDpsInputOperands()) {
        if (in->get() == y || !llvm::isa<MemRefType>(in->get().getType()))
          continue;
        // Residual operands are read element for element.
        if (epilogue.getMatchingIndexingMap(in).isIdentity() &&
            cast<MemRefType>(in->get().getType()).getShape() ==
                cast<MemRefType>(out.getType()).getShape())
          use(in->get(), kpos, false);
        else
          reject(in->get());
      }
    } else if (!fill && !partnerConvs.contains(op)) {
      use(y, kpos, false); // the old output is added
    }
    // A partner 1x1 convolution (absorbed): its input is read here, pixel
    // by pixel (never from a packed tile: no conv read is counted), and its
    // filter's blocks and bands join the kernel's.
    int64_t partnerBytes = 0;
    if (auto it = partnerConvs.find(op); it != partnerConvs.end()) {
      PartnerConv p = it->second;
      use(p.op.getDpsInputs()[0], kpos, false, nullptr, p.g.inputType);
      reject(p.op.getDpsInputs()[1]);
      int64_t blocks = (p.g.c + partitions - 1) / partitions;
      partnerBytes = blocks * p.g.f * tile::storageBytes(p.g.filterType) +
                     2 * blocks * p.g.w * tile::storageBytes(p.g.inputType);
    }
    // Upsampled phases (absorbed): their input is read here, padded as
    // the phases read it (never from a packed tile), and their filters and
    // a few rows of their input on all partitions join the kernel's.
    if (auto it = phasePartners.find(op); it != phasePartners.end()) {
      const PhasePartner &p = it->second;
      ConvPadding pad{p.x, p.top, p.left, p.h, p.w, 0.0};
      use(p.x, kpos, false, &pad, p.inputType);
      padBelow(p.x, p.bottom, p.right);
      int64_t kw = 0;
      for (const PhasePartner::Phase &ph : p.phases) {
        reject(linalg::GenericOp(ph.op).getDpsInputs()[1]);
        kw += ph.g.kw;
      }
      int64_t width = p.left + p.w + p.right;
      partnerBytes += kw * partitions * tile::storageBytes(p.filterType) +
                      2 * 16 * width * tile::storageBytes(p.inputType);
    }
    if (chain) {
      // The result in between is never stored; the 1x1's result is
      // written here, its epilogue's other operands read from HBM.
      reject(out);
      reject(chain->op.getDpsInputs()[1]); // its filter
      Value product = chain->op.getDpsInits()[0];
      Value result = product;
      if (chain->epilogue) {
        result = chain->epilogue.getDpsInits()[0];
        for (Value v : chain->epilogue.getDpsInputs())
          if (v != product)
            reject(v);
      }
      use(result, kpos, true);
    } else if (scatter) {
      // The result is never written; its blocks go to the copies' targets
      // (phases: views with row and column steps).
      reject(out);
      for (const PhaseScatter::Piece &p : scatter->pieces)
        use(p.target, kpos, true, nullptr, std::nullopt, false, {},
            /*stepped=*/true);
    } else {
      // The output may be one phase of a transposed convolution's result.
      use(out, kpos, true, nullptr, std::nullopt, false, {},
          /*stepped=*/true);
      if (Candidate *c = at(out)) {
        c->convWriter = op;
        ++c->convWrites;
      }
    }
    // A max pooling the kernel computes too.
    if (auto it = fusedPools.find(op); it != fusedPools.end()) {
      linalg::PoolingNchwMaxOp pool = it->second.op;
      fused.insert(pool);
      // A result nothing else reads is not stored (in HBM when the
      // pooling's own kernel has to read it after all).
      if (it->second.resultUnread) {
        reject(out);
      } else {
        use(out, kpos, false);
        if (Candidate *c = at(out))
          ++c->poolRereads;
      }
      use(pool.getDpsInits()[0], kpos, true);
      if (Candidate *c = at(pool.getDpsInits()[0])) {
        c->convWriter = op;
        ++c->convWrites;
      }
    }
    // A global pooling of the result it computes too: its result is
    // written here.
    if (auto it = globalPools.find(op); it != globalPools.end())
      use(it->second.pool->out.buffer, kpos, true);
    if (Candidate *c = at(in); c && viewRoot(in) == viewRoot(out))
      c->ok = false; // the kernel would overwrite rows it still reads
    // Filter, two bands of the fewest rows and scratch, twice over (the
    // kernel budgets bands against half of what it is given).
    int64_t cBlocks = (g.c + partitions - 1) / partitions;
    int64_t filter =
        cBlocks * g.kh * g.kw * g.f * tile::storageBytes(g.filterType);
    int64_t band = cBlocks * ((g.kh - 1) * g.dilationH + 1) * g.w *
                   tile::storageBytes(g.inputType);
    recordFilter(op, g, kpos, filter);
    capacity[kpos] =
        std::max<int64_t>(0, sbufBytes - 2 * (filter + 2 * band) -
                                 2 * partnerBytes - kKernelScratchBytes);
  }

  void visitPool(linalg::LinalgOp op, bool isMax, int64_t pos) {
    Value x = op.getDpsInputs()[0], y = op.getDpsInits()[0];
    SmallVector<Operation *> padOps;
    std::optional<ConvPadding> pad = findConvPadding(x, op, padOps);
    kernelPos[op] = pos;
    anchor[op] = op;
    Value in = pad ? pad->source : x;
    use(in, pos, false, pad ? &*pad : nullptr, std::nullopt, false,
        isMax ? y : Value());
    if (pad)
      recordPadding(x, *pad);
    if (!findFill(y, op, poolIdentity(isMax)))
      use(y, pos, false);
    use(y, pos, true);
    if (Candidate *c = at(in); c && viewRoot(in) == viewRoot(y))
      c->ok = false;
    // Pool.cpp: a band's input, row and output tiles twice over within half
    // of what it is given.
    auto xs = cast<MemRefType>(x.getType()).getShape();
    auto ks = cast<MemRefType>(op.getDpsInputs()[1].getType()).getShape();
    auto ys = cast<MemRefType>(y.getType()).getShape();
    int64_t bytes =
        tile::storageBytes(cast<MemRefType>(x.getType()).getElementType());
    int64_t band = bytes * (ks[0] * (xs[3] + ys[3]) + ys[3]);
    capacity[pos] =
        std::max<int64_t>(0, sbufBytes - 4 * band - kKernelScratchBytes);
  }

  /// ChannelGeneric.cpp's kernel: its [N, C, H, W] operands are read and
  /// written in place; per-channel ones (and a global pooling's result)
  /// come from and go to HBM.
  void visitChannelGeneric(linalg::GenericOp op, int64_t pos) {
    anchor[op] = op;
    SmallVector<std::pair<Value, bool>> tensors = channelTensors(op);
    for (Value v : op->getOperands())
      if (llvm::isa<MemRefType>(v.getType()) &&
          llvm::none_of(tensors, [&](auto &t) { return t.first == v; }) &&
          !(isa_and_nonnull<memref::CollapseShapeOp>(v.getDefiningOp()) &&
            llvm::any_of(tensors, [&](auto &t) {
              return t.first == v.getDefiningOp()->getOperand(0);
            })))
        reject(v);
    for (auto [v, write] : tensors)
      use(v, pos, write);
    // A few chunk tiles per operand in flight.
    capacity[pos] = std::max<int64_t>(0, sbufBytes - 2 * kKernelScratchBytes);
  }

  void visit() {
    DenseSet<Operation *> fused;
    for (auto [i, op] : llvm::enumerate(ops)) {
      int64_t pos = int64_t(i);
      if (absorbed.contains(op) || fused.contains(op))
        continue;
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value v : ret.getOperands())
          reject(v);
        continue;
      }
      if (isBufferBookkeeping(op))
        continue;
      if (std::optional<bool> isMax = isPooling(op)) {
        visitPool(cast<linalg::LinalgOp>(op), *isMax, pos);
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (std::optional<conv::ConvGeneric> g =
              generic ? conv::matchConvGeneric(generic) : std::nullopt) {
        visitConv(generic, *g, pos, fused);
        continue;
      }
      if (std::optional<Upsample> u =
              generic ? matchUpsample(generic) : std::nullopt) {
        // Upsample.cpp: copies from the input's rows into the output's.
        anchor[op] = op;
        use(u->in, pos, false, nullptr, std::nullopt, false, u->out);
        use(u->out, pos, true);
        if (Candidate *c = at(u->in); c && viewRoot(u->in) == viewRoot(u->out))
          c->ok = false;
        capacity[pos] =
            std::max<int64_t>(0, sbufBytes - 2 * kKernelScratchBytes);
        continue;
      }
      if (generic && isChannelGeneric(generic)) {
        visitChannelGeneric(generic, pos);
        continue;
      }
      // A fill of an [N, C, H, W] slice of a tensor (a concatenation's
      // constant part: the channel of ones that carries a transposed
      // convolution's bias into its phases) is a channel-major kernel
      // writing it in place.
      if (auto fill = dyn_cast<linalg::FillOp>(op);
          fill &&
          cast<MemRefType>(fill.getDpsInits()[0].getType()).getRank() == 4 &&
          fill.getDpsInits()[0].getDefiningOp<memref::SubViewOp>()) {
        anchor[op] = op;
        use(fill.getDpsInits()[0], pos, true);
        capacity[pos] =
            std::max<int64_t>(0, sbufBytes - 2 * kKernelScratchBytes);
        continue;
      }
      // A copy of [N, C, H, W] (a concat's part) is DMAs on either side;
      // one into a view with row or column steps (a phase used again) is
      // an engine copy (Copy.cpp), from a tile loaded first unless its
      // source is kept on the same partitions.
      if (auto copy = dyn_cast<memref::CopyOp>(op);
          copy && copy.getSource().getType().getRank() == 4) {
        anchor[op] = op;
        Value target = copy.getTarget();
        std::optional<Start> to = startOf(target, viewRoot(target));
        bool stepped = to && to->stepped();
        use(copy.getSource(), pos, false, nullptr, std::nullopt, true, target);
        use(target, pos, true, nullptr, std::nullopt, /*byDma=*/!stepped, {},
            stepped);
        auto type = cast<MemRefType>(copy.getSource().getType());
        int64_t staged = stepped ? type.getDimSize(2) * type.getDimSize(3) *
                                       tile::storageBytes(type.getElementType())
                                 : 0;
        capacity[pos] =
            std::max<int64_t>(0, sbufBytes - kKernelScratchBytes - staged);
        continue;
      }
      // A matmul's epilogue is part of its kernel, which reads HBM; its A
      // operand may be a pooled [N, C] tensor kept in SBUF (the stationary
      // operand, channels on the partitions), rounded by an absorbed cast.
      Value pooled;
      if (llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
        auto matmul = cast<linalg::LinalgOp>(op);
        if (std::optional<PooledMatmulInput> in =
                findPooledMatmulInput(matmul, partitions);
            in && (!in->cast || absorbed.contains(in->cast))) {
          pooled = in->source;
          Type multiply =
              cast<MemRefType>(matmul.getDpsInputs()[0].getType())
                  .getElementType();
          use(pooled, pos, false, nullptr, multiply);
        }
        Value out = matmul.getDpsInits()[0];
        if (linalg::GenericOp epilogue =
                findEpilogue(matmul, findZeroFill(out, op))) {
          fused.insert(epilogue);
          for (Value v : epilogue->getOperands())
            if (llvm::isa<MemRefType>(v.getType()))
              reject(v);
        }
      }
      // Any other kernel reads and writes HBM; it leaves its tiles half of
      // SBUF (they budget against up to 3/4 of what they are given).
      for (Value v : op->getOperands())
        if (llvm::isa<MemRefType>(v.getType()) && v != pooled)
          reject(v);
      capacity[pos] = sbufBytes / 2;
    }
  }
};
} // namespace

/// `t`'s channel-major tile [min(C, P), blocks, N, top + H + bottom, left +
/// W + right] at the start of `block`, its border set before its first
/// writer: rows above and below, then the columns left and right of the
/// rows between.
static void allocateChannelMajor(OpBuilder &b, Block *block, Location loc,
                                 ResidentTensor &t, Type elt, int64_t P) {
  int64_t cs = std::min(P, t.c), blocks = (t.c + P - 1) / P;
  int64_t hp = t.top + t.h + t.bottom, wp = t.left + t.w + t.right;
  b.setInsertionPointToStart(block);
  t.tile = allocTile(b, loc, {cs, blocks, t.n, hp, wp}, elt);
  b.setInsertionPoint(t.firstWriter);
  auto fill = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (rn <= 0 || qn <= 0)
      return;
    SmallVector<int64_t> offsets = {0, 0, 0, r0, q0};
    SmallVector<int64_t> sizes = {cs, blocks, t.n, rn, qn};
    SmallVector<int64_t> steps(5, 1);
    Value v = memref::SubViewOp::create(b, loc, t.tile, offsets, sizes, steps);
    tile::MemsetOp::create(b, loc, v, b.getF32FloatAttr(float(t.padValue)));
  };
  fill(0, t.top, 0, wp);
  fill(t.top + t.h, t.bottom, 0, wp);
  fill(t.top, t.h, 0, t.left);
  fill(t.top, t.h, t.left + t.w, t.right);
}

/// Erases `tile` and the border memsets (through subviews) that are all
/// that use it yet.
static void eraseUnusedTile(Value tile) {
  Operation *alloc = tile.getDefiningOp();
  for (Operation *view : llvm::make_early_inc_range(alloc->getUsers())) {
    assert(llvm::isa<memref::SubViewOp>(view) &&
           "the old tile used by a kernel");
    for (Operation *user : llvm::make_early_inc_range(view->getUsers())) {
      assert(llvm::isa<tile::MemsetOp>(user) &&
             "the old tile used by a kernel");
      user->erase();
    }
    view->erase();
  }
  alloc->erase();
}

std::optional<ResidentRef> Residents::lookup(Value v) const {
  if (tensors.empty() || !llvm::isa<MemRefType>(v.getType()))
    return std::nullopt;
  Value root = viewRoot(v);
  auto it = tensors.find(root);
  if (it == tensors.end())
    return std::nullopt;
  std::optional<Start> start = startOf(v, root);
  if (!start)
    return std::nullopt;
  ResidentRef ref{&it->second, start->at[0], start->at[1], start->at[2],
                  start->at[3]};
  ref.rowStep = start->rowStep;
  ref.colStep = start->colStep;
  return ref;
}

Value Residents::view(OpBuilder &b, Location loc, const ResidentRef &r,
                      int64_t n, int64_t c, int64_t cs, int64_t h, int64_t rows,
                      int64_t rowStep, int64_t w, int64_t cols, int64_t colStep,
                      int64_t images) const {
  const ResidentTensor &t = *r.tensor;
  assert(!t.packed && "a packed tensor is written with write(), read whole");
  int64_t ca = r.c + c, P = partitions;
  SmallVector<int64_t> offsets = {ca % P, ca / P, r.n + n,
                                  t.top + r.h + h * r.rowStep,
                                  t.left + r.w + w * r.colStep};
  SmallVector<int64_t> sizes = {cs, 1, images, rows, cols};
  SmallVector<int64_t> steps = {1, 1, 1, rowStep * r.rowStep,
                                colStep * r.colStep};
  SmallVector<int64_t> shape = {cs, rows, cols};
  if (images > 1)
    shape.insert(shape.begin() + 1, images);
  auto type = memref::SubViewOp::inferRankReducedResultType(
      shape, cast<MemRefType>(t.tile.getType()), offsets, sizes, steps);
  return memref::SubViewOp::create(b, loc, type, t.tile, offsets, sizes, steps);
}

void Residents::write(OpBuilder &b, Location loc, const ResidentRef &r,
                      Value src, int64_t n, int64_t c, int64_t cs, int64_t h,
                      int64_t rows, int64_t rowStep, int64_t w, int64_t cols,
                      bool engineCopies) const {
  const ResidentTensor &t = *r.tensor;
  assert(t.packed && "a channel-major tensor is written through view()");
  const PackedLayout &p = *t.packed;
  // With several images every group's rows may go by engine, not only the
  // last: the queues carry the rows of every layer packed for its reader,
  // a descriptor a row (the U-Net's encoder at batch 8 under auto-cast kept
  // all sixteen busy), where a bf16 row costs an engine a quarter cycle an
  // element (444.1 -> 434.3 us). With one image the DMAs overlap the
  // engines' work and only the last rows' latency counts.
  std::optional<int64_t> srcPartition =
      (engineCopies || t.n > 1) && p.engineCopies ? startPartition(src)
                                                  : std::nullopt;
  assert(r.rowStep == 1 && r.colStep == 1 && "a packed tensor's stepped view");
  // Rows [i, i + m) of `src`.
  auto srcRows = [&](int64_t i, int64_t m) -> Value {
    auto type = cast<MemRefType>(src.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
        steps(rank, 1);
    if (rank == 3) {
      offsets[1] = i;
      sizes[1] = m;
    } else {
      offsets[1] = i * cols;
      sizes[1] = m * cols;
    }
    return memref::SubViewOp::create(b, loc, src, offsets, sizes, steps);
  };
  // Each block's rows of the write, in runs of consecutive tile rows that
  // consecutive source rows fill.
  for (int64_t k = 0; k < int64_t(p.rowAt.size()); ++k) {
    int64_t at = p.rowAt[k], i0 = -1, r0 = 0, m = 0;
    auto flush = [&] {
      if (!m)
        return;
      SmallVector<int64_t> offsets = {k * t.c + r.c + c, r.n + n, r0,
                                      p.left + r.w + w};
      SmallVector<int64_t> sizes = {cs, 1, m, cols};
      SmallVector<int64_t> steps(4, 1);
      auto type = memref::SubViewOp::inferRankReducedResultType(
          {cs, m, cols}, cast<MemRefType>(t.tile.getType()), offsets, sizes,
          steps);
      Value dst = memref::SubViewOp::create(b, loc, type, t.tile, offsets,
                                            sizes, steps);
      // From and to partitions where an engine may start, an engine may
      // copy them (a DMA completes 1.3 us after its transfer: the U-Net's
      // 64-channel stacked rows going to their reader's blocks).
      int64_t p0 = k * t.c + r.c + c;
      if (srcPartition && engineMayMove(*srcPartition, p0, cs)) {
        Value rows = srcRows(i0, m);
        if (cast<MemRefType>(rows.getType()).getRank() == 2)
          rows = memref::ExpandShapeOp::create(
              b, loc, ArrayRef<int64_t>{cs, m, cols}, rows,
              ArrayRef<ReassociationIndices>{{0}, {1, 2}});
        tile::CopyOp::create(b, loc, rows, dst);
      } else
        tile::DmaOp::create(b, loc, srcRows(i0, m), dst);
      m = 0;
    };
    for (int64_t i = 0; i < rows; ++i) {
      int64_t d = r.h + h + i * rowStep + p.top - at;
      if (d < 0 || d % p.rowStep || d / p.rowStep >= p.rows)
        continue;
      int64_t row = d / p.rowStep;
      if (m && i == i0 + m && row == r0 + m) {
        ++m;
        continue;
      }
      flush();
      i0 = i;
      r0 = row;
      m = 1;
    }
    flush();
  }
}

bool Residents::engineMayMove(int64_t from, int64_t to, int64_t count) const {
  return target && target->computeTileStartOk(from, count) &&
         target->computeTileStartOk(to, count);
}

/// The columns a row of `t`'s tile has before its first column, and in
/// all: its own border, or its reader's band tile's.
static std::pair<int64_t, int64_t> rowColumns(const ResidentTensor &t) {
  if (t.packed)
    return {t.packed->left, t.packed->width};
  return {t.left, t.left + t.w + t.right};
}

bool Residents::stagesRows(const ResidentRef &r) const {
  const ResidentTensor &t = *r.tensor;
  auto [left, width] = rowColumns(t);
  Type type = cast<MemRefType>(t.tile.getType()).getElementType();
  // A packed reader's tile of stacked rows holds consecutive rows in
  // other blocks: a run of them is one row there whatever the source.
  return target && r.w == 0 && r.rowStep == 1 && r.colStep == 1 &&
         (!t.packed || t.packed->rowStep == 1) && width > t.w &&
         std::isfinite(t.padValue) &&
         2 * t.w * tile::storageBytes(type) <= target->dmaMinDescriptorBytes;
}

Value Residents::stagedRows(OpBuilder &b, Location loc, const ResidentRef &r,
                            int64_t parts, int64_t rows) const {
  const ResidentTensor &t = *r.tensor;
  auto [left, width] = rowColumns(t);
  int64_t right = width - left - t.w;
  Value staged = allocTile(b, loc, {parts, rows, width},
                           cast<MemRefType>(t.tile.getType()).getElementType());
  auto fill = [&](int64_t col, int64_t cols, int64_t step) {
    tile::MemsetOp::create(
        b, loc, windowOf(b, loc, staged, parts, 0, rows, 1, col, cols, step),
        b.getF32FloatAttr(float(t.padValue)));
  };
  if (left == 1 && right == 1) {
    fill(0, 2, width - 1);
    return staged;
  }
  if (left)
    fill(0, left, 1);
  if (right)
    fill(left + t.w, right, 1);
  return staged;
}

Value Residents::stagedInterior(OpBuilder &b, Location loc,
                                const ResidentRef &r, Value staged) const {
  auto type = cast<MemRefType>(staged.getType());
  return windowOf(b, loc, staged, type.getDimSize(0), 0, type.getDimSize(1), 1,
                  rowColumns(*r.tensor).first, r.tensor->w, 1);
}

void Residents::writeStagedRows(OpBuilder &b, Location loc,
                                const ResidentRef &r, Value staged, int64_t p0,
                                int64_t n, int64_t c, int64_t cs, int64_t h,
                                bool engineCopies) const {
  auto [left, width] = rowColumns(*r.tensor);
  int64_t rows = cast<MemRefType>(staged.getType()).getDimSize(1);
  Value src = windowOf(b, loc, staged, cs, 0, rows, 1, 0, width, 1, p0);
  if (r.tensor->packed)
    write(b, loc, r, src, n, c, cs, h, rows, 1, -left, width, engineCopies);
  else
    tile::DmaOp::create(b, loc, src,
                        view(b, loc, r, n, c, cs, h, rows, 1, -left, width, 1));
}

Value Residents::packedRows(OpBuilder &b, Location loc, const ResidentTensor &t,
                            int64_t n, int64_t r0, int64_t rows) const {
  const PackedLayout &p = *t.packed;
  int64_t parts = int64_t(p.rowAt.size()) * t.c;
  SmallVector<int64_t> offsets = {0, n, r0, 0};
  SmallVector<int64_t> sizes = {parts, 1, rows, p.width};
  SmallVector<int64_t> steps(4, 1);
  auto type = memref::SubViewOp::inferRankReducedResultType(
      {parts, rows, p.width}, cast<MemRefType>(t.tile.getType()), offsets,
      sizes, steps);
  return memref::SubViewOp::create(b, loc, type, t.tile, offsets, sizes, steps);
}

bool Residents::packingSavesDma(Value root, const PackedLayout &layout,
                                int64_t minDescriptorBytes,
                                int64_t latencyBytes) const {
  const ResidentTensor &t = tensors.find(root)->second;
  int64_t eb =
      tile::storageBytes(cast<MemRefType>(t.tile.getType()).getElementType());
  // The rows of the tensor each block holds.
  int64_t blockRows = 0;
  for (int64_t at : layout.rowAt)
    for (int64_t r = 0; r < layout.rows; ++r) {
      int64_t h = at + r * layout.rowStep - layout.top;
      blockRows += h >= 0 && h < t.h;
    }
  int64_t row = std::max(t.w * eb, minDescriptorBytes);
  int64_t packed = blockRows * row;
  int64_t copied =
      layout.rowStep == 1
          ? blockRows * layout.width * eb
          : blockRows * std::max(layout.width * eb, minDescriptorBytes);
  return packed <= t.h * row + copied + (t.n == 1 ? latencyBytes : 0);
}

/// The bytes a partition of `n` images of a tensor of `elt` in `layout`.
static int64_t packedBytes(int64_t n, const PackedLayout &layout, Type elt) {
  return n * layout.rows * layout.width * tile::storageBytes(elt);
}

void Residents::repack(OpBuilder &b, Value root, PackedLayout layout) {
  ResidentTensor &t = tensors.find(root)->second;
  Value old = t.tile;
  Location loc = old.getLoc();
  Type elt = cast<MemRefType>(old.getType()).getElementType();
  int64_t parts = int64_t(layout.rowAt.size()) * t.c;
  b.setInsertionPoint(old.getDefiningOp());
  t.tile = allocTile(b, loc, {parts, t.n, layout.rows, layout.width}, elt);
  // Only the border's memsets (through subviews) use the old tile yet.
  eraseUnusedTile(old);
  // The padding, before the first writer: the tile rows that are a padding
  // row (or past the input) in some block, on every partition (a memset
  // may not start at any partition; the writers then fill the blocks where
  // they are rows of the tensor), and the border columns of the others.
  b.setInsertionPoint(t.firstWriter);
  auto fill = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (rn <= 0 || qn <= 0)
      return;
    SmallVector<int64_t> offsets = {0, 0, r0, q0};
    SmallVector<int64_t> sizes = {parts, t.n, rn, qn};
    SmallVector<int64_t> steps(4, 1);
    Value v = memref::SubViewOp::create(b, loc, t.tile, offsets, sizes, steps);
    tile::MemsetOp::create(b, loc, v, b.getF32FloatAttr(float(t.padValue)));
  };
  auto padRow = [&](int64_t r) {
    return llvm::any_of(layout.rowAt, [&](int64_t at) {
      int64_t h = at + r * layout.rowStep - layout.top;
      return h < 0 || h >= t.h;
    });
  };
  int64_t right = layout.width - layout.left - t.w;
  for (int64_t r = 0; r < layout.rows;) {
    int64_t e = r;
    bool isPad = padRow(r);
    while (e < layout.rows && padRow(e) == isPad)
      ++e;
    if (isPad) {
      fill(r, e - r, 0, layout.width);
    } else {
      fill(r, e - r, 0, layout.left);
      fill(r, e - r, layout.left + t.w, right);
    }
    r = e;
  }
  // The plan holds the tile's bytes a partition now: a packed tile spreads
  // a narrow tensor's rows over more partitions (the U-Net's 32-channel
  // 64 x 64 tensors at batch 8, in two blocks of stacked rows: 34 instead
  // of 70 KB), which leaves room for the tensors admitted after it.
  if (auto it = candidateOf.find(root); it != candidateOf.end()) {
    residency.candidates[it->second].bytes = packedBytes(t.n, layout, elt);
    refreshLiveBytes();
  }
  t.packed = std::move(layout);
}

Value Residents::imageColumns(OpBuilder &b, Location loc, const ResidentRef &r,
                              int64_t c, int64_t cs) const {
  const ResidentTensor &t = *r.tensor;
  assert(!t.packed && "a packed tensor's columns");
  int64_t ca = r.c + c, P = partitions;
  SmallVector<int64_t> offsets = {ca % P, ca / P, r.n, t.top + r.h,
                                  t.left + r.w};
  SmallVector<int64_t> sizes = {cs, 1, t.n - r.n, 1, 1};
  SmallVector<int64_t> steps(5, 1);
  auto type = memref::SubViewOp::inferRankReducedResultType(
      {cs, t.n - r.n}, cast<MemRefType>(t.tile.getType()), offsets, sizes,
      steps);
  return memref::SubViewOp::create(b, loc, type, t.tile, offsets, sizes, steps);
}

/// The narrower type each candidate can be kept in: that of the
/// convolutions reading it, when every other read is a max, upsample or
/// copy whose result is kept in that type too (the greatest fixed point:
/// start from every candidate's own reads, drop those that read through to
/// one that cannot).
static DenseMap<Value, Type>
narrowTypes(const llvm::MapVector<Value, Candidate> &candidates) {
  DenseMap<Value, Type> narrow;
  for (auto &[root, c] : candidates)
    if (!c.otherReads && (c.convReadType || !c.through.empty()))
      narrow[root] = c.convReadType.value_or(Type());
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[root, c] : candidates) {
      auto it = narrow.find(root);
      if (it == narrow.end())
        continue;
      Type t = it->second;
      bool ok = true;
      for (Value r : c.through) {
        auto ti = narrow.find(r);
        if (ti == narrow.end() || (t && ti->second && ti->second != t)) {
          ok = false;
          break;
        }
        if (!t)
          t = ti->second;
      }
      if (!ok) {
        narrow.erase(root);
        changed = true;
      } else if (t != it->second) {
        it->second = t;
        changed = true;
      }
    }
  }
  // Types still unknown (only reads through to unknowns) stay as they are.
  for (auto it = narrow.begin(); it != narrow.end();) {
    auto next = std::next(it);
    if (!it->second)
      narrow.erase(it);
    it = next;
  }
  return narrow;
}

/// Whether one convolution writes `t` (its result or its fused pooling's,
/// unstepped) and one reads it as its whole input of one channel block
/// (besides the writer's own read for a fused pooling, when it cannot pool
/// its chunks): then it may be kept in that reader's packed band tile.
static bool packableShape(const Candidate &c, const ResidentTensor &t,
                          int64_t partitions) {
  return c.reads - c.poolRereads == 1 && c.convReads == 1 && c.writes == 1 &&
         c.convWrites == 1 && !c.steppedWrites && t.c <= partitions;
}

/// The tensor `root` would be, with its border and element type.
static std::pair<ResidentTensor, Type>
tensorOf(Value root, const Candidate &c, const DenseMap<Value, Type> &narrow) {
  auto type = cast<MemRefType>(root.getType());
  std::array<int64_t, 4> s = *shapeOf(root);
  ResidentTensor t;
  t.n = s[0];
  t.c = s[1];
  t.h = s[2];
  t.w = s[3];
  t.top = c.top;
  t.left = c.left;
  t.bottom = c.bottom;
  t.right = c.right;
  t.padValue = c.padValue.value_or(0.0);
  Type elt = narrow.lookup(root);
  return {t, elt ? elt : type.getElementType()};
}

Residents tiling::planResidents(
    OpBuilder &b, ArrayRef<Operation *> ops,
    const DenseSet<Operation *> &absorbed, const isa::TargetDesc &target,
    int64_t margin, const DenseMap<Operation *, FusedPool> &fusedPools,
    const DenseMap<Operation *, FusedGlobalPool> &globalPools,
    const DenseMap<Operation *, ChainedConv> &chainedConvs,
    const DenseMap<Operation *, PhaseScatter> &phaseScatters,
    const DenseMap<Operation *, PartnerConv> &partnerConvs,
    const DenseMap<Operation *, PhasePartner> &phasePartners) {
  Residents residents;
  residents.partitions = target.numPartitions;
  residents.target = &target;
  Planner planner(ops, absorbed, target, fusedPools, globalPools, chainedConvs,
                  phaseScatters, partnerConvs, phasePartners);
  planner.visit();

  int64_t P = target.numPartitions;
  int64_t minDescriptorBytes = target.dmaMinDescriptorBytes;
  ResidencyProblem problem;
  problem.capacity = planner.capacity;
  for (int64_t &c : problem.capacity)
    c = std::max<int64_t>(0, c - margin);
  SmallVector<Value> roots;
  // Per root, its packed form should the plan decline it channel-major.
  std::vector<std::optional<Residents::Oversized>> declined;
  DenseMap<Value, Type> narrow = narrowTypes(planner.candidates);
  for (auto &[root, c] : planner.candidates) {
    if (!c.ok || !c.writes || !c.reads)
      continue;
    auto [t, elt] = tensorOf(root, c, narrow);
    int64_t bytes = (t.c + P - 1) / P * t.n * (t.top + t.h + t.bottom) *
                    (t.left + t.w + t.right) * tile::storageBytes(elt);
    // A tensor that would hold more than half of SBUF across the kernels
    // of its live range squeezes their tiles; it goes through HBM. (The
    // limit was a quarter while a tile plan that fragmented fell back to
    // first-fit for the whole program: ResNet-50 at batch 8 ran 2.3x
    // slower with its 100 KiB pooled stem output kept. The planner now
    // narrows the rotation instead, and half is faster on every benchmark
    // model: MobileNetV2 at batch 8 under auto-cast 1,326 -> 1,195 us.)
    auto type = cast<MemRefType>(root.getType());
    int64_t eltBytes = tile::storageBytes(type.getElementType());
    int64_t hbmBytes = type.getNumElements() * eltBytes;
    // Each write and read of the tensor would otherwise be a pass over HBM
    // (a stepped write at a descriptor's cost per element).
    int64_t writeCost =
        c.steppedWrites ? std::max<int64_t>(1, minDescriptorBytes / eltBytes)
                        : 1;
    int64_t benefit = hbmBytes * (c.writes * writeCost + c.reads);
    std::optional<Residents::Oversized> packed;
    if (packableShape(c, t, P)) {
      t.firstWriter = planner.anchor.lookup(ops[c.first]);
      packed = Residents::Oversized{
          root,    t,      elt,     c.convWriter,     c.convReader,
          c.first, c.last, benefit, c.poolRereads > 0};
    }
    if (bytes > resident::maxTensorBytes(target)) {
      if (packed)
        residents.oversized.push_back(std::move(*packed));
      continue;
    }
    problem.candidates.push_back({bytes, c.first, c.last, benefit, ""});
    roots.push_back(root);
    declined.push_back(std::move(packed));
  }
  ResidencySolution solution;
  if (!solve(problem, solution).ok()) {
    residents.oversized.clear();
    return residents;
  }
  // A tensor the plan declines channel-major may still fit in its reader's
  // packed band tile, like one too large for it: the U-Net's 16-channel
  // 128 x 128 skip in f32 at batch 1 (64 KiB a partition channel-major,
  // 8 KiB packed), which did not fit beside the top decoder's input and
  // result and went through HBM.
  for (auto [index, o] : llvm::enumerate(declined))
    if (o && !solution.resident[index])
      residents.oversized.push_back(*o);

  Block *block = ops.empty() ? nullptr : ops.front()->getBlock();
  for (auto [index, root] : llvm::enumerate(roots)) {
    if (!solution.resident[index])
      continue;
    const ResidencyCandidate &rc = problem.candidates[index];
    auto [tensor, elt] = tensorOf(root, planner.candidates[root], narrow);
    tensor.firstWriter = planner.anchor.lookup(ops[rc.liveStart]);
    ResidentTensor &t = residents.tensors[root] = tensor;
    residents.candidateOf[root] = int64_t(index);
    allocateChannelMajor(b, block, root.getLoc(), t, elt, P);
    const Candidate &c = planner.candidates[root];
    // A tensor its writer may re-read for a fused pooling stays
    // channel-major when it fits so (the U-Net at batch 1 under auto-cast
    // ran 0.4 us slower with its skips packed).
    if (packableShape(c, t, P) && !c.poolRereads)
      residents.packable[root] = {c.convWriter, c.convReader};
  }
  // Filters several kernels read alike (shareFilters), when their reloads
  // would move more bytes than all of the program's constants: where they
  // do not (ResNet-50, whose layer2 runs in groups at batch 8: 6 MB of
  // reloads against 51 MB of weights under auto-cast), the SBUF a shared
  // filter holds costs more than its loads (1,194.5 -> 1,210.9 us there).
  int64_t reloads = 0, constants = 0;
  DenseSet<Attribute> globals;
  for (Operation *op : ops)
    if (auto global = dyn_cast<memref::GetGlobalOp>(op);
        global && globals.insert(global.getNameAttr()).second) {
      MemRefType type = global.getType();
      constants +=
          type.getNumElements() * tile::storageBytes(type.getElementType());
    }
  for (const auto &[key, r] : planner.filterReaders)
    if (r.convs.size() > 1 && r.bytes > 0) {
      int64_t saved = r.hbmBytes * int64_t(r.convs.size() - 1);
      reloads += saved;
      residents.filterCandidates.push_back(
          {r.convs, {r.bytes, r.first, r.last, saved, "shared filter"}});
    }
  if (reloads <= constants)
    residents.filterCandidates.clear();
  std::vector<int64_t> liveAt = residentBytes(problem, solution);
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto it = planner.kernelPos.find(op);
    int64_t pos = it == planner.kernelPos.end() ? int64_t(i) : it->second;
    residents.positionOf[op] = pos;
    residents.liveBytes[op] = liveAt[pos];
  }
  residents.residency = std::move(problem);
  residents.residencySolution = std::move(solution);
  return residents;
}

void Residents::holdOversized(OpBuilder &b, const Oversized &o) {
  ResidentTensor &t = tensors[o.root] = o.tensor;
  allocateChannelMajor(b, o.writer->getBlock(), o.root.getLoc(), t,
                       o.elementType, partitions);
}

void Residents::dropOversized(const Oversized &o) {
  auto it = tensors.find(o.root);
  eraseUnusedTile(it->second.tile);
  tensors.erase(it);
}

bool Residents::admitPacked(OpBuilder &b, const Oversized &o,
                            PackedLayout layout) {
  int64_t bytes = packedBytes(o.tensor.n, layout, o.elementType);
  absl::StatusOr<bool> fits = false;
  if (bytes <= resident::maxTensorBytes(*target))
    fits = admit(residency, residencySolution,
                 {bytes, o.first, o.last, o.benefit, ""});
  if (!fits.ok() || !*fits) {
    dropOversized(o);
    return false;
  }
  candidateOf[o.root] = int64_t(residency.candidates.size()) - 1;
  repack(b, o.root, std::move(layout));
  return true;
}

void Residents::evictPacked(const Oversized &o) {
  auto it = candidateOf.find(o.root);
  residencySolution.resident[it->second] = false;
  candidateOf.erase(it);
  refreshLiveBytes();
  dropOversized(o);
}

void Residents::refreshLiveBytes() {
  std::vector<int64_t> liveAt = residentBytes(residency, residencySolution);
  for (auto &[op, pos] : positionOf)
    liveBytes[op] = liveAt[pos];
}

void Residents::shareFilters() {
  ResidencyProblem filters;
  std::vector<int64_t> live = residentBytes(residency, residencySolution);
  for (auto [cap, used] : llvm::zip_equal(residency.capacity, live))
    filters.capacity.push_back(std::clamp<int64_t>(
        (cap - used) / 2, 0, target->sbufBytesPerPartition / 8));
  for (const FilterCandidate &f : filterCandidates)
    filters.candidates.push_back(f.candidate);
  ResidencySolution chosen;
  if (filters.candidates.empty() || !solve(filters, chosen).ok())
    return;
  for (auto [i, f] : llvm::enumerate(filterCandidates)) {
    if (!chosen.resident[i])
      continue;
    residency.candidates.push_back(f.candidate);
    residencySolution.resident.push_back(true);
    for (Operation *conv : f.convs)
      sharedFilterOf[conv] = int64_t(sharedFilters.size());
    sharedFilters.emplace_back();
  }
  refreshLiveBytes();
}
