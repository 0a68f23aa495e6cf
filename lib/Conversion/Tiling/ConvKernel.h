//===- ConvKernel.h - A convolution's kernel, across its files -*- C++ -*-===//
//
// The state and the steps of a convolution's kernel (Conv.cpp describes the
// scheme), implemented by subject: Conv.cpp (what the kernel reads and
// writes, its bands of output rows and their matmuls, the entry point),
// ConvBands.cpp (bands side by side, stacked and folded rows),
// ConvEpilogue.cpp (evacuations, fused poolings, clamps), ConvFilters.cpp
// (filter tiles) and ConvDepthwise.cpp (a depthwise filter's diagonal and
// the vector engines' taps). Only those files include it.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_CONVKERNEL_H
#define NKI_LIB_CONVERSION_TILING_CONVKERNEL_H

#include "../Conv/ConvGeneric.h"
#include "Access.h"
#include "BodyLowering.h"
#include "Epilogue.h"
#include "Kernels.h"
#include "Match.h"
#include "PhasePartner.h"
#include "Residents.h"
#include "TileUtils.h"
#include "WindowInput.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cstdint>

namespace nki::tiling {

/// Columns an evacuation of several small images covers at least
/// (ConvKernel::evacuatesImages; an engine instruction costs 64 cycles
/// besides its elements: a fifth here). EfficientNet-B0 under auto-cast at
/// batch 8, its SiLU evacuations of 7 x 7 and 14 x 14 images: 1,373.7 ->
/// 1,348.5 us.
inline constexpr int64_t kEvacuationColumns = 256;
/// Pixels an image has at most for its evacuations to be merged whatever the
/// epilogue: an engine instruction costs at least 64 elements' cycles, so
/// one of an image this small pays mostly for elements it does not have
/// (the MobileNetV3 classifier's 2 x 6 and 3 x 12 layers at batch 8, their
/// hardswish epilogues five instructions an image: 204.7 -> 186.6 us under
/// auto-cast, 289.8 -> 272.2 in f32). Not 7 x 7 (49): ResNet-50 at batch 8
/// in f32 ran 4,200.9 -> 4,407.8 us merged there, while MobileNetV2 and
/// EfficientNet-B0 gained 0.2 to 0.4 %.
inline constexpr int64_t kFewPixels = 48;
/// Elements a partition a depthwise chunk's tap-product tile (reduceChunk)
/// holds at most: 32 KiB of f32, a 7 x 7 5x5 layer's 49 x 25 many times.
inline constexpr int64_t kMaxTapProducts = 8192;
/// Chunks (PSUM banks) a stationary tile serves before the next.
inline constexpr int64_t kChunksPerGroup = 4;

/// Whether an epilogue operand [N, C, H, W] of an `h` x `w` result is read
/// per channel (and maybe per image): a [P, 1] column of a chunk. A dim of
/// one row (or column) in an image of several columns (rows) does not
/// count, whatever its stride: the (3, 1) convolution that ends a text
/// recogniser's CNN has [N, C, 1, 80] results, whose batch norm read as
/// [P, 80] tiles took a one-element DMA descriptor an element (57 us a
/// load). 1 x 1 images keep both strides zero (their per-image operands
/// stay tiles).
inline bool perChannel(const Access &e, int64_t h, int64_t w) {
  bool flatH = e.strides[2] == 0 || (h == 1 && w > 1);
  bool flatW = e.strides[3] == 0 || (w == 1 && h > 1);
  return flatH && flatW;
}

/// Whether the kernel rows of `g` go on the partitions (ConvBands.cpp).
bool convFoldsRows(const conv::ConvGeneric &g, int64_t partitions);

// The kernel's members name MLIR's types as Conv*.cpp do; the directive
// stays in this namespace, which only ConvKernel leaves.
namespace conv_kernel {
using namespace mlir;

struct ConvKernel {
  using Layout = HbmLayout;

  ConvKernel(OpBuilder &b, linalg::GenericOp op, const conv::ConvGeneric &g,
             const ConvParts &parts, const TileOptions &options)
      : b(b), op(op), g(g), pad(parts.pad), zeroInit(parts.zeroInit),
        epilogue(parts.epilogue), diagonal(parts.diagonal), scale(parts.scale),
        pool(parts.pool), globalPool(parts.globalPool), chained(parts.chained),
        scatter(parts.scatter), partner(parts.partner), phases(parts.phases),
        options(options), loc(op.getLoc()) {}

