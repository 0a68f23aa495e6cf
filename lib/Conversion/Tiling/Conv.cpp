//===- Conv.cpp - 2-D convolutions as implicit GEMM on the PE -------------===//
//
// The generic of Conv/ConvGeneric.h, y[n, f, oh, ow] += x[n, c, oh * sh +
// kh * dh, ow * sw + kw * dw] * w[c, kh, kw, f], with channels on the
// partitions:
//
//   filter: per 128-channel block one SBUF tile [c, KH * KW * F], loaded
//           once (one contiguous run per partition)
//   for image n, for band of output rows (its input rows fit SBUF):
//     input: per channel block one tile [c, band rows, W] (one run per
//            partition: a band of whole rows is contiguous in NCHW)
//     for F block (<= 128 filters), for a group of <= 4 chunks (each <= 512
//     output pixels, one PSUM bank):
//       for channel block, for tap (kh, kw), for chunk:
//         matmul(stationary = filter[c, tap, F block],
//                moving = input[c, r * sh + kh * dh, q * sw + kw * dw]
//                         (a strided window: the tap's shift),
//                acc[chunk])                  all taps accumulate in PSUM
//       evacuate each chunk (copy, the old output added, or the fused
//       epilogue: bias, activation, residual) and DMA it out
//
// Few channels and filters leave most of the PE idle (16 of its 128 rows
// and columns for a 16-channel layer): then up to 128 / max(C, F) bands of
// output rows go side by side on the partitions, band j's input on
// partitions j * C.. and its filters at columns j * F.. of a block-diagonal
// filter, so that each matmul computes every band; operands move onto and
// off those partitions by DMA (chooseBands weighs the PE time saved
// against the DMA time added).
//
// No im2col: the input is read from HBM once per band, the filter once. A
// zero-padded input (tensor.pad before bufferization: a filled buffer with
// the source copied into its middle) is read from the source, and the
// band's border is set on chip. A
// stationary tile serves the group's chunks before the next, so the PE's
// LoadStationary is paid once per group.
//
//===----------------------------------------------------------------------===//

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
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// Columns an evacuation of several small images covers at least
/// (ConvKernel::evacuatesImages; an engine instruction costs 64 cycles
/// besides its elements: a fifth here). EfficientNet-B0 under auto-cast at
/// batch 8, its SiLU evacuations of 7 x 7 and 14 x 14 images: 1,373.7 ->
/// 1,348.5 us.
constexpr int64_t kEvacuationColumns = 256;
/// Pixels an image has at most for its evacuations to be merged whatever the
/// epilogue.
constexpr int64_t kFewPixels = 8;
/// Elements a partition a depthwise chunk's tap-product tile (reduceChunk)
/// holds at most: 32 KiB of f32, a 7 x 7 5x5 layer's 49 x 25 many times.
constexpr int64_t kMaxTapProducts = 8192;

