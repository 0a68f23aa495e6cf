//===- Residents.h - Tensors kept in SBUF between kernels -------*- C++ -*-===//
//
// nki-tile keeps an NCHW tensor that convolutions, poolings and
// channel-major elementwise kernels exchange in SBUF instead of HBM when it
// fits: one tile with the channels on the
// partitions (the layout those kernels compute in) and a border of the
// padding its padded readers want, so a producer evacuates straight into it
// and a consumer's matmuls read their shifted windows from it. Which
// tensors stay is the whole-program problem of nki/Analysis/Residency.h:
// live ranges over the kernels, each kernel leaving the SBUF its own tiles
// need. docs/compiler.md and docs/memory-planning.md describe the dataflow.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_RESIDENTS_H
#define NKI_LIB_CONVERSION_TILING_RESIDENTS_H

#include "PackedLayout.h"

#include "nki/Analysis/Residency.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace nki::isa {
struct TargetDesc;
} // namespace nki::isa

namespace nki::tiling {

struct FusedPool;
struct FusedGlobalPool;
struct ChainedConv;
struct PhaseScatter;
struct PartnerConv;
struct PhasePartner;

/// A [N, C, H, W] tensor in SBUF: the tile [min(C, 128), cBlocks, N,
/// top + H + bottom, left + W + right], channel c on partition c % 128 of
/// block c / 128, the border holding `padValue`; or, `packed`, its reader's
/// band tile.
struct ResidentTensor {
  mlir::Value tile;
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  double padValue = 0.0;
  std::optional<PackedLayout> packed;
  /// Where the tile's padding is set: before the first kernel that writes
  /// the tensor.
  mlir::Operation *firstWriter = nullptr;
};

/// A view of a resident tensor: the tensor, the (n, c, h, w) it starts at
/// and the steps between its rows and columns (more than 1 only for a
/// convolution writing one phase of a transposed convolution's result).
struct ResidentRef {
  const ResidentTensor *tensor = nullptr;
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t rowStep = 1, colStep = 1;
};

class Residents {
public:
  /// The resident tensor `v` is part of: `v` is its HBM buffer or a 4-D
  /// subview of it, unit-stride but for the rows and columns.
  std::optional<ResidentRef> lookup(mlir::Value v) const;

  /// The [cs, rows, cols] view of channels [c, c + cs), image n, rows h,
  /// h + rowStep, ... and columns w, w + colStep, ..., all relative to `r`
  /// and in its steps (rows and columns outside the tensor are its
  /// border); [cs, images, rows, cols] from image n on for more images.
  mlir::Value view(mlir::OpBuilder &b, mlir::Location loc, const ResidentRef &r,
                   int64_t n, int64_t c, int64_t cs, int64_t h, int64_t rows,
                   int64_t rowStep, int64_t w, int64_t cols, int64_t colStep,
                   int64_t images = 1) const;

  /// Copies `src` ([cs, rows * cols] or [cs, rows, cols] elements a
  /// partition, row-major) to channels [c, c + cs), image n, rows h, h +
  /// rowStep, ... and columns [w, w + cols) of the packed tensor `r` by
  /// DMA, into each block that holds those rows (a DMA per run of rows
  /// that step by one on both sides). With `engineCopies`, or for a tensor
  /// of several images, a run from and to partitions where an engine may
  /// start is an engine copy instead (no DMA latency: for a writer's last
  /// rows, which its reader waits for; no descriptor a row on the queues
  /// that every image's rows share).
  void write(mlir::OpBuilder &b, mlir::Location loc, const ResidentRef &r,
             mlir::Value src, int64_t n, int64_t c, int64_t cs, int64_t h,
             int64_t rows, int64_t rowStep, int64_t w, int64_t cols,
             bool engineCopies = false) const;

  /// Whether whole rows (from column 0, the tensor's width) that a writer
  /// moves by DMA into the resident tensor `r` go staged (stagedRows): `r`
  /// steps by one, its tile's rows have border columns (its own, or its
  /// packed reader's) and the tensor's rows are shorter than a DMA
  /// descriptor's minimum. Each block of rows is then one run a partition,
  /// border included, instead of a descriptor a row, each charged at least
  /// that minimum (a row of 32 bf16 is 64 bytes).
  bool stagesRows(const ResidentRef &r) const;

  /// A [parts, rows, left + W + right] tile of `r`'s element type (its
  /// tile's row) whose border columns hold the padding (one memset for one
  /// column a side); its interior, columns [left, left + W), is the
  /// writer's (stagedInterior).
  mlir::Value stagedRows(mlir::OpBuilder &b, mlir::Location loc,
                         const ResidentRef &r, int64_t parts,
                         int64_t rows) const;
  mlir::Value stagedInterior(mlir::OpBuilder &b, mlir::Location loc,
                             const ResidentRef &r, mlir::Value staged) const;