  OpBuilder &b;
  linalg::GenericOp op;
  const conv::ConvGeneric &g;
  const ConvPadding *pad;
  bool zeroInit;
  linalg::GenericOp epilogue;
  Value diagonal; // the compact weights of a diagonal (depthwise) filter
  const ChannelScale *scale; // per-image factors of the input's channels
  /// A max pooling of the result (Match.h's findFusedPool), computed from
  /// each chunk (`poolInKernel`, into `pooled`'s layout) or, when the
  /// chunks are not pairs of whole rows, right after the kernel. 3x3
  /// windows read the row above a chunk: the column maxes of a band's rows
  /// go to one tile per image and filter block (`poolCols`), and with
  /// packed bands the first pooled row of bands 1.. waits for the band
  /// before's last row (`poolFirst`: the rows of the band's first chunk).
  const FusedPool *pool;
  bool poolInKernel = false;
  Layout pooled;
  llvm::DenseMap<std::pair<int64_t, int64_t>, Value> poolCols, poolFirst;
  /// 2x2 windows over chunks of one row: a pair's first row (its own tile,
  /// [fb, 1, ow]) and its row index, until the chunk of its second.
  llvm::DenseMap<std::pair<int64_t, int64_t>, std::pair<Value, int64_t>>
      pairRows;
  /// A global pooling of the result (Match.h's findFusedGlobalPools): each
  /// chunk's sum per partition goes to a column of its image's `poolSums`
  /// tile, from the accumulator of the ACT pass that computes the chunk
  /// when there is one; after the image's last chunk the columns are summed
  /// (and the blocks of packed bands added) into column n of the filter
  /// block's `imageSums`, which is scaled and stored once every image has
  /// its column (one instruction over [F', N], not N of one element).
  const FusedGlobalPool *globalPool;
  struct PoolSums {
    Value tile;
    int64_t next = 0;
  };
  llvm::DenseMap<std::pair<int64_t, int64_t>, PoolSums> poolSums;
  llvm::DenseMap<int64_t, PoolSums> imageSums;
  /// A 1x1 convolution of the result (Match.h's findChainedConv): each
  /// chunk's final values, in the 1x1's input type, times `chainFilter`
  /// (the 1x1's [C, F'] filter once per block of packed bands or stacked
  /// rows, block-diagonal: the 1x1 reads pixel by pixel) into PSUM,
  /// evacuated with `chainEpi` into `chainY` a block at a time. The
  /// kernel's own result is not stored.
  const ChainedConv *chained;
  std::optional<conv::ConvGeneric> chainG;
  Layout chainW, chainY;
  Epilogue chainEpi;
  Value chainFilter;
  Value loadChainFilter();
  /// Blocks of the result that copies read (Match.h's findPhaseScatter):
  /// each chunk's block of PSUM partitions goes straight to its copy's
  /// target (`scatterOut`: its layout in HBM when it is not kept in SBUF).
  const PhaseScatter *scatter;
  SmallVector<Layout> scatterOut;
  void scatterChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t oh,
                    int64_t ow0, int64_t rc, int64_t wc, Value acc,
                    int64_t imgs);
  /// The 1x1 convolution whose result this one starts from (Match.h's
  /// findPartnerConv): its matmuls go into each chunk's accumulator after
  /// the kernel's own, from bands of its input (`partnerInput`, in the
  /// partner's own blocks of channels) at the chunk's pixels, times its
  /// filter blocks (`partnerFilters`, [c, F] each).
  const PartnerConv *partner;
  WindowInput partnerInput;
  Layout partnerW;
  SmallVector<Value> partnerFilters;
  int64_t partnerBlocks() const {
    return partner ? (partner->g.c + P() - 1) / P() : 0;
  }
  int64_t partnerBlockAt(int64_t cb) const {
    return std::min(P(), partner->g.c - cb * P());
  }
  /// The upsampled phases whose sum the epilogue added (PhasePartner.h),
  /// computed into each chunk's accumulator instead, with stacked rows:
  /// per band a tile of x's rows (`phaseInput`, x inside `phasePad`), block
  /// i of phaseBlocks() holding x row (stack / fh) * oh0 + phaseLo() + i +
  /// r at row r, and per window, column phase and kernel column a
  /// stationary tile (`phaseFilters`, loadPhaseFilters).
  const PhasePartner *phases;
  /// Whether analyze() runs for analyzeConvPacking (the layout a resident
  /// input could be packed in for this kernel), not to tile it.
  bool forPacking = false;
  ConvPadding phasePad;
  WindowInput phaseInput;
  SmallVector<PhaseWindow> windows;
  SmallVector<Value> phaseFilters;
  int64_t phaseBlocks() const { return P() / phases->c; }
  int64_t phaseWidth() const {
    return phases->left + phases->w + phases->right;
  }
  /// The first window's first row (phaseWindows goes down the rows).
  int64_t phaseLo() const { return windows.front().lo; }
  /// Rows of a band tile for `rows` groups: the last window's first row
  /// of the last group, its blocks the tile's partitions.
  int64_t phaseRows(int64_t rows) const {
    return stack / phases->fh * (rows - 1) + windows.back().lo - phaseLo() + 1;
  }
  /// The partner's matmuls a chunk: a window, column phase and kernel
  /// column each.
  int64_t phaseMatmuls() const {
    int64_t cols = 0;
    for (int64_t px = 0; px < phases->fw; ++px)
      cols += phases->kwOf(px);
    return int64_t(windows.size()) * cols;
  }
  /// Whether the result is evacuated in place into SBUF.
  bool evacuatesInPlace() const;
  /// evacuate's calls per image and filter block (set by analyze).
  int64_t evacuationsPerImage = 0;
  /// The global pooling's sums of the chunk value `t` of images [n, n +
  /// imgs): with several images (whole ones, one evacuation an image's
  /// all) one reduction puts each image's sum in its column.
  void sumForPool(OpBuilder &b, BodyLowering &lowering, Value t, int64_t n,
                  int64_t f0, int64_t fb, int64_t imgs = 1);
  /// Copies `rows` resident rows from row h of image n whole, `shift`
  /// elements on (a folded kernel column), to rows [r, r + rows) of the
  /// band tile `tile` at partition p0: one run a partition.
  void copyShiftedRows(OpBuilder &b, const ResidentRef &ref, int64_t n,
                       int64_t h, int64_t rows, int64_t shift, Value tile,
                       int64_t p0, int64_t r);
  const TileOptions &options;
  Location loc;
  WindowInput input;
  /// The input kept in this kernel's packed band tile (PackedLayout.h):
  /// its bands are views of it, its band choice the layout's.
  const PackedLayout *packedInput = nullptr;