namespace {
constexpr int64_t kChunksPerGroup = 4;

/// Whether an epilogue operand [N, C, H, W] is read per channel (and
/// maybe per image): a [P, 1] column of a chunk.
bool perChannel(const Access &e) {
  return e.strides[2] == 0 && e.strides[3] == 0;
}
using Layout = HbmLayout;

struct ConvKernel {
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
  void sumForPool(OpBuilder &b, BodyLowering &lowering, Value t, int64_t n,
                  int64_t f0, int64_t fb);
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
    return stackWindows > 1 ? (outRows + stackWindows - 2) * stack + 1
                            : outRows;
  }
  /// Folded: the partition groups of a band's input tile (kernel rows, or
  /// with stacked rows the input rows of a group), the padded input rows
  /// between a tile row and the next and between one group and the next.
  int64_t foldGroups() const {
    return stack > 1 ? (stackWindows > 1 ? stack : g.kh + stack - 1) : g.kh;
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

} // namespace

/// Whether `v` is exactly representable in the float type `t`.
static bool representable(double v, Type t) {
  auto ft = dyn_cast<FloatType>(t);
  if (!ft)
    return false;
  APFloat f(v);
  bool lost = false;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return !lost && f.convertToDouble() == v;
}

/// When `t` is the result of a min/max clamp by immediates the (as wide or
/// narrower) `view` holds exactly, applied to a fresh tile `s` that one
/// instruction wrote and only the clamp reads: that instruction writes
/// `view` instead and the clamp runs in place there. round(clamp(x)) ==
/// clamp(round(x)) for monotonic rounding and bounds the narrow type holds.
/// (Under auto-cast the graph already rounds before the clamp,
/// RoundBeforeClamp.h; the tile is then no wider than the view.) Returns
/// the clamp, now in place on `view`, or null.
static tile::TensorScalarOp clampInto(Value t, Value view) {
  auto ts = dyn_cast_or_null<tile::TensorScalarOp>(
      t.hasOneUse() ? *t.getUsers().begin() : nullptr);
  Type narrow = cast<MemRefType>(view.getType()).getElementType();
  if (!ts || ts.getDst() != t || ts.getScalar0() || ts.getScalar1() ||
      tile::storageBytes(narrow) >
          tile::storageBytes(cast<MemRefType>(t.getType()).getElementType()))
    return {};
  auto clamp = [&](StringRef op, APFloat imm) {
    return op == "bypass" || ((op == "min" || op == "max") &&
                              representable(imm.convertToDouble(), narrow));
  };
  if (!clamp(ts.getOp0(), ts.getImm0()) || ts.getOp0() == "bypass" ||
      !clamp(ts.getOp1(), ts.getImm1()))
    return {};
  Value src = ts.getSrc();
  auto srcAlloc = src.getDefiningOp<tile::AllocOp>();
  auto tAlloc = t.getDefiningOp<tile::AllocOp>();
  if (!srcAlloc || !tAlloc || !src.hasNUses(2))
    return {};
  Operation *writer = nullptr;
  for (Operation *user : src.getUsers())
    if (user != ts.getOperation())
      writer = user;
  auto effects = dyn_cast_or_null<MemoryEffectOpInterface>(writer);
  if (!effects || !effects.getEffectOnValue<MemoryEffects::Write>(src) ||
      effects.getEffectOnValue<MemoryEffects::Read>(src))
    return {};
  // A ReLU under the clamp at 6 joins the clamp (round(relu(v)) is
  // max(round(v), 0)): the ACT's pass is then an identity, which the DVE
  // can run as well (Lowering.cpp's activationOnDve), and the clamp in
  // the narrow type is one pass either way.
  auto act = dyn_cast<tile::ActivationOp>(writer);
  if (act && act.getFunc() == "relu" && !act.getAccum() &&
      ts.getOp0() == "min" && ts.getOp1() == "bypass") {
    OpBuilder b(ts);
    act.setFuncAttr(b.getStringAttr("identity"));
    ts.setOp1Attr(ts.getOp0Attr());
    ts.setImm1Attr(ts.getImm0Attr());
    ts.setOp0Attr(b.getStringAttr("max"));
    ts.setImm0Attr(b.getF32FloatAttr(0.0f));
  }
  src.replaceAllUsesWith(view);
  t.replaceAllUsesWith(view);
  srcAlloc->erase();
  tAlloc->erase();
  return ts;
}

/// Few input channels: the kernel rows go on the partitions too.
static bool convFoldsRows(const conv::ConvGeneric &g, int64_t partitions) {
  return conv::foldsKernelRows(g.c, g.kh, g.inputType.isF32(), partitions);
}

/// Bands of output rows side by side when a band's contraction takes
/// `parts` partitions: as many as those and the filters fit on the
/// partitions, dividing OH.
static int64_t mostBands(const conv::ConvGeneric &g, int64_t parts,
                         int64_t partitions) {
  int64_t limit = std::min(partitions / parts, partitions / g.f);
  while (limit > 1 && g.oh % limit)
    --limit;
  return std::max<int64_t>(limit, 1);
}

/// The numbers of stacked output rows a kernel may take (besides a fused
/// pooling's pairs, which would span two partition blocks, and a stepped
/// output): a stride-1 convolution's rows, a whole number of groups
/// unless `ragged` (a last group of fewer rows), with a plain filter; and
/// only when the PE multiplies fp32 (four cycles a column) or the input is
/// resident in SBUF. At one cycle a column, copies of rows loaded from HBM
/// contend with the other kernels' loads in ways chooseBands' model misses:
/// with such bf16 inputs stacked too, the U-Net at batch 8 (its 128 x 128
/// tensors in HBM) ran 594.9 -> 617.3 us; from resident inputs its batch-1
/// run went 102.5 -> 94.3 us.
static SmallVector<int64_t> stackCounts(const conv::ConvGeneric &g,
                                        bool diagonal, bool scale,
                                        const TileOptions &options,
                                        bool residentInput, bool ragged = false,
                                        int64_t windows = 1) {
  SmallVector<int64_t> counts;
  int64_t P = options.partitions;
  if (g.strideH != 1 || g.dilationH != 1 || g.kh == 1 || diagonal || scale ||
      !options.stackRows || !options.packBands ||
      !(g.inputType.isF32() || residentInput) || !options.rates.peClockMHz)
    return counts;
  // One window: KH + q - 1 input rows on the partitions. Two (the kernel's
  // stackWindows): q rows, when no stack of one window fits (with fewer
  // channels one window does as few matmuls, and copies fewer rows) and
  // the two hold the KH + q - 1 rows a group reads.
  for (int64_t q = 2; q * g.f <= P && q <= g.oh; ++q) {
    bool fits = windows == 1 ? g.c * (g.kh + q - 1) <= P
                             : g.c * q <= P && g.c * (g.kh + 1) > P &&
                                   windows * q >= g.kh + q - 1;
    if (fits && (ragged || g.oh % q == 0))
      counts.push_back(q);
  }
  return counts;
}

/// Whether a row of `g`'s input is shorter than a DMA descriptor's minimum,
/// which stacked rows' copies pay a row at a time.
static bool shortRows(const conv::ConvGeneric &g, const TileOptions &options) {
  return g.w * tile::storageBytes(g.inputType) <
         options.rates.dmaMinDescriptorBytes;
}

bool tiling::poolingCostsStackedRows(const conv::ConvGeneric &g, bool diagonal,
                                     bool scale, bool inputIsArgument,
                                     const TileOptions &options) {
  // With one image the pooling's own kernel is on the path to the next
  // layer: it pays when the convolution's PE time is what the stacked rows
  // cut (the U-Net's 128 x 128 level at batch 1, its input in SBUF: 7.3 us
  // faster), not when the convolution waits for its input from HBM (e2e
  // conv.test's 8-channel 128 x 128 program input: 10.2 us slower) or when
  // its rows are shorter than a DMA descriptor's minimum, which the stacked
  // rows' copies pay a row at a time (chooseBands then packs bands anyway).
  // With several images the pooling overlaps the next images' convolutions
  // (the U-Nets at batch 8: -110 us each).
  // Whether the input will be resident is not known yet: the fp32 rule.
  SmallVector<int64_t> counts =
      stackCounts(g, diagonal, scale, options, /*residentInput=*/false);
  if (counts.empty() ||
      (g.n == 1 && (inputIsArgument || shortRows(g, options))))
    return false;
  int64_t P = options.partitions;
  // Matmul columns per output pixel, stacked and with the pooling fused
  // (bands, kernel rows and columns folded, or an even number of stacked
  // rows: poolChunk pairs their blocks).
  double stacked = double(g.kw) / double(counts.back());
  double fused = double(g.kh * g.kw) / double(mostBands(g, g.c, P));
  for (int64_t q : counts)
    if (q % 2 == 0 && g.oh % 2 == 0)
      fused = std::min(fused, double(g.kw) / double(q));
  if (convFoldsRows(g, P) && !scale)
    for (int64_t cols = 1;
         cols <= (options.foldColumns && !diagonal ? g.kw : 1) &&
         g.c * g.kh * cols <= P;
         ++cols)
      fused = std::min(fused, double((g.kw + cols - 1) / cols) /
                                  double(mostBands(g, g.c * g.kh * cols, P)));
  return stacked < fused;
}

/// Packs bands when that makes the kernel faster by a simple model: PE
/// time (matmul columns: taps / bands per output pixel, x4 for fp32) plus
/// the PSUM evacuation's time (bands times fewer instructions) plus the
/// DMA time packing adds (a resident input copied into the band tile, a
/// resident output of one image or of a 1x1 kernel or a residual written
/// or read per band by DMA, rows of at least a descriptor's minimum). The
/// candidates: the kernel as decided so far, and with the kernel rows
/// folded or not as many bands as the contraction and the filters fit on
/// the partitions and as divide OH.
void ConvKernel::chooseBands() {
  const TileOptions::Rates &t = options.rates;
  // A channel scale (squeeze-and-excitation) scales each image's filter
  // before it is packed; the rows do not fold with it, nor does a diagonal
  // filter take it.
  if (cBlocks != 1 || fBlocks != 1 || !options.packBands || !t.peClockMHz ||
      (scale && diagonal))
    return;
  // A stepped output (a phase of a transposed convolution) is written in
  // place by the evacuating engines; bands would move it by DMA element by
  // element, so it keeps one band (kernel columns may still fold).
  bool oneBand = false;
  auto most = [&](int64_t parts) {
    return oneBand ? int64_t(1) : mostBands(g, parts, P());
  };
  const Residents *residents = options.residents;
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  std::optional<ResidentRef> outRef =
      residents ? residents->lookup(out) : std::nullopt;
  oneBand = scatter || steppedResult();
  // Tensors read or written per band by DMA once bands are packed, and
  // whether each one's rows continue one another (a resident tensor
  // without border columns, or a result staged with them, evacuate's
  // stageRows: a chunk of whole rows is one run a partition).
  int64_t perBand = 0;
  bool rowsContinue = !oneBand;
  auto countPerBand = [&](const ResidentRef &r, bool staged = false) {
    ++perBand;
    rowsContinue &=
        staged || (r.tensor->left == 0 && r.tensor->right == 0 && r.w == 0);
  };
  // With several images and several taps a resident output's blocks move
  // by DMA within SBUF while the next image's matmuls run, so they are not
  // charged (the U-Net at batch 8 under auto-cast then packs its 32- and
  // 64-channel 3x3 layers with resident results: 576.4 -> 563.6 us, in
  // f32 1,413.5 -> 1,393.1). A 1x1 layer's matmuls are too short to hide
  // them (ResNet-50's first 1x1 layer at batch 8 under auto-cast, packed,
  // waited on them: 1,278.3 -> 1,300.7 us), and with one image the layer
  // waits on them.
  if (outRef && (g.n == 1 || g.kh * g.kw == 1))
    countPerBand(*outRef, stagesRowsInto(*outRef, g.ow));
  if (epilogue)
    for (Value v : epilogue.getDpsInputs())
      if (v != y.buffer && llvm::isa<MemRefType>(v.getType()) &&
          cast<MemRefType>(v.getType()).getShape() ==
              cast<MemRefType>(out.getType()).getShape())
        if (std::optional<ResidentRef> r =
                residents ? residents->lookup(v) : std::nullopt)
          countPerBand(*r);
  int64_t inBytes = tile::storageBytes(g.inputType);
  int64_t outBytes = tile::storageBytes(elt);
  int64_t pixels = g.n * g.oh * g.ow;
  // In two windows a partition group's rows are consecutive input rows:
  // one run a partition from a resident input whose rows are stored with
  // the padding's border (emitBand's fullRows), or from HBM without
  // padding or with the zero padding the band then leaves out (trimmed);
  // else a descriptor a row.
  bool groupRunsContinue = input.resident ? takesWholeRows(*input.resident)
                                          : !pad || pad->value == 0.0;
  double peCycleNs = 1000.0 / double(t.peClockMHz) *
                     double(g.inputType.isF32() ? t.peFp32Factor : 1);
  double dmaNsPerByte = 1.0 / double(t.dmaQueues * t.dmaBytesPerNs);
  struct Choice {
    bool fold;
    int64_t cols, bands, stack = 1, windows = 1;
  };
  auto cost = [&](Choice c) {
    int64_t taps =
        c.fold ? c.windows * ((g.kw + c.cols - 1) / c.cols) : g.kh * g.kw;
    // Stacked, a last group of fewer rows costs a whole group.
    int64_t groups = (g.oh + c.stack - 1) / c.stack;
    double columns = c.stack > 1 ? double(taps) * double(g.n * g.ow * groups)
                                 : double(taps) * pixels / c.bands;
    // The upsampled phases' matmuls: per group a window, column phase and
    // kernel column each, over the group's columns of one column phase.
    if (phases && c.stack > 1) {
      int64_t kws = 0;
      for (int64_t px = 0; px < phases->fw; ++px)
        kws += phases->kwOf(px);
      columns +=
          double(phaseWindows(*phases, c.stack, P() / phases->c).size() * kws) *
          double(g.n * groups * (g.ow / phases->fw));
    }
    double dma = 0;
    // (In two windows each partition group loads every row from its own
    // on, in one run a partition.)
    int64_t rowsLoaded = c.windows > 1 ? c.stack * (g.oh + 1)
                         : c.stack > 1 ? (g.kh + c.stack - 1) * groups
                         : c.fold      ? g.kh * g.oh
                                  : inRows(g.oh) + (c.bands - 1) * (g.kh - 1);
    // Stacked rows are copied a row at a time (every stack-th row of the
    // input for each partition group): a DMA descriptor each, paid at
    // least its minimum (a 10-pixel row of an 8x upsample's phase is 40
    // bytes).
    double rowBytes = double(input.width * inBytes);
    if (c.stack > 1 && !(c.windows > 1 && groupRunsContinue))
      rowBytes = std::max<double>(rowBytes, t.dmaMinDescriptorBytes);
    double inputBytes = double(g.n * g.c) * rowBytes * double(rowsLoaded);
    // A resident input is copied into packed band tiles; every shifted
    // copy of folded columns is one more load of the folded rows, counted
    // one and a half times: those loads contend with the next kernels' on
    // the queues (a U-Net's 3-channel 3x3 stem saved 3.6 us of PE time for
    // 1.2 MB of copies and the net ran 7.6 us slower; ResNet-50's stem
    // saves 44 us for 8.7 MB and the net runs 43 us faster).
    double shifted = 1.5 * double(c.cols - 1);
    if (input.resident && (c.fold || c.bands > 1))
      dma += inputBytes * (1 + shifted);
    else
      dma += inputBytes * shifted;
    if (c.bands > 1 || c.stack > 1) {
      // A DMA descriptor per row, or, with several images, per chunk of
      // whole rows when those rows continue one another (packed bands;
      // stacked rows step over the other blocks' rows). With one image the
      // row's charge stays: the layer then waits on these transfers, and on
      // its first chunk needing every band's rows, which this model does
      // not count (charged by their runs, MobileNetV2 and unet_convt at
      // batch 1 under auto-cast packed four more layers each and ran 8 %
      // slower); with several, one image's transfers overlap the next
      // image's matmuls.
      int64_t run = g.ow * outBytes;
      if (c.stack == 1 && rowsContinue && g.n > 1)
        run *=
            std::clamp<int64_t>(options.bankColumns / g.ow, 1, g.oh / c.bands);
      dma += double(perBand * g.n * g.f * g.oh * g.ow * outBytes) *
             double(std::max(run, t.dmaMinDescriptorBytes)) / double(run);
    }
    // The PSUM evacuation, a pass a bank shared by the ACT and the DVE: an
    // instruction reads every partition of a bank at once, so bands or
    // stacked rows side by side take that many times fewer (a last group
    // of fewer stacked rows a whole group).
    double evacNs = 0;
    if (t.actClockMHz && t.dveClockMHz && options.bankColumns) {
      double banks = (c.stack > 1 ? double(g.n * g.ow * groups)
                                  : double(pixels) / double(c.bands)) /
                     double(options.bankColumns);
      double act = vectorNs(options.bankColumns, t.actClockMHz);
      double dve = vectorNs(options.bankColumns, t.dveClockMHz);
      evacNs = banks * act * dve / (act + dve);
    }
    return columns * peCycleNs + dma * dmaNsPerByte + evacNs;
  };
  Choice best{foldRows, 1, 1};
  SmallVector<Choice> candidates = {Choice{false, 1, most(g.c)}};
  // Kernel columns fold with the rows of a dense filter only (a depthwise
  // block's diagonal is built in the rows-folded layout), when the PE
  // multiplies fp32 or the input comes from HBM: at one cycle a column,
  // shifted copies of a resident input (DMAs within SBUF on top of the
  // kernel's loads) cost more than the matmuls saved (the U-Net under
  // auto-cast at batch 8 ran 594.9 -> 613.0 us folding its 16-channel
  // 64 x 64 layer), where the loads of an input in HBM just become shifted
  // ones (ResNet-50's 7 x 7 stem under auto-cast: 246.5 -> 241.6 us at
  // batch 1, 1,337.2 -> 1,278.3 at batch 8).
  // A last group of fewer columns multiplies the shifted copies' unloaded
  // columns, set to the padding value, by zero: that value must be finite.
  bool finitePad = !pad || std::isfinite(pad->value);
  int64_t maxCols = diagonal || (!g.inputType.isF32() && input.resident) ||
                            !options.foldColumns || !finitePad
                        ? 1
                        : g.kw;
  for (int64_t cols = 1; cols <= maxCols; ++cols)
    if (g.c * g.kh * cols <= P())
      candidates.push_back(Choice{true, cols, most(g.c * g.kh * cols)});
  // Stacked output rows (stackCounts), not with a stepped output; with a
  // last group of fewer rows unless the kernel sums its result for a global
  // pooling (the sums would count the missing rows). With a fused 2x2
  // pooling an even number of them (poolChunk pairs their blocks; an
  // even OH leaves an even last group), whose pairs move by DMA once more
  // per chunk: not for one image whose input the kernel loads from HBM
  // (a function argument) in rows shorter than a descriptor's minimum, each
  // partition group's rows one long DMA before the first matmul (a
  // 16-channel 64 x 64 f32 layer and its pooling ran 26.4 -> 28.3 us
  // stacked, a 32 x 32 one 17.5 -> 24.9; the U-Net's 64 x 64 layers, their
  // input in SBUF, ran faster).
  bool ragged = !globalPool;
  bool loadsShortRows =
      g.n == 1 && shortRows(g, options) &&
      llvm::isa<BlockArgument>(viewRoot(pad ? pad->source : x.buffer));
  if (!oneBand &&
      (!pool || (pool->window == 2 && g.oh % 2 == 0 && !loadsShortRows)))
    for (int64_t q : stackCounts(g, bool(diagonal), scale, options,
                                 input.resident.has_value(), ragged))
      if (!pool || q % 2 == 0)
        candidates.push_back(Choice{true, 1, 1, q});
  // Stacked rows in two windows where the filter of one is too tall
  // (stackWindows): a whole number of groups, each group's rows at least
  // the kernel's less one (two windows then hold every row it reads). With
  // one image in flight the layer waits on the copies into the stacked
  // tile (from SBUF too: the layout is not one the input's writer keeps),
  // so there they must save more than a DMA's latency (below: a 33-channel
  // 10 x 12 layer from HBM, 120 pixels, saves a few evacuations and ran
  // 9.4 -> 13.0 us stacked so; the U-Net's 64-channel 32 x 32 layers at
  // batch 1 in fp32 save 2.6 us of PE each). At one PE cycle a column
  // (bf16 inputs) only where the result's blocks of interleaved rows need
  // no DMA, which would move them a descriptor a row: a fused 2x2 pooling
  // first takes each group's pair of rows into one block (the U-Net at
  // batch 8 under auto-cast ran 398.5 -> 390.6 us stacking its pooled
  // 64-channel layer so), or the result stays in SBUF (unpacked) and each
  // block may be copied by an engine from its partitions to the result's
  // (evacuate; by DMA, the U-Net's unpooled 64-channel 32 x 32 layer, its
  // rows of 64 bytes each a descriptor into busy queues, made it run
  // 405.7 us).
  auto enginesMoveBlocks = [&](int64_t q) {
    if (!outRef || outRef->tensor->packed)
      return false;
    for (int64_t j = 0; j < q; ++j)
      if (!engineMovesBlock(*outRef, j, 0, g.f))
        return false;
    return true;
  };
  if (!oneBand && !phases && (!pool || pool->window == 2))
    for (int64_t q : stackCounts(g, bool(diagonal), scale, options,
                                 input.resident.has_value(), false,
                                 /*windows=*/2))
      if ((!pool || q % 2 == 0) &&
          (g.inputType.isF32() || pool || enginesMoveBlocks(q)))
        candidates.push_back(Choice{true, 1, 1, q, 2});
  // With the upsampled phases (PhasePartner.h), stacked rows of their row
  // factor only, from any input: the stack they no longer write to HBM
  // and read back outweighs the copies of the rows. In two windows too,
  // where one would not fit, from an input in SBUF: a stack of more rows
  // fills the phases' windows of x rows (the U-Net's 96-channel 64 x 64
  // decoder layer, 32 skip channels and 64 upsampled ones: with 2 rows,
  // its two windows of two x rows held three rows' taps, the stationary 64
  // of 128 columns; with 4, the skip's rows in two windows, the phases'
  // matmuls a pixel halve). Each partition group of a two-window
  // tile loads every row from its own on: from HBM, twice the bytes of a
  // one-window stack of two, and a layer that waits on its loads (that
  // decoder alone at batch 8, its skip a function input: e2e
  // upsampled-conv.test's `windows_hbm`) ran 121.6 -> 132.0 us so. Nor when
  // the input could be kept in this kernel's packed tile instead
  // (analyzeConvPacking: its writer's rows go there once, which a
  // two-window layout does not allow): with the skip computed by a 1x1
  // convolution that only this kernel reads (`windows_packed`), packed for
  // one window of two rows, it runs 103.3 us, copied from a channel-major
  // tile into two windows 130.0.
  if (phases) {
    candidates.clear();
    for (int64_t q : phaseStackCounts(*phases, g, P()))
      candidates.push_back(Choice{true, 1, 1, q});
    if (candidates.empty() || oneBand)
      return;
    best = candidates.front();
    if (input.resident && !forPacking)
      for (int64_t q : phaseStackCounts(*phases, g, P(), /*windows=*/2))
        candidates.push_back(Choice{true, 1, 1, q, 2});
  }
  double windowLatency =
      oneImageInFlight() ? double(t.dmaLatencyNs) : 0.0; // (above)
  for (Choice c : candidates)
    if ((!c.fold || c.stack > 1 || (convFoldsRows(g, P()) && !scale)) &&
        cost(c) + (c.windows > 1 ? windowLatency : 0.0) < cost(best))
      best = c;
  foldRows = best.fold;
  foldCols = best.fold ? best.cols : 1;
  bands = best.bands;
  stack = best.stack;
  stackWindows = best.windows;
}

bool ConvKernel::steppedResult() {
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  std::optional<ResidentRef> outRef =
      options.residents ? options.residents->lookup(out) : std::nullopt;
  SmallVector<int64_t> outStrides;
  int64_t outOffset;
  return (outRef && (outRef->rowStep != 1 || outRef->colStep != 1)) ||
         failed(getStaticLayout(cast<MemRefType>(out.getType()), outStrides,
                                outOffset)) ||
         outStrides[3] != 1;
}

void ConvKernel::chooseOutBands() {
  const TileOptions::Rates &t = options.rates;
  if (g.kh != 1 || g.kw != 1 || g.strideH != 1 || g.strideW != 1 || pad ||
      diagonal || pool || globalPool || chained || scatter || steppedResult() ||
      fBlocks != 1 || g.n == 1 || !options.packBands || !t.peClockMHz ||
      !t.actClockMHz || !t.dveClockMHz || !options.bankColumns)
    return;
  // At most eight bands of at least 16 filters: each band's matmul of a
  // chunk loads its own stationary operand, and its DMAs of each operand
  // go per band (a U-Net's 16 -> 2 head in 64 bands ran 3.7 times slower).
  int64_t most = std::min<int64_t>(P() / g.f, 8);
  while (most > 1 && g.oh % most)
    --most;
  if (most < 3 || g.f < 16)
    return;
  // Every resident pixel-by-pixel tensor the evacuation reads or writes (the
  // result, a residual) then moves a band at a time by DMA, in runs of a
  // chunk's whole rows, where it was read or written in place (one in HBM
  // moves by DMA either way); the evacuation's passes take a `most`-th of
  // the instructions.
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  auto shape = cast<MemRefType>(out.getType()).getShape();
  int64_t moved = 0, bytes = 1;
  auto count = [&](Value v) {
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(v) : std::nullopt;
    if (!r)
      return;
    ++moved;
    bytes = std::max<int64_t>(
        bytes,
        tile::storageBytes(cast<MemRefType>(v.getType()).getElementType()));
  };
  count(out);
  if (epilogue)
    for (Value v : epilogue.getDpsInputs())
      if (v != y.buffer && llvm::isa<MemRefType>(v.getType()) &&
          cast<MemRefType>(v.getType()).getShape() == shape)
        count(v);
  int64_t pixels = g.n * g.oh * g.ow;
  int64_t run = g.ow * bytes *
                std::clamp<int64_t>(options.bankColumns / g.ow, 1, g.oh / most);
  double dmaNs = double(moved * pixels * g.f * bytes) *
                 double(std::max(run, t.dmaMinDescriptorBytes)) / double(run) /
                 double(t.dmaQueues * t.dmaBytesPerNs);
  double banks = double(pixels) / double(options.bankColumns);
  double pass = vectorNs(options.bankColumns, t.actClockMHz) +
                vectorNs(options.bankColumns, t.dveClockMHz);
  double savedNs = banks * pass * (1.0 - 1.0 / double(most));
  double loadsNs = banks * double((most - 1) * cBlocks) *
                   double(t.peLoadStationaryCycles) * 1000.0 /
                   double(t.peClockMHz);
  if (savedNs <= dmaNs + loadsNs)
    return;
  outBands = true;
  bands = most;
}

LogicalResult ConvKernel::analyze() {
  FailureOr<Layout> lx = hbmLayoutOf(op, scale ? scale->source
                                               : op.getDpsInputs()[0]),
                    lw = hbmLayoutOf(op, op.getDpsInputs()[1]),
                    ly = hbmLayoutOf(op, op.getDpsInits()[0]);
  if (failed(lx) || failed(lw) || failed(ly))
    return failure();
  x = *lx;
  w = *lw;
  y = *ly;
  // The narrowed buffer of a view is viewed the same way: a group of
  // nki-split-batch's window reads its images of the whole batch, at an
  // offset that WindowInput::init reads from the value's type.
  if (Value narrow = narrowedBuffer(x.buffer); narrow != x.buffer)
    x.buffer =
        viewRoot(x.buffer) == x.buffer
            ? narrow
            : stridedView(b, loc, narrow,
                          cast<MemRefType>(x.buffer.getType()).getShape(),
                          x.strides, x.offset);
  if (failed(input.init(op, x.buffer, pad, g.w, options.residents)))
    return failure();
  if (partner) {
    linalg::GenericOp p = partner->op;
    FailureOr<Layout> px = hbmLayoutOf(p, p.getDpsInputs()[0]),
                      pw = hbmLayoutOf(p, p.getDpsInputs()[1]);
    if (failed(px) || failed(pw))
      return failure();
    partnerW = *pw;
    if (pw->strides[3] != 1 || pw->strides[0] != partner->g.f ||
        px->strides[3] != 1 || px->strides[2] != partner->g.w)
      return p->emitOpError("convolution operands must be row-major");
    Value in = narrowedBuffer(px->buffer);
    if (in != px->buffer && viewRoot(px->buffer) != px->buffer)
      in = stridedView(b, loc, in,
                       cast<MemRefType>(px->buffer.getType()).getShape(),
                       px->strides, px->offset);
    if (failed(
            partnerInput.init(p, in, nullptr, partner->g.w, options.residents)))
      return failure();
  }
  if (phases) {
    phasePad = ConvPadding{phases->x, phases->top, phases->left,
                           phases->h, phases->w,   0.0};
    if (failed(phaseInput.init(op, phases->x, &phasePad, phaseWidth(),
                               options.residents)))
      return failure();
    if (phaseInput.resident && phaseInput.resident->tensor->packed)
      return op->emitOpError("the upsampled phases' input is kept packed");
    for (const PhasePartner::Phase &ph : phases->phases) {
      FailureOr<Layout> l =
          hbmLayoutOf(ph.op, linalg::GenericOp(ph.op).getDpsInputs()[1]);
      if (failed(l))
        return failure();
      if (l->strides[3] != 1 || l->strides[2] != ph.g.f ||
          l->strides[1] != ph.g.kw * ph.g.f)
        return ph.op->emitOpError("convolution operands must be row-major");
    }
  }
  if (scatter) {
    // findPhaseScatter's result: zero-filled, read by the copies only.
    assert(zeroInit && !epilogue && !pool && !globalPool && !chained &&
           g.f <= P() && "a phase scatter's result only copies read");
    for (const PhaseScatter::Piece &p : scatter->pieces) {
      FailureOr<Layout> l = hbmLayoutOf(p.copy, p.target);
      if (failed(l))
        return failure();
      scatterOut.push_back(*l);
    }
  }
  elt = cast<MemRefType>(y.buffer.getType()).getElementType();
  // The filter rows and the input rows must be contiguous (the output may
  // be strided: a transposed convolution's phase writes every stride-th
  // pixel of its result).
  if (w.strides[3] != 1 || w.strides[2] != g.f || w.strides[1] != g.kw * g.f ||
      (!pad && (x.strides[3] != 1 || x.strides[2] != g.w)))
    return op->emitOpError("convolution operands must be row-major");
  cBlocks = (g.c + P() - 1) / P();
  fBlocks = (g.f + P() - 1) / P();
  int64_t bytes = tile::storageBytes(g.inputType);
  int64_t filterBytes =
      cBlocks * g.kh * g.kw * g.f * tile::storageBytes(g.filterType);
  // Two bands in flight beside the filter, with half of SBUF left for the
  // evacuated chunks and the epilogue's operands.
  int64_t budget = options.sbufBytesPerPartition / 2 - filterBytes;
  // A resident input is read in place (one band of every row), unless the
  // rows are folded: a DMA within SBUF then copies them onto the KH
  // partition groups of a band tile, which pays off when the PE multiplies
  // fp32 (4 cycles a column; MobileNetV2 b1: 831 -> 684 us) but not bf16
  // (319 -> 343 us).
  foldRows = convFoldsRows(g, P()) && !scale && !partner && !phases &&
             (!input.resident || g.inputType.isF32());
  if (!partner)
    chooseBands();
  if (!partner && input.resident && input.resident->tensor->packed &&
      input.resident->tensor->packed->reader == op) {
    packedInput = &*input.resident->tensor->packed;
    foldRows = packedInput->foldRows;
    foldCols = 1;
    bands = packedInput->bands;
    stack = packedInput->stack;
    stackWindows = 1; // (packedLayout declines two windows)
  }
  if (pad && !input.resident && foldCols == 1 && pad->value == 0.0 &&
      g.w > pad->width) {
    fullColumn = findFullColumn();
    if (fullColumn >= 0) {
      trimmed = true;
      input.trimColumns();
    }
  }
  if (!partner && !phases && bands == 1 && !foldRows && !packedInput)
    chooseOutBands();
  // The phases need stacked rows of their row factor (chooseBands takes
  // those only; a packed input's layout was chosen so too).
  if (phases) {
    windows = phaseWindows(*phases, stack, phaseBlocks());
    if (stack % phases->fh || bands != 1 || foldCols != 1 || windows.empty())
      return op->emitOpError("cannot stack rows for the upsampled phases it "
                             "accumulates");
  }
  bool newBands = !input.resident || foldRows || (bands > 1 && !outBands);
  bandH = g.oh / bands / stack;
  lastRows = g.oh % stack;
  bandRows = bandH;
  // Packed bands go in groups of chunks, so that the next group's input
  // (which moves by DMA) loads while this one multiplies.
  if (bands > 1 || stack > 1)
    bandRows = std::min(bandRows,
                        kChunksPerGroup *
                            std::max<int64_t>(1, options.bankColumns / g.ow));
  // A partner's input bands come beside the kernel's (and its filter).
  auto bandBytes = [&](int64_t rows) {
    int64_t total = newBands ? 2 * cBlocks * tileRows(rows) * g.w * bytes *
                                   (outBands ? bands : 1)
                             : 0;
    if (partner && !partnerInput.resident)
      total += 2 * partnerBlocks() * ((rows - 1) * partner->g.strideH + 1) *
               partner->g.w * tile::storageBytes(partner->g.inputType);
    if (phases)
      total += 2 * phaseRows(rows) * phaseWidth() *
               tile::storageBytes(phases->inputType);
    return total;
  };
  if (partner)
    budget -= partnerBlocks() * partner->g.f *
              tile::storageBytes(partner->g.filterType);
  if (phases)
    budget -=
        phaseMatmuls() * stack * g.f * tile::storageBytes(phases->filterType);
  while (bandRows > 1 && bandBytes(bandRows) > budget)
    bandRows = (bandRows + 1) / 2;
  if (bandBytes(bandRows) > budget)
    return op->emitOpError("convolution input rows do not fit in SBUF");

  if (epilogue && failed(epi.analyze(epilogue, op.getDpsInits()[0])))
    return failure();
  if (chained) {
    linalg::GenericOp one = chained->op, oneEpilogue = chained->epilogue;
    chainG = conv::matchConvGeneric(one);
    Value product = one.getDpsInits()[0];
    FailureOr<Layout> lw2 = hbmLayoutOf(one, one.getDpsInputs()[1]),
                      ly2 = oneEpilogue
                                ? hbmLayoutOf(oneEpilogue,
                                              oneEpilogue.getDpsInits()[0])
                                : hbmLayoutOf(one, product);
    if (!chainG || failed(lw2) || failed(ly2) ||
        (oneEpilogue && failed(chainEpi.analyze(oneEpilogue, product))))
      return failure();
    chainW = *lw2;
    chainY = *ly2;
    // Its epilogue's operands are per channel (findChainedConv checked
    // their maps), read as [P, 1] columns.
    for (size_t i = 0; i + 1 < chainEpi.operands.size(); ++i)
      assert((chainEpi.readsProduct[i] || !chainEpi.operands[i].buffer ||
              perChannel(chainEpi.operands[i])) &&
             "a chained 1x1's epilogue reads per-channel operands only");
  }
  if (epilogue)
    epilogue.getBody()->walk(
        [&](Operation *o) { actEpilogue |= isActivationOp(o); });
  // A chunk of whole output rows is one free dim of every operand in HBM
  // when the rows are consecutive in memory (a resident operand's chunk is
  // a [rows, columns] view of its tile, which may step over both);
  // otherwise a chunk is part of one row.
  auto merges = [&](Value buffer, ArrayRef<int64_t> strides) {
    return (options.residents && options.residents->lookup(buffer)) ||
           strides[2] == g.ow * strides[3];
  };
  bool rowsMerge = merges(y.buffer, y.strides);
  for (const Access &e : epi.operands)
    if (e.buffer && !merges(e.buffer, e.strides))
      rowsMerge = false;
  if (g.ow <= options.bankColumns && rowsMerge) {
    chunkCols = g.ow;
    chunkRows = std::min(bandRows, options.bankColumns / g.ow);
  } else {
    chunkCols = std::min(g.ow, options.bankColumns);
    chunkRows = 1;
  }
  // The pooling's 2x2 windows lie within a chunk when every band and chunk
  // is an even number of whole rows from an even row (3x3 windows reach
  // one row before it).
  if (pool) {
    linalg::PoolingNchwMaxOp p = pool->op;
    FailureOr<Layout> lp = hbmLayoutOf(p, p.getOutputs()[0]);
    // Stacked rows pair blocks, not rows of a chunk.
    poolInKernel = succeeded(lp) && chunkCols == g.ow &&
                   (stack > 1 || (chunkRows >= 2 && bandRows >= 2 &&
                                  (bands == 1 || bandH % 2 == 0)));
    // 3x3: the column maxes of a band's rows in SBUF (fp32 at most).
    if (pool->window == 3 &&
        4 * bandH * (g.ow / 2) > options.sbufBytesPerPartition / 8)
      poolInKernel = false;
    if (poolInKernel) {
      pooled = *lp;
      if (stack == 1) {
        chunkRows -= chunkRows % 2;
        bandRows -= bandRows % 2;
      }
    }
  }
  // Small images: whole images in one band and fewer chunks than a group
  // share each tap's stationary operand with the next images' chunks (not
  // with packed or folded bands, whose tiles are per image, nor a channel
  // scale, whose filter is). Their input bands are in SBUF at once.
  int64_t chunksPerImage = ((g.oh + chunkRows - 1) / chunkRows) *
                           ((g.ow + chunkCols - 1) / chunkCols);
  if (phases && chunkCols % phases->fw)
    return op->emitOpError("a chunk's columns are not whole column phases");
  if (bands == 1 && !foldRows && !scale && !phases && bandRows == g.oh &&
      chunksPerImage < kChunksPerGroup) {
    if (chunksPerImage == 1)
      chunkImages =
          std::clamp<int64_t>(options.bankColumns / (g.oh * g.ow), 1, g.n);
    imageGroup = std::min(g.n, kChunksPerGroup * chunkImages / chunksPerImage);
    while (newBands && imageGroup > 1 &&
           (imageGroup + 1) * cBlocks * tileRows(bandRows) * g.w * bytes >
               budget)
      --imageGroup;
    chunkImages = std::min(chunkImages, imageGroup);
  }
  for (int64_t oh0 = 0; oh0 < bandH; oh0 += bandRows) {
    int64_t rows = std::min(bandRows, bandH - oh0);
    evacuationsPerImage += (rows + chunkRows - 1) / chunkRows *
                           ((g.ow + chunkCols - 1) / chunkCols);
  }
  return success();
}

void ConvKernel::joinClamps() {
  // `c` may join a run that `a` starts (alike(a, a): `a` may start one).
  auto alike = [&](Clamp &a, Clamp &c) {
    return c.out.tensor == a.out.tensor && c.f0 == a.f0 && c.fb == a.fb &&
           c.ow0 == 0 && c.wc == g.ow && !c.op.getScalar0() &&
           !c.op.getScalar1() &&
           c.op->getAttrDictionary() == a.op->getAttrDictionary();
  };
  for (size_t i = 0; i < clamps.size();) {
    Clamp &first = clamps[i];
    // Consecutive rows of one image, or whole images one after another.
    int64_t images = 1, rows = first.rc;
    size_t e = i + 1, whole = first.oh == 0 && rows == g.oh ? e : 0;
    if (alike(first, first))
      for (; e < clamps.size() && alike(first, clamps[e]); ++e) {
        Clamp &c = clamps[e];
        int64_t n = first.n + images - 1;
        if (c.n == n && c.oh == (images > 1 ? 0 : first.oh) + rows &&
            (images == 1 || c.oh + c.rc <= g.oh))
          rows += c.rc;
        else if (c.n == n + 1 && c.oh == 0 && first.oh == 0 && rows == g.oh)
          ++images, rows = c.rc;
        else
          break;
        if (first.oh == 0 && rows == g.oh)
          whole = e + 1;
      }
    // Several images: whole ones only.
    if (images > 1) {
      e = whole;
      images = clamps[e - 1].n - first.n + 1;
      rows = g.oh;
    }
    if (e - i > 1) {
      // After the last of them: every chunk it covers has been written.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(clamps[e - 1].op);
      Value view = options.residents->view(b, loc, first.out, first.n, first.f0,
                                           first.fb, first.oh, rows, 1, 0, g.ow,
                                           1, images);
      auto joined = cast<tile::TensorScalarOp>(b.clone(*first.op));
      joined.getSrcMutable().assign(view);
      joined.getDstMutable().assign(view);
      for (size_t j = i; j < e; ++j) {
        Value old = clamps[j].op.getDst();
        clamps[j].op->erase();
        if (Operation *def = old.getDefiningOp(); def && def->use_empty())
          def->erase();
      }
    }
    i = std::max(e, i + 1);
  }
  clamps.clear();
}

void ConvKernel::poolChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t fb,
                           int64_t oh, int64_t rc, Value chunk) {
  // The chunk's final values [fb, rc * ow] (or a [fb, rc, ow] view) in
  // SBUF: the max over column pairs (and the column before each, 3x3),
  // then over row pairs (and the row before each), on the DVE or the POOL,
  // and each band's pooled rows out.
  auto type = cast<MemRefType>(chunk.getType());
  Type work = type.getElementType();
  if (tile::isPsum(type)) {
    Value t = allocTile(b, loc, {fb, type.getDimSize(1)}, work);
    tile::CopyOp::create(b, loc, chunk, t);
    chunk = t;
    type = cast<MemRefType>(chunk.getType());
  }
  if (type.getRank() == 2)
    chunk = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{fb, rc, g.ow}, chunk,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
  // fs partitions a block: a band, or one of a chunk's stacked rows.
  int64_t pw = g.ow / 2, pr = rc / 2,
          fs = fb / (stack > 1 ? validBlocks() : bands);
  bool three = pool->window == 3;
  // Rows [c0, c0 + rc) of `cols` are the chunk's.
  Value cols;
  int64_t c0 = 0;
  if (three) {
    Value &band = poolCols[{n, f0}];
    if (!band)
      band = allocTile(b, loc, {fb, bandH, pw}, work);
    cols = band;
    c0 = oh;
  } else {
    cols = allocTile(b, loc, {fb, rc, pw}, work);
  }
  auto max = [&](Value x, Value y, Value dst) {
    tile::TensorTensorOp::create(b, loc, "max", x, y, dst);
  };
  max(windowOf(b, loc, chunk, fb, 0, rc, 1, 0, pw, 2),
      windowOf(b, loc, chunk, fb, 0, rc, 1, 1, pw, 2),
      windowOf(b, loc, cols, fb, c0, rc, 1, 0, pw, 1));
  // Column 2q - 1 for q >= 1 (q = 0's is the padding).
  if (three && pw > 1) {
    Value dst = windowOf(b, loc, cols, fb, c0, rc, 1, 1, pw - 1, 1);
    max(dst, windowOf(b, loc, chunk, fb, 0, rc, 1, 1, pw - 1, 2), dst);
  }
  std::optional<ResidentRef> out =
      options.residents ? options.residents->lookup(pooled.buffer)
                        : std::nullopt;
  // Pooled rows row, row + step, ... (count of them) of a block.
  auto target = [&](int64_t row, int64_t count, int64_t step = 1) -> Value {
    if (out)
      return options.residents->view(b, loc, *out, n, f0, fs, row, count, step,
                                     0, pw, 1);
    SmallVector<Value> ivs = {indexConst(b, loc, n), indexConst(b, loc, f0),
                              indexConst(b, loc, row), indexConst(b, loc, 0)};
    return hbm(
        b, pooled, ivs, {fs, count, pw},
        {pooled.strides[1], step * pooled.strides[2], pooled.strides[3]});
  };
  // `src` ([fs, count, pw]) out to those rows: a DMA, or, into a packed
  // tensor, its reader's band tile.
  bool packedOut = out && out->tensor->packed;
  auto put = [&](Value src, int64_t row, int64_t count, int64_t step = 1) {
    if (packedOut)
      options.residents->write(b, loc, *out, src, n, f0, fs, row, count, step,
                               0, pw, tailGroup);
    else
      tile::DmaOp::create(b, loc, src, target(row, count, step));
  };
  // Stacked rows: block j holds output rows stack * (oh + i) + j, so a
  // pooled pair is blocks 2p and 2p + 1, on other partitions. Where both
  // blocks of every pair start where an engine may read them, one max a
  // pair reads them in place into block 2p; else each pair's blocks trade
  // places by DMA and one max over every block leaves pair p's maxes in
  // block 2p (and again in 2p + 1). Pooled rows (stack / 2) * (oh + i) + p.
  if (stack > 1) {
    auto block = [&](Value t, int64_t j) {
      return windowOf(b, loc, t, fs, 0, rc, 1, 0, pw, 1, j * fs);
    };
    int64_t nb = validBlocks();
    bool pairsInPlace =
        options.residents &&
        llvm::all_of(llvm::seq<int64_t>(0, nb / 2), [&](int64_t p) {
          return options.residents->engineMayMove((2 * p + 1) * fs, 2 * p * fs,
                                                  fs);
        });
    if (pairsInPlace) {
      for (int64_t p = 0; 2 * p < nb; ++p)
        max(block(cols, 2 * p), block(cols, 2 * p + 1), block(cols, 2 * p));
    } else {
      Value other = allocTile(b, loc, {fb, rc, pw}, work);
      for (int64_t j = 0; j < nb; ++j)
        tile::DmaOp::create(b, loc, block(cols, j ^ 1), block(other, j));
      max(cols, other, cols);
    }
    for (int64_t p = 0; 2 * p < nb; ++p)
      put(block(cols, 2 * p), stack / 2 * oh + p, rc, stack / 2);
    return;
  }
  // One band in SBUF: straight into the pooled tensor's tile. Bands into
  // one with border columns: staged with them (Residents::stagesRows).
  bool inPlace = bands == 1 && out && !packedOut;
  Value staged = !inPlace && !three && out && (packedOut || bands > 1) &&
                         stagesRowsInto(*out, pw)
                     ? options.residents->stagedRows(b, loc, *out, fb, pr)
                     : Value();
  Value rows = inPlace ? target(oh / 2, pr)
               : staged
                   ? options.residents->stagedInterior(b, loc, *out, staged)
                   : allocTile(b, loc, {fb, pr, pw}, work);
  max(windowOf(b, loc, cols, fb, c0, pr, 2, 0, pw, 1),
      windowOf(b, loc, cols, fb, c0 + 1, pr, 2, 0, pw, 1), rows);
  // Row 2i - 1: the previous chunk's last for i = 0, but in a band's
  // first chunk (the padding in the first band; the band before's last
  // row, below, in the others).
  int64_t first = three && oh == 0 ? 1 : 0;
  if (three && pr > first) {
    Value dst = windowOf(b, loc, rows, fb, first, pr - first, 1, 0, pw, 1);
    max(dst,
        windowOf(b, loc, cols, fb, c0 + 2 * first - 1, pr - first, 2, 0, pw, 1),
        dst);
  }
  if (inPlace)
    return;
  if (staged) {
    for (int64_t j = 0; j < bands; ++j)
      options.residents->writeStagedRows(b, loc, *out, staged, j * fs, n, f0,
                                         fs, (oh + j * bandH) / 2, tailGroup);
    return;
  }
  for (int64_t j = 0; j < bands; ++j) {
    int64_t r0 = j > 0 ? first : 0;
    if (pr > r0)
      put(windowOf(b, loc, rows, fs, r0, pr - r0, 1, 0, pw, 1, j * fs),
          (oh + j * bandH) / 2 + r0, pr - r0);
  }
  if (!three || bands == 1)
    return;
  if (oh == 0)
    poolFirst[{n, f0}] = rows;
  if (oh + rc < bandH)
    return;
  // The band's last chunk: each band's last row of column maxes moves to
  // the next band's partitions (the first band's gets the padding), joins
  // the first pooled row there, which goes out.
  Value firstRows = poolFirst.lookup({n, f0});
  Value above = allocTile(b, loc, {fb, 1, pw}, work);
  tile::MemsetOp::create(
      b, loc, above,
      b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  for (int64_t j = 1; j < bands; ++j)
    tile::DmaOp::create(
        b, loc,
        windowOf(b, loc, cols, fs, bandH - 1, 1, 1, 0, pw, 1, (j - 1) * fs),
        windowOf(b, loc, above, fs, 0, 1, 1, 0, pw, 1, j * fs));
  Value top = windowOf(b, loc, firstRows, fb, 0, 1, 1, 0, pw, 1);
  max(top, above, top);
  for (int64_t j = 1; j < bands; ++j)
    put(windowOf(b, loc, firstRows, fs, 0, 1, 1, 0, pw, 1, j * fs),
        j * bandH / 2, 1);
}

bool ConvKernel::evacuatesImages(int64_t pixels) const {
  if (blocks() != 1 || bands > 1 || poolInKernel || globalPool || scale)
    return false;
  // Every per-channel operand is the same for every image.
  if (epilogue && !llvm::all_of(epi.operands, [](const Access &e) {
        return !e.buffer || !perChannel(e) || e.strides[0] == 0;
      }))
    return false;
  // Images of a few pixels (a squeeze-and-excitation's 1x1 convolutions):
  // an instruction's fixed cost is nearly all of it.
  if (pixels <= kFewPixels)
    return true;
  // Else an epilogue with a function only the ACT computes (SiLU, sigmoid,
  // GELU): its instructions cannot spread over the engines, so each one's
  // fixed cost is the ACT's alone. Others spread over three engines, where
  // more, smaller evacuations finish sooner (and the scheduler's balance
  // moves: ResNet-50's ReLU epilogues at batch 8 under auto-cast ran
  // 1,706 -> 1,839 us merged).
  return actEpilogue;
}

void ConvKernel::evacuate(OpBuilder &b, int64_t n, int64_t f0, int64_t fb,
                          int64_t oh, int64_t ow0, int64_t rc, int64_t wc,
                          Value acc, int64_t imgs) {
  assert((imgs == 1 || evacuatesImages(rc * wc)) &&
         "images evacuated one by one");
  int64_t cols = rc * wc * imgs;
  // Packed bands or stacked rows: partitions [j * F, (j + 1) * F) of the
  // chunk are output rows blockRow(oh, j), blockRow(oh, j) + blockRowStep(),
  // ...; every operand moves by DMA. A last group of fewer stacked rows
  // computes the first `nb` blocks only.
  int64_t fs = fb / blocks(), nb = validBlocks();
  if (nb < blocks()) {
    fb = nb * fs;
    acc = tileSlice(b, loc, acc, 0, fb, 0, cols);
  }
  // [fs, rc * wc] of block j of a 4-D operand: partitions along f, the
  // chunk's pixels along the free axis (whole rows merge; else rc == 1);
  // [fs, rc, wc] when the block's rows step over the others'.
  // (`parts` partitions: a chained 1x1's result or operand has its own.)
  auto view2d = [&](const Layout &l, int64_t width, int64_t j,
                    int64_t parts = 0) {
    parts = parts ? parts : fs;
    SmallVector<Value> ivs = {indexConst(b, loc, n), indexConst(b, loc, f0),
                              indexConst(b, loc, blockRow(oh, j)),
                              indexConst(b, loc, ow0)};
    if (imgs > 1 && width != 1)
      return hbm(b, l, ivs, {parts, imgs, width / imgs},
                 {l.strides[1], l.strides[0], l.strides[3]});
    if (width != 1 && blockRowStep() > 1)
      return hbm(b, l, ivs, {parts, rc, wc},
                 {l.strides[1], blockRowStep() * l.strides[2], l.strides[3]});
    int64_t free = width == 1 ? 1 : l.strides[3];
    return hbm(b, l, ivs, {parts, width}, {l.strides[1], free});
  };
  // A resident operand's chunk: [fs, rc, wc] of its SBUF tile.
  auto resident = [&](Value buffer, int64_t j) -> Value {
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(buffer) : std::nullopt;
    if (!r || r->tensor->packed) // written by DMA, never read here
      return {};
    return options.residents->view(b, loc, *r, n, f0, fs, blockRow(oh, j), rc,
                                   blockRowStep(), ow0, wc, 1, imgs);
  };
  // An operand's tile, [fb, cols] or a per-channel [fb, 1] `column`: a
  // resident view (one band), else one DMA per band; a column once per
  // image and filter block. (`parts` partitions a block: a chained 1x1's
  // columns have its filters'.)
  auto load = [&](const Layout &l, Type type, bool column,
                  int64_t parts = 0) -> Value {
    parts = parts ? parts : fs;
    if (!column && options.phaseAddends)
      if (auto it = options.phaseAddends->find(l.buffer);
          it != options.phaseAddends->end())
        return loadPhases(b, it->second, type, n, f0, parts, nb, oh, rc, ow0,
                          wc, imgs);
    if (Value v = !column && blocks() == 1 ? resident(l.buffer, 0) : Value())
      return v;
    int64_t width = column ? 1 : cols;
    std::tuple<Value, int64_t, int64_t> key = {
        l.buffer, l.offset + n * l.strides[0] + f0 * l.strides[1], parts};
    // A last group's shorter column is not cached: it covers fewer blocks.
    bool cache = column && nb == blocks();
    if (Value cached = cache ? columns.lookup(key) : Value())
      return cached;
    Value t = allocTile(b, loc, {nb * parts, width}, type);
    if (cache)
      columns[key] = t;
    for (int64_t j = 0; j < nb; ++j) {
      Value r = column ? Value() : resident(l.buffer, j);
      tile::DmaOp::create(b, loc, r ? r : view2d(l, width, j, parts),
                          tileSlice(b, loc, t, j * parts, parts, 0, width));
    }
    return t;
  };
  Layout out = resultLayout();
  Value outView = blocks() == 1 ? resident(out.buffer, 0) : Value();
  std::optional<ResidentRef> outRef =
      options.residents ? options.residents->lookup(out.buffer) : std::nullopt;
  // Whole rows of one image moved by DMA into a resident tensor whose rows
  // have border columns (packed bands, or its packed reader's tile): staged
  // with those columns so that each block is one run a partition
  // (stagesRowsInto); the last instruction writes the staged tile's
  // interior, made here, before it.
  Value staged, stagedView;
  if (outRef && !outView && !chained && !scatter &&
      !(poolInKernel && pool->resultUnread) && blockRowStep() == 1 &&
      nb == blocks() && imgs == 1 && ow0 == 0 && wc == g.ow &&
      (blocks() > 1 || outRef->tensor->packed) &&
      stagesRowsInto(*outRef, g.ow)) {
    staged = options.residents->stagedRows(b, loc, *outRef, fb, rc);
    stagedView = options.residents->stagedInterior(b, loc, *outRef, staged);
  }
  // The chunk's value `t` into the resident view.
  auto storeInto = [&](Value t, Value view) {
    // A final clamp (ReLU6's min with 6) into a narrower view: the value
    // before it is stored there and clamped in place (rounding commutes with
    // a clamp to a bound the narrow type holds exactly), which puts the
    // clamp on the DVE's fast path for 2-byte operands.
    if (tile::TensorScalarOp clamp = clampInto(t, view)) {
      if (outRef && blocks() == 1 && !poolInKernel && !globalPool && g.n > 1 &&
          imgs == 1)
        clamps.push_back({clamp, *outRef, n, f0, fb, oh, rc, ow0, wc});
      return;
    }
    // Of another element type (a bf16 tensor whose readers round to bf16)
    // when the tile is only the last instruction's destination: the store
    // into the view rounds as the copy would.
    auto alloc = t.getDefiningOp<tile::AllocOp>();
    if (alloc && t != acc &&
        (t.hasOneUse() ||
         cast<MemRefType>(t.getType()).getElementType() ==
             cast<MemRefType>(view.getType()).getElementType())) {
      // A pooled sum taken from the tile (sumForPool's reduction, when no
      // activation could accumulate it) reads the view instead: all of its
      // free dims, which may be more than the tile's ([P, rows, cols]).
      SmallVector<tile::ReduceOp> sums;
      for (Operation *user : t.getUsers())
        if (auto r = dyn_cast<tile::ReduceOp>(user); r && r.getSrc() == t)
          sums.push_back(r);
      t.replaceAllUsesWith(view);
      alloc->erase();
      for (tile::ReduceOp r : sums)
        r.setAxes(cast<MemRefType>(view.getType()).getRank() - 1);
      return;
    }
    tile::CopyOp::create(b, loc, t, view);
  };
  // The chained 1x1 convolution of the chunk's value `t`: multiplied in
  // the 1x1's input type, evacuated with its epilogue (per-channel
  // operands, a column per block) and stored a block at a time.
  auto chain = [&](Value t) {
    // Its instructions carry the 1x1's location (the per-op profile).
    Location loc = linalg::GenericOp(chained->op).getLoc();
    auto type = cast<MemRefType>(t.getType());
    if (type.getElementType() != chainG->inputType || tile::isPsum(type)) {
      // The instruction that computes the value writes the 1x1's type
      // when nothing else reads it (the same rounding as a copy's; under
      // auto-cast the U-Net's head took a third ACT pass a chunk so).
      if (Value narrow = retypeWrittenTile(b, t, chainG->inputType)) {
        t = narrow;
      } else {
        Value m = allocTile(b, loc, {fb, cols}, chainG->inputType);
        tile::CopyOp::create(b, loc, t, m);
        t = m;
      }
    }
    int64_t f2 = chainG->f, parts = nb * f2;
    Value acc2 = allocTile(b, loc, {parts, cols}, b.getF32Type(),
                           tile::MemorySpace::PSUM);
    tile::MatmulOp::create(b, loc,
                           tileSlice(b, loc, chainFilter, 0, fb, 0, parts), t,
                           acc2, UnitAttr());
    Type outType = cast<MemRefType>(chainY.buffer.getType()).getElementType();
    Value r;
    if (!chained->epilogue) {
      r = allocTile(b, loc, {parts, cols}, outType);
      tile::CopyOp::create(b, loc, acc2, r);
    } else {
      BodyLowering lowering2(b, loc, parts, cols);
      FailureOr<Value> v = chainEpi.compute(
          b, loc, lowering2, {TileValue::Full, 0.0, acc2, b.getF32Type()}, acc2,
          b.getF32Type(), parts, cols,
          [&](const Access &e) -> std::pair<Value, bool> {
            Layout l{e.buffer, e.offset, SmallVector<int64_t>(e.strides)};
            return {load(l, e.elementType, /*column=*/true, f2), true};
          },
          /*roundOnStore=*/true);
      if (failed(v)) {
        status = failure();
        return;
      }
      r = *v;
    }
    std::optional<ResidentRef> ref =
        options.residents ? options.residents->lookup(chainY.buffer)
                          : std::nullopt;
    for (int64_t j = 0; j < nb; ++j)
      tile::DmaOp::create(
          b, loc, tileSlice(b, loc, r, j * f2, f2, 0, cols),
          ref ? options.residents->view(b, loc, *ref, n, 0, f2, blockRow(oh, j),
                                        rc, blockRowStep(), ow0, wc, 1, imgs)
              : view2d(chainY, cols, j, f2));
  };
  // Writes the chunk's value `t` (a full SBUF or PSUM tile) out: into the
  // resident tensor (a fresh tile of its type is replaced by the view, so
  // the last instruction writes there), else by DMA. A fused pooling then
  // reads it where it is.
  auto store = [&](Value t) {
    if (chained) {
      chain(t);
      return;
    }
    // Only the fused pooling reads the result: it pools the values the
    // result would hold, rounded to its type or to the pooled tensor's when
    // that is narrower (rounding commutes with max; the last instruction
    // writes that type when it can), and nothing is stored.
    if (poolInKernel && pool->resultUnread) {
      Type outType = cast<MemRefType>(out.buffer.getType()).getElementType();
      Type pooledType =
          cast<MemRefType>(pooled.buffer.getType()).getElementType();
      if (std::optional<ResidentRef> r =
              options.residents ? options.residents->lookup(pooled.buffer)
                                : std::nullopt)
        pooledType =
            cast<MemRefType>(r->tensor->tile.getType()).getElementType();
      if (tile::storageBytes(pooledType) < tile::storageBytes(outType))
        outType = pooledType;
      auto type = cast<MemRefType>(t.getType());
      if (outType != type.getElementType()) {
        Value narrow = retypeWrittenTile(b, t, outType);
        if (!narrow) {
          narrow = allocTile(b, loc, type.getShape(), outType);
          tile::CopyOp::create(b, loc, t, narrow);
        }
        t = narrow;
      }
      poolChunk(b, n, f0, fb, oh, rc, t);
      return;
    }
    if (!outView) {
      // Stored narrower (a bf16 tensor in HBM): the last instruction
      // writes that type, so the DMA moves half the bytes.
      Type outType = cast<MemRefType>(out.buffer.getType()).getElementType();
      if (outType != cast<MemRefType>(t.getType()).getElementType() &&
          tile::storageBytes(outType) <
              tile::storageBytes(
                  cast<MemRefType>(t.getType()).getElementType()))
        if (Value narrow = retypeWrittenTile(b, t, outType))
          t = narrow;
      if (staged) {
        storeInto(t, stagedView);
        for (int64_t j = 0; j < nb; ++j)
          options.residents->writeStagedRows(
              b, loc, *outRef, staged, j * fs, n, f0, fs, blockRow(oh, j),
              outRef->tensor->packed && tailGroup);
        if (poolInKernel)
          poolChunk(b, n, f0, fb, oh, rc, stagedView);
        return;
      }
      for (int64_t j = 0; j < nb; ++j) {
        if (outRef && outRef->tensor->packed) {
          // Into its reader's band tile: each image's rows of the block.
          for (int64_t i = 0; i < imgs; ++i)
            options.residents->write(
                b, loc, *outRef,
                tileSlice(b, loc, t, j * fs, fs, i * rc * wc, rc * wc), n + i,
                f0, fs, blockRow(oh, j), rc, blockRowStep(), ow0, wc,
                tailGroup);
          continue;
        }
        Value r = resident(out.buffer, j);
        Value block = tileSlice(b, loc, t, j * fs, fs, 0, cols);
        // A block of a resident result, from and to partitions where an
        // engine may start, as an engine copy: the last group's with one
        // image in flight, so that the next kernel waits for an instruction,
        // not a DMA's completion (with several images it has others to
        // start on, and the engines more to do); and every block of two
        // stacked windows, whose rows interleave the other blocks' (a DMA
        // pays a descriptor a row; the copy is one instruction, four
        // elements a cycle on the DVE for 2-byte types: ResNet-50 at batch
        // 8 in fp32 4,204.1 -> 4,200.9 us).
        if (r && ((tailGroup && oneImageInFlight()) || stackWindows > 1) &&
            engineMovesBlock(*outRef, j, f0, fs))
          tile::CopyOp::create(b, loc, block, r);
        else
          tile::DmaOp::create(b, loc, block, r ? r : view2d(out, cols, j));
      }
      if (poolInKernel)
        poolChunk(b, n, f0, fb, oh, rc, t);
      return;
    }
    storeInto(t, outView);
    if (poolInKernel)
      poolChunk(b, n, f0, fb, oh, rc, outView);
  };
  BodyLowering lowering(b, loc, fb, cols);
  auto addOrder = [&] { return chooseAddOrder(cols); };
  lowering.setAddBeforePendingChoice(addOrder);
  auto siluEngines = [&] { return chooseSiluEngines(cols); };
  lowering.setSiluChoice(siluEngines);
  auto storeAndSum = [&](Value t) {
    if (globalPool)
      sumForPool(b, lowering, t, n, f0, fb);
    store(t);
  };
  if (scatter) {
    scatterChunk(b, n, f0, oh, ow0, rc, wc, acc, imgs);
    return;
  }
  TileValue product{TileValue::Full, 0.0, acc, b.getF32Type()};
  if (!zeroInit && !partner) // a partner's result is in the accumulator
    product = *lowering.binary(
        "add", product, {TileValue::Full, 0.0, load(y, elt, false), elt}, elt);
  if (!epilogue) {
    Value t = lowering.materializeFull(product, elt);
    if (t == acc && !outView) {
      t = allocTile(b, loc, {fb, cols}, elt);
      tile::CopyOp::create(b, loc, acc, t);
    }
    storeAndSum(t);
    return;
  }
  FailureOr<Value> t = epi.compute(
      b, loc, lowering, product, acc, elt, fb, cols,
      [&](const Access &e) -> std::pair<Value, bool> {
        bool column = perChannel(e);
        Layout l{e.buffer, e.offset, SmallVector<int64_t>(e.strides)};
        return {load(l, e.elementType, column), column};
      },
      /*roundOnStore=*/true);
  if (failed(t)) {
    status = failure();
    return;
  }
  storeAndSum(*t);
}

Value ConvKernel::loadPhases(OpBuilder &b, const TileOptions::PhaseAddend &pa,
                             Type type, int64_t n, int64_t f0, int64_t parts,
                             int64_t nb, int64_t oh, int64_t rc, int64_t ow0,
                             int64_t wc, int64_t imgs) {
  int64_t fh = pa.fh, fw = pa.fw, px = rc * wc, cols = px * imgs;
  Value t = allocTile(b, loc, {nb * parts, cols}, type);
  ArrayRef<int64_t> s = pa.strides; // [phases, N, C, H / fh, W / fw]
  int64_t off = pa.offset;
  Value root = pa.buffer;
  int64_t step = blockRowStep();
  auto at = [&](int64_t phase, int64_t img, int64_t h, int64_t w) {
    return indexConst(b, loc,
                      off + phase * s[0] + img * s[1] + f0 * s[2] + h * s[3] +
                          w * s[4]);
  };
  if (ow0 % fw == 0 && wc % fw == 0) {
    // The chunk's columns are whole column phases: its phase rows go into
    // `tmp` by DMA, a run of q columns or more a partition, and one engine
    // copy an image puts them in pixel order over every block's partitions
    // (from partition 0, where an engine may start). Rows in whole phase
    // pairs: tmp[c, py, px, a, q'] holds pixel (a * fh + py, q' * fw + px);
    // rows of one phase (stacked rows a multiple of fh apart):
    // tmp[c, px, k, q']; others tmp[c, k, px, q'], a DMA a row.
    int64_t q = wc / fw, a = rc / fh;
    bool phasePairs = step == 1 && rc % fh == 0;
    for (int64_t j = 0; j < nb; ++j)
      phasePairs &= blockRow(oh, j) % fh == 0;
    bool onePhase = !phasePairs && step % fh == 0;
    Value tmp = allocTile(b, loc, {nb * parts, cols}, type);
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t i = 0; i < imgs; ++i) {
        int64_t h0 = blockRow(oh, j);
        // A DMA a phase (a channel's run of phase rows a piece of HBM that
        // the scheduler's dependences track on its own; all phases at once
        // would be one hull over the planes between them).
        auto phaseRows = [&](int64_t phase, int64_t h, int64_t rows,
                             int64_t rowStep, int64_t at0) {
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, root, at(phase, n + i, h, ow0 / fw),
                      {parts, rows, q}, {s[2], rowStep * s[3], s[4]}),
              tileSlice(b, loc, tmp, j * parts, parts, i * px + at0, rows * q));
        };
        for (int64_t p = 0; p < fh * fw; ++p) {
          int64_t py = p / fw, pxw = p % fw;
          if (phasePairs) // tmp[c, py, px, a, q]
            phaseRows(p, h0 / fh, a, 1, p * a * q);
          else if (onePhase && py == 0) // tmp[c, px, k, q]
            phaseRows((h0 % fh) * fw + pxw, h0 / fh, rc, step / fh,
                      pxw * rc * q);
          else if (!onePhase && py == 0) // tmp[c, k, px, q]
            for (int64_t k = 0; k < rc; ++k) {
              int64_t h = h0 + k * step;
              phaseRows((h % fh) * fw + pxw, h / fh, 1, 1, k * wc + pxw * q);
            }
        }
      }
    for (int64_t i = 0; i < imgs; ++i) {
      Value chunk = tileSlice(b, loc, t, 0, nb * parts, i * px, px);
      SmallVector<int64_t> shape = {nb * parts, a, fh, q, fw},
                           strides = {cols, q, fw * a * q, 1, a * q};
      SmallVector<ReassociationIndices> groups = {{0}, {1, 2, 3, 4}};
      if (!phasePairs) {
        shape = {nb * parts, rc, q, fw};
        strides = onePhase ? SmallVector<int64_t>{cols, q, 1, rc * q}
                           : SmallVector<int64_t>{cols, wc, 1, q};
        groups = {{0}, {1, 2, 3}};
      }
      tile::CopyOp::create(
          b, loc, stridedView(b, loc, tmp, shape, strides, i * px),
          memref::ExpandShapeOp::create(b, loc, shape, chunk, groups));
    }
    return t;
  }
  // Columns that start or end inside a column phase: a DMA a row and
  // column phase, straight into its columns (an element a descriptor).
  for (int64_t j = 0; j < nb; ++j)
    for (int64_t i = 0; i < imgs; ++i)
      for (int64_t k = 0; k < rc; ++k) {
        int64_t h = blockRow(oh, j) + k * step;
        for (int64_t p = 0; p < fw; ++p) {
          int64_t q0 = ((p - ow0) % fw + fw) % fw; // (ow0 + q0) % fw == p
          if (q0 >= wc)
            continue;
          int64_t count = (wc - q0 + fw - 1) / fw;
          Value row = memref::SubViewOp::create(
              b, loc, t,
              SmallVector<OpFoldResult>{b.getIndexAttr(j * parts),
                                        b.getIndexAttr(i * px + k * wc + q0)},
              SmallVector<OpFoldResult>{b.getIndexAttr(parts),
                                        b.getIndexAttr(count)},
              SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(fw)});
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, root,
                      at((h % fh) * fw + p, n + i, h / fh, (ow0 + q0) / fw),
                      {parts, count}, {s[2], s[4]}),
              row);
        }
      }
  return t;
}

