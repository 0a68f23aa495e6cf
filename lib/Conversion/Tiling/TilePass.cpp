//===- TilePass.cpp - nki-tile: linalg on HBM memrefs -> tile loops
//---------===//
//
// Walks the entry function after bufferization and replaces each op on HBM
// buffers by its kernel (Kernels.h). Matmuls absorb the zero fill of their
// output and an elementwise consumer (the epilogue) when the product is
// not needed anywhere else.
//
//===----------------------------------------------------------------------===//

#include "../Common/MxMatmul.h"
#include "Attention.h"
#include "Kernels.h"
#include "Match.h"
#include "PhasePartner.h"
#include "Residents.h"
#include "TileUtils.h"

#include "../Conv/ConvGeneric.h"

#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace nki {
#define GEN_PASS_DEF_NKITILE
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

using namespace nki::tiling;

/// Whether `op` is a channel-major generic (ChannelGeneric.cpp) with a
/// tensor kept in SBUF.
static bool readsResident(linalg::GenericOp op, const Residents &residents) {
  return llvm::any_of(channelTensors(op), [&](auto &t) {
    return residents.lookup(t.first).has_value();
  });
}

namespace {
// What an interleave of stacked phases moves per output element, in units of
// the element's size: its load, its store and the epilogue's read; and how
// many times that the epilogue's own reads of the phases may be charged
// (phasesReadInPlacePay).
constexpr int64_t kInterleaveBytes = 3;
constexpr int64_t kInPlacePhaseCostLimit = 3;

struct NKITilePass : nki::impl::NKITileBase<NKITilePass> {
  using NKITileBase::NKITileBase;

  /// Matmuls whose A operand is a global pooling's result (Match.h).
  DenseMap<Operation *, PooledMatmulInput> pooledInputs;
  /// MX matmuls whose A the kernel quantises itself (Match.h).
  DenseMap<Operation *, MxQuantizedA> mxInputs;
  /// Matmuls computed by a later matmul's kernel (findSiblingMatmul), by
  /// that later matmul.
  DenseMap<Operation *, linalg::MatmulOp> siblings;
  /// Attention chains (Attention.h) by their context matmul.
  DenseMap<Operation *, AttentionChain> attentions;
  /// Global poolings that the convolutions writing their source compute
  /// (Match.h), and those convolutions.
  std::deque<GlobalPoolSum> globalPoolSums;
  DenseMap<Operation *, FusedGlobalPool> globalPools;
  /// Max poolings that the convolution before them computes, by that
  /// convolution.
  DenseMap<Operation *, FusedPool> fusedPools;
  /// 1x1 convolutions that the convolution before them computes, by that
  /// convolution.
  DenseMap<Operation *, ChainedConv> chainedConvs;
  /// 1x1 convolutions whose result a later convolution starts from, by
  /// that convolution, which computes them into its accumulator.
  DenseMap<Operation *, PartnerConv> partnerConvs;
  /// Upsampled phases whose sum a convolution's epilogue added, by that
  /// convolution, which computes them into its accumulator.
  DenseMap<Operation *, PhasePartner> phasePartners;
  /// Convolutions whose result blocks only copies read, and those copies.
  DenseMap<Operation *, PhaseScatter> phaseScatters;
  /// Channel scales (squeeze-and-excitation) and the convolution that
  /// absorbs each.
  DenseMap<Operation *, linalg::GenericOp> scaleConvs;
  /// Interleaves of stacked phases whose result only a convolution's
  /// epilogue reads (findPhaseAddend), and what that epilogue reads in
  /// their place once the residents plan keeps neither side in SBUF.
  struct PhaseRead {
    linalg::GenericOp interleave;
    Value result;
    TileOptions::PhaseAddend addend;
  };
  SmallVector<PhaseRead> phaseReads;
  DenseMap<Value, TileOptions::PhaseAddend> phaseAddends;

  /// The interleave (nki-interleave-phases) that writes the epilogue
  /// operand `in` when that operand is the interleave's whole result, read
  /// element for element, and nothing else reads it: the convolution's
  /// kernel can read the stacked phases itself (a DMA a phase into SBUF,
  /// an engine copy into pixel order) instead of the interleave writing
  /// the result to HBM and the kernel reading it back. The U-Net's
  /// decoders: the phases of a convolution of a nearest upsample are f32
  /// partial sums that the skip connection's convolution adds.
  static std::optional<PhaseRead> findPhaseAddend(linalg::GenericOp epilogue,
                                                  OpOperand &in) {
    Value v = in.get();
    if (!v.getDefiningOp<memref::AllocOp>() ||
        !epilogue.getMatchingIndexingMap(&in).isIdentity())
      return std::nullopt;
    linalg::GenericOp interleave;
    std::optional<Upsample> up;
    for (Operation *user : usersThroughViews(v)) {
      if (user == epilogue.getOperation() || isBufferBookkeeping(user))
        continue;
      auto g = dyn_cast<linalg::GenericOp>(user);
      std::optional<Upsample> u = g ? matchUpsample(g) : std::nullopt;
      if (!u || !u->interleave || u->out != v || interleave)
        return std::nullopt;
      interleave = g;
      up = u;
    }
    if (!interleave || !interleave->isBeforeInBlock(epilogue.getOperation()) ||
        llvm::count(epilogue->getOperands(), v) != 1)
      return std::nullopt;
    TileOptions::PhaseAddend addend;
    addend.buffer = viewRoot(up->in);
    addend.fh = up->fh;
    addend.fw = up->fw;
    SmallVector<int64_t> strides;
    if (failed(getStaticLayout(cast<MemRefType>(up->in.getType()), strides,
                               addend.offset)))
      return std::nullopt;
    addend.strides.assign(strides.begin(), strides.end());
    return PhaseRead{interleave, v, addend};
  }

  /// Whether the epilogue reading the stacked phases from HBM costs the DMA
  /// queues less than the interleave writing its result first. In place,
  /// a chunk's phase rows mostly come a row of W / fw elements at a time,
  /// each a descriptor charged at least the target's minimum; the
  /// interleave kernel loads bands of a phase's rows, stores whole rows
  /// and the epilogue reads them back (three times the bytes, in long
  /// runs), but it is a kernel of its own between the phases and the
  /// convolution. Measured on the text detector at batch 8 (trn2): its
  /// 8x level's 10-element rows (4.3 times the interleave's bytes) gain
  /// 2.4 % under auto-cast and 1.3 % in f32 interleaved, its 4x level's
  /// 20-element rows (2.1 times) lose 2.3 % in f32.
  static bool phasesReadInPlacePay(const TileOptions::PhaseAddend &a,
                                   const nki::isa::TargetDesc &target) {
    int64_t bytes = nki::tile::storageBytes(
        cast<MemRefType>(a.buffer.getType()).getElementType());
    // The stack's rows are contiguous (Upsample.cpp requires it): a
    // phase row is its row stride.
    int64_t row = a.strides[3];
    int64_t charged = std::max(row * bytes, target.dmaMinDescriptorBytes);
    return charged <= kInPlacePhaseCostLimit * kInterleaveBytes * bytes * row;
  }