  Layout x, w, y;
  Type elt; // the output's element type
  Epilogue epi;
  int64_t cBlocks = 0, fBlocks = 0, bandRows = 0, chunkRows = 0, chunkCols = 0;
  /// Few input channels: the kernel rows go on the partitions too
  /// (partition kh * C + c holds the input rows that tap row kh reads), so
  /// each matmul contracts C * KH instead of C (the 3-channel 7x7 stem of a
  /// ResNet uses 21 PE rows instead of 3).
  bool foldRows = false;
  /// Folded rows, and kernel columns too: partition block kwi of a band
  /// holds the folded rows shifted by kwi * dw columns, so that one matmul
  /// contracts `foldCols` kernel columns (C * KH * foldCols rows) and a
  /// kernel row takes ceil(KW / foldCols) matmuls (the ResNet stem's 7x7
  /// taps in 3 instead of 7).
  int64_t foldCols = 1;
  /// Few channels and filters: `bands` bands of bandH output rows each
  /// side by side on the partitions (input partition (j * KH' + kh) * C + c
  /// and output partition j * F + f for band j, KH' = KH folded, else 1),
  /// the filter block-diagonal, so that one matmul computes every band.
  int64_t bands = 1, bandH = 0;
  /// Bands of the result only (`bands` of them, a 1x1 convolution of few
  /// filters and a resident input of any channels): band j's matmuls read
  /// the input's rows of band j in place, each with a stationary operand
  /// that holds the filter in columns [j * F, (j + 1) * F) and zeros in
  /// the others (`bandFilters`), all accumulating into one PSUM tile of
  /// bands * F partitions; so one evacuation instruction covers every band
  /// (MobileNetV2's 144 -> 24 projection evacuated 24 of 128 partitions).
  bool outBands = false;
  SmallVector<SmallVector<Value>> bandFilters; // [cb][band]
  SmallVector<Value> bandSources;              // the filter each holds
  void chooseOutBands();
  /// Whether the result is written with row or column steps (a phase of a
  /// transposed convolution), which bands would move element by element.
  bool steppedResult(); /// Stacked output rows (folded rows, one band): `stack`
                        /// consecutive
  /// output rows of a stride-1 convolution on the partitions at once, so
  /// that their input rows are loaded once. Partition i * C + c of the
  /// input tile holds the padded input rows q * stack + i (i < KH + stack -
  /// 1) of channel c at row q; the filter of a kernel column is banded,
  /// w[c, i - j, kw, f] at row i * C + c and column j * F + f; the result's
  /// partition block j holds output rows q * stack + j. A 16-channel 3x3
  /// layer: 6 rows of 16 contract 96 partitions for 4 output rows in 3
  /// matmuls a pixel group, 0.75 matmul columns an output pixel against
  /// 1.125 with eight packed bands of 9 taps. `bandH` and the bands' rows
  /// then count groups of `stack` rows.
  int64_t stack = 1;
  /// Stacked rows whose filter is too tall for the partitions (64 channels
  /// of a 3x3: KH + stack - 1 rows of 64 do not fit): the input tile's
  /// partition group i < stack holds the padded rows from i on, one a tile
  /// row (so that each group loads in one run a partition), and the kernel
  /// reads group q of output rows in `stackWindows` windows, tile rows
  /// q * stack and (q + 1) * stack (its moving operand steps `stack` tile
  /// rows a group), each a kernel column at a time with the banded filter
  /// of its rows, w[c, v * stack + i - j, kw, f]. A 64-channel 3x3 layer:
  /// 6 matmuls for 2 output rows (3 columns a pixel, 3 of a stationary's 4
  /// blocks used) against 4.5 with two packed bands of 9 taps.
  int64_t stackWindows = 1;
  /// Kernel rows folded in windows, one output row a group (stack 1) where
  /// the filter's rows of C channels do not fit the partitions together
  /// (a 3x3 of 43 to 64 channels) and more filters than a stack of two
  /// rows allows: partition group i < windowRows of the input tile holds
  /// the padded rows from i on, one a tile row, and output row r reads
  /// `stackWindows` windows, tile rows r + v * windowRows, each a kernel
  /// column at a time with the filter of kernel rows v * windowRows + i
  /// (zero past KH). A 3x3 of 64 channels and 128 filters: 6 matmuls
  /// contracting 128 rows where 9 contracted 64. With few filters the
  /// windows carry `stack` output rows a group (group r at tile row
  /// stack * r; two windows of stacked rows are windowRows == stack): 64
  /// channels and 16 filters stack 8 rows in 5 windows. 0 otherwise.
  int64_t windowRows = 0;
  /// The tile rows between one window and the next (the partition groups
  /// of a windowed tile).
  int64_t windowStep() const { return windowRows ? windowRows : stack; }
  /// Folded, the padded rows between a group's tile rows, and the tile
  /// rows between a matmul's consecutive output rows (or groups).
  int64_t tileRowStep() const { return stackWindows > 1 ? 1 : foldRowStep(); }
  /// Whether a band tile may take the resident input `r`'s rows whole,
  /// border included (one run a partition, emitBand's fullRows): rows and
  /// columns consecutive, stored with at least the padding's left border.
  bool takesWholeRows(const ResidentRef &r) const {
    return r.rowStep == 1 && r.colStep == 1 && r.w == 0 &&
           r.tensor->left >= (pad ? pad->left : 0);
  }
  int64_t movingRowStep() const { return stackWindows > 1 ? stack : 1; }
  /// Whether an engine may copy block `j` of an evacuated chunk (`fs`
  /// partitions from j * fs) to filters [f0, f0 + fs) of the resident
  /// result `r`: the start-partition rule on both sides.
  bool engineMovesBlock(const ResidentRef &r, int64_t j, int64_t f0,
                        int64_t fs) const {
    return options.residents->engineMayMove(j * fs, (r.c + f0) % P(), fs);
  }
  /// Stacked rows when `stack` does not divide OH: the output rows of a
  /// last group after bandH whole ones (blocks [0, lastRows) of its
  /// result; its input tile's rows past the padded input are padding or
  /// zero).
  int64_t lastRows = 0;
  /// The blocks evacuate writes: blocks(), or lastRows for that group.
  int64_t validBlocks() const { return partialGroup ? lastRows : blocks(); }
  bool partialGroup = false;
  /// Small images (every chunk of one within a group of kChunksPerGroup):
  /// the chunks of `imageGroup` images go in one group, sharing each tap's
  /// stationary operand (at 7x7 a LoadStationary per image and block cost
  /// as much as the image's matmul); when a chunk is a whole image, one
  /// chunk holds `chunkImages` of them (their input bands one tile, each
  /// instruction's access pattern stepping over the images: at 7x7 one
  /// image is 49 columns of a matmul's minimum 64, 49 elements of a vector
  /// instruction's fixed 64-cycle overhead).
  int64_t imageGroup = 1, chunkImages = 1;
  /// [rc rows, wc columns] of output pixels at (r0, q0) of a band, in
  /// images [img, img + imgs) of emitBand's group.
  struct Chunk {
    int64_t img, imgs, r0, rc, q0, wc;
    int64_t pixels() const { return imgs * rc * wc; }
  };
  /// The chunks of a band of `rows` output rows of `images` images, in
  /// emission order.
  SmallVector<Chunk> chunksOf(int64_t images, int64_t rows) const {
    SmallVector<Chunk> chunks;
    for (int64_t i = 0; i < images; i += chunkImages)
      for (int64_t r0 = 0; r0 < rows; r0 += chunkRows)
        for (int64_t q0 = 0; q0 < g.ow; q0 += chunkCols)
          chunks.push_back({i, std::min(chunkImages, images - i), r0,
                            std::min(chunkRows, rows - r0), q0,
                            std::min(chunkCols, g.ow - q0)});
    return chunks;
  }
  /// The [cs, (imgs,) rows, cols] window of `ch`'s images in a band tile
  /// ([cs, rows, W], or [cs, images, rows, W] for a group of images);
  /// `cols` columns (default: the chunk's).
  Value chunkWindow(OpBuilder &b, Value tile, int64_t cs, const Chunk &ch,
                    int64_t r0, int64_t rs, int64_t q0, int64_t qs,
                    int64_t cols = -1) const;
  /// Bands of a padded input loaded from HBM hold the source's columns
  /// only (WindowInput::trimCols): one DMA run a partition instead of one
  /// descriptor a row (a row of 112 bf16 is 224 bytes and cost 512 bytes'
  /// time). A tap then covers the output columns whose input column is a
  /// source column (tapCols; the border's products are zeros), and the
  /// taps start with kernel column `fullColumn`, which covers every output
  /// column, so that the first matmul (or product) of a chunk writes all
  /// of it. Not for a resident input (its bands are views or whole-row
  /// copies already) nor folded kernel columns (shifted copies).
  bool trimmed = false;
  int64_t fullColumn = 0;
  /// The kernel column that reads no border column for any output column,
  /// or -1.
  int64_t findFullColumn() const;
  /// The output columns [qa, qb) of `ch` whose input column for kernel
  /// column kw lies in the band tile, and the tile column of qa.
  struct TapCols {
    int64_t qa, qb, col;
  };
  TapCols tapCols(const Chunk &ch, int64_t kw) const;
  /// The i-th tap in emission order (the full column's first when trimmed).
  int64_t tapAt(int64_t i) const {
    if (!trimmed)
      return i;
    return i == 0 ? fullColumn : i <= fullColumn ? i - 1 : i;
  }
  /// The [parts, (imgs,) rc, qb - qa] window of output columns [qa, qb) of
  /// a chunk's [parts, pixels] accumulator (the whole tile when all).
  Value accWindow(OpBuilder &b, Value acc, int64_t parts, const Chunk &ch,
                  int64_t qa, int64_t qb) const;
  /// The column of a packed band tile that holds padded input column 0
  /// when the tile takes a resident input's rows whole (emitBand); 0
  /// otherwise.
  int64_t bandColOffset = 0;
  /// Per-channel epilogue operands loaded so far, by buffer and offset.
  llvm::DenseMap<std::tuple<Value, int64_t, int64_t>, Value> columns;
  /// Whether the epilogue computes a function only the ACT has
  /// (BodyLowering's isActivationOp): evacuatesImages.
  bool actEpilogue = false;
  /// A channel scale's factors of every image, [cs, N], by channel block.
  llvm::DenseMap<int64_t, Value> scaleFactors;
  /// A depthwise convolution's compact weights [C, KH * KW]; and, per chunk
  /// in emission order, whether the vector engines compute it (the PE does
  /// the others with the diagonal filter), and the next chunk's index.
  Value compact;
  /// Where a chunk's taps are summed: the PE's diagonal matmuls, or the
  /// vector engines into the chunk's PSUM accumulator (the DVE) or into
  /// an SBUF one (the POOL or the DVE); or every tap's product into one
  /// [C, pixels, taps] tile that a single DVE reduce sums into the PSUM
  /// accumulator, the products a tap at a time (`ReduceSums`) or all at
  /// once by one DVE multiply with the weights broadcast from PSUM
  /// (`DveTaps`) or by one POOL multiply with them broadcast from SBUF
  /// (`PoolTaps`, two cycles an element; reduceChunk).
  enum class ChunkPath : uint8_t {
    PE,
    PsumSums,
    SbufSums,
    ReduceSums,
    DveTaps,
    PoolTaps
  };
  std::vector<ChunkPath> chunkPaths;
  bool anyOn(ChunkPath p) const { return llvm::is_contained(chunkPaths, p); }
  bool onVector(ChunkPath p) const { return p != ChunkPath::PE; }
  size_t nextChunk = 0;
  /// Whether emitBand emits the kernel's last band, whose last group of
  /// chunks may go a chunk at a time (splitLastGroup); whether it emits
  /// that group, whose rows go to a packed result by engine copies where
  /// they can (Residents::write).
  bool lastBand = false, tailGroup = false;
  bool splitLastGroup() const;
  /// Whether one image is in flight (one image, no batch groups): the next
  /// kernel then has nothing else to start on while this one finishes.
  bool oneImageInFlight() const;
  /// Whether rows this kernel moves by DMA into the resident tensor `r`,
  /// whole rows of `width` columns, go staged with its border columns
  /// (Residents::stagesRows): with several images in flight only. With
  /// one, the staging's memsets sit on the path to the next layer and the
  /// queues have time to spare (EfficientNet-B0 at batch 1 under auto-cast
  /// ran 237.7 -> 239.2 us staged).
  bool stagesRowsInto(const ResidentRef &r, int64_t width) const {
    return !oneImageInFlight() && r.tensor->w == width &&
           options.residents->stagesRows(r);
  }
  /// The engine time the chunks emitted so far take: the PE's matmuls, and
  /// the evacuations chooseAddOrder and chooseSiluEngines placed.
  TileOptions::EngineLoads evacuationLoads;
  /// evacuationLoads.pe when the result's first channel block was complete
  /// (the first filter block of the last band; -1 before).
  double firstBlockPe = -1;
  void recordResultTail() const;
  /// How many of a one-pixel 1x1 convolution's first channel blocks (a
  /// squeeze-and-excitation's first 1x1: a GEMV) the vector engines take
  /// for a filter block of `fb` filters.
  int64_t pixelGemvBlocks(int64_t fb) const;
  /// Their products (each block's filter rows scaled by the pixel's value
  /// on its partition) summed: an SBUF [P, fb] tile.
  Value pixelGemvSum(OpBuilder &b, ArrayRef<Value> inputs,
                     ArrayRef<Value> filters, const Chunk &ch, int64_t f0,
                     int64_t fb, int64_t vk);
  /// Whether the evacuation of a chunk of `cols` columns adds the residual
  /// to the accumulator before the batch norm's shift (BodyLowering's
  /// addBeforePending), by evacuationLoads.
  bool chooseAddOrder(int64_t cols);
  /// Whether the evacuation of a chunk of `cols` columns computes its SiLU
  /// on the DVE and the POOL (BodyLowering::siluOnVectorEngines), by
  /// evacuationLoads; `siluColumns` the columns asked about so far.
  bool chooseSiluEngines(int64_t cols);
  int64_t siluColumns = 0;
  LogicalResult status = success();