void ConvKernel::scatterChunk(OpBuilder &b, int64_t n, int64_t f0, int64_t oh,
                              int64_t ow0, int64_t rc, int64_t wc, Value acc,
                              int64_t imgs) {
  int64_t cols = rc * wc * imgs;
  for (auto [p, out] : llvm::zip_equal(scatter->pieces, scatterOut)) {
    // Partitions [channel, channel + channels) of the accumulator (where
    // an engine may start reading: findPhaseScatter) onto the target's.
    Value block = tileSlice(b, loc, acc, p.channel - f0, p.channels, 0, cols);
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(p.target) : std::nullopt;
    if (r && !r->tensor->packed) {
      tile::CopyOp::create(b, loc, block,
                           options.residents->view(b, loc, *r, n, 0, p.channels,
                                                   oh, rc, 1, ow0, wc, 1,
                                                   imgs));
      continue;
    }
    // A target in HBM: evacuated to SBUF, then a DMA per image.
    Value t = allocTile(b, loc, {p.channels, cols}, elt);
    tile::CopyOp::create(b, loc, block, t);
    for (int64_t i = 0; i < imgs; ++i) {
      SmallVector<Value> ivs = {indexConst(b, loc, n + i),
                                indexConst(b, loc, 0), indexConst(b, loc, oh),
                                indexConst(b, loc, ow0)};
      tile::DmaOp::create(
          b, loc, tileSlice(b, loc, t, 0, p.channels, i * rc * wc, rc * wc),
          hbm(b, out, ivs, {p.channels, rc, wc},
              {out.strides[1], out.strides[2], out.strides[3]}));
    }
  }
}

