//===- Kernels.h - Tiling one linalg op into nki tile code ------*- C++ -*-===//
//
// Each function replaces one op on HBM memrefs with loops of tile ops,
// emitted before the op; the caller erases the op. Failures are diagnostics
// at the op.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_KERNELS_H
#define NKI_LIB_CONVERSION_TILING_KERNELS_H

#include "Access.h"
#include "BodyLowering.h"
#include "PackedLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <algorithm>

namespace nki::conv {
struct ConvGeneric;
} // namespace nki::conv

namespace nki::tiling {

class Residents;
struct ChainedConv;
struct PhaseScatter;
struct PartnerConv;
struct PhasePartner;

struct TileOptions {
  int64_t freeChunk = 2048; // elements per partition of elementwise tiles
  int64_t sbufBytesPerPartition = 0; // capacity the kernels budget against
  /// The chosen target's geometry (nki-tile copies it from its table):
  /// partitions of SBUF and PSUM, and fp32 columns of one PSUM bank (the
  /// widest matmul result).
  int64_t partitions = 0, bankColumns = 0;
  /// fp32 elements a partition of PSUM holds: the most an access pattern
  /// on PSUM may visit, a broadcast's repeats included.
  int64_t psumColumns = 0;
  /// Contraction rows a partition of a matmul with fp8 inputs (2: the fp8
  /// double row, K up to 2 x partitions).
  int64_t fp8Rows = 1;
  /// matmul_mx's contraction rows a partition (4: the MX quad row, K up to
  /// 4 x partitions); 0 on targets without it.
  int64_t mxRows = 0;
  /// The chosen target's rates that kernels weigh choices by (nki-tile
  /// copies them from its table; 0: unknown, no such choices).
  struct Rates {
    int64_t peClockMHz = 0, peFp32Factor = 0, peMinColumns = 0,
            peLoadStationaryCycles = 0;
    int64_t actClockMHz = 0, dveClockMHz = 0, fixedOverheadCycles = 0,
            minElementCycles = 0, poolClockMHz = 0, poolFixedCycles = 0;
    int64_t dmaQueues = 0, dmaBytesPerNs = 0, dmaMinDescriptorBytes = 0,
            dmaLatencyNs = 0;
  } rates;
  /// Tensors kept in SBUF (Residents.h); convolutions and poolings read and
  /// write them there.
  const Residents *residents = nullptr;
  /// Convolutions with few channels and filters put several bands of
  /// output rows side by side on the partitions (ConvBands.cpp).
  bool packBands = true;
  /// ... and fold kernel columns into the contraction with the rows
  /// (fp32 inputs, or narrower ones loaded from HBM; ConvBands.cpp).
  bool foldColumns = true;
  /// ... or stack several output rows of a stride-1 convolution on the
  /// partitions, their input rows loaded once (ConvBands.cpp; fp32 inputs, or
  /// narrower ones resident in SBUF).
  bool stackRows = true;
  /// Engine time (ns) given to a kernel's chunks so far, which its greedy
  /// choices of engines weigh (ConvDepthwise.cpp, ConvEpilogue.cpp).
  struct EngineLoads {
    double pe = 0, act = 0, dve = 0, pool = 0;
    /// When the busiest engine finishes.
    double finish() const { return std::max({pe, act, dve, pool}); }
  };
  /// The engine time a depthwise convolution's chunks have been given so
  /// far, carried across the kernels of its channel blocks (one source
  /// location) so that they share the engines as one convolution would.
  struct DepthwiseLoads : EngineLoads {
    mlir::LocationAttr source;
  };
  DepthwiseLoads *depthwiseLoads = nullptr;
  /// The PE time (ns) a convolution kernel emitted after its result's first
  /// channel block was complete, by the root buffer of that result and of a
  /// global pooling it computes: while the PE runs that, other engines may
  /// already read the first blocks (ConvEpilogue.cpp records it; a GEMV on a
  /// pooling of the result weighs it, Matmul.cpp).
  llvm::DenseMap<mlir::Value, double> *resultTailPeNs = nullptr;
  /// f32 HBM buffers stored in bf16 instead, in the buffer given
  /// (nki-tile's narrowPooledSources): kernels writing or reading the
  /// first use the second.
  const llvm::DenseMap<mlir::Value, mlir::Value> *narrowed = nullptr;
  /// Convolution epilogue operands read where nki-interleave-phases
  /// stacked them, by the interleave's result buffer (nki-tile's
  /// findPhaseAddend; the interleave is not run): element (n, c, h, w)
  /// is stack[(h % fh) * fw + w % fw, n, c, h / fh, w / fw].
  struct PhaseAddend {
    mlir::Value buffer; // the root buffer of the stacked phases
    int64_t fh = 1, fw = 1;
    /// The stack's layout in `buffer`, in elements: [phases, N, C, H / fh,
    /// W / fw].
    int64_t offset = 0;
    llvm::SmallVector<int64_t, 5> strides;
  };
  const llvm::DenseMap<mlir::Value, PhaseAddend> *phaseAddends = nullptr;
};

/// How many of a GEMV's `kBlocks` contraction blocks the vector engines
/// take (Matmul.cpp): each block costs the PE `pe` ns, the ACT `act` to
/// scale and the DVE `dve` to sum it; the blocks they take are summed
/// across the partitions by one more PE block after the PE's own, which
/// the vector engines may start `headStart` ns ahead of. The count whose
/// end comes soonest, when sooner than the PE alone (at least two: the
/// reduction costs a block); 0 otherwise.
int64_t gemvVectorBlocks(double pe, double act, double dve, int64_t kBlocks,
                         double headStart = 0);
/// Those blocks on the vector engines: each `rows[k]` ([P, w] f32) scaled
/// by `scalars[k]` (its [P, 1] factors), summed in PSUM by the DVE (one
/// PSUM input), the last sum written to a new SBUF [P, w] tile, which is
/// returned (the PE reads it). At least two blocks.
mlir::Value gemvVectorSum(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::ArrayRef<mlir::Value> rows,
                          llvm::ArrayRef<mlir::Value> scalars);

/// Elementwise generics and reductions over trailing dims.
mlir::LogicalResult tileGeneric(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                                const TileOptions &options);

/// linalg.matmul / batch_matmul (and their transposed forms). `zeroInit`:
/// the output was zero-filled (the fill is dropped, the first K step starts
/// the accumulation); otherwise the product is added to the output.
/// `epilogue`: an elementwise generic whose only matmul-produced input is the
/// product; it runs on the PSUM tile and writes its own output instead.
/// `pooled`: A is a global pooling's result (Match.h), read from SBUF when
/// it is kept there, and rounded by the kernel when a cast is in between.
/// `sibling`: a zero-filled matmul with the same A whose product the
/// epilogue also reads (Match.h's findSiblingMatmul); it is computed in the
/// same loops, its PSUM tiles read by the epilogue in place of its output.
/// `quantizedA`: an MX matmul's A and scales are --auto-cast=mxfp8's
/// quantisation of an f32 A (Match.h), which the kernel does per M block.
struct PooledMatmulInput;
struct MxQuantizedA;
struct FusedPool;
struct FusedGlobalPool;
mlir::LogicalResult tileMatmul(mlir::OpBuilder &b, mlir::linalg::LinalgOp op,
                               bool zeroInit, mlir::linalg::GenericOp epilogue,
                               const PooledMatmulInput *pooled,
                               const TileOptions &options,
                               mlir::linalg::MatmulOp sibling = {},
                               const MxQuantizedA *quantizedA = nullptr);

/// A convolution input that is `source` [N, C, height, width] placed at
/// (top, left) of a buffer filled with `value` (a bufferized tensor.pad).
struct ConvPadding {
  mlir::Value source;
  int64_t top = 0, left = 0, height = 0, width = 0;
  double value = 0.0;
};

/// A channel-major elementwise generic whose result is `source` [N, C, H,
/// W] times `factor`, a value of its body computed from per-channel and
/// scalar operands only (squeeze-and-excitation's scale); and that factor
/// as an fp32 [cs, 1] column for image n and channels [c0, c0 + cs).
struct ChannelScale {
  mlir::linalg::GenericOp op;
  mlir::Value source, factor;
};

/// What a convolution's kernel takes in besides the convolution itself
/// (nki-tile's matches). With `pad`, its input is read from the padding's
/// source instead. `zeroInit` and `epilogue` as for tileMatmul. With
/// `diagonal` (the [C, KH, KW] weights of a depthwise block, Match.h's
/// findDiagonalFilter), the filter is built on chip from them. With `scale`
/// (Match.h's findChannelScale), the input is the scale's source and each
/// image's filter rows are multiplied by its factor. With `pool` (Match.h's
/// findFusedPool), the kernel also computes that max pooling of its result
/// (from each chunk of rows when they pair up, else by the pooling's own
/// kernel right after it), and stores the result only when something else
/// reads it. With `globalPool`, it also sums each image's result for that
/// global pooling. With `chained` (Match.h's findChainedConv), it computes
/// that 1x1 convolution of each chunk instead of storing its own result.
/// With `scatter` (Match.h's findPhaseScatter), it evacuates each block of
/// its result into the view that block's copy wrote, in place of the
/// copies. With `partner` (Match.h's findPartnerConv), the 1x1 convolution
/// whose result it starts from is computed into its accumulator; with
/// `phases` (PhasePartner.h), the upsampled phases its epilogue added.
struct ConvParts {
  const ConvPadding *pad = nullptr;
  bool zeroInit = false;
  mlir::linalg::GenericOp epilogue;
  mlir::Value diagonal;
  const ChannelScale *scale = nullptr;
  const FusedPool *pool = nullptr;
  const FusedGlobalPool *globalPool = nullptr;
  const ChainedConv *chained = nullptr;
  const PhaseScatter *scatter = nullptr;
  const PartnerConv *partner = nullptr;
  const PhasePartner *phases = nullptr;
};

/// The implicit-GEMM convolution generic (Conv/ConvGeneric.h) `g` of `op`,
/// with `parts`.
mlir::LogicalResult tileConv(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                             const conv::ConvGeneric &g, const ConvParts &parts,
                             const TileOptions &options);

/// What tileConv's kernel, with the same arguments, would make of its
/// operands: the partition blocks of its result and of its fused pooling's
/// (packed bands or stacked rows, which leave by DMA; 1: evacuated in
/// place into a resident result; 0: the pooling's own kernel writes it),
/// and the packed input tile it would read when its input is a whole
/// resident tensor that could be kept in that layout (PackedLayout.h).
struct ConvPacking {
  int64_t resultBlocks = 1, pooledBlocks = 0;
  std::optional<PackedLayout> input;
};
std::optional<ConvPacking> analyzeConvPacking(mlir::OpBuilder &b,
                                              mlir::linalg::GenericOp op,
                                              const conv::ConvGeneric &g,
                                              const ConvParts &parts,
                                              const TileOptions &options);

/// Whether computing a 2x2 max pooling of the convolution `g`'s result in
/// its kernel (Match.h's findFusedPool) would cost the kernel stacked
/// output rows that take fewer PE columns than any fused alternative (an
/// odd number of stacked rows: a fused pooling pairs the blocks of an even
/// number): the pooling then runs as its own kernel. fp32 only, where a column
/// costs the PE four cycles (`diagonal`: a depthwise filter; `scale`: a channel
/// scale the kernel absorbs; neither stacks). With one image, only when the
/// input is computed by the program (`inputIsArgument`: it is a function
/// argument, which the kernel loads from HBM) in rows of at least a DMA
/// descriptor's minimum.
bool poolingCostsStackedRows(const conv::ConvGeneric &g, bool diagonal,
                             bool scale, bool inputIsArgument,
                             const TileOptions &options);

/// linalg.pooling_nchw_max / pooling_nchw_sum (`isMax`) with the input
/// channels on the partitions: bands of input rows in SBUF, the window's
/// max or sum taken along W and then along H on strided views of them.
/// `identityInit`: the output was filled with the combiner's identity (the
/// fill is dropped); otherwise the old output takes part. `pad` as for
/// tileConv.
mlir::LogicalResult tilePool(mlir::OpBuilder &b, mlir::linalg::LinalgOp op,
                             bool isMax, const ConvPadding *pad,
                             bool identityInit, const TileOptions &options);

/// An elementwise generic over [N, C, H, W] whose operands are row-major
/// tensors of that shape, per-channel values or scalars, or a reduction of
/// such a body over H and W (global pooling, also as [N * C, H * W] over
/// collapsed views) (ChannelGeneric.cpp), and its kernel with the channels
/// on the partitions, which reads and writes tensors kept in SBUF in place.
bool isChannelGeneric(mlir::linalg::GenericOp op);
/// The buffers that kernel reads (false) and writes (true) and may find in
/// SBUF: its [N, C, H, W] tensors, its per-channel [N, C, 1, 1] operands,
/// and a global pooling's result when the pooling's init is its combiner's
/// identity (poolingInit).
llvm::SmallVector<std::pair<mlir::Value, bool>>
channelTensors(mlir::linalg::GenericOp op);
/// The fill of a global pooling's result with its combiner's identity right
/// before it: the kernel writes the reduction without reading the old
/// value, and the fill goes with it.
mlir::linalg::FillOp poolingInit(mlir::linalg::GenericOp op);
/// `identityInit`: poolingInit(op) is absorbed.
mlir::LogicalResult tileChannelGeneric(mlir::OpBuilder &b,
                                       mlir::linalg::GenericOp op,
                                       bool identityInit,
                                       const TileOptions &options);

/// A global sum or mean pooling in the ONNX importer's form (a reduction
/// over [N * C, H * W] of a collapsed f32 [N, C, H, W] `source`, each
/// element summed as it is or times a constant), its output filled with 0
/// right before it: convolutions that write `source` can compute it as they
/// evacuate (Match.h's findFusedGlobalPools), each chunk summed by the pass
/// that computes it.
struct GlobalPoolSum {
  mlir::linalg::GenericOp op;
  mlir::linalg::FillOp fill;
  mlir::Value source;
  Access out; // [N * C] seen as [N, C, 1, 1]
  std::optional<SumFactor> factor;
};
std::optional<GlobalPoolSum> matchGlobalPoolSum(mlir::linalg::GenericOp op);
/// Such a pooling as one convolution computes it: the convolution's
/// epilogue writes channels [c0, c0 + C') of the pooling's source.
struct FusedGlobalPool {
  const GlobalPoolSum *pool = nullptr;
  int64_t c0 = 0;
};
/// Stores `sum`, the f32 [cs, images] sums over H and W of channels [c0,
/// c0 + cs) of images [n, n + images), as the pooling's result (scaled by
/// its factor, one instruction for them all): into its SBUF tile when it
/// is kept there, else by DMA.
void storePooledSum(mlir::OpBuilder &b, mlir::Location loc,
                    const GlobalPoolSum &pool, mlir::Value sum, int64_t n,
                    int64_t images, int64_t c0, int64_t cs,
                    const Residents *residents);

/// The channel scale's matcher and its factor (ChannelGeneric.cpp), its
/// per-channel operands read from SBUF when `residents` keeps them there.
std::optional<ChannelScale> matchChannelScale(mlir::linalg::GenericOp op);
/// The factor of channels [c0, c0 + cs) of images [0, images) as an fp32
/// [cs, images] tile, each op of its body one instruction over every image
/// (a squeeze-and-excitation's sigmoid of 8 images is one ACT instruction
/// of 8 elements, not eight of one).
mlir::FailureOr<mlir::Value>
channelScaleImages(mlir::OpBuilder &b, mlir::Location loc,
                   const ChannelScale &scale, int64_t c0, int64_t cs,
                   int64_t images, const Residents *residents);
/// The per-channel operands of a channel scale (buffers read as [P, 1]
/// columns).
llvm::SmallVector<mlir::Value> channelScaleColumns(const ChannelScale &scale);

/// An integer-factor upsample: a generic over [N, C, H * fh, W * fw] that
/// copies `in` [N, C, H, W] at (n, c, h floordiv fh, w floordiv fw) into
/// `out` (the ONNX importer's nearest Resize), and its kernel
/// (Upsample.cpp): copies into strided views on chip, reading and writing
/// tensors kept in SBUF in place. With `interleave`, `in` is [fh * fw, N,
/// C, H, W], one tensor per output phase, read at ((h mod fh) * fw + w mod
/// fw, n, c, h floordiv fh, w floordiv fw) (nki-interleave-phases).
struct Upsample {
  mlir::Value in, out;
  int64_t fh = 1, fw = 1;
  bool interleave = false;
};
std::optional<Upsample> matchUpsample(mlir::linalg::GenericOp op);
mlir::LogicalResult tileUpsample(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                                 const Upsample &u, const TileOptions &options);

/// A run of 2-D generics over one [R, C] space with reductions along C
/// (softmax, layernorm) that can run as one kernel with whole rows in SBUF,
/// starting at ops[start]; empty when there is none.
llvm::SmallVector<mlir::Operation *>
findRowGroup(llvm::ArrayRef<mlir::Operation *> ops, size_t start,
             const TileOptions &options);
mlir::LogicalResult tileRowGroup(mlir::OpBuilder &b,
                                 llvm::ArrayRef<mlir::Operation *> group,
                                 const TileOptions &options);

/// memref.copy between HBM buffers: DMAs, split across up to `queues`
/// queues. With a `permutation` (linalg.transpose's: dst dim k is src dim
/// permutation[k]) src is read through it.
mlir::LogicalResult tileCopy(mlir::OpBuilder &b, mlir::Operation *op,
                             mlir::Value src, mlir::Value dst, int64_t queues,
                             llvm::ArrayRef<int64_t> permutation = {});
/// Whether transpose `t` permutes whole rows between HBM buffers, which
/// tileCopy with its permutation moves a descriptor a row: its innermost
/// dims kept, contiguous on both sides and together at least a DMA
/// descriptor's bytes long, neither side kept in SBUF.
bool movesRowsByDma(mlir::linalg::TransposeOp t, const TileOptions &options);
/// memref.copy of [N, C, H, W] from or to a tensor kept in SBUF
/// (Residents.h): DMAs within SBUF or between SBUF and HBM.
mlir::LogicalResult tileResidentCopy(mlir::OpBuilder &b, mlir::Operation *op,
                                     mlir::Value src, mlir::Value dst,
                                     const Residents &residents);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_KERNELS_H