  int64_t P() const { return options.partitions; }
  int64_t cbAt(int64_t i) const { return std::min(P(), g.c - i * P()); }
  int64_t fbAt(int64_t i) const { return std::min(P(), g.f - i * P()); }
  int64_t inRows(int64_t outRows) const {
    return (outRows - 1) * g.strideH + (g.kh - 1) * g.dilationH + 1;
  }
  /// Rows per partition of a band's input tile.
  int64_t tileRows(int64_t outRows) const {
    if (!foldRows)
      return inRows(outRows);
    return stackWindows > 1
               ? (outRows - 1) * stack + (stackWindows - 1) * windowStep() + 1
               : outRows;
  }
  /// Folded: the partition groups of a band's input tile (kernel rows, or
  /// with stacked rows the input rows of a group), the padded input rows
  /// between a tile row and the next and between one group and the next.
  int64_t foldGroups() const {
    if (stackWindows > 1)
      return windowStep();
    return stack > 1 ? g.kh + stack - 1 : g.kh;
  }
  int64_t foldRowStep() const { return stack > 1 ? stack : g.strideH; }
  int64_t foldGroupStep() const { return stack > 1 ? 1 : g.dilationH; }
  /// The result's partition blocks (packed bands or stacked rows), and
  /// the output row of block j at (band or group) row `oh`, with the step
  /// between a block's rows.
  int64_t blocks() const { return stack > 1 ? stack : bands; }
  int64_t blockRow(int64_t oh, int64_t j) const {
    return stack > 1 ? oh * stack + j : oh + j * bandH;
  }
  int64_t blockRowStep() const { return stack > 1 ? stack : 1; }
  /// The padded input row at row 0 of band j's partition group kh in the
  /// band tile of the group of rows from oh0 (its rows step by
  /// foldRowStep() when folded, else by 1).
  int64_t bandInputRow(int64_t oh0, int64_t j, int64_t kh) const {
    return (oh0 + j * bandH) * foldRowStep() + kh * foldGroupStep();
  }