bool ConvKernel::oneImageInFlight() const {
  // Several images: the batch, or nki-split-batch's groups.
  auto func = op->getParentOfType<func::FuncOp>();
  auto groups =
      func ? func->getAttrOfType<DictionaryAttr>(tile::kBatchGroupsAttr)
           : DictionaryAttr();
  auto count = groups ? groups.getAs<IntegerAttr>("groups") : IntegerAttr();
  return g.n == 1 && !(count && count.getInt() > 1);
}

bool ConvKernel::evacuatesInPlace() const {
  if (blocks() != 1 || pool || globalPool || chained || !options.residents)
    return false;
  if (scatter)
    return llvm::all_of(scatter->pieces, [&](const PhaseScatter::Piece &p) {
      return options.residents->lookup(p.target).has_value();
    });
  return options.residents->lookup(resultLayout().buffer).has_value();
}

void ConvKernel::sumForPool(OpBuilder &b, BodyLowering &lowering, Value t,
                            int64_t n, int64_t f0, int64_t fb) {
  Type f32 = b.getF32Type();
  FailureOr<Value> part =
      lowering.reduceRows("add", TileValue{TileValue::Full, 0.0, t, f32});
  if (failed(part)) {
    status = failure();
    return;
  }
  // The chunk's [fb, 1] sum goes straight into its column: the new tile
  // reduceRows made (allocated before the instruction that writes it) is
  // replaced by the column.
  int64_t count = evacuationsPerImage;
  PoolSums &sums = poolSums[{n, f0}];
  int64_t fs = fb / blocks();
  PoolSums &images = imageSums[f0];
  // Image n's column of the block's [fs, N] sums; allocated before the
  // instruction that first writes it.
  auto imageColumn = [&](Operation *before) {
    if (!images.tile) {
      OpBuilder::InsertionGuard guard(b);
      if (before)
        b.setInsertionPoint(before);
      images.tile = allocTile(b, loc, {fs, g.n}, f32);
    }
    return tileSlice(b, loc, images.tile, 0, fs, n, 1);
  };
  // The new tile a reduction made (allocated before the instruction that
  // writes it) replaced by `column`.
  auto redirect = [&](Value tile, Value column) {
    Operation *alloc = tile.getDefiningOp();
    tile.replaceAllUsesWith(column);
    alloc->erase();
  };
  Value sum = *part;
  bool direct = count == 1 && blocks() == 1;
  if (count > 1) {
    // The chunk's [fb, 1] sum goes straight into its column.
    Operation *alloc = sum.getDefiningOp();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    if (!sums.tile)
      sums.tile = allocTile(b, loc, {fb, count}, f32);
    redirect(sum, tileSlice(b, loc, sums.tile, 0, fb, sums.next, 1));
  } else if (direct) {
    Operation *alloc = sum.getDefiningOp();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    redirect(sum, imageColumn(alloc));
  }
  if (++sums.next < count)
    return;
  if (count > 1) {
    sum =
        blocks() == 1 ? imageColumn(nullptr) : allocTile(b, loc, {fb, 1}, f32);
    tile::ReduceOp::create(b, loc, b.getStringAttr("add"), sums.tile, sum,
                           b.getI64IntegerAttr(1), Value());
  }
  // Packed bands or stacked rows: block j of the partitions summed other
  // rows of the same channels; a DMA within SBUF puts each block's column
  // beside the others on the first block's partitions.
  if (blocks() > 1) {
    Value side = allocTile(b, loc, {fs, blocks()}, f32);
    for (int64_t j = 0; j < blocks(); ++j)
      tile::DmaOp::create(b, loc, tileSlice(b, loc, sum, j * fs, fs, 0, 1),
                          tileSlice(b, loc, side, 0, fs, j, 1));
    tile::ReduceOp::create(b, loc, b.getStringAttr("add"), side,
                           imageColumn(nullptr), b.getI64IntegerAttr(1),
                           Value());
  }
  if (++images.next < g.n)
    return;
  storePooledSum(b, loc, *globalPool->pool, images.tile, 0, g.n,
                 globalPool->c0 + f0, fs, options.residents);
}