  /// Copies partitions [p0, p0 + cs) of a stagedRows tile to rows [h, h +
  /// rows) of channels [c, c + cs), image n, of `r`, border included: one
  /// DMA run a partition (into a packed tensor, through write, to each
  /// block that holds them, `engineCopies` as there).
  void writeStagedRows(mlir::OpBuilder &b, mlir::Location loc,
                       const ResidentRef &r, mlir::Value staged, int64_t p0,
                       int64_t n, int64_t c, int64_t cs, int64_t h,
                       bool engineCopies = false) const;

  /// Tile rows [r0, r0 + rows) of image n of a packed tensor: [blocks * C,
  /// rows, width].
  mlir::Value packedRows(mlir::OpBuilder &b, mlir::Location loc,
                         const ResidentTensor &t, int64_t n, int64_t r0,
                         int64_t rows) const;

  /// Whether `root`'s rows, written into `layout` (a DMA descriptor a row
  /// and block, each charged at least `minDescriptorBytes`), cost less DMA
  /// time than written into the resident tensor (a descriptor a row) and
  /// copied from there into the reader's band tiles (rows whole, border
  /// included: one run a block when the rows are consecutive, else a
  /// descriptor a row), or cost at most `latencyBytes` more for a tensor
  /// of one image (the copy the layout saves sits between the writer's
  /// last rows and the reader's first matmul, once).
  bool packingSavesDma(mlir::Value root, const PackedLayout &layout,
                       int64_t minDescriptorBytes, int64_t latencyBytes) const;

  /// Keeps `root`'s tensor in `layout` instead (the tensors `packable`
  /// names; before any kernel is tiled): a new tile, its padding set.
  void repack(mlir::OpBuilder &b, mlir::Value root, PackedLayout layout);

  /// The [cs, N] view of channels [c, c + cs) of every image of a resident
  /// [N, C, 1, 1] tensor (within one block of 128 channels).
  mlir::Value imageColumns(mlir::OpBuilder &b, mlir::Location loc,
                           const ResidentRef &r, int64_t c, int64_t cs) const;

  /// SBUF bytes per partition the resident tensors hold while `op`'s kernel
  /// runs (0 for ops the plan did not see).
  int64_t liveBytesAt(mlir::Operation *op) const {
    return liveBytes.lookup(op);
  }

  /// Whether an engine may read `count` partitions from partition `from`
  /// and write them from partition `to` (the start-partition rule).
  bool engineMayMove(int64_t from, int64_t to, int64_t count) const;

  /// A tensor one convolution writes and one reads (as `packable`) that
  /// takes more SBUF channel-major than a resident tensor may: its reader's
  /// packed band tile, whose partitions hold several blocks of rows (a
  /// 16-channel tensor on 16 partitions channel-major, on 128 in eight
  /// blocks), may fit (admitPacked).
  struct Oversized {
    mlir::Value root;
    ResidentTensor tensor; // without a tile
    mlir::Type elementType;
    mlir::Operation *writer = nullptr, *reader = nullptr;
    int64_t first = 0, last = 0; // positions of its live range
    int64_t benefit = 0;         // the HBM bytes it saves resident
    /// Its writer fuses a max pooling of it: kept packed only when that
    /// kernel pools its own chunks (a pooling's own kernel reads the
    /// tensor channel-major).
    bool pooledByWriter = false;
  };
  std::vector<Oversized> oversized;

  /// Keeps `o` resident channel-major for now (a tile the planner never
  /// sees: admitPacked repacks it, dropOversized removes it), so that its
  /// reader's kernel may be analyzed with it as its input.
  void holdOversized(mlir::OpBuilder &b, const Oversized &o);
  void dropOversized(const Oversized &o);
  /// Keeps `o` in `layout` (its reader's packed band tile) when that takes
  /// at most the share a resident tensor may take and fits beside the
  /// resident tensors live across its range (nki::admit on the plan);
  /// else drops it. Returns whether it did.
  bool admitPacked(mlir::OpBuilder &b, const Oversized &o, PackedLayout layout);
  /// Takes back an admitted `o`: not resident in the plan, no tile.
  void evictPacked(const Oversized &o);

  /// liveBytes again from the residency plan, after a candidate changed.
  void refreshLiveBytes();

  int64_t partitions = 0; // the target's: a view's channel c is at c % this
  const isa::TargetDesc *target = nullptr;
  llvm::DenseMap<mlir::Value, ResidentTensor> tensors; // by HBM buffer
  llvm::DenseMap<mlir::Operation *, int64_t> liveBytes;
  /// Tensors that may be kept in their reader's packed layout (repack): one
  /// convolution writes them (its result or its fused pooling's) and one
  /// reads them as its input; by HBM buffer.
  struct Packable {
    mlir::Operation *writer = nullptr, *reader = nullptr;
  };
  llvm::MapVector<mlir::Value, Packable> packable;