  /// A fused global pooling's f32 source kept in HBM whose other readers
  /// are channel scales absorbed by convolutions that round their input to
  /// bf16 is stored in bf16, in a new buffer: the convolutions writing it
  /// round it as they store (the pooling sums the f32 values before), the
  /// scaled convolutions load half the bytes and read what they read
  /// before (the DMA rounded the f32 values to the same bf16). The map
  /// gives each such source its bf16 buffer (TileOptions::narrowed).
  DenseMap<Value, Value> narrowPooledSources(IRRewriter &rewriter,
                                             const Residents &residents) {
    DenseMap<Value, Value> narrowed;
    for (GlobalPoolSum &pool : globalPoolSums) {
      Value src = pool.source;
      if (residents.lookup(src))
        continue;
      bool ok = true, read = false;
      for (Operation *user : usersThroughViews(src)) {
        if (isBufferBookkeeping(user) || user == pool.op.getOperation())
          continue;
        auto g = dyn_cast<linalg::GenericOp>(user);
        // Writers: the fused convolutions' epilogues (findFusedGlobalPools
        // checked that there are no others).
        if (g && llvm::any_of(g.getDpsInits(),
                              [&](Value v) { return viewRoot(v) == src; }))
          continue;
        linalg::GenericOp conv = g ? scaleConvs.lookup(g) : linalg::GenericOp();
        std::optional<nki::conv::ConvGeneric> cg =
            conv ? nki::conv::matchConvGeneric(conv) : std::nullopt;
        std::optional<ChannelScale> scale =
            cg ? matchChannelScale(g) : std::nullopt;
        if (!scale || !cg->inputType.isBF16() ||
            viewRoot(scale->source) != src) {
          ok = false;
          break;
        }
        read = true;
      }
      if (!ok || !read)
        continue;
      auto type = cast<MemRefType>(src.getType());
      rewriter.setInsertionPointAfterValue(src);
      narrowed[src] = memref::AllocOp::create(
          rewriter, src.getLoc(),
          MemRefType::get(type.getShape(), rewriter.getBF16Type()),
          src.getDefiningOp<memref::AllocOp>().getAlignmentAttr());
    }
    return narrowed;
  }

  /// The phases of `r` that the kernel of `conv` (`g`, its epilogue
  /// `epilogue`) computes (findPhasePartner), when it is a plain kernel
  /// (`special`: a depthwise or scaled one is not) that may stack rows and
  /// writes a buffer of its own, and no other kernel took the phases.
  std::optional<PhasePartner> findPhases(linalg::GenericOp conv,
                                         const nki::conv::ConvGeneric &g,
                                         linalg::GenericOp epilogue,
                                         const PhaseRead &r, bool special,
                                         const DenseSet<Operation *> &absorbed,
                                         const TileOptions &options) {
    Operation *op = conv.getOperation();
    if (!accumulatePhases || special || !options.stackRows ||
        !options.packBands || !options.rates.peClockMHz ||
        !epilogue.getDpsInits()[0].getDefiningOp<memref::AllocOp>() ||
        fusedPools.contains(op) || globalPools.contains(op) ||
        chainedConvs.contains(op) || phaseScatters.contains(op) ||
        partnerConvs.contains(op) || phasePartners.contains(op))
      return std::nullopt;
    std::optional<PhasePartner> p = findPhasePartner(
        conv, g, r.interleave, r.result, r.addend.buffer, r.addend.fh,
        r.addend.fw, options.partitions, options.bankColumns);
    // In fp32 too since the partner's stacks may take two windows: the
    // phases' own kernels fold their taps from shifted loads, but their f32
    // stack goes through HBM and back (the U-Net at batch 8 in f32 moved
    // 79.9 MB, 49.7 with partners, at 1,359.2 -> 1,362.7 us; unet_convt
    // 83.4 -> 45.8 MB and 1,559.7 -> 1,467.7 us). With one window only, the
    // U-Net had run 1,395.3 -> 1,442.8 us with them.
    if (!p)
      return std::nullopt;
    for (const PhasePartner::Phase &ph : p->phases)
      if (absorbed.contains(ph.op) || fusedPools.contains(ph.op) ||
          globalPools.contains(ph.op) || chainedConvs.contains(ph.op) ||
          phaseScatters.contains(ph.op) || partnerConvs.contains(ph.op))
        return std::nullopt;
    // The kernel takes them (stacked rows, chunks of whole column phases,
    // its bands within SBUF): asked now, since the phases' kernels and
    // the epilogue's addition go once they are taken.
    ConvSite site = siteOf(conv);
    ConvParts parts = site.parts();
    parts.phases = &*p;
    OpBuilder b(conv);
    if (!analyzeConvPacking(b, conv, g, parts, options))
      return std::nullopt;
    return p;
  }