/// The PE time this kernel emitted after its result's first channel block
/// was complete, for its result and a global pooling it computes (all of
/// it when an earlier kernel wrote other channels first).
void ConvKernel::recordResultTail() const {
  if (!options.resultTailPeNs || firstBlockPe < 0)
    return;
  auto record = [&](Value buffer) {
    auto [it, fresh] =
        options.resultTailPeNs->try_emplace(viewRoot(buffer), 0.0);
    double tail = evacuationLoads.pe - (fresh ? firstBlockPe : 0.0);
    it->second = fresh ? tail : it->second + tail;
  };
  if (scatter)
    record(scatter->pieces.front().target);
  else
    record(resultLayout().buffer);
  if (globalPool)
    record(globalPool->pool->out.buffer);
}

/// A 1x1 convolution of one pixel is a GEMV: each channel block costs the
/// PE a LoadStationary and a minimum matmul (512 cycles with fp32 inputs)
/// for one column. EfficientNet-B0's squeeze-and-excitation reduces 1,152
/// channels to 48 with nine of them, 1.9 us on the PE between the squeeze
/// and the excitation, which every later layer waits for; the vector
/// engines scale and sum a block of 48 filters in about 0.1 us each
/// (Matmul.cpp's GEMV split, gemvVectorBlocks). Only dense, unpacked,
/// unpadded fp32 kernels of one image.
int64_t ConvKernel::pixelGemvBlocks(int64_t fb) const {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || scale || chained || pad || taps() != 1 || blocks() != 1 ||
      foldRows || g.n != 1 || cBlocks < 3 || !g.inputType.isF32() ||
      !g.filterType.isF32() || !t.peClockMHz || !t.actClockMHz ||
      !t.dveClockMHz)
    return 0;
  double pe = peChunkNs(1, 1, 1);
  return gemvVectorBlocks(pe, vectorNs(fb, t.actClockMHz),
                          vectorNs(fb, t.dveClockMHz), cBlocks);
}

Value ConvKernel::pixelGemvSum(OpBuilder &b, ArrayRef<Value> inputs,
                               ArrayRef<Value> filters, const Chunk &ch,
                               int64_t f0, int64_t fb, int64_t vk) {
  SmallVector<Value> rows, pixels;
  TapCols t = tapCols(ch, 0);
  for (int64_t cb = 0; cb < vk; ++cb) {
    Value pixel = chunkWindow(b, inputs[cb], P(), ch, ch.r0 * g.strideH,
                              g.strideH, t.col, g.strideW, t.qb - t.qa);
    // The pixel's [P, 1, 1] window as the [P, 1] scalar operand.
    if (cast<MemRefType>(pixel.getType()).getRank() == 3)
      pixel = memref::CollapseShapeOp::create(
          b, loc, pixel, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    pixels.push_back(pixel);
    rows.push_back(tileSlice(b, loc, filters[cb], 0, P(), f0, fb));
  }
  return gemvVectorSum(b, loc, rows, pixels);
}

/// The [cs, len] run of a tile's elements (its partitions first, then
/// any dims) from element `offset` of partitions [p0, p0 + cs), across its
/// rows.
static Value flatRun(OpBuilder &b, Location loc, Value tile, int64_t p0,
                     int64_t offset, int64_t cs, int64_t len) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t pitch = 1;
  for (int64_t d : type.getShape().drop_front())
    pitch *= d;
  auto layout =
      StridedLayoutAttr::get(b.getContext(), p0 * pitch + offset, {pitch, 1});
  auto viewType = MemRefType::get({cs, len}, type.getElementType(), layout,
                                  type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, tile, b.getIndexAttr(p0 * pitch + offset),
      {b.getIndexAttr(cs), b.getIndexAttr(len)},
      {b.getIndexAttr(pitch), b.getIndexAttr(1)});
}

void ConvKernel::copyShiftedRows(OpBuilder &b, const ResidentRef &ref,
                                 int64_t n, int64_t h, int64_t rows,
                                 int64_t shift, Value tile, int64_t p0,
                                 int64_t r) {
  const ResidentTensor &rt = *ref.tensor;
  auto type = cast<MemRefType>(rt.tile.getType());
  ArrayRef<int64_t> shape = type.getShape(); // [P, blocks, N, Hp, Wp]
  int64_t planeRows = shape[3], width = shape[4];
  int64_t c = ref.c, row = rt.top + ref.h + h;
  int64_t plane = ((c / P()) * shape[2] + ref.n + n) * planeRows;
  // Within the image's plane: the tensor's last row takes no element of
  // the next image's.
  assert(row + rows <= planeRows && "a band's rows past the resident plane");
  int64_t len = rows * width - (row + rows == planeRows ? shift : 0);
  int64_t tileWidth = cast<MemRefType>(tile.getType()).getShape()[2];
  tile::DmaOp::create(b, loc,
                      flatRun(b, loc, rt.tile, c % P(),
                              (plane + row) * width + shift, g.c, len),
                      flatRun(b, loc, tile, p0, r * tileWidth, g.c, len));
}

void ConvKernel::emitBand(OpBuilder &b, ArrayRef<int64_t> images, int64_t oh0,
                          int64_t rows, ArrayRef<Value> filters) {
  // Per channel block, the band tile of every image.
  SmallVector<Value> inputs;
  bool packed = foldRows || (bands > 1 && !outBands); // one tile of bands *
                                                      // C * KH' rows
  assert((!packed || images.size() == 1) && "packed bands are per image");
  int64_t n = images.front();
  if (packedInput) {
    // The input is kept in this layout: the band tile is its rows.
    bandColOffset = 0;
    inputs.push_back(options.residents->packedRows(
        b, loc, *input.resident->tensor, n, foldRows ? oh0 : oh0 * g.strideH,
        tileRows(rows)));
  } else if (packed) {
    // Partition ((j * KWf + kwi) * KH' + kh) * C + c, row r, column q:
    // padded input row (oh0 + j * bandH + r) * sh + kh * dh of channel c
    // when folded (KH' = KH), row (oh0 + j * bandH) * sh + r otherwise
    // (KH' = 1, kh = 0), column q + kwi * dw (KWf = foldCols, else 1), in
    // one DMA per band, kernel column and kernel row: from the resident
    // tensor (within SBUF; its border is the padding), else from HBM with
    // the padding set for the whole tile first (a memset may not start at
    // any partition) and the loads overwriting the rest.
    int64_t fold = foldRows ? foldGroups() : 1,
            step = foldRows ? tileRowStep() : 1;
    int64_t shiftMax = (foldCols - 1) * g.dilationW;
    int64_t tr = tileRows(rows);
    int64_t parts = bands * bandParts();
    // From a resident input with consecutive rows, the band tile takes the
    // resident rows whole (border included), so that each copy is one
    // contiguous run a partition: a DMA pays a descriptor of at least 512
    // bytes per run, and a U-Net phase's rows of 65 bf16 (130 bytes) cost
    // four times their bytes. The kernel's windows then start bandColOffset
    // columns in. A folded kernel column's copy, shifted by `shift`
    // columns, is the same run `shift` elements later: each row's last
    // columns come from the next row's first (its border or data, columns
    // no window of that kernel column reads but for a zero filter row, so
    // not under an infinite border: inf x 0 is NaN), the tensor's last
    // row's from a memset.
    std::optional<ResidentRef> ref = input.resident;
    int64_t width = input.width; // the source's when trimmed, else g.w
    bandColOffset = 0;
    bool fullRows = ref && step == 1 && takesWholeRows(*ref) &&
                    (!shiftMax || std::isfinite(ref->tensor->padValue));
    if (fullRows) {
      const ResidentTensor &rt = *ref->tensor;
      width = rt.left + rt.w + rt.right;
      bandColOffset = rt.left - (pad ? pad->left : 0);
      fullRows = bandColOffset + g.w <= width;
    }
    if (!fullRows) {
      width = input.width;
      bandColOffset = 0;
    }
    Value t = allocTile(b, loc, {parts, tr, width}, g.inputType);
    if (pad && !input.resident) {
      // The padding: the tile rows that are a padding row in some band or
      // kernel-row group (all partitions: a memset may not start at any
      // partition; the loads then overwrite the groups where they are
      // input rows), and the border columns of the others. Not the whole
      // tile: ResNet-50's stem band is 3,680 elements a partition, a
      // memset of 3 to 4 us before the first load could start.
      auto padRow = [&](int64_t r) {
        for (int64_t j = 0; j < bands; ++j)
          for (int64_t kh = 0; kh < fold; ++kh) {
            int64_t h = bandInputRow(oh0, j, kh) + r * step;
            if (h < pad->top || h >= pad->top + pad->height)
              return true;
          }
        return false;
      };
      auto fill = [&](Value view) {
        tile::MemsetOp::create(b, loc, view,
                               b.getF32FloatAttr(float(pad->value)));
      };
      // Trimmed, the tile has no border columns.
      int64_t left = trimmed ? 0 : pad->left;
      int64_t right = trimmed ? 0 : g.w - pad->left - pad->width;
      for (int64_t r = 0; r < tr;) {
        int64_t e = r;
        bool isPad = padRow(r);
        while (e < tr && padRow(e) == isPad)
          ++e;
        if (isPad) {
          fill(windowOf(b, loc, t, parts, r, e - r, 1, 0, width, 1));
        } else {
          if (left)
            fill(windowOf(b, loc, t, parts, r, e - r, 1, 0, pad->left, 1));
          if (right)
            fill(windowOf(b, loc, t, parts, r, e - r, 1, pad->left + pad->width,
                          right, 1));
        }
        r = e;
      }
    }
    // Shifted copies leave their last columns unloaded (and past the
    // source's, padding): set, on every partition, since the matmuls of a
    // last group of fewer kernel columns read them (times a zero filter).
    if (shiftMax && fullRows) {
      tile::MemsetOp::create(b, loc,
                             windowOf(b, loc, t, parts, tr - 1, 1, 1,
                                      width - shiftMax, shiftMax, 1),
                             b.getF32FloatAttr(0.0f));
    } else if (shiftMax) {
      int64_t from = g.w - shiftMax;
      if (pad && !input.resident)
        from = std::max<int64_t>(0, pad->left + pad->width - shiftMax);
      tile::MemsetOp::create(
          b, loc, windowOf(b, loc, t, parts, 0, tr, 1, from, g.w - from, 1),
          b.getF32FloatAttr(pad ? float(pad->value) : 0.0f));
    }
    // A last group of fewer stacked rows reads input rows past the padded
    // input in its last partition groups: from HBM with padding they are
    // padding rows (set above); else they are set to zero here and not
    // loaded (they feed only the blocks the group does not store).
    if (partialGroup && !(pad && !input.resident))
      tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
    // Stacked in windows, a group's last tile row may hold rows past the
    // padded input in the last partition groups: rows that only zero
    // filter rows read (kernel rows past KH), set to zero (on every
    // partition, the loads then overwrite the others) and not loaded; from
    // HBM with padding they are padding rows, set above.
    auto validRows = [&](int64_t h0) {
      int64_t v = tr;
      while (stackWindows > 1 && v > 0 && h0 + (v - 1) * step >= g.h)
        --v;
      return v;
    };
    if (stackWindows > 1 && !(pad && !input.resident)) {
      int64_t least = tr;
      for (int64_t j = 0; j < bands; ++j)
        for (int64_t kh = 0; kh < fold; ++kh)
          least = std::min(least, validRows(bandInputRow(oh0, j, kh)));
      if (least < tr)
        tile::MemsetOp::create(
            b, loc,
            windowOf(b, loc, t, parts, least, tr - least, 1, 0, width, 1),
            b.getF32FloatAttr(0.0f));
    }
    // From HBM, a kernel row's block holds the rows of the block `step`
    // padded rows above it, one row on: it copies them from there (SBUF to
    // SBUF, one run a partition) and loads only its last rows, and a
    // kernel column's block copies its kernel row's, shifted (whole rows,
    // as copyShiftedRows: so not under an infinite padding). Each padded
    // row then comes from HBM once where it came up to KH x KW times
    // (ResNet-50's stem: 7 x 6). Only where the load narrows (an f32 input
    // of a bf16 convolution), so that the copies take half the DMA bytes
    // of the loads they replace: in f32 they take as many and add a DMA's
    // latency before the band's matmuls (EfficientNet-B0 at batch 8 on
    // trn3 ran 1.5 % slower). Nor in a kernel of one band tile, whose
    // latency no other band hides (the U-Net at batch 1 ran 1.6 us longer).
    struct Base {
      int64_t kh, rows;
    };
    int64_t bandTiles =
        (g.n + imageGroup - 1) / imageGroup *
        ((bandH + bandRows - 1) / bandRows + (lastRows ? 1 : 0));
    bool copies = !input.resident && bandTiles > 1 && foldCols * fold > 1 &&
                  (!pad || std::isfinite(pad->value)) &&
                  tile::storageBytes(g.inputType) <
                      tile::storageBytes(input.hbmElementType());
    for (int64_t j = 0; j < bands; ++j) {
      // Per kernel row: the first block loaded from HBM whose rows continue
      // into its own, and the rows it copies from there.
      SmallVector<std::optional<Base>> base(fold);
      auto loaded = [&](int64_t h) { return pad ? tr : validRows(h); };
      int64_t blocks = 0, loads = 0;
      for (int64_t kh = 0; kh < fold && copies; ++kh) {
        int64_t h0 = bandInputRow(oh0, j, kh);
        if ((partialGroup && h0 >= g.h) || !loaded(h0))
          continue;
        blocks += foldCols;
        for (int64_t kb = 0; kb < kh && !base[kh]; ++kb) {
          int64_t hb = bandInputRow(oh0, j, kb);
          int64_t rows = std::min(loaded(h0), loaded(hb) - (h0 - hb) / step);
          if (!base[kb] && (h0 - hb) % step == 0 && rows > 0)
            base[kh] = Base{kb, rows};
        }
        loads += !base[kh];
      }
      // A copy waits for the load it copies: worth it where it replaces
      // most of a band's loads. MobileNetV2's stem (stride 2, three kernel
      // rows, one copied) ran 1 % slower under auto-cast with its copies;
      // ResNet-50's (42 blocks, 2 loaded) and the U-Net's (3, 1) faster.
      bool copyBand = copies && 2 * loads <= blocks;
      if (!copyBand)
        base.assign(fold, std::nullopt);
      auto blockOf = [&](int64_t kwi, int64_t kh) {
        return ((j * foldCols + kwi) * fold + kh) * g.c;
      };
      // Rows [from, from + rows) of the block at partition `src` into rows
      // [to, to + rows) of the one at `dst`, `by` columns on: one run a
      // partition and piece (a row's last `by` elements the next row's
      // first; the columns fold only where the band keeps the border).
      auto copyRows = [&](int64_t src, int64_t from, int64_t dst, int64_t to,
                          int64_t rows, int64_t by) {
        assert((!by || !input.trimCols) && "shifted rows need their border");
        int64_t pieces =
            loadPieces(rows * width * tile::storageBytes(g.inputType));
        int64_t rs = (rows + pieces - 1) / pieces;
        for (int64_t r = 0; r < rows; r += rs) {
          int64_t k = std::min(rs, rows - r);
          int64_t len = k * width - (r + k == rows ? by : 0);
          tile::DmaOp::create(
              b, loc,
              flatRun(b, loc, t, src, (from + r) * width + by, g.c, len),
              flatRun(b, loc, t, dst, (to + r) * width, g.c, len));
        }
      };
      for (int64_t kwi = 0; kwi < foldCols; ++kwi)
        for (int64_t kh = 0; kh < fold; ++kh) {
          int64_t h0 = bandInputRow(oh0, j, kh);
          if (partialGroup && h0 >= g.h)
            continue;
          int64_t p0 = blockOf(kwi, kh);
          int64_t shift = kwi * g.dilationW;
          int64_t valid = validRows(h0);
          int64_t m = pad ? tr : valid;
          if (copyBand && kwi > 0) {
            // From the blocks loaded from HBM, so that no copy waits for
            // another.
            int64_t from = 0;
            if (base[kh]) {
              int64_t kb = base[kh]->kh;
              from = base[kh]->rows;
              copyRows(blockOf(0, kb), (h0 - bandInputRow(oh0, j, kb)) / step,
                       p0, 0, from, shift);
            }
            copyRows(blockOf(0, kh), from, p0, from, m - from, shift);
            continue;
          }
          if (copyBand && m > 0) {
            if (base[kh]) {
              int64_t kb = base[kh]->kh;
              int64_t q = (h0 - bandInputRow(oh0, j, kb)) / step;
              int64_t rows = base[kh]->rows;
              copyRows(blockOf(0, kb), q, p0, 0, rows, 0);
              if (rows < m)
                input.loadBand(
                    b, loc, n, 0, g.c, h0 + rows * step, m - rows,
                    windowOf(b, loc, t, parts, rows, m - rows, 1, 0, width, 1),
                    p0, step, /*fillBorder=*/false);
              continue;
            }
          }
          if (input.resident) {
            // In row pieces: a DMA spreads over at most four queues.
            int64_t pieces =
                loadPieces(valid * g.w * tile::storageBytes(g.inputType));
            int64_t rs = (valid + pieces - 1) / pieces;
            for (int64_t r = 0; r < valid; r += rs) {
              int64_t m = std::min(rs, valid - r);
              if (fullRows && shift) {
                copyShiftedRows(b, *ref, n, h0 + r - (pad ? pad->top : 0), m,
                                shift, t, p0, r);
                continue;
              }
              if (fullRows) {
                const ResidentTensor &rt = *ref->tensor;
                int64_t top = pad ? pad->top : 0;
                tile::DmaOp::create(
                    b, loc,
                    input.residents->view(b, loc, *ref, n, 0, g.c, h0 + r - top,
                                          m, 1, -rt.left, width, 1),
                    windowOf(b, loc, t, g.c, r, m, 1, 0, width, 1, p0));
                continue;
              }
              tile::DmaOp::create(
                  b, loc,
                  input.residentRows(b, loc, n, 0, g.c, h0 + r * step, m, step,
                                     shift),
                  windowOf(b, loc, t, g.c, r, m, 1, 0, g.w - shift, 1, p0));
            }
          } else if (valid) {
            input.loadBand(b, loc, n, 0, g.c, h0, pad ? tr : valid, t, p0, step,
                           /*fillBorder=*/false, shift);
          }
        }
    }
    inputs.push_back(t);
  }
  if (!packed)
    bandColOffset = 0;
  for (int64_t cb = 0; cb < cBlocks && !packed && !outBands; ++cb)
    inputs.push_back(input.band(b, loc, n, cb * P(), cbAt(cb), oh0 * g.strideH,
                                inRows(rows), g.inputType,
                                int64_t(images.size())));
  // Result bands only: band j's stationary operand holds the filter at
  // columns [j * F, (j + 1) * F), zeros elsewhere; its tiles are zeroed
  // once and take each new filter (an image's scaled one) by an engine copy
  // a band.
  for (int64_t cb = 0; cb < cBlocks && outBands; ++cb) {
    if (int64_t(bandFilters.size()) <= cb) {
      bandFilters.emplace_back();
      bandSources.push_back(Value());
      for (int64_t j = 0; j < bands; ++j) {
        Value t = allocTile(b, loc, {cbAt(cb), bands * g.f}, g.filterType);
        tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
        bandFilters.back().push_back(t);
      }
    }
    if (bandSources[cb] == filters[cb])
      continue;
    bandSources[cb] = filters[cb];
    for (int64_t j = 0; j < bands; ++j)
      tile::CopyOp::create(
          b, loc, filters[cb],
          tileSlice(b, loc, bandFilters[cb][j], 0, cbAt(cb), j * g.f, g.f));
  }
  // Result bands only: each band's rows of each channel block, in place.
  SmallVector<SmallVector<Value>> bandInputs;
  for (int64_t cb = 0; cb < cBlocks && outBands; ++cb) {
    bandInputs.emplace_back();
    for (int64_t j = 0; j < bands; ++j)
      bandInputs.back().push_back(
          input.band(b, loc, n, cb * P(), cbAt(cb), bandInputRow(oh0, j, 0),
                     inRows(rows), g.inputType, int64_t(images.size())));
  }
  // The partner's bands: its input rows at the band's output rows.
  SmallVector<Value> partnerBands;
  for (int64_t cb = 0; cb < partnerBlocks(); ++cb) {
    const conv::ConvGeneric &pg = partner->g;
    partnerBands.push_back(partnerInput.band(
        b, loc, n, cb * P(), partnerBlockAt(cb), oh0 * pg.strideH,
        (rows - 1) * pg.strideH + 1, pg.inputType, int64_t(images.size())));
  }
  assert((!phases || images.size() == 1) && "phases take one image a band");
  Value phaseTile = phases ? loadPhaseRows(b, n, oh0, rows) : Value();
  SmallVector<Chunk> chunks = chunksOf(int64_t(images.size()), rows);
  // Folded, a tap is a kernel column: its stationary operand is rows
  // [kh * C + c] of column kw, its window starts at row r (already strided).
  // Packed, the operands span every band's partitions.
  int64_t taps = this->taps();
  int64_t parts = packed ? bands * bandParts() : 0;
  int64_t filterCols = blocks() * g.f;
  for (int64_t fbk = 0; fbk < fBlocks; ++fbk) {
    int64_t f0 = fbk * P(), fb = blocks() * fbAt(fbk);
    // The kernel's last group may go a chunk at a time (splitLastGroup),
    // its chunks then done one after another rather than all at its end.
    SmallVector<size_t> groupEnds;
    for (size_t c0 = 0; c0 < chunks.size(); c0 += kChunksPerGroup)
      groupEnds.push_back(std::min(c0 + kChunksPerGroup, chunks.size()));
    bool lastOfKernel = lastBand && fbk + 1 == fBlocks && !chunks.empty();
    size_t tailStart =
        lastOfKernel ? (groupEnds.size() - 1) * kChunksPerGroup : chunks.size();
    if (lastOfKernel && splitLastGroup()) {
      groupEnds.pop_back();
      for (size_t c = tailStart + 1; c <= chunks.size(); ++c)
        groupEnds.push_back(c);
    }
    for (size_t gi = 0, c0 = 0; gi < groupEnds.size(); c0 = groupEnds[gi++]) {
      ArrayRef<Chunk> group =
          ArrayRef<Chunk>(chunks).slice(c0, groupEnds[gi] - c0);
      tailGroup = c0 >= tailStart;
      SmallVector<Value> accs;
      SmallVector<bool> vec;
      SmallVector<ChunkPath> paths;
      for (const Chunk &ch : group) {
        ChunkPath path = nextChunk < chunkPaths.size() ? chunkPaths[nextChunk]
                                                       : ChunkPath::PE;
        accs.push_back(allocTile(b, loc, {fb, ch.pixels()}, b.getF32Type(),
                                 path == ChunkPath::SbufSums
                                     ? tile::MemorySpace::SBUF
                                     : tile::MemorySpace::PSUM));
        vec.push_back(onVector(path));
        paths.push_back(path);
        ++nextChunk;
      }
      for (auto [ch, acc, path] : llvm::zip_equal(group, accs, paths)) {
        // chooseVectorChunks moved an image's vector chunks first, so a
        // path may land on a larger chunk than it was chosen for.
        bool reduced = path == ChunkPath::ReduceSums ||
                       path == ChunkPath::DveTaps ||
                       path == ChunkPath::PoolTaps;
        if (reduced && !reducesTaps(ch.pixels(), path == ChunkPath::DveTaps)) {
          path = ChunkPath::PsumSums;
          reduced = false;
        }
        if (reduced)
          reduceChunk(b, inputs[0], ch, acc, path);
        else if (onVector(path))
          vectorChunk(b, inputs[0], ch, acc);
      }
      // A one-pixel chunk's first channel blocks on the vector engines.
      int64_t vk =
          group.size() == 1 && !vec.front() && group.front().pixels() == 1
              ? pixelGemvBlocks(fb)
              : 0;
      Value vectorSum =
          vk ? pixelGemvSum(b, inputs, filters, group.front(), f0, fb, vk)
             : Value();
      for (int64_t cb = 0; cb < cBlocks && outBands; ++cb)
        for (int64_t j = 0; j < bands; ++j)
          for (auto [ch, acc] : llvm::zip_equal(group, accs))
            tile::MatmulOp::create(
                b, loc, bandFilters[cb][j],
                chunkWindow(b, bandInputs[cb][j], cbAt(cb), ch, ch.r0, 1, ch.q0,
                            1),
                acc, cb == 0 && j == 0 ? UnitAttr() : b.getUnitAttr());
      for (int64_t cb = vk; cb < cBlocks && !outBands; ++cb) {
        int64_t cs = parts ? parts : cbAt(cb);
        for (int64_t i = 0; i < taps; ++i) {
          if (llvm::all_of(vec, [](bool v) { return v; }))
            break;
          int64_t tap = tapAt(i);
          int64_t kh = foldRows ? 0 : tap / g.kw;
          int64_t kw = foldRows ? tap % windowTaps() * foldCols : tap % g.kw;
          // A stacked window's rows start a group (movingRowStep() tile
          // rows) further on.
          int64_t window = foldRows ? tap / windowTaps() : 0;
          Value stationary =
              tileSlice(b, loc, filters[cb], 0, cs, tap * filterCols + f0, fb);
          bool first = cb == vk && i == 0;
          for (auto [ch, acc, v] : llvm::zip_equal(group, accs, vec)) {
            if (v)
              continue;
            int64_t r0 = foldRows ? (ch.r0 + window) * movingRowStep()
                                  : ch.r0 * g.strideH + kh * g.dilationH;
            TapCols t = tapCols(ch, kw);
            if (t.qa >= t.qb)
              continue;
            Value moving = chunkWindow(b, inputs[cb], cs, ch, r0,
                                       foldRows ? movingRowStep() : g.strideH,
                                       t.col, g.strideW, t.qb - t.qa);
            tile::MatmulOp::create(b, loc, stationary, moving,
                                   accWindow(b, acc, fb, ch, t.qa, t.qb),
                                   first ? UnitAttr() : b.getUnitAttr());
          }
        }
      }
      // The partner's matmuls, into the accumulators the kernel's started.
      for (int64_t cb = 0; cb < partnerBlocks(); ++cb) {
        // (No bands with a partner: bandColOffset is 0.)
        const conv::ConvGeneric &pg = partner->g;
        int64_t cs = partnerBlockAt(cb);
        Value stationary = tileSlice(b, loc, partnerFilters[cb], 0, cs, f0, fb);
        for (auto [ch, acc, v] : llvm::zip_equal(group, accs, vec)) {
          if (v)
            continue;
          Value moving =
              chunkWindow(b, partnerBands[cb], cs, ch, ch.r0 * pg.strideH,
                          pg.strideH, ch.q0 * pg.strideW, pg.strideW);
          tile::MatmulOp::create(b, loc, stationary, moving, acc,
                                 b.getUnitAttr());
        }
      }
      if (phases)
        phaseMatmuls(b, phaseTile, group, accs, fb);
      if (vectorSum) {
        // Their sum's partitions added up: S^T x ones.
        Value ones = allocTile(b, loc, {P(), 1}, b.getF32Type());
        tile::MemsetOp::create(b, loc, ones, b.getF32FloatAttr(1.0f));
        tile::MatmulOp::create(b, loc, vectorSum, ones, accs.front(),
                               b.getUnitAttr());
      }
      for (auto [ch, v] : llvm::zip_equal(group, vec))
        if (!v)
          evacuationLoads.pe +=
              peChunkNs(ch.pixels(), int64_t(group.size()),
                        (cBlocks - vk + (vk ? 1 : 0)) * taps *
                                (outBands ? bands : 1) +
                            partnerBlocks()) +
              (phases ? peChunkNs(ch.pixels() / phases->fw,
                                  int64_t(group.size()), phaseMatmuls())
                      : 0.0);
      // A chunk of several images is whole images (consecutive ones),
      // evacuated a few small images at a time: enough for the engine's
      // fixed cost to be a small part, few enough that the evacuating
      // engines share the chunk.
      for (auto [ch, acc] : llvm::zip_equal(group, accs)) {
        int64_t pixels = ch.rc * ch.wc;
        int64_t step = evacuatesImages(pixels)
                           ? std::max<int64_t>(1, kEvacuationColumns / pixels)
                           : 1;
        for (int64_t i = 0; i < ch.imgs; i += step) {
          int64_t m = std::min(step, ch.imgs - i);
          evacuate(b, images[ch.img + i], f0, fb, oh0 + ch.r0, ch.q0, ch.rc,
                   ch.wc,
                   ch.imgs == 1
                       ? acc
                       : tileSlice(b, loc, acc, 0, fb, i * pixels, m * pixels),
                   m);
        }
      }
      joinClamps();
    }
    if (lastBand && fbk == 0 && firstBlockPe < 0)
      firstBlockPe = evacuationLoads.pe;
  }
}