  /// A constant filter several convolutions read alike (one layer in each
  /// group of images, nki-split-batch) that the plan keeps in SBUF from its
  /// first reader to its last, so that it comes from HBM once: the first
  /// reader that loads it whole (ConvKernel::loadFilters) leaves its tiles
  /// here and the later ones read them. A reader that lays its filter out
  /// otherwise (folded columns, stacked rows, packed bands) loads its own.
  struct SharedFilter {
    /// Filled in as the kernels are emitted (empty until the first).
    mutable llvm::SmallVector<mlir::Value> tiles;
  };
  std::vector<SharedFilter> sharedFilters;
  /// Constant filters several convolutions read alike, each with the
  /// residency candidate it would be (its tiles' bytes a partition, its
  /// first and last reader, the loads it saves).
  struct FilterCandidate {
    llvm::SmallVector<mlir::Operation *> convs;
    ResidencyCandidate candidate;
  };
  std::vector<FilterCandidate> filterCandidates;
  /// Keeps those filters in SBUF where the resident tensors (planned,
  /// repacked and admitted) leave room: a second residency problem whose
  /// capacity at each position is half the SBUF they leave there, at most
  /// an eighth of the target's. A kernel sizes its bands by what it is
  /// given: weighed with the tensors, the filters cost ResNet-50 at batch 8
  /// in f32 on trn1 66 % (3,806.9 -> 6,329.6 us), and the U-Net at batch 8
  /// on trn2 its packed skips; within all of the SBUF left (up to an
  /// eighth), 66 % again.
  void shareFilters();
  llvm::DenseMap<mlir::Operation *, int64_t> sharedFilterOf; // by conv
  const SharedFilter *sharedFilter(mlir::Operation *conv) const {
    auto it = sharedFilterOf.find(conv);
    return it == sharedFilterOf.end() ? nullptr : &sharedFilters[it->second];
  }

  /// The residency plan (its positions are kernels) with the tensors it
  /// keeps, and each op's position (liveBytes: the resident bytes there).
  ResidencyProblem residency;
  ResidencySolution residencySolution;
  /// The candidate of `residency` each resident tensor is, by HBM buffer.
  llvm::DenseMap<mlir::Value, int64_t> candidateOf;
  llvm::DenseMap<mlir::Operation *, int64_t> positionOf;
};

/// Chooses the tensors of `ops` (the entry function's body, in order; the
/// ops in `absorbed` belong to a later kernel) that stay in SBUF, given the
/// target's SBUF bytes per partition, and allocates their tiles, with the
/// border set before the first kernel that writes them. Writing a stepped
/// view in HBM would pay the target's DMA descriptor minimum per element.
/// A pooling in `fusedPools` (Match.h's findFusedPool, by the convolution
/// whose kernel computes it) writes its result at that convolution (whose
/// own result, when only the pooling reads it, is not kept: the kernel
/// does not store it); so does
/// a global pooling in `globalPools` (findFusedGlobalPools; the pooling
/// itself is in `absorbed`). A convolution in `chainedConvs`
/// (findChainedConv; the 1x1 in `absorbed`) runs where the 1x1 ends and
/// writes its result; its own is never stored. A convolution in
/// `phaseScatters` (findPhaseScatter; the copies in `absorbed`) runs where
/// the last copy was and writes the copies' targets in place. A
/// convolution in `partnerConvs` (findPartnerConv; the 1x1 in `absorbed`)
/// reads the 1x1's input too; the 1x1's result is never stored. A
/// convolution in `phasePartners` (PhasePartner.h; the phases and their
/// interleave in `absorbed`) reads the phases' input, padded. `margin`
/// bytes a partition are left free at every position besides the kernels'
/// own estimates.
Residents planResidents(
    mlir::OpBuilder &b, llvm::ArrayRef<mlir::Operation *> ops,
    const llvm::DenseSet<mlir::Operation *> &absorbed,
    const isa::TargetDesc &target, int64_t margin,
    const llvm::DenseMap<mlir::Operation *, FusedPool> &fusedPools,
    const llvm::DenseMap<mlir::Operation *, FusedGlobalPool> &globalPools,
    const llvm::DenseMap<mlir::Operation *, ChainedConv> &chainedConvs,
    const llvm::DenseMap<mlir::Operation *, PhaseScatter> &phaseScatters,
    const llvm::DenseMap<mlir::Operation *, PartnerConv> &partnerConvs,
    const llvm::DenseMap<mlir::Operation *, PhasePartner> &phasePartners);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_RESIDENTS_H