  LogicalResult analyze();
  /// After analyze: the layout of its packed band tile, when its input is
  /// a whole resident tensor that could be kept in it.
  std::optional<PackedLayout> packedLayout() const;
  void chooseBands();
  void chooseVectorChunks();
  /// Calls fn(pixels, group) for each chunk of `images` images' output in
  /// emitBand's order, `group` the size of the group of chunks it is in
  /// (they share each tap's stationary operand).
  template <typename Fn> void forEachChunk(int64_t images, Fn fn) const {
    for (int64_t oh0 = 0; oh0 < bandH; oh0 += bandRows) {
      int64_t rows = std::min(bandRows, bandH - oh0);
      SmallVector<int64_t> pixels;
      for (const Chunk &ch : chunksOf(images, rows))
        pixels.push_back(ch.pixels());
      for (size_t i = 0; i < pixels.size(); ++i)
        fn(pixels[i], std::min<int64_t>(kChunksPerGroup,
                                        pixels.size() - i / kChunksPerGroup *
                                                            kChunksPerGroup));
    }
  }
  /// The PE time (ns) of `steps` matmuls over a chunk of `pixels` columns,
  /// each LoadStationary shared by a group of `group` chunks.
  double peChunkNs(int64_t pixels, int64_t group, int64_t steps) const {
    const TileOptions::Rates &t = options.rates;
    int64_t factor = g.inputType.isF32() ? t.peFp32Factor : 1;
    return double(steps) *
           (double(std::max(pixels, t.peMinColumns) * factor) +
            double(t.peLoadStationaryCycles * factor) / double(group)) *
           1000.0 / double(t.peClockMHz);
  }
  /// The time (ns) of one ACT or DVE pass over `n` elements.
  double vectorNs(int64_t n, int64_t clockMHz) const {
    const TileOptions::Rates &t = options.rates;
    return double(t.fixedOverheadCycles + std::max(n, t.minElementCycles)) *
           1000.0 / double(clockMHz);
  }
  /// The time (ns) of one POOL pass over `n` elements of each of `inputs`
  /// tensors (infinite on a target without a POOL rate).
  double poolNs(int64_t n, int64_t inputs) const {
    const TileOptions::Rates &t = options.rates;
    return t.poolClockMHz ? double(t.poolFixedCycles + n * inputs) * 1000.0 /
                                double(t.poolClockMHz)
                          : std::numeric_limits<double>::infinity();
  }
  void vectorChunk(OpBuilder &b, Value input, const Chunk &ch, Value acc);
  /// A chunk on the ReduceSums, DveTaps or PoolTaps path: its products
  /// into one tile, tap innermost, then one DVE reduce into `acc`.
  void reduceChunk(OpBuilder &b, Value input, const Chunk &ch, Value acc,
                   ChunkPath path);
  /// Whether a chunk of `pixels` may take the ReduceSums or PoolTaps path
  /// (DveTaps with `dveTaps`): one pass over every tap's products for a
  /// chunk of fewer pixels than an instruction's least element count,
  /// where each tap's instruction would pay the engine's fixed cost and that
  /// minimum (EfficientNet-B0's 7 x 7 5x5 layers of 1,152 channels). Larger
  /// chunks keep their per-tap sums, which the products overlap: with 14 x 14
  /// images reduced too, MobileNetV2 in f32 at batch 1 ran 280.4 -> 287.2
  /// us. The products fit in a tile of kMaxTapProducts, and DveTaps' in
  /// PSUM (its broadcast weights visit every product there).
  bool reducesTaps(int64_t pixels, bool dveTaps) const;
  /// The compact weights [C, KH * KW] in f32 in PSUM, the broadcast
  /// operand of the DveTaps products (a DVE multiply with one PSUM input
  /// costs a cycle an element, with two SBUF inputs two).
  Value tapWeights;
  void emit();
  SmallVector<Value> loadFilters();
  /// Per block of `channels` input channels one [c * rows, row] tile of
  /// the filter `l` (row r of channel c at partition r * c_block + c),
  /// loaded in pieces over the queues.
  SmallVector<Value> loadFilterBlocks(const Layout &l, int64_t channels,
                                      int64_t rows, int64_t row, Type type);
  Value loadCompact();
  Value buildDiagonal();
  Value packFilter(Value filter);
  LogicalResult scaleFilters(int64_t n, SmallVector<Value> &tiles);
  /// Rows of the filter tile that one band's channels use: C * KH'.
  int64_t bandParts() const {
    return g.c * (foldRows ? foldGroups() * foldCols : 1);
  }
  /// Kernel taps, or folded the kernel columns (of each stacked window).
  int64_t taps() const {
    return foldRows ? stackWindows * windowTaps() : g.kh * g.kw;
  }
  /// Folded, the kernel columns (or groups of foldCols) of one window.
  int64_t windowTaps() const { return (g.kw + foldCols - 1) / foldCols; }
  Value loadFoldedFilter();
  Value loadStackedFilter();
  void emitBand(OpBuilder &b, ArrayRef<int64_t> images, int64_t oh0,
                int64_t rows, ArrayRef<Value> filters);
  SmallVector<Value> loadPhaseFilters();
  /// The band tile of x's rows for groups [oh0, oh0 + rows) of image n.
  Value loadPhaseRows(OpBuilder &b, int64_t n, int64_t oh0, int64_t rows);
  /// The partner's matmuls of a group of chunks into their accumulators,
  /// each stationary operand loaded once for the group.
  void phaseMatmuls(OpBuilder &b, Value rowsTile, ArrayRef<Chunk> group,
                    ArrayRef<Value> accs, int64_t fb);
  void poolChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t fb, int64_t oh,
                 int64_t rc, Value chunk);
  /// An epilogue operand's chunk read from its stacked phases
  /// (TileOptions::phaseAddends): [nb * parts, rc * wc * imgs], as `load`
  /// makes it. Columns of whole column phases go by DMA into a tile in
  /// phase order (a DMA a phase, block and image when its rows are whole
  /// phase-row pairs or all of one phase row, else a DMA a row and column
  /// phase) and one engine copy an image puts them in pixel order; other
  /// columns a DMA a row and column phase, an element a descriptor.
  Value loadPhases(OpBuilder &b, const TileOptions::PhaseAddend &pa, Type type,
                   int64_t n, int64_t f0, int64_t parts, int64_t nb, int64_t oh,
                   int64_t rc, int64_t ow0, int64_t wc, int64_t imgs);
  /// Writes a chunk's result out: rows [oh, oh + rc) and columns [ow0,
  /// ow0 + wc) of `imgs` images from n on (several only when they are whole
  /// images, evacuatesImages).
  void evacuate(OpBuilder &b, int64_t n, int64_t f0, int64_t fb, int64_t oh,
                int64_t ow0, int64_t rc, int64_t wc, Value acc,
                int64_t imgs = 1);
  /// Whether evacuate may write a chunk of several whole images at once: one
  /// instruction per epilogue op instead of one per image (pays an engine's
  /// fixed cost once; a 7 x 7 image is 49 columns). Not with stacked rows or
  /// bands, a pooling, or a per-image epilogue operand.
  bool evacuatesImages(int64_t pixels) const;
  /// The clamps that evacuate put in place on a resident output (ReLU6's,
  /// clampInto) in a kernel of several images, with the chunk each covers,
  /// since the last joinClamps.
  struct Clamp {
    tile::TensorScalarOp op;
    ResidentRef out;
    int64_t n, f0, fb, oh, rc, ow0, wc;
  };
  SmallVector<Clamp> clamps;
  /// Makes one instruction of the clamps over consecutive whole rows of an
  /// image, or over whole images one after another: an engine
  /// instruction's fixed cost (64 cycles on the DVE, 150 on the POOL) is
  /// paid once, not per chunk of at most a PSUM bank.
  void joinClamps();
  /// The bf16 buffer that stands for `buffer`'s f32 one (same layout in
  /// elements), or `buffer`.
  Value narrowedBuffer(Value buffer) const {
    if (Value narrow = options.narrowed
                           ? options.narrowed->lookup(viewRoot(buffer))
                           : Value())
      return narrow;
    return buffer;
  }
  /// Where the kernel's final values go: the epilogue's result, else the
  /// convolution's (its narrowed buffer when there is one).
  Layout resultLayout() const {
    Layout out = y;
    if (epilogue) {
      const Access &o = epi.operands.back();
      out = Layout{o.buffer, o.offset, SmallVector<int64_t>(o.strides)};
    }
    out.buffer = narrowedBuffer(out.buffer);
    return out;
  }
  Value hbm(OpBuilder &b, const Layout &l, ArrayRef<Value> ivs,
            ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
    return hbmView(b, loc, l.buffer,
                   linearIndex(b, loc, l.offset, ivs, l.strides), sizes,
                   strides);
  }
};

} // namespace conv_kernel

using conv_kernel::ConvKernel;

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_CONVKERNEL_H