/// The [C, KH * KW * C] filter tile of a depthwise block from its compact
/// [C, KH, KW] weights: one DMA of KH * KW elements per partition, then one
/// POOL affine_select over a view that repeats each weight along the filter
/// axis, keeping element (c, tap, f) where f - c == 0 and zeroing the rest
/// (the diagonal filter in HBM would be C times as many bytes); with folded
/// rows, then in the folded layout.
Value ConvKernel::loadCompact() {
  int64_t taps = g.kh * g.kw, cs = g.c;
  HbmLayout l = *hbmLayoutOf(op, diagonal);
  Value t = allocTile(b, loc, {cs, taps}, g.filterType);
  tile::DmaOp::create(b, loc,
                      hbmView(b, loc, l.buffer, indexConst(b, loc, l.offset),
                              {cs, taps}, {l.strides[0], 1}),
                      t);
  return t;
}

Value ConvKernel::buildDiagonal() {
  int64_t taps = g.kh * g.kw, cs = g.c;
  Value t = allocTile(b, loc, {cs, taps * g.f}, g.filterType);
  auto view = [&](Value tile, ArrayRef<int64_t> strides) -> Value {
    auto type = cast<MemRefType>(tile.getType());
    auto layout = StridedLayoutAttr::get(b.getContext(), 0, strides);
    auto viewType = MemRefType::get({cs, taps, g.f}, g.filterType, layout,
                                    type.getMemorySpace());
    return memref::ReinterpretCastOp::create(
        b, loc, viewType, tile, b.getIndexAttr(0),
        {b.getIndexAttr(cs), b.getIndexAttr(taps), b.getIndexAttr(g.f)},
        {b.getIndexAttr(strides[0]), b.getIndexAttr(strides[1]),
         b.getIndexAttr(strides[2])});
  };
  tile::AffineSelectOp::create(
      b, loc, view(compact, {taps, 1, 0}), view(t, {taps * g.f, g.f, 1}),
      b.getStringAttr("eq"), b.getF32FloatAttr(0.0f), b.getI64IntegerAttr(0),
      b.getI64IntegerAttr(-1), b.getDenseI64ArrayAttr({0, 1}));
  if (!foldRows)
    return t;
  // Folded: partition kh * C + c holds w[c, kh, :, :], the columns of
  // kernel row kh of the diagonal tile, moved there by a DMA within SBUF
  // (an engine keeps data on its partitions).
  int64_t row = g.kw * g.f;
  Value folded = allocTile(b, loc, {g.kh * g.c, row}, g.filterType);
  for (int64_t kh = 0; kh < g.kh; ++kh)
    tile::DmaOp::create(b, loc, tileSlice(b, loc, t, 0, g.c, kh * row, row),
                        tileSlice(b, loc, folded, kh * g.c, g.c, 0, row));
  return folded;
}

/// Folded kernel columns: one tile [KWf * KH * C, G * F] (KWf = foldCols,
/// G = ceil(KW / KWf) matmuls a row of taps), partition (kwi * KH + kh) *
/// C + c holding at columns [g * F, (g + 1) * F) w[c, kh, g * KWf + kwi,
/// :], zero where that kernel column is past KW; one DMA per tap (a few
/// channels each: the stem of an image net).
Value ConvKernel::loadFoldedFilter() {
  int64_t groups = taps();
  Value t =
      allocTile(b, loc, {foldCols * g.kh * g.c, groups * g.f}, g.filterType);
  if (groups * foldCols > g.kw)
    tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  for (int64_t kwi = 0; kwi < foldCols; ++kwi)
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t gi = 0; gi < groups && gi * foldCols + kwi < g.kw; ++gi) {
        int64_t kw = gi * foldCols + kwi;
        tile::DmaOp::create(
            b, loc,
            hbmView(b, loc, w.buffer,
                    indexConst(b, loc, w.offset + (kh * g.kw + kw) * g.f),
                    {g.c, g.f}, {w.strides[0], 1}),
            tileSlice(b, loc, t, (kwi * g.kh + kh) * g.c, g.c, gi * g.f, g.f));
      }
  return t;
}

/// Stacked rows: one tile [foldGroups() * C, windows * KW * stack * F],
/// partition i * C + c holding at column (v * KW + kw) * stack * F + j * F
/// + f the weight w[c, v * stack + i - j, kw, f] of window v when that
/// kernel row is in [0, KH), zero elsewhere; one DMA per window, output row
/// j and kernel row kh (every kernel column at once). In two windows a
/// kernel row's weights come from HBM once and are copied within SBUF to
/// their other places (a 64-channel 3x3 of the U-Net at batch 1 in fp32
/// otherwise read its 147 KB of weights twice).
Value ConvKernel::loadStackedFilter() {
  int64_t cols = stack * g.f, pitch = stackWindows * g.kw * cols;
  Value t = allocTile(b, loc, {foldGroups() * g.c, pitch}, g.filterType);
  tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  auto type = cast<MemRefType>(t.getType());
  SmallVector<Value> placed(g.kh); // each kernel row's first place

  for (int64_t v = 0; v < stackWindows; ++v)
    for (int64_t j = 0; j < stack; ++j)
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        int64_t i = kh + j - v * stack;
        if (i < 0 || i >= foldGroups())
          continue;
        int64_t offset = i * g.c * pitch + v * g.kw * cols + j * g.f;
        auto layout =
            StridedLayoutAttr::get(b.getContext(), offset, {pitch, cols, 1});
        auto viewType = MemRefType::get({g.c, g.kw, g.f}, g.filterType, layout,
                                        type.getMemorySpace());
        Value dst = memref::ReinterpretCastOp::create(
            b, loc, viewType, t, b.getIndexAttr(offset),
            {b.getIndexAttr(g.c), b.getIndexAttr(g.kw), b.getIndexAttr(g.f)},
            {b.getIndexAttr(pitch), b.getIndexAttr(cols), b.getIndexAttr(1)});
        Value src =
            placed[kh] ? placed[kh]
                       : hbmView(b, loc, w.buffer,
                                 indexConst(b, loc, w.offset + kh * g.kw * g.f),
                                 {g.c, g.kw, g.f}, {w.strides[0], g.f, 1});
        tile::DmaOp::create(b, loc, src, dst);
        if (stackWindows > 1 && !placed[kh])
          placed[kh] = dst;
      }
  return t;
}

/// The partner's stationary operands (PhasePartner.h): per window and
/// column phase px one tile [phaseBlocks() * C, KW * stack * F], partition
/// i * C + c holding at column kw * stack * F + j * F + f the weight
/// w[c, kh, kw, f] of the phase of block j (row phase j % fh) whose kernel
/// row kh reads tile block i (phaseRow, relative to the window's first),
/// zero elsewhere; one DMA per block j and kernel row kh in the window
/// (every kernel column at once).
SmallVector<Value> ConvKernel::loadPhaseFilters() {
  SmallVector<Value> tiles;
  int64_t c = phases->c, fh = phases->fh, fw = phases->fw, cols = stack * g.f;
  for (const PhaseWindow &win : windows)
    for (int64_t px = 0; px < fw; ++px) {
      int64_t pitch = phases->kwOf(px) * cols;
      Value t =
          allocTile(b, loc, {phaseBlocks() * c, pitch}, phases->filterType);
      tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
      auto type = cast<MemRefType>(t.getType());
      for (int64_t j = 0; j < stack; ++j) {
        const PhasePartner::Phase &ph = phases->phases[(j % fh) * fw + px];
        Layout l =
            *hbmLayoutOf(ph.op, linalg::GenericOp(ph.op).getDpsInputs()[1]);
        for (int64_t kh = 0; kh < ph.g.kh; ++kh) {
          int64_t i = phaseRow(*phases, j, kh) - win.lo;
          if (i < 0 || i >= phaseBlocks())
            continue;
          int64_t offset = i * c * pitch + j * g.f;
          auto layout =
              StridedLayoutAttr::get(b.getContext(), offset, {pitch, cols, 1});
          auto viewType = MemRefType::get({c, ph.g.kw, g.f}, phases->filterType,
                                          layout, type.getMemorySpace());
          Value dst = memref::ReinterpretCastOp::create(
              b, loc, viewType, t, b.getIndexAttr(offset),
              {b.getIndexAttr(c), b.getIndexAttr(ph.g.kw), b.getIndexAttr(g.f)},
              {b.getIndexAttr(pitch), b.getIndexAttr(cols), b.getIndexAttr(1)});
          tile::DmaOp::create(
              b, loc,
              hbmView(b, loc, l.buffer,
                      indexConst(b, loc, l.offset + kh * l.strides[1]),
                      {c, ph.g.kw, g.f}, {l.strides[0], g.f, 1}),
              dst);
        }
      }
      tiles.push_back(t);
    }
  return tiles;
}