  void runOnOperation() override {
    globalPoolSums.clear();
    globalPools.clear();
    fusedPools.clear();
    chainedConvs.clear();
    partnerConvs.clear();
    phasePartners.clear();
    phaseScatters.clear();
    scaleConvs.clear();
    phaseReads.clear();
    phaseAddends.clear();
    pooledInputs.clear();
    mxInputs.clear();
    siblings.clear();
    attentions.clear();
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    TileOptions options;
    TileOptions::DepthwiseLoads depthwiseLoads;
    options.depthwiseLoads = &depthwiseLoads;
    llvm::DenseMap<Value, double> resultTailPeNs;
    options.resultTailPeNs = &resultTailPeNs;
    options.freeChunk = freeChunk;
    options.packBands = packBands;
    options.foldColumns = foldColumns;
    options.stackRows = stackRows;
    FailureOr<const nki::isa::TargetDesc *> chosen =
        nki::tile::getTarget(func);
    if (failed(chosen))
      return signalPassFailure();
    const nki::isa::TargetDesc *desc = *chosen;
    options.sbufBytesPerPartition = desc->sbufBytesPerPartition;
    options.partitions = desc->numPartitions;
    options.bankColumns = desc->psumBankFp32Columns();
    options.psumColumns = desc->psumBytesPerPartition() / 4;
    options.fp8Rows = desc->peFp8Rows;
    options.mxRows = desc->peMxRows;
    options.rates = {desc->peClockMHz,
                     desc->peFp32Factor,
                     desc->peMinColumns,
                     desc->peLoadStationaryCycles,
                     desc->actClockMHz,
                     desc->dveClockMHz,
                     desc->fixedOverheadCycles,
                     desc->minElementCycles,
                     desc->poolClockMHz,
                     desc->poolFixedCycles,
                     desc->numDmaQueues,
                     desc->dmaBytesPerNs,
                     desc->dmaMinDescriptorBytes,
                     desc->dmaCompletionLatencyPs / 1000};
    if (freeChunk < 1) {
      func.emitError("free-chunk must be positive");
      return signalPassFailure();
    }

    // A program whose buffers cannot fit in HBM is refused before tiling
    // (which would otherwise unroll loops over terabytes).
    auto bytesOf = [](Type t) -> uint64_t {
      auto m = dyn_cast<MemRefType>(t);
      if (!m || !m.hasStaticShape())
        return 0;
      // Packed f4 at 4 bits; a type the machine cannot store (an error
      // later) at its own width.
      uint64_t bits = nki::tile::storageBits(m);
      if (!bits)
        bits = std::max<uint64_t>(8, m.getElementTypeBitWidth());
      return (uint64_t(m.getNumElements()) * bits + 7) / 8;
    };
    uint64_t hbm = 0;
    for (Type t : func.getArgumentTypes())
      hbm += bytesOf(t);
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::GetGlobalOp>(op))
        hbm += bytesOf(op->getResult(0).getType());
    });
    if (hbm > uint64_t(desc->hbmBytes)) {
      func.emitError() << "the program's tensors need " << hbm
                       << " bytes of HBM; " << desc->name << " has "
                       << desc->hbmBytes;
      return signalPassFailure();
    }

    IRRewriter rewriter(&getContext());
    freshResults(rewriter, func);
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().getOps())
      ops.push_back(&op);
    // Zero fills that a later matmul turns into its start flag are left to
    // that matmul.
    DenseSet<Operation *> erased, absorbed;
    DenseMap<Operation *, Operation *> poolingFills;
    SmallVector<Operation *> diagonalFilters;
    // Global poolings computed by convolutions: their result is allocated
    // before the first of them, and the pooling and its fill go.
    if (fusePools) {
      globalPools = findFusedGlobalPools(ops, globalPoolSums);
      for (const GlobalPoolSum &pool : globalPoolSums) {
        Operation *first = nullptr;
        for (auto &[conv, g] : globalPools)
          if (g.pool == &pool && (!first || conv->isBeforeInBlock(first)))
            first = conv;
        // The allocation and the reshapes of it that the pooling writes.
        SmallVector<Operation *> defs;
        for (Value v = pool.out.buffer; v.getDefiningOp();
             v = v.getDefiningOp()->getOperand(0)) {
          defs.push_back(v.getDefiningOp());
          if (isa<memref::AllocOp>(defs.back()))
            break;
        }
        for (Operation *def : llvm::reverse(defs))
          if (first->isBeforeInBlock(def))
            def->moveBefore(first);
        absorbed.insert(pool.op);
        absorbed.insert(pool.fill);
      }
    }
    // So are a convolution's zero fill and the fill and copy of its padded
    // input (its kernel reads the source).
    DenseSet<Operation *> chainedOps; // the 1x1s of chainedConvs
    for (auto [i, op] : llvm::enumerate(ops)) {
      // A chained 1x1 convolution is part of its producer's kernel.
      if (chainedOps.contains(op))
        continue;
      // Attention: the whole chain is emitted where its context matmul is.
      if (fuseAttention && !absorbed.contains(op))
        if (std::optional<AttentionChain> chain =
                findAttention(ops, i, absorbed, options)) {
          absorbed.insert(op);
          absorbed.insert(chain->absorbed.begin(), chain->absorbed.end());
          Operation *context = chain->context;
          absorbed.insert(context);
          attentions[context] = std::move(*chain);
          continue;
        }
      if (std::optional<bool> isMax = isPooling(op)) {
        auto pool = cast<linalg::LinalgOp>(op);
        SmallVector<Operation *> padOps;
        if (findConvPadding(pool.getDpsInputs()[0], op, padOps))
          absorbed.insert(padOps.begin(), padOps.end());
        if (linalg::FillOp fill =
                findFill(pool.getDpsInits()[0], op, poolIdentity(*isMax)))
          absorbed.insert(fill);
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(op);
      // A global pooling's identity init: its kernel writes the result
      // (unless it joins a row group, which tiles the fill first).
      if (generic && isChannelGeneric(generic))
        if (linalg::FillOp fill = poolingInit(generic)) {
          absorbed.insert(fill);
          poolingFills[op] = fill;
        }
      std::optional<nki::conv::ConvGeneric> convShape =
          generic ? nki::conv::matchConvGeneric(generic) : std::nullopt;
      bool isConv = convShape.has_value();
      SmallVector<Operation *> padOps;
      std::optional<ConvPadding> padding;
      if (isConv &&
          (padding = findConvPadding(generic.getDpsInputs()[0], op, padOps)))
        absorbed.insert(padOps.begin(), padOps.end());
      bool isMx = generic && nki::isMxMatmul(generic);
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) || isConv || isMx)
        if (linalg::FillOp fill =
                findZeroFill(cast<linalg::LinalgOp>(op).getDpsInits()[0], op))
          absorbed.insert(fill);
      // Grouped phases: the kernel evacuates each block where its copy
      // would have put it, each read where an engine may start.
      std::optional<PhaseScatter> scatter =
          isConv ? findPhaseScatter(generic, options.partitions) : std::nullopt;
      if (scatter &&
          llvm::all_of(scatter->pieces, [&](const PhaseScatter::Piece &p) {
            return desc->computeTileStartOk(p.channel, p.channels);
          })) {
        for (const PhaseScatter::Piece &p : scatter->pieces)
          absorbed.insert(p.copy);
        phaseScatters[op] = std::move(*scatter);
      }
      if (isMx)
        if (std::optional<MxQuantizedA> q = findMxQuantizedA(generic)) {
          absorbed.insert(q->ops.begin(), q->ops.end());
          mxInputs[op] = *q;
        }
      // A matmul reading a global pooling's result rounds it itself (asked
      // now: the pooling is tiled before the matmul); one reading a rounded
      // program input reads the input, its DMAs rounding it.
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        std::optional<PooledMatmulInput> in =
            findPooledMatmulInput(matmul, options.partitions);
        if (!in)
          in = findCastMatmulInput(matmul);
        // A computed input's cast last: a transpose's input is read in
        // place, and a cast another kernel absorbed (attention stores its
        // context rounded) has no source left to read.
        if (!in || in->sourceWriter)
          if (std::optional<PooledMatmulInput> t =
                  findTransposedMatmulInput(matmul))
            in = t;
        if (in && in->sourceWriter && absorbed.contains(in->cast))
          in = std::nullopt;
        if (in) {
          pooledInputs[op] = *in;
          // A transpose's cast, or one of a computed input, waits for the
          // residency plan (below).
          if (in->cast && !in->transpose && !in->sourceWriter)
            absorbed.insert(in->cast);
        }
      }
      // A diagonal filter is built on chip by every convolution reading it;
      // a channel scale before an unpadded convolution with a plain filter
      // is absorbed too (its filter is scaled instead).
      linalg::GenericOp builder;
      bool diagonal = false, scaled = false;
      if (isConv && findDiagonalFilter(generic.getDpsInputs()[1], builder)) {
        diagonal = true;
        if (absorbed.insert(builder).second)
          diagonalFilters.push_back(builder);
      } else if (isConv && padOps.empty()) {
        if (std::optional<ChannelScale> scale =
                findChannelScale(generic.getDpsInputs()[0], op)) {
          scaled = true;
          absorbed.insert(scale->op);
          scaleConvs[scale->op] = generic;
        }
      }
      SmallVector<PhaseRead> reads;
      linalg::GenericOp convEpilogue =
          isConv ? findEpilogue(cast<linalg::LinalgOp>(op),
                                findZeroFill(generic.getDpsInits()[0], op))
                 : linalg::GenericOp();
      if (convEpilogue)
        for (OpOperand *in : convEpilogue.getDpsInputOperands())
          if (std::optional<PhaseRead> r = findPhaseAddend(convEpilogue, *in))
            reads.push_back(*r);
      // A max pooling right after a convolution (and its epilogue) is
      // computed by its kernel, unless that costs the kernel stacked rows.
      if (isConv && fusePools) {
        Value out = generic.getDpsInits()[0];
        linalg::GenericOp epilogue =
            findEpilogue(cast<linalg::LinalgOp>(op), findZeroFill(out, op));
        std::optional<FusedPool> pool =
            findFusedPool(epilogue ? epilogue.getDpsInits()[0] : out,
                          epilogue ? epilogue.getOperation() : op);
        Value input = padding ? padding->source : generic.getDpsInputs()[0];
        if (pool && !poolingCostsStackedRows(
                        *convShape, diagonal, scaled,
                        isa<BlockArgument>(viewRoot(input)), options))
          fusedPools[op] = *pool;
      }
      // A 1x1 convolution that alone reads the result of a convolution of
      // one image: computed by its kernel from each chunk, so it does not
      // wait for the whole result to go out and come back in bands (the
      // U-Net's 16 -> 2 head at batch 1: 290.5 -> 278.4 us). With several
      // images the 1x1's own kernel overlaps the next images' work and
      // packs more bands than the chunks have blocks: chained, the U-Net
      // at batch 8 took 12.7 us more PE time and ran 17 us slower. Not with
      // a global pooling (it reads the result too) nor after a depthwise
      // block (the vector engines may compute its chunks).
      if (isConv && chainConvs && !diagonal && !fusedPools.contains(op) &&
          !globalPools.contains(op) && convShape->n == 1) {
        Value out = generic.getDpsInits()[0];
        linalg::GenericOp epilogue =
            findEpilogue(cast<linalg::LinalgOp>(op), findZeroFill(out, op));
        if (std::optional<ChainedConv> chain = findChainedConv(
                generic, *convShape, epilogue, options.partitions)) {
          absorbed.insert(chain->op);
          absorbed.insert(chain->fill);
          if (chain->epilogue)
            absorbed.insert(chain->epilogue);
          chainedOps.insert(chain->op);
          chainedConvs[op] = *chain;
        }
      }
      // A convolution that starts from a 1x1's result (nki-accumulate-convs)
      // computes that 1x1 into its own accumulator (not beside the kernel
      // modes that take the partitions or the chunks their own way).
      // Both filters stay in SBUF for the kernel, which budgets them and its
      // bands against half of it: they may take half of that, so that the
      // bands keep their rows (ResNet-50's last projection in f32, 96 KiB
      // of filters a partition, ran in chunks of two images instead of
      // eight, its PE time 173 -> 328 us).
      // The partner's filter comes from HBM and its input as it is: not one
      // built on chip (a depthwise block's) nor one a channel scale scales.
      auto scaledConv = [&](Operation *conv) {
        return llvm::any_of(scaleConvs,
                            [&](auto &kv) { return kv.second == conv; });
      };
      auto builtFilter = [&](linalg::GenericOp conv) {
        linalg::GenericOp builder;
        return findDiagonalFilter(conv.getDpsInputs()[1], builder).has_value();
      };
      auto filterBytes = [&](const nki::conv::ConvGeneric &g) {
        return (g.c + desc->numPartitions - 1) / desc->numPartitions * g.kh *
               g.kw * g.f * nki::tile::storageBytes(g.filterType);
      };
      if (isConv && !diagonal && !scaled && !fusedPools.contains(op) &&
          !globalPools.contains(op) && !chainedConvs.contains(op) &&
          !phaseScatters.contains(op) && convShape->oh * convShape->ow > 1)
        if (std::optional<PartnerConv> partner =
                findPartnerConv(generic, *convShape);
            partner &&
            filterBytes(*convShape) + filterBytes(partner->g) <=
                int64_t(desc->sbufBytesPerPartition) / 4 &&
            !absorbed.contains(partner->op) && !scaledConv(partner->op) &&
            !builtFilter(partner->op) && !chainedConvs.contains(partner->op) &&
            !fusedPools.contains(partner->op) &&
            !globalPools.contains(partner->op) &&
            !phaseScatters.contains(partner->op)) {
          absorbed.insert(partner->op);
          absorbed.insert(partner->fill);
          partnerConvs[op] = *partner;
        }
      // The upsampled phases whose sum the epilogue adds go into the
      // kernel's accumulator (PhasePartner.h), with stacked rows (not
      // beside the kernel modes that take the partitions or the chunks
      // their own way); their stack is then never stored.
      for (const PhaseRead &r : reads) {
        if (std::optional<PhasePartner> p =
                findPhases(generic, *convShape, convEpilogue, r,
                           diagonal || scaled, absorbed, options);
            p && succeeded(dropPhaseAddend(rewriter, convEpilogue, r.result,
                                           generic.getDpsInits()[0]))) {
          for (const PhasePartner::Phase &ph : p->phases) {
            absorbed.insert(ph.op);
            absorbed.insert(ph.fill);
          }
          absorbed.insert(r.interleave);
          phasePartners[op] = std::move(*p);
          continue;
        }
        phaseReads.push_back(r);
      }
      // A matmul whose epilogue also reads an earlier matmul of the same A
      // (a SiLU-gated MLP) computes that one too (not with a pooled A,
      // which that kernel reads its own way).
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op);
          matmul && !pooledInputs.contains(op)) {
        linalg::FillOp fill = findZeroFill(matmul.getDpsInits()[0], op);
        if (linalg::MatmulOp sibling =
                findSiblingMatmul(ops, matmul, findEpilogue(matmul, fill));
            sibling && !absorbed.contains(sibling) &&
            !siblings.contains(sibling) && !pooledInputs.contains(sibling)) {
          siblings[op] = sibling;
          absorbed.insert(sibling);
        }
      }
    }
    // Tensors that convolutions and poolings exchange stay in SBUF where
    // they fit; each kernel budgets against what they leave.
    Residents residents;
    if (sbufResident)
      residents = planResidents(rewriter, ops, absorbed, *desc, residentMargin,
                                fusedPools, globalPools, chainedConvs,
                                phaseScatters, partnerConvs, phasePartners);
    DenseMap<Value, Value> narrowed = narrowPooledSources(rewriter, residents);
    options.narrowed = &narrowed;
    if (packResidents) {
      repackForReaders(rewriter, residents, options);
      admitOversized(rewriter, residents, options);
    }
    // A matmul reads a transpose's input in HBM: not one kept in SBUF (nor
    // one another kernel reads through), where the transpose and the cast
    // run as they are. Likewise through the cast of a transpose's result
    // (sourceWriter), where the transpose runs as it is and the plan keeps
    // neither in SBUF (else the cast runs, an engine rounding it there).
    // They join the matmul's kernel only now, so that the plan saw them as
    // it did before.
    SmallVector<Operation *> kept;
    for (auto &[matmul, in] : pooledInputs) {
      Operation *t = in.transpose ? in.transpose : in.sourceWriter;
      if (!t)
        continue;
      bool inSbuf = in.transpose
                        ? residents.lookup(in.source) ||
                              residents.lookup(in.transpose.getInput())
                        : residents.lookup(viewRoot(in.source)) ||
                              residents.lookup(in.cast.getDpsInits()[0]);
      if (absorbed.contains(t) || inSbuf) {
        kept.push_back(matmul);
        continue;
      }
      if (in.cast)
        absorbed.insert(in.cast);
      if (in.transpose && !in.transposeRead)
        absorbed.insert(t);
    }
    for (Operation *matmul : kept)
      pooledInputs.erase(matmul);
    // Not across nki-split-batch's chains: a filter each chain reads would
    // stay in SBUF through the whole network, and its load, free to start
    // at once, took the DMA queues from the first chain's stem
    // (MobileNetV2 at batch 32 under auto-cast in four chains: 2,981.6 ->
    // 3,400.3 us).
    auto groups =
        func->getAttrOfType<DictionaryAttr>(nki::tile::kBatchGroupsAttr);
    auto chains = groups ? groups.getAs<IntegerAttr>("chains") : IntegerAttr();
    if (!chains || chains.getInt() <= 1)
      residents.shareFilters();
    // Neither the stacked phases nor the interleaved result in SBUF (as
    // planned, repacked and admitted): the epilogue reads the phases (a
    // resident one is read in place anyway).
    for (const PhaseRead &r : phaseReads)
      if (!residents.lookup(r.result) && !residents.lookup(r.addend.buffer) &&
          phasesReadInPlacePay(r.addend, *desc)) {
        absorbed.insert(r.interleave);
        phaseAddends[r.result] = r.addend;
      }
    options.phaseAddends = &phaseAddends;
    for (size_t i = 0; i < ops.size(); ++i) {
      Operation *op = ops[i];
      TileOptions opOptions = options;
      opOptions.sbufBytesPerPartition -= residents.liveBytesAt(op);
      opOptions.residents = &residents;
      if (auto it = attentions.find(op);
          it != attentions.end() && !erased.contains(op)) {
        for (Operation *def : it->second.hoist)
          def->moveBefore(op);
        rewriter.setInsertionPoint(op);
        if (failed(tileAttention(rewriter, it->second, opOptions)))
          return signalPassFailure();
        eraseAttention(rewriter, it->second, erased);
        continue;
      }
      if (erased.contains(op) || absorbed.contains(op) ||
          isBufferBookkeeping(op))
        continue;
      rewriter.setInsertionPoint(op);
      // Row-wise kernels (softmax, layernorm) stay whole; not with a global
      // pooling of a tensor kept in SBUF (its kernel reads it there).
      SmallVector<Operation *> group = findRowGroup(ops, i, opOptions);
      if (llvm::any_of(group, [&](Operation *member) {
            auto generic = dyn_cast<linalg::GenericOp>(member);
            return generic && readsResident(generic, residents);
          }))
        group.clear();
      if (!group.empty()) {
        // A cast the group computes (a layernorm that stores its rounded
        // result) is the group's: the matmul after it reads what it stores.
        SmallVector<Operation *> readThroughGroup;
        for (auto &[matmul, in] : pooledInputs)
          if (in.cast && llvm::is_contained(group, in.cast.getOperation()))
            readThroughGroup.push_back(matmul);
        for (Operation *matmul : readThroughGroup) {
          absorbed.erase(pooledInputs.lookup(matmul).cast);
          pooledInputs.erase(matmul);
        }
        for (Operation *member : group)
          if (Operation *fill = poolingFills.lookup(member);
              fill && !erased.contains(fill) &&
              !llvm::is_contained(group, fill)) {
            rewriter.setInsertionPoint(fill);
            if (failed(tileOne(rewriter, fill, opOptions, erased)))
              return signalPassFailure();
          }
        rewriter.setInsertionPoint(group.back());
        if (failed(tileRowGroup(rewriter, group, opOptions)))
          return signalPassFailure();
        for (Operation *member : group) {
          erased.insert(member);
          rewriter.eraseOp(member);
        }
        continue;
      }
      if (failed(tileOne(rewriter, op, opOptions, erased)))
        return signalPassFailure();
    }
    // Diagonal-filter builders (their convolutions are tiled) and scratch
    // buffers nobody reads any more (fused products) go away.
    // Every op erased is recorded: the last sweep below must not look at it.
    for (Operation *op : diagonalFilters) {
      erased.insert(op);
      rewriter.eraseOp(op);
    }
    for (const PhaseRead &r : phaseReads)
      if (phaseAddends.contains(r.result)) {
        erased.insert(r.interleave);
        rewriter.eraseOp(r.interleave);
      }
    for (GlobalPoolSum &pool : globalPoolSums)
      for (Operation *op : {pool.op.getOperation(), pool.fill.getOperation()}) {
        erased.insert(op);
        rewriter.eraseOp(op);
      }
    // Every kernel that reads or writes a resident tensor does so in SBUF:
    // its HBM buffer is left to views nobody uses (a kernel still naming
    // it would read what was never stored).
    for (auto &[root, tensor] : residents.tensors)
      for (Operation *user : usersThroughViews(root))
        if (!isBufferBookkeeping(user)) {
          user->emitOpError("internal error: reads or writes a tensor kept in "
                            "SBUF through HBM (rerun with "
                            "--nki-tile=sbuf-resident=false)");
          return signalPassFailure();
        }
    for (auto &[root, narrow] : narrowed)
      for (Operation *user : usersThroughViews(root))
        if (!isBufferBookkeeping(user)) {
          user->emitOpError("internal error: reads or writes a tensor stored "
                            "in bf16 through its f32 buffer");
          return signalPassFailure();
        }
    // A resident tensor's HBM buffer goes, with the views left of it; so
    // does the f32 buffer of a tensor stored in bf16.
    SmallVector<Value> gone;
    for (auto &[root, tensor] : residents.tensors)
      gone.push_back(root);
    for (auto &[root, narrow] : narrowed)
      gone.push_back(root);
    for (Value root : gone) {
      DenseSet<Operation *> users = usersThroughViews(root);
      SmallVector<Operation *> views(users.begin(), users.end());
      for (bool changed = true; changed;) { // views of views first
        changed = false;
        for (Operation *&view : views)
          if (view && view->use_empty()) {
            erased.insert(view);
            rewriter.eraseOp(view);
            view = nullptr;
            changed = true;
          }
      }
    }
    for (Operation *op : ops)
      if (!erased.contains(op))
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (alloc->use_empty())
            rewriter.eraseOp(alloc);
  }

  /// The attention chain's ops, and the views of its buffers left unused.
  static void eraseAttention(IRRewriter &rewriter, const AttentionChain &chain,
                             DenseSet<Operation *> &erased) {
    SmallVector<Operation *> ops(chain.absorbed.begin(), chain.absorbed.end());
    ops.push_back(chain.scores);
    ops.push_back(chain.context);
    SmallVector<Value> buffers;
    for (Operation *op : ops) {
      buffers.push_back(op->getOperands().back());
      erased.insert(op);
      rewriter.eraseOp(op);
    }
    for (Value v : buffers)
      while (v.use_empty() &&
             isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(
                 v.getDefiningOp())) {
        Operation *view = v.getDefiningOp();
        v = view->getOperand(0);
        erased.insert(view); // the caller's walk must not look at it
        rewriter.eraseOp(view);
      }
  }

  /// A result that is a reshape view of an allocation no other result
  /// names (softmax over [B, S, H] computed as [B*S, H]): the allocation
  /// takes the result's shape and its users see it through the inverse
  /// reshape, so the output needs no copy.
  static bool reshapeAllocation(IRRewriter &rewriter, func::ReturnOp ret,
                                OpOperand &operand, DenseSet<Value> &seen) {
    Operation *view = operand.get().getDefiningOp();
    if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(view))
      return false;
    auto alloc = view->getOperand(0).getDefiningOp<memref::AllocOp>();
    auto type = cast<MemRefType>(operand.get().getType());
    if (!alloc || !alloc.getType().getLayout().isIdentity() ||
        !type.getLayout().isIdentity() || seen.contains(alloc) ||
        llvm::is_contained(ret.getOperands(), alloc.getResult()))
      return false;
    rewriter.setInsertionPoint(alloc);
    auto whole = memref::AllocOp::create(rewriter, alloc.getLoc(), type);
    Value back;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
      back = memref::CollapseShapeOp::create(rewriter, alloc.getLoc(), whole,
                                             expand.getReassociationIndices());
    else
      back = memref::ExpandShapeOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), whole,
          cast<memref::CollapseShapeOp>(view).getReassociationIndices());
    rewriter.replaceAllUsesWith(alloc, back);
    rewriter.eraseOp(alloc);
    operand.set(whole);
    if (view->use_empty())
      rewriter.eraseOp(view);
    seen.insert(whole);
    return true;
  }

  /// Every result must be its own HBM buffer (an output tensor of the
  /// binary): results that are arguments, constants, views or repeated get
  /// a fresh allocation and a copy (bufferization folds the tensor-level
  /// copies nki-prepare-graph inserts for constants and reshapes).
  static void freshResults(IRRewriter &rewriter, func::FuncOp func) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    DenseSet<Value> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      bool fresh =
          type && v.getDefiningOp<memref::AllocOp>() && seen.insert(v).second;
      if (!type || fresh || reshapeAllocation(rewriter, ret, operand, seen))
        continue;
      rewriter.setInsertionPoint(ret);
      auto copyType = MemRefType::get(type.getShape(), type.getElementType());
      Value alloc = memref::AllocOp::create(rewriter, ret.getLoc(), copyType);
      memref::CopyOp::create(rewriter, ret.getLoc(), v, alloc);
      operand.set(alloc);
      seen.insert(alloc);
    }
  }

  /// What a convolution's kernel absorbs around it (tileOne erases those
  /// ops with it).
  struct ConvSite {
    SmallVector<Operation *> padOps;
    std::optional<ConvPadding> pad;
    linalg::FillOp fill;
    linalg::GenericOp epilogue;
    std::optional<Value> diagonal;
    std::optional<ChannelScale> scale;
    std::optional<FusedPool> pool;
    std::optional<ChainedConv> chain;
    const FusedGlobalPool *globalPool = nullptr;
    const PhaseScatter *scatter = nullptr;
    const PartnerConv *partner = nullptr;
    const PhasePartner *phases = nullptr;
    /// What the kernel takes in (Kernels.h).
    ConvParts parts() const {
      return ConvParts{pad ? &*pad : nullptr,
                       bool(fill),
                       epilogue,
                       diagonal.value_or(Value()),
                       scale ? &*scale : nullptr,
                       pool ? &*pool : nullptr,
                       globalPool,
                       chain ? &*chain : nullptr,
                       scatter,
                       partner,
                       phases};
    }
  };
  ConvSite siteOf(linalg::GenericOp op) {
    ConvSite s;
    s.pad = findConvPadding(op.getDpsInputs()[0], op, s.padOps);
    s.fill = findZeroFill(op.getDpsInits()[0], op);
    s.epilogue =
        findEpilogue(cast<linalg::LinalgOp>(op.getOperation()), s.fill);
    linalg::GenericOp builder;
    s.diagonal = findDiagonalFilter(op.getDpsInputs()[1], builder);
    // A channel scale before an unpadded convolution scales its filter.
    if (!s.pad && !s.diagonal)
      s.scale = findChannelScale(op.getDpsInputs()[0], op);
    // A max pooling of the result right after it: pooled by this kernel
    // (the residents plan saw it there too).
    if (auto it = fusedPools.find(op); it != fusedPools.end())
      s.pool = it->second;
    // A chained 1x1 convolution: the kernel goes where it (its epilogue)
    // was, where its operands are all defined.
    if (auto it = chainedConvs.find(op); it != chainedConvs.end())
      s.chain = it->second;
    if (auto it = globalPools.find(op); it != globalPools.end())
      s.globalPool = &it->second;
    if (auto it = phaseScatters.find(op); it != phaseScatters.end())
      s.scatter = &it->second;
    if (auto it = partnerConvs.find(op); it != partnerConvs.end())
      s.partner = &it->second;
    if (auto it = phasePartners.find(op); it != phasePartners.end())
      s.phases = &it->second;
    return s;
  }

  /// The packing `op`'s convolution kernel would choose, with the
  /// resident tensors as they stand.
  std::optional<ConvPacking> analyzePacking(OpBuilder &b, Operation *op,
                                            ConvSite &site,
                                            const Residents &residents,
                                            const TileOptions &options) {
    auto generic = cast<linalg::GenericOp>(op);
    std::optional<nki::conv::ConvGeneric> g =
        nki::conv::matchConvGeneric(generic);
    site = siteOf(generic);
    TileOptions opOptions = options;
    opOptions.sbufBytesPerPartition -= residents.liveBytesAt(op);
    opOptions.residents = &residents;
    return analyzeConvPacking(b, generic, *g, site.parts(), opOptions);
  }

  /// Keeps each packable resident tensor (Residents.h) in its reader's
  /// packed band tile when that reader's kernel packs one from it and its
  /// writer's kernel moves its rows by DMA anyway (packed bands or stacked
  /// rows): the rows then go straight to where the reader takes them,
  /// rather than to the resident tensor and, in a second DMA, from there to
  /// the band tile; unless that costs more DMA time than the two copies
  /// (each row goes to every block that holds it, a descriptor each, where
  /// the reader copies whole rows in one run a partition). A writer that
  /// evacuates into the tensor in place keeps it.
  void repackForReaders(OpBuilder &b, Residents &residents,
                        const TileOptions &options) {
    auto analyze = [&](Operation *op, ConvSite &site) {
      return analyzePacking(b, op, site, residents, options);
    };
    for (auto [root, p] : residents.packable) {
      ConvSite writerSite, readerSite;
      std::optional<ConvPacking> writer = analyze(p.writer, writerSite);
      if (!writer)
        continue;
      bool pooled = writerSite.pool &&
                    viewRoot(writerSite.pool->op.getDpsInits()[0]) == root;
      if ((pooled ? writer->pooledBlocks : writer->resultBlocks) <= 1)
        continue;
      std::optional<ConvPacking> reader = analyze(p.reader, readerSite);
      if (reader && reader->input &&
          residents.packingSavesDma(
              root, *reader->input, options.rates.dmaMinDescriptorBytes,
              options.rates.dmaLatencyNs * options.rates.dmaBytesPerNs *
                  options.rates.dmaQueues))
        residents.repack(b, root, std::move(*reader->input));
    }
  }

  /// Keeps each tensor too large for SBUF channel-major
  /// (Residents::oversized) in its reader's packed band tile when that
  /// reader's kernel, given the tensor as its input, packs one from it and
  /// the tile fits beside the resident tensors live across its range
  /// (Residents::admitPacked): eight images of a 16-channel 128 x 128
  /// tensor take 270 KB a partition channel-major, 46 KB in a tile of six
  /// stacked rows (eight partition groups). Its writer then moves its rows
  /// there by DMA. A writer that fuses a max pooling of it must still pool
  /// its own chunks once the tensor is packed (the pooling's own kernel
  /// reads its input channel-major): the U-Net's skips, pooled by their
  /// writers and read by the decoders.
  void admitOversized(OpBuilder &b, Residents &residents,
                      const TileOptions &options) {
    for (const Residents::Oversized &o : residents.oversized) {
      residents.holdOversized(b, o);
      ConvSite site, writerSite;
      std::optional<ConvPacking> reader =
          analyzePacking(b, o.reader, site, residents, options);
      if (!reader || !reader->input) {
        residents.dropOversized(o);
        continue;
      }
      if (!residents.admitPacked(b, o, std::move(*reader->input)) ||
          !o.pooledByWriter)
        continue;
      // A writer that fuses a max pooling of the tensor must pool its own
      // chunks as it writes the packed tile (the pooling's own kernel reads
      // its input channel-major), else the tensor goes back to HBM.
      std::optional<ConvPacking> writer =
          analyzePacking(b, o.writer, writerSite, residents, options);
      if (!writer || !writer->pooledBlocks)
        residents.evictPacked(o);
    }
  }

  LogicalResult tileOne(IRRewriter &rewriter, Operation *op,
                        const TileOptions &options,
                        DenseSet<Operation *> &erased) {
    auto erase = [&](Operation *o) {
      erased.insert(o);
      rewriter.eraseOp(o);
    };
    auto isTensor = [](Type t) { return isa<TensorType>(t); };
    if (llvm::any_of(op->getOperandTypes(), isTensor) ||
        llvm::any_of(op->getResultTypes(), isTensor))
      return op->emitOpError(
          "works on tensors: run bufferization before nki-tile");
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      bool resident = options.residents &&
                      (options.residents->lookup(copy.getSource()) ||
                       options.residents->lookup(copy.getTarget()));
      if (failed(resident
                     ? tileResidentCopy(rewriter, op, copy.getSource(),
                                        copy.getTarget(), *options.residents)
                     : tileCopy(rewriter, op, copy.getSource(),
                                copy.getTarget(), options.rates.dmaQueues)))
        return failure();
      erase(op);
      return success();
    }
    // A transpose that keeps the innermost dim moves whole rows (PyTorch's
    // [N, S, d] <-> [S, N, d] around sequence-first attention): between HBM
    // buffers it is one DMA copy of the input read through the
    // permutation, a descriptor a row. The elementwise tiling spread each
    // row over the partitions, a descriptor of a few bytes a partition (a
    // BERT-like layer at batch 2 under auto-cast: 342.8 of its 716.6 us).
    if (auto t = dyn_cast<linalg::TransposeOp>(op);
        t && movesRowsByDma(t, options)) {
      if (failed(tileCopy(rewriter, op, t.getInput(), t.getInit(),
                          options.rates.dmaQueues, t.getPermutation())))
        return failure();
      erase(op);
      return success();
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return op->emitOpError("is not supported by the nki compiler");
    // Ops the MX kernel absorbs (its quantisation of A) never get here.
    for (Value out : linalgOp.getDpsInits())
      if (nki::tile::storageBits(cast<MemRefType>(out.getType())) == 4)
        return op->emitOpError()
               << "writes f4E2M1FN values to HBM, where they are packed two "
                  "a byte; so far only program inputs and constants hold "
                  "MXFP4 data there (an MX matmul quantises its own A)";
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
        nki::isMxMatmul(linalgOp)) {
      Value out = linalgOp.getDpsInits()[0];
      linalg::FillOp fill = findZeroFill(out, op);
      linalg::GenericOp epilogue = findEpilogue(linalgOp, fill);
      // The fused code goes where the epilogue was: its operands are all
      // defined there.
      if (epilogue)
        rewriter.setInsertionPoint(epilogue);
      auto pooled = pooledInputs.find(op);
      const PooledMatmulInput *in =
          pooled == pooledInputs.end() ? nullptr : &pooled->second;
      linalg::MatmulOp sibling = siblings.lookup(op);
      auto mx = mxInputs.find(op);
      const MxQuantizedA *quantized =
          mx == mxInputs.end() ? nullptr : &mx->second;
      if (failed(tileMatmul(rewriter, linalgOp, bool(fill), epilogue, in,
                            options, sibling, quantized)))
        return failure();
      erase(op);
      // A chain several MX matmuls share goes with the first of them.
      if (quantized)
        for (Operation *absorbedOp : llvm::reverse(quantized->ops))
          if (!erased.contains(absorbedOp))
            erase(absorbedOp);
      if (sibling) {
        if (linalg::FillOp siblingFill =
                findZeroFill(sibling.getDpsInits()[0], sibling))
          erase(siblingFill);
        erase(sibling);
      }
      if (in && in->cast)
        erase(in->cast);
      if (in && in->transpose && !in->transposeRead)
        erase(in->transpose);
      if (fill)
        erase(fill);
      if (epilogue)
        erase(epilogue);
      return success();
    }
    // A tiled convolution or pooling goes, with the ops its kernel
    // absorbed: the fill of its output, the padding's fill and copy (and
    // the padded buffer once nothing uses it), its epilogue.
    auto eraseWindowed = [&](Operation *windowed, bool padded,
                             ArrayRef<Operation *> padOps, Operation *fill,
                             Operation *epilogue) {
      Operation *padAlloc = windowed->getOperand(0).getDefiningOp();
      erase(windowed);
      for (Operation *o : padOps)
        erase(o);
      if (padded && padAlloc->use_empty())
        erase(padAlloc);
      if (fill)
        erase(fill);
      if (epilogue)
        erase(epilogue);
    };
    if (std::optional<bool> isMax = isPooling(op)) {
      SmallVector<Operation *> padOps;
      std::optional<ConvPadding> pad =
          findConvPadding(linalgOp.getDpsInputs()[0], op, padOps);
      linalg::FillOp fill =
          findFill(linalgOp.getDpsInits()[0], op, poolIdentity(*isMax));
      if (failed(tilePool(rewriter, linalgOp, *isMax, pad ? &*pad : nullptr,
                          bool(fill), options)))
        return failure();
      eraseWindowed(op, pad.has_value(), padOps, fill, {});
      return success();
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (std::optional<nki::conv::ConvGeneric> g =
            generic ? nki::conv::matchConvGeneric(generic) : std::nullopt) {
      ConvSite site = siteOf(generic);
      auto &[padOps, pad, fill, epilogue, diagonal, scale, pool, chain,
             globalPool, scatter, partner, phases] = site;
      Value out = generic.getDpsInits()[0];
      if (pool)
        rewriter.setInsertionPoint(pool->op);
      else if (chain)
        rewriter.setInsertionPoint(chain->epilogue ? chain->epilogue
                                                   : chain->op);
      else if (epilogue)
        rewriter.setInsertionPoint(epilogue);
      else if (scatter)
        rewriter.setInsertionPoint(scatter->last);
      if (failed(tileConv(rewriter, generic, *g, site.parts(), options)))
        return failure();
      // The partner's matmuls are the kernel's; its result is never written.
      if (partner) {
        erase(partner->op);
        erase(partner->fill);
      }
      // So are the phases': they go with their padding, the interleave and
      // the stack's views (the stack and the result, never written nor
      // read, go with the allocations nobody uses).
      if (phases) {
        for (const PhasePartner::Phase &ph : phases->phases) {
          linalg::GenericOp phase = ph.op;
          SmallVector<Operation *> phasePadOps;
          findConvPadding(phase.getDpsInputs()[0], phase, phasePadOps);
          Operation *view = phase.getDpsInits()[0].getDefiningOp();
          eraseWindowed(phase, true, phasePadOps, ph.fill, {});
          if (view && view->use_empty())
            erase(view);
        }
        erase(phases->interleave);
      }
      // The result the 1x1 read is never written now: its buffer goes too.
      Value result = epilogue ? epilogue.getDpsInits()[0] : out;
      Value mid = chain ? result : Value();
      eraseWindowed(op, pad.has_value(), padOps, fill, epilogue);
      if (chain) {
        erase(chain->op);
        erase(chain->fill);
        if (chain->epilogue)
          erase(chain->epilogue);
        if (Operation *alloc = viewRoot(mid).getDefiningOp();
            alloc && alloc->use_empty())
          erase(alloc);
      }
      if (scale)
        erase(scale->op);
      // The copies the kernel did, their views of the result, and the
      // result, never written.
      if (scatter) {
        for (const PhaseScatter::Piece &p : scatter->pieces) {
          Operation *view = p.source.getDefiningOp();
          Operation *target = p.target.getDefiningOp();
          erase(p.copy);
          erase(view);
          if (target && isa<memref::SubViewOp>(target) && target->use_empty())
            erase(target);
        }
        if (Operation *alloc = out.getDefiningOp(); alloc && alloc->use_empty())
          erase(alloc);
      }
      if (pool) {
        Operation *padAlloc = pool->op.getInputs()[0].getDefiningOp();
        erase(pool->op);
        erase(pool->fill);
        for (Operation *o : pool->padOps)
          erase(o);
        if (pool->padding && padAlloc->use_empty())
          erase(padAlloc);
        // A result only the pooling read, not stored: its buffer goes.
        if (Operation *alloc = viewRoot(result).getDefiningOp();
            pool->resultUnread && alloc && alloc->use_empty())
          erase(alloc);
      }
      return success();
    }
    if (!generic) {
      FailureOr<linalg::GenericOp> g =
          linalg::generalizeNamedOp(rewriter, linalgOp);
      if (failed(g))
        return op->emitOpError("cannot be generalized for tiling");
      erased.insert(op); // replaced by the generic
      generic = *g;
      rewriter.setInsertionPoint(generic);
    }
    if (std::optional<Upsample> u =
            generic ? matchUpsample(generic) : std::nullopt) {
      if (failed(tileUpsample(rewriter, generic, *u, options)))
        return failure();
      erase(generic);
      return success();
    }
    // Channels on the partitions when it reads or writes a tensor kept in
    // SBUF.
    // A global pooling whose identity init was absorbed runs there too.
    linalg::FillOp init = isChannelGeneric(generic) ? poolingInit(generic)
                                                    : linalg::FillOp();
    if ((options.residents && readsResident(generic, *options.residents)) ||
        init) {
      if (failed(tileChannelGeneric(rewriter, generic, bool(init), options)))
        return failure();
    } else if (failed(tileGeneric(rewriter, generic, options))) {
      return failure();
    }
    erase(generic);
    if (init)
      erase(init);
    return success();
  }
};
} // namespace