Value ConvKernel::loadPhaseRows(OpBuilder &b, int64_t n, int64_t oh0,
                                int64_t rows) {
  int64_t c = phases->c, nb = phaseBlocks(), width = phaseWidth();
  int64_t tr = phaseRows(rows);
  // Block i's row r is x row row0 + i + r.
  int64_t row0 = stack / phases->fh * oh0 + phaseLo();
  Value t = allocTile(b, loc, {nb * c, tr, width}, phases->inputType);
  // Rows before or past x in some block are zero (set on every block from
  // partition 0, where an engine may start; the blocks that hold x there
  // take its rows after), and so are the border columns of rows loaded
  // from HBM (a resident x's rows come with its border).
  auto zero = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (rn > 0 && qn > 0)
      tile::MemsetOp::create(b, loc,
                             windowOf(b, loc, t, nb * c, r0, rn, 1, q0, qn, 1),
                             b.getF32FloatAttr(0.0f));
  };
  int64_t before = std::clamp<int64_t>(-row0, 0, tr);
  int64_t past = std::clamp<int64_t>(phases->h - row0 - (nb - 1), 0, tr);
  zero(0, before, 0, width);
  zero(past, tr - past, 0, width);
  if (!phaseInput.resident) {
    zero(before, past - before, 0, phases->left);
    zero(before, past - before, phases->left + phases->w, phases->right);
  }
  for (int64_t i = 0; i < nb; ++i) {
    int64_t ra = std::clamp<int64_t>(-(row0 + i), 0, tr);
    int64_t rb = std::clamp<int64_t>(phases->h - (row0 + i), 0, tr);
    if (ra >= rb)
      continue;
    int64_t h0 = row0 + i + ra + phases->top; // a padded row
    if (!phaseInput.resident) {
      phaseInput.loadBand(
          b, loc, n, 0, c, h0, rb - ra,
          windowOf(b, loc, t, nb * c, ra, rb - ra, 1, 0, width, 1), i * c,
          /*rowStep=*/1, /*fillBorder=*/false);
      continue;
    }
    // Whole rows, border included: one run a partition, in pieces over the
    // queues.
    int64_t pieces =
        loadPieces((rb - ra) * width * tile::storageBytes(phases->inputType));
    int64_t step = (rb - ra + pieces - 1) / pieces;
    for (int64_t r = ra; r < rb; r += step) {
      int64_t m = std::min(step, rb - r);
      tile::DmaOp::create(
          b, loc, phaseInput.residentRows(b, loc, n, 0, c, h0 + r - ra, m, 1),
          windowOf(b, loc, t, c, r, m, 1, 0, width, 1, i * c));
    }
  }
  return t;
}

void ConvKernel::phaseMatmuls(OpBuilder &b, Value rowsTile,
                              ArrayRef<Chunk> group, ArrayRef<Value> accs,
                              int64_t fb) {
  int64_t fw = phases->fw, step = stack / phases->fh;
  int64_t k = phaseBlocks() * phases->c, filterCols = stack * g.f;
  // Each chunk's accumulator columns of column phase px: [fb, rc, wc / fw]
  // from column px, every fw-th.
  auto phaseColumns = [&](const Chunk &ch, Value acc, int64_t px) -> Value {
    Value grid = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{fb, ch.rc, ch.wc}, acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    return memref::SubViewOp::create(
        b, loc, grid,
        SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                                  b.getIndexAttr(px)},
        SmallVector<OpFoldResult>{b.getIndexAttr(fb), b.getIndexAttr(ch.rc),
                                  b.getIndexAttr(ch.wc / fw)},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                  b.getIndexAttr(fw)});
  };
  size_t next = 0;
  for (const PhaseWindow &win : windows)
    for (int64_t px = 0; px < fw; ++px) {
      Value filter = phaseFilters[next++];
      for (int64_t kw = 0; kw < phases->kwOf(px); ++kw) {
        Value stationary = tileSlice(b, loc, filter, 0, k, kw * filterCols, fb);
        // Output column q0 + fw * p + px reads x column q0 / fw + p + kw -
        // left(px): that plus the tile's left border.
        for (auto [ch, acc] : llvm::zip_equal(group, accs)) {
          Value moving = windowOf(
              b, loc, rowsTile, k, step * ch.r0 + win.lo - phaseLo(), ch.rc,
              step, ch.q0 / fw + kw - phases->leftOf(px) + phases->left,
              ch.wc / fw, 1);
          tile::MatmulOp::create(b, loc, stationary, moving,
                                 phaseColumns(ch, acc, px), b.getUnitAttr());
        }
      }
    }
}

SmallVector<Value> ConvKernel::loadFilters() {
  if (stack > 1)
    return {loadStackedFilter()};
  if (foldCols > 1)
    return {loadFoldedFilter()};
  // Per channel block one tile [c, KH * KW * F] (folded: [KH * C, KW * F],
  // partition kh * C + c holding w[c, kh, :, :]).
  int64_t rows = foldRows ? g.kh : 1;
  return loadFilterBlocks(w, g.c, rows, g.kh * g.kw * g.f / rows, g.filterType);
}

SmallVector<Value> ConvKernel::loadFilterBlocks(const Layout &l,
                                                int64_t channels, int64_t rows,
                                                int64_t row, Type type) {
  SmallVector<Value> filters;
  int64_t pieces = loadPieces(row * tile::storageBytes(type));
  int64_t step = (row + pieces - 1) / pieces;
  for (int64_t c0 = 0; c0 < channels; c0 += P()) {
    int64_t cs = std::min(P(), channels - c0);
    Value t = allocTile(b, loc, {cs * rows, row}, type);
    for (int64_t kh = 0; kh < rows; ++kh)
      for (int64_t q = 0; q < row; q += step) {
        int64_t m = std::min(step, row - q);
        tile::DmaOp::create(
            b, loc,
            hbmView(
                b, loc, l.buffer,
                indexConst(b, loc, l.offset + c0 * l.strides[0] + kh * row + q),
                {cs, m}, {l.strides[0], 1}),
            tileSlice(b, loc, t, kh * cs, cs, q, m));
      }
    filters.push_back(t);
  }
  return filters;
}

/// The DMAs from HBM that write `tile` (an nki.alloc), each into the whole
/// tile or a 2-D static subview of it that nothing else uses, when nothing
/// else uses the tile; none otherwise.
static std::optional<SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>>>
hbmLoadsOf(Value tile) {
  if (!tile.getDefiningOp<tile::AllocOp>())
    return std::nullopt;
  SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>> loads;
  auto fromHbm = [](Operation *op, Value dst) -> tile::DmaOp {
    auto dma = dyn_cast<tile::DmaOp>(op);
    return dma && dma.getDst() == dst && tile::isHbm(dma.getSrc().getType())
               ? dma
               : tile::DmaOp();
  };
  for (Operation *user : tile.getUsers()) {
    if (tile::DmaOp dma = fromHbm(user, tile)) {
      loads.push_back({dma, memref::SubViewOp()});
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || view.getSourceType().getRank() != 2 ||
        view.getType().getRank() != 2 || !view->hasOneUse() ||
        llvm::any_of(view.getStaticOffsets(), ShapedType::isDynamic))
      return std::nullopt;
    tile::DmaOp dma = fromHbm(*view->getUsers().begin(), view);
    if (!dma)
      return std::nullopt;
    loads.push_back({dma, view});
  }
  return loads;
}

/// The block-diagonal filter of packed bands, [bands * C * KH', taps x
/// bands x F]: band j's copy of `filter` ([C * KH', taps * F]) at
/// partitions [j * C * KH', (j + 1) * C * KH') and filters [j * F, (j + 1)
/// * F) of each tap, zero elsewhere. The copies go onto their partitions
/// from HBM (a small constant filter: `filter`'s loads, again for each
/// band) or from `filter` by one DMA each (whole rows: few descriptors);
/// two POOL affine_selects then spread them along the bands, keeping
/// element (p, tap, j, f) where j * C * KH' <= p < (j + 1) * C * KH'.
Value ConvKernel::packFilter(Value filter) {
  int64_t parts = bandParts(), n = taps(), row = n * g.f;
  Value staged = allocTile(b, loc, {bands * parts, row}, g.filterType);
  // Loaded from HBM (a constant filter): each band's copy from there
  // instead of from `filter`, whose load and then the staging copies each
  // took a DMA's completion before the first matmul (2 us each in
  // MobileNetV2's stem), when a band's loads take less queue time than
  // that completion. Not larger filters, whose load is hidden ahead of
  // the kernel anyway and whose copies from HBM then compete with the
  // first layers' loads (ResNet-50 f32 b1: layer1's 3x3 filters, 147 KB a
  // band, and the stem's 49 loads of three partitions a band, 734.6 ->
  // 735.4 us).
  std::optional<SmallVector<std::pair<tile::DmaOp, memref::SubViewOp>>> loads =
      hbmLoadsOf(filter);
  // Each load's slice of `filter`: [p0, f0] and [ps, fs].
  auto sliceOf = [&](memref::SubViewOp view) -> std::array<int64_t, 4> {
    auto type = cast<MemRefType>((view ? Value(view) : filter).getType());
    return {view ? view.getStaticOffsets()[0] : 0,
            view ? view.getStaticOffsets()[1] : 0, type.getDimSize(0),
            type.getDimSize(1)};
  };
  const TileOptions::Rates &t = options.rates;
  if (loads) {
    int64_t bytes = 0;
    for (auto [dma, view] : *loads) {
      auto [p0, f0, ps, fs] = sliceOf(view);
      bytes += ps * std::max(fs * tile::storageBytes(g.filterType),
                             t.dmaMinDescriptorBytes);
    }
    if (!t.dmaBytesPerNs || bytes > t.dmaLatencyNs * t.dmaBytesPerNs)
      loads.reset();
  }
  if (loads) {
    for (int64_t j = 0; j < bands; ++j)
      for (auto [dma, view] : *loads) {
        auto [p0, f0, ps, fs] = sliceOf(view);
        tile::DmaOp::create(
            b, loc, dma.getSrc(),
            tileSlice(b, loc, staged, j * parts + p0, ps, f0, fs));
      }
    for (auto [dma, view] : *loads) {
      dma->erase();
      if (view)
        view->erase();
    }
    filter.getDefiningOp()->erase();
  } else {
    for (int64_t j = 0; j < bands; ++j)
      tile::DmaOp::create(b, loc, filter,
                          tileSlice(b, loc, staged, j * parts, parts, 0, row));
  }
  Value packed =
      allocTile(b, loc, {bands * parts, n * bands * g.f}, g.filterType);
  auto view = [&](Value tile, ArrayRef<int64_t> strides) -> Value {
    auto type = cast<MemRefType>(tile.getType());
    SmallVector<int64_t> sizes = {bands * parts, n, bands, g.f};
    auto layout = StridedLayoutAttr::get(b.getContext(), 0, strides);
    auto viewType =
        MemRefType::get(sizes, g.filterType, layout, type.getMemorySpace());
    SmallVector<OpFoldResult> sizeOfr, strideOfr;
    for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
      sizeOfr.push_back(b.getIndexAttr(size));
      strideOfr.push_back(b.getIndexAttr(stride));
    }
    return memref::ReinterpretCastOp::create(
        b, loc, viewType, tile, b.getIndexAttr(0), sizeOfr, strideOfr);
  };
  // Every band's filters over the staged copy (stride 0 along the bands).
  Value src = view(staged, {row, g.f, 0, 1});
  Value dst = view(packed, {n * bands * g.f, bands * g.f, g.f, 1});
  auto select = [&](Value from, StringRef cmp, int64_t offset) {
    tile::AffineSelectOp::create(
        b, loc, from, dst, b.getStringAttr(cmp), b.getF32FloatAttr(0.0f),
        b.getI64IntegerAttr(offset), b.getI64IntegerAttr(1),
        b.getDenseI64ArrayAttr({0, -parts, 0}));
  };
  select(src, "ge", 0);      // p - j * parts >= 0
  select(dst, "lt", -parts); // p - j * parts - parts < 0
  return packed;
}

/// Per-partition multiply-accumulate on the vector engines: each tap's
/// window times the channel's weight (a tensor_scalar multiply by the
/// [P, 1] weight column, x * w rounded to fp32 as the PE's products are,
/// which the scheduler runs on the ACT, the DVE or the POOL), summed into
/// the accumulator (acc + s: in PSUM by the DVE, one PSUM input; in SBUF
/// by the POOL or the DVE), the first tap written there directly. Same
/// products, same order of sums as the PE's diagonal matmuls.
Value ConvKernel::chunkWindow(OpBuilder &b, Value tile, int64_t cs,
                              const Chunk &ch, int64_t r0, int64_t rs,
                              int64_t q0, int64_t qs, int64_t cols) const {
  q0 += bandColOffset;
  if (cols < 0)
    cols = ch.wc;
  if (cast<MemRefType>(tile.getType()).getRank() == 3)
    return windowOf(b, loc, tile, cs, r0, ch.rc, rs, q0, cols, qs);
  return imagesWindowOf(b, loc, tile, cs, ch.img, ch.imgs, r0, ch.rc, rs, q0,
                        cols, qs);
}

int64_t ConvKernel::findFullColumn() const {
  int64_t last = (g.ow - 1) * g.strideW;
  for (int64_t kw = 0; kw < g.kw; ++kw) {
    int64_t off = kw * g.dilationW - pad->left; // input column of output 0
    if (off >= 0 && last + off <= pad->width - 1)
      return kw;
  }
  return -1;
}

ConvKernel::TapCols ConvKernel::tapCols(const Chunk &ch, int64_t kw) const {
  int64_t s = g.strideW, off = kw * g.dilationW - (trimmed ? pad->left : 0);
  int64_t qa = ch.q0, qb = ch.q0 + ch.wc;
  if (trimmed) {
    // Output column q reads input column q * s + off of the source.
    if (off < 0)
      qa = std::max(qa, (-off + s - 1) / s);
    int64_t lastIn = pad->width - 1 - off;
    qb = lastIn < 0 ? qa : std::min(qb, lastIn / s + 1);
  }
  return {qa, qb, qa * s + off};
}

Value ConvKernel::accWindow(OpBuilder &b, Value acc, int64_t parts,
                            const Chunk &ch, int64_t qa, int64_t qb) const {
  if (qa == ch.q0 && qb == ch.q0 + ch.wc)
    return acc;
  SmallVector<int64_t> shape = {parts, ch.rc, ch.wc};
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
  if (ch.imgs > 1) {
    shape.insert(shape.begin() + 1, ch.imgs);
    groups = {{0}, {1, 2, 3}};
  }
  Value v = memref::ExpandShapeOp::create(b, loc, shape, acc, groups);
  if (ch.imgs > 1)
    return imagesWindowOf(b, loc, v, parts, 0, ch.imgs, 0, ch.rc, 1, qa - ch.q0,
                          qb - qa, 1);
  return windowOf(b, loc, v, parts, 0, ch.rc, 1, qa - ch.q0, qb - qa, 1);
}

void ConvKernel::vectorChunk(OpBuilder &b, Value input, const Chunk &ch,
                             Value acc) {
  int64_t cs = bands * g.c; // packed bands: each band's channels
  for (int64_t i = 0; i < g.kh * g.kw; ++i) {
    int64_t tap = tapAt(i);
    int64_t kh = tap / g.kw, kw = tap % g.kw;
    TapCols t = tapCols(ch, kw);
    if (t.qa >= t.qb)
      continue;
    Value window =
        chunkWindow(b, input, cs, ch, ch.r0 * g.strideH + kh * g.dilationH,
                    g.strideH, t.col, g.strideW, t.qb - t.qa);
    Value weight = tileSlice(b, loc, compact, 0, cs, tap, 1);
    Value product =
        i == 0 ? acc : allocTile(b, loc, {cs, ch.pixels()}, b.getF32Type());
    Value productWindow = accWindow(b, product, cs, ch, t.qa, t.qb);
    tile::TensorScalarOp::create(
        b, loc, window, productWindow, weight, Value(), b.getStringAttr("mul"),
        b.getF32FloatAttr(0.0f), b.getStringAttr("bypass"),
        b.getF32FloatAttr(0.0f), UnitAttr(), UnitAttr());
    if (i > 0) {
      Value sum = accWindow(b, acc, cs, ch, t.qa, t.qb);
      auto add = tile::TensorTensorOp::create(b, loc, b.getStringAttr("add"),
                                              sum, productWindow, sum);
      // Sums in SBUF on the POOL, as chooseVectorChunks counted them: the
      // scheduler, placing each where it finishes first, gave some to the
      // DVE, whose PSUM sums (its alone) then ended the layer late
      // (EfficientNet-B0 f32 at batch 1: 468.0 -> 456.3 us).
      if (!tile::isPsum(acc.getType()))
        add->setAttr(tile::kEngineAttr, b.getStringAttr("pool"));
    }
  }
}

bool ConvKernel::reducesTaps(int64_t pixels, bool dveTaps) const {
  const TileOptions::Rates &t = options.rates;
  int64_t products = pixels * g.kh * g.kw;
  // Bands loaded from HBM hold the source's columns only (trimmed): a
  // border tap then covers part of a chunk, leaving products unset.
  return !trimmed && t.dveClockMHz && pixels <= t.minElementCycles &&
         products <= kMaxTapProducts &&
         (!dveTaps || products <= options.psumColumns);
}

void ConvKernel::reduceChunk(OpBuilder &b, Value input, const Chunk &ch,
                             Value acc, ChunkPath path) {
  int64_t cs = bands * g.c, taps = g.kh * g.kw, px = ch.pixels();
  // products[c, pixel, tap]: the tap innermost, for the reduce.
  Value products = allocTile(b, loc, {cs, px * taps}, b.getF32Type());
  auto layoutOf = [](Value v, SmallVectorImpl<int64_t> &strides) {
    int64_t offset = 0;
    (void)getStaticLayout(cast<MemRefType>(v.getType()), strides, offset);
    return offset;
  };
  // The window of tap (kh, kw): [cs, (imgs,) rc, wc].
  auto window = [&](int64_t kh, int64_t kw) {
    TapCols t = tapCols(ch, kw);
    return chunkWindow(b, input, cs, ch, ch.r0 * g.strideH + kh * g.dilationH,
                       g.strideH, t.col, g.strideW, t.qb - t.qa);
  };
  // The same dims of the products: each pixel's taps are `taps` apart.
  SmallVector<int64_t> pixelStrides = {px * taps};
  if (ch.imgs > 1)
    pixelStrides.push_back(ch.rc * ch.wc * taps);
  pixelStrides.append({ch.wc * taps, taps});
  SmallVector<int64_t> pixelSizes = {cs};
  if (ch.imgs > 1)
    pixelSizes.push_back(ch.imgs);
  pixelSizes.append({ch.rc, ch.wc});
  if (path == ChunkPath::ReduceSums) {
    for (int64_t tap = 0; tap < taps; ++tap)
      tile::TensorScalarOp::create(
          b, loc, window(tap / g.kw, tap % g.kw),
          stridedView(b, loc, products, pixelSizes, pixelStrides, tap),
          tileSlice(b, loc, compact, 0, cs, tap, 1), Value(),
          b.getStringAttr("mul"), b.getF32FloatAttr(0.0f),
          b.getStringAttr("bypass"), b.getF32FloatAttr(0.0f), UnitAttr(),
          UnitAttr());
  } else {
    // One multiply over the taps of a kernel row (of every row for one
    // image: the access pattern's four free dims are the kernel row and
    // column and the pixel's row and column), the weights stepping with
    // the tap and standing still over the pixels.
    SmallVector<int64_t> strides;
    int64_t origin = layoutOf(window(0, 0), strides);
    SmallVector<int64_t> ignored;
    int64_t rowStep = g.kh > 1 ? layoutOf(window(1, 0), ignored) - origin : 0;
    int64_t colStep = g.kw > 1 ? layoutOf(window(0, 1), ignored) - origin : 0;
    bool allRows = ch.imgs == 1;
    for (int64_t kh = 0; kh < (allRows ? 1 : g.kh); ++kh) {
      SmallVector<int64_t> sizes = {cs}, in = {strides[0]}, weights = {taps},
                           out = {pixelStrides[0]};
      if (allRows) {
        sizes.push_back(g.kh);
        in.push_back(rowStep);
        weights.push_back(g.kw);
        out.push_back(g.kw);
      }
      sizes.push_back(g.kw);
      in.push_back(colStep);
      weights.push_back(1);
      out.push_back(1);
      sizes.append(pixelSizes.begin() + 1, pixelSizes.end());
      in.append(strides.begin() + 1, strides.end());
      weights.append(pixelSizes.size() - 1, 0);
      out.append(pixelStrides.begin() + 1, pixelStrides.end());
      // The DVE's with the PSUM copy (a cycle an element), the POOL's
      // with the SBUF weights (two), as chooseVectorChunks counted them.
      bool onPool = path == ChunkPath::PoolTaps;
      auto mul = tile::TensorTensorOp::create(
          b, loc, b.getStringAttr("mul"),
          stridedView(b, loc, input, sizes, in, origin + kh * rowStep),
          stridedView(b, loc, onPool ? compact : tapWeights, sizes, weights,
                      kh * g.kw),
          stridedView(b, loc, products, sizes, out, kh * g.kw));
      mul->setAttr(tile::kEngineAttr, b.getStringAttr(onPool ? "pool" : "dve"));
    }
  }
  Value sums = memref::ExpandShapeOp::create(
      b, loc, SmallVector<int64_t>{cs, px, taps}, products,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  auto reduce = tile::ReduceOp::create(b, loc, b.getStringAttr("add"), sums,
                                       acc, b.getI64IntegerAttr(1), Value());
  reduce->setAttr(tile::kEngineAttr, b.getStringAttr("dve"));
}

/// The reassociated order (a DVE add reading the accumulator in PSUM, then
/// the ACT's ReLU with the shift as its bias) or the written one (an ACT
/// pass adding the shift out of PSUM, then the add and the ReLU in SBUF,
/// which the POOL can take), whichever finishes the chunks so far first:
/// a 1x1 convolution whose matmuls take less time than its evacuations
/// (ResNet-50's 64-channel conv3 under auto-cast: 0.21 us of PE, 0.59 of
/// DVE and 0.47 of ACT a chunk) gives some chunks to the POOL. A depthwise
/// kernel keeps the reassociated order: its vector engines' taps are in
/// chooseVectorChunks' loads, not these.
bool ConvKernel::chooseAddOrder(int64_t cols) {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || !t.actClockMHz || !t.dveClockMHz)
    return true;
  TileOptions::EngineLoads reassociated = evacuationLoads;
  reassociated.act += vectorNs(cols, t.actClockMHz);
  TileOptions::EngineLoads written = reassociated;
  reassociated.dve += vectorNs(cols, t.dveClockMHz);
  written.pool += poolNs(cols, 2) + poolNs(cols, 1);
  bool keep = !(written.finish() < reassociated.finish());
  evacuationLoads = keep ? reassociated : written;
  return keep;
}

/// A SiLU on the ACT (one pass) or on the DVE and the POOL (a DVE pass out
/// of PSUM, then two one-input passes and a product, about four times the
/// engine time), whichever finishes the chunks so far first: an expansion
/// whose matmuls take less time than its evacuations (EfficientNet-B0's
/// 16 -> 96 1x1 under auto-cast, 42 us of PE and 96 of ACT at batch 8)
/// gives some chunks to the idle DVE and POOL. Not the last ones: a chunk
/// stays on the ACT when the ACT time of the chunks after it is less than
/// the four passes' (the layer does not end behind their chain). Not in a
/// depthwise kernel, whose vector engines' taps chooseVectorChunks counts.
/// Only when the kernel multiplies bf16 (auto-cast): the passes are within
/// a few fp32 ulps of the ACT's SiLU, not bit-identical to the body's fp32
/// steps as the ACT's is; and with fp32 inputs the matmuls outlast any
/// evacuation (four PE cycles a column).
bool ConvKernel::chooseSiluEngines(int64_t cols) {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || g.inputType.isF32() || !t.actClockMHz || !t.dveClockMHz ||
      !t.poolClockMHz)
    return false;
  double dve = vectorNs(cols, t.dveClockMHz);
  double pool = 2 * poolNs(cols, 1) + poolNs(cols, 2);
  TileOptions::EngineLoads onAct = evacuationLoads, off = evacuationLoads;
  onAct.act += vectorNs(cols, t.actClockMHz);
  off.dve += dve;
  off.pool += pool;
  // Every output column is evacuated once a filter block (bands side by
  // side share their columns).
  int64_t total = fBlocks * g.n * g.ow * (bandH + (lastRows ? 1 : 0));
  siluColumns += cols;
  double after = double(std::max<int64_t>(0, total - siluColumns)) * 1000.0 /
                 double(t.actClockMHz);
  bool vector = after >= dve + pool && off.finish() < onAct.finish();
  evacuationLoads = vector ? off : onAct;
  return vector;
}

/// Which chunks of a depthwise convolution the vector engines compute:
/// greedily, the engine mix that finishes first, by the target's costs.
/// The PE's matmul column costs 4 cycles for fp32 (a quarter of its bf16
/// rate) and the diagonal filter wastes all but one of its rows, while the
/// ACT and DVE each pass over a tap's window in about a cycle per element;
/// so fp32 layers go largely to the vector engines, bf16 ones stay on the
/// PE but for small windows, where LoadStationary dominates. The ACT also
/// evacuates every chunk (its epilogue). Sums in PSUM are the DVE's (the
/// POOL cannot reach PSUM); a chunk may instead be summed in an SBUF
/// accumulator, which the POOL multiplies and sums (two cycles an element
/// with two inputs), so that three engines share the taps. A chunk of a
/// small image may put all its taps' products in one tile that one DVE
/// reduce sums (reducesTaps): ReduceSums, the products a tap at a time as
/// for the PSUM sums, or one multiply for them all, DveTaps (the weights
/// broadcast from a PSUM copy) or PoolTaps (from SBUF).
void ConvKernel::chooseVectorChunks() {
  const TileOptions::Rates &t = options.rates;
  if (!diagonal || foldRows || scale || fBlocks != 1 || !t.actClockMHz)
    return;
  int64_t taps = g.kh * g.kw;
  // The channel blocks of one convolution continue from the loads the
  // blocks before them left.
  TileOptions::DepthwiseLoads fresh;
  fresh.source = op.getLoc();
  TileOptions::DepthwiseLoads &loads =
      options.depthwiseLoads ? *options.depthwiseLoads : fresh;
  if (loads.source != LocationAttr(op.getLoc()))
    loads = fresh;
  double &pe = loads.pe, &act = loads.act, &dve = loads.dve, &pool = loads.pool;
  SmallVector<size_t> starts; // the end of each group of images' chunks
  for (int64_t n = 0; n < g.n;
       n += imageGroup, starts.push_back(chunkPaths.size()))
    forEachChunk(std::min(imageGroup, g.n - n), [&](int64_t pixels,
                                                    int64_t group) {
      double peNs = peChunkNs(pixels, group, taps);
      double evacuation = vectorNs(pixels, t.actClockMHz);
      double products = taps * vectorNs(pixels, t.actClockMHz);
      double sums = (taps - 1) * vectorNs(pixels, t.dveClockMHz);
      double poolWork =
          taps * poolNs(pixels, 1) + (taps - 1) * poolNs(pixels, 2);
      bool reduce = reducesTaps(pixels, false);
      bool dveTaps = reducesTaps(pixels, true);
      // Not under auto-cast (bf16 inputs): EfficientNet-B0 at batch 1 ran
      // 237.7 -> 242.2 us with the POOL's multiplies.
      bool poolTaps = reduce && g.inputType.isF32();
      double reduced = vectorNs(pixels * taps, t.dveClockMHz);
      // Each path's engine time (ChunkPath's order; the ACT evacuates
      // every chunk) and whether the chunk may take it.
      struct Work {
        bool allowed;
        double pe, act, dve, pool;
      } work[] = {{true, peNs, evacuation, 0, 0},
                  {true, 0, evacuation + products, sums, 0},
                  {true, 0, evacuation, 0, poolWork},
                  {reduce, 0, evacuation + products, reduced, 0},
                  {dveTaps, 0, evacuation, 2 * reduced, 0},
                  {poolTaps, 0, evacuation, reduced, poolNs(pixels * taps, 2)}};
      auto finish = [&](const Work &w) {
        return std::max({pe + w.pe, act + w.act, dve + w.dve, pool + w.pool});
      };
      // The first of the least (the PE on a tie, then the paths in order).
      size_t best = 0;
      for (size_t i = 1; i < std::size(work); ++i)
        if (work[i].allowed && finish(work[i]) < finish(work[best]))
          best = i;
      chunkPaths.push_back(ChunkPath(best));
      pe += work[best].pe;
      act += work[best].act;
      dve += work[best].dve;
      pool += work[best].pool;
    });
  // When most of an image's chunks take the vector paths, those go first
  // and the PE's last: a vector chunk is a chain (products, then sums)
  // that its engines start as soon as it is issued, a PE chunk an
  // evacuation after its matmuls, which the PE runs whenever it is free.
  // In the greedy's order EfficientNet-B0's 112 x 112 depthwise layer in
  // f32 ended on 9 us of the DVE's sums alone. (When the PE takes most,
  // its chunks keep their order: its evacuations, not the vector chains,
  // must keep up.)
  for (size_t i = 0, b0 = 0; i < starts.size(); b0 = starts[i++]) {
    auto first = chunkPaths.begin() + b0, last = chunkPaths.begin() + starts[i];
    if (2 * std::count(first, last, ChunkPath::PE) >= last - first)
      continue;
    SmallVector<ChunkPath> paths(first, last);
    auto onVector = [](ChunkPath p) { return p != ChunkPath::PE; };
    auto peChunks = std::copy_if(paths.begin(), paths.end(), first, onVector);
    std::copy_if(paths.begin(), paths.end(), peChunks, std::not_fn(onVector));
  }
}

/// Whether the kernel's last group of chunks goes a chunk at a time: when
/// the result leaves the accumulators by more than an evacuation in place
/// (a DMA to another layout, to HBM, or a pooling first), a group's
/// chunks, all finished at once, leave the next kernel waiting for that
/// chain; one at a time, the chains of all but the last overlap its
/// matmuls. Worth it when the LoadStationary operations the group no
/// longer shares cost less than a DMA's latency (a PE-bound f32 layer
/// evacuated in place only pays them: ResNet-50 b1 734 -> 743 us).
bool ConvKernel::splitLastGroup() const {
  const TileOptions::Rates &t = options.rates;
  bool inPlace = evacuatesInPlace();
  // Several images in flight: the next kernel has others to start on
  // (ResNet-50 at batch 8 in f32, in groups of one image: 4,411 -> 4,422
  // us split).
  if (!t.peClockMHz || !oneImageInFlight() || (inPlace && g.inputType.isF32()))
    return false;
  int64_t factor = g.inputType.isF32() ? t.peFp32Factor : 1;
  double loads = double((kChunksPerGroup - 1) * cBlocks * taps() *
                        t.peLoadStationaryCycles * factor) *
                 1000.0 / double(t.peClockMHz);
  return loads <= double(t.dmaLatencyNs);
}

void ConvKernel::emit() {
  if (diagonal) {
    compact = loadCompact();
    chooseVectorChunks();
  }
  bool anyPe = chunkPaths.empty() || anyOn(ChunkPath::PE);
  SmallVector<Value> filters =
      diagonal ? SmallVector<Value>{anyPe ? buildDiagonal() : Value()}
               : loadFilters();
  // A scaled filter is packed per image, after its scaling.
  if (bands > 1 && !outBands && filters.front() && !scale)
    filters = {packFilter(filters.front())};
  if (chained)
    chainFilter = loadChainFilter();
  if (partner)
    partnerFilters = loadFilterBlocks(partnerW, partner->g.c, 1, partner->g.f,
                                      partner->g.filterType);
  if (phases)
    phaseFilters = loadPhaseFilters();
  // Packed bands on the vector engines: each band's partitions get a copy
  // of the compact weights (a small DMA within SBUF per band).
  bool anyVector =
      llvm::any_of(chunkPaths, [&](ChunkPath p) { return onVector(p); });
  if (bands > 1 && anyVector) {
    int64_t taps = g.kh * g.kw;
    Value packed = allocTile(b, loc, {bands * g.c, taps}, g.filterType);
    for (int64_t j = 0; j < bands; ++j)
      tile::DmaOp::create(b, loc, compact,
                          tileSlice(b, loc, packed, j * g.c, g.c, 0, taps));
    compact = packed;
  }
  if (anyOn(ChunkPath::DveTaps)) {
    tapWeights = allocTile(b, loc, {bands * g.c, g.kh * g.kw}, b.getF32Type(),
                           tile::MemorySpace::PSUM);
    tile::CopyOp::create(b, loc, compact, tapWeights);
  }
  // Static loops: nki-unroll would unroll them anyway, and the padding's
  // border differs from band to band. Packed, rows [oh0, oh0 + rows) of
  // each band go at once.
  for (int64_t n = 0; n < g.n; n += imageGroup) {
    SmallVector<Value> imageFilters = filters;
    if (scale && failed(scaleFilters(n, imageFilters)))
      return;
    if (scale && bands > 1 && !outBands)
      imageFilters = {packFilter(imageFilters.front())};
    SmallVector<int64_t> images =
        llvm::to_vector(llvm::seq(n, std::min(n + imageGroup, g.n)));
    bool lastImages = n + imageGroup >= g.n;
    for (int64_t oh0 = 0; oh0 < bandH; oh0 += bandRows) {
      lastBand = lastImages && !lastRows && oh0 + bandRows >= bandH;
      emitBand(b, images, oh0, std::min(bandRows, bandH - oh0), imageFilters);
    }
    if (lastRows) {
      partialGroup = true;
      lastBand = lastImages;
      emitBand(b, images, bandH, 1, imageFilters);
      partialGroup = false;
    }
    lastBand = tailGroup = false;
  }
}

/// The chained 1x1's filter [C, F'] once per block of the result's
/// partitions (packed bands or stacked rows), block-diagonal: [blocks * C,
/// blocks * F'], zero off the blocks.
Value ConvKernel::loadChainFilter() {
  Location loc = linalg::GenericOp(chained->op).getLoc();
  int64_t nb = blocks(), f2 = chainG->f;
  Value t = allocTile(b, loc, {nb * g.f, nb * f2}, chainG->filterType);
  if (nb > 1)
    tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
  for (int64_t j = 0; j < nb; ++j)
    tile::DmaOp::create(b, loc,
                        hbmView(b, loc, chainW.buffer,
                                indexConst(b, loc, chainW.offset), {g.f, f2},
                                {chainW.strides[0], 1}),
                        tileSlice(b, loc, t, j * g.f, g.f, j * f2, f2));
  return t;
}

/// Squeeze-and-excitation before the convolution: x * s[n, c] convolved is
/// x convolved with the filter's rows of channel c times s[n, c], so each
/// image's filter tiles are scaled (C x KH x KW x F multiplies, not C x H x
/// W).
LogicalResult ConvKernel::scaleFilters(int64_t n, SmallVector<Value> &tiles) {
  for (int64_t cb = 0; cb < int64_t(tiles.size()); ++cb) {
    Value &t = tiles[cb];
    int64_t cs = cbAt(cb);
    // Every image's factors at the first (their sources are whole tensors
    // that earlier kernels wrote), each image's a column of them.
    Value &factors = scaleFactors[cb];
    if (!factors) {
      FailureOr<Value> all = channelScaleImages(b, loc, *scale, cb * P(), cs,
                                                g.n, options.residents);
      if (failed(all)) {
        status = op->emitOpError("cannot compute the channel scale it absorbs");
        return failure();
      }
      factors = *all;
    }
    Value column = tileSlice(b, loc, factors, 0, cs, n, 1);
    int64_t row = cast<MemRefType>(t.getType()).getDimSize(1);
    BodyLowering lowering(b, loc, cs, row);
    FailureOr<TileValue> scaled = lowering.binary(
        "mul", {TileValue::Full, 0.0, t, g.filterType},
        {TileValue::Column, 0.0, column, b.getF32Type()}, g.filterType);
    if (failed(scaled)) {
      status = failure();
      return failure();
    }
    t = lowering.materializeFull(*scaled, g.filterType);
  }
  return success();
}

std::optional<PackedLayout> ConvKernel::packedLayout() const {
  const std::optional<ResidentRef> &ref = input.resident;
  if (!ref || outBands || !(foldRows || bands > 1) || foldCols != 1 ||
      cBlocks != 1 || scale || trimmed || stackWindows > 1)
    return std::nullopt;
  // The whole tensor, which the padding (if any) surrounds.
  const ResidentTensor &t = *ref->tensor;
  int64_t h = pad ? pad->height : g.h, w = pad ? pad->width : g.w;
  if (ref->n || ref->c || ref->h || ref->w || ref->rowStep != 1 ||
      ref->colStep != 1 || t.c != g.c || t.h != h || t.w != w)
    return std::nullopt;
  PackedLayout p;
  p.reader = op;
  p.rows = tileRows(bandH) + (lastRows ? 1 : 0);
  p.width = g.w;
  p.rowStep = foldRows ? foldRowStep() : 1;
  p.top = pad ? pad->top : 0;
  p.left = pad ? pad->left : 0;
  int64_t fold = foldRows ? foldGroups() : 1;
  for (int64_t j = 0; j < bands; ++j)
    for (int64_t kh = 0; kh < fold; ++kh)
      p.rowAt.push_back(bandInputRow(0, j, kh));
  p.bands = bands;
  p.stack = stack;
  p.foldRows = foldRows;
  p.engineCopies = !diagonal;
  return p;
}

std::optional<ConvPacking>
tiling::analyzeConvPacking(OpBuilder &b, linalg::GenericOp op,
                           const conv::ConvGeneric &g, const ConvParts &parts,
                           const TileOptions &options) {
  ConvKernel kernel(b, op, g, parts, options);
  kernel.forPacking = true;
  // A kernel that cannot be analyzed says so when it is tiled.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(kernel.analyze()))
    return std::nullopt;
  return ConvPacking{kernel.blocks(), kernel.poolInKernel ? kernel.blocks() : 0,
                     kernel.packedLayout()};
}

LogicalResult tiling::tileConv(OpBuilder &b, linalg::GenericOp op,
                               const conv::ConvGeneric &g,
                               const ConvParts &parts,
                               const TileOptions &options) {
  ConvKernel kernel(b, op, g, parts, options);
  if (failed(kernel.analyze()))
    return failure();
  kernel.emit();
  kernel.recordResultTail();
  if (failed(kernel.status) || !parts.pool || kernel.poolInKernel)
    return kernel.status;
  // Chunks that are not pairs of whole rows: the pooling's own kernel,
  // right after this one.
  return tilePool(b, parts.pool->op, /*isMax=*/true,
                  parts.pool->padding ? &*parts.pool->padding : nullptr,
                  /*identityInit=*/true, options);
}
