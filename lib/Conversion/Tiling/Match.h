//===- Match.h - What nki-tile fuses into a kernel --------------*- C++ -*-===//
//
// The ops around a matmul, convolution or pooling that its kernel absorbs:
// the fill of its output (a start flag), the bufferized tensor.pad of its
// input (padding set on chip) and the elementwise consumer of its product
// (the epilogue, computed while PSUM is evacuated). nki-tile and its
// SBUF-residency plan (Residents.h) ask the same questions.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_MATCH_H
#define NKI_LIB_CONVERSION_TILING_MATCH_H

#include "../Conv/ConvGeneric.h"
#include "Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>
#include <optional>

namespace nki::tiling {

/// Ops that only name or shape HBM buffers; they stay as they are.
bool isBufferBookkeeping(mlir::Operation *op);

/// The buffer a reshape view (collapse_shape, expand_shape, of reshapes)
/// is of; `v` itself otherwise.
mlir::Value reshapeRoot(mlir::Value v);

/// The buffer under all of `v`'s views (subviews, reshapes, casts); `v`
/// itself otherwise.
mlir::Value viewRoot(mlir::Value v);

/// The ops that use `buffer` or a view of it.
llvm::DenseSet<mlir::Operation *> usersThroughViews(mlir::Value buffer);

/// The fill of `buffer` with `value` (NaN matches any NaN) before `op` with no
/// other use of `buffer` in between (ops that do not touch it may come
/// between).
mlir::linalg::FillOp findFill(mlir::Value buffer, mlir::Operation *op,
                              double value);
mlir::linalg::FillOp findZeroFill(mlir::Value buffer, mlir::Operation *op);

/// A 2-D NCHW max or sum pooling (kept whole by nki-prepare-graph) and
/// whether it is a max.
std::optional<bool> isPooling(mlir::Operation *op);

/// The identity of a pooling's combiner.
double poolIdentity(bool isMax);

/// A stride-2 max pooling of a convolution's result `out` (the kernel's
/// last op is `last`: the convolution or its epilogue) that comes right
/// after it (nothing but allocations, the fill of the pooling's output with
/// the max's identity and the pooling's padding in between), with 2x2
/// windows over the result, or 3x3 windows over the result padded with
/// -inf by one row and column at the top and left (a ResNet stem's pool,
/// OH and OW half the result's): the convolution's kernel, emitted where
/// the pooling was, pools each chunk of output rows it computes, so the
/// pooled rows need no second pass over the result.
struct FusedPool {
  mlir::linalg::PoolingNchwMaxOp op;
  mlir::linalg::FillOp fill; // of op's output
  int64_t window = 2;
  /// The 3x3 pooling's padding, and its fill, copy and subview.
  std::optional<ConvPadding> padding;
  llvm::SmallVector<mlir::Operation *> padOps;
  /// Nothing but the pooling reads the result: the kernel does not store
  /// it.
  bool resultUnread = false;
};
std::optional<FusedPool> findFusedPool(mlir::Value out, mlir::Operation *last);

/// A 1x1 convolution that reads the result of the convolution `conv` (of
/// its epilogue `epilogue`, when there is one) right after it, as its only
/// reader: stride 1, the same images and pixels, the producer's channels
/// all in one block of `partitions` and at least as many as the 1x1's
/// filters (a segmentation head: a U-Net's 16 -> 2 classes). The
/// producer's kernel multiplies each chunk it evacuates by the 1x1's filter
/// (block-diagonal over its bands or stacked rows, which the 1x1 reads
/// pixel by pixel) and evacuates that with the 1x1's epilogue, emitted
/// where the 1x1 (its epilogue) was: the producer's result, which only the
/// 1x1 read, is never stored, nor loaded back into bands.
struct ChainedConv {
  mlir::linalg::GenericOp op;       // the 1x1 convolution
  mlir::linalg::FillOp fill;        // its zero init
  mlir::linalg::GenericOp epilogue; // its epilogue, or null
};
std::optional<ChainedConv> findChainedConv(mlir::linalg::GenericOp conv,
                                           const conv::ConvGeneric &g,
                                           mlir::linalg::GenericOp epilogue,
                                           int64_t partitions);

/// The 1x1 convolution whose result `conv` starts from
/// (nki-accumulate-convs: a ResNet's conv3 under its projection shortcut):
/// zero-filled, written and read by nothing else (the epilogue of `conv`
/// reads the sum), its input unpadded and not written between the two.
/// The kernel of `conv` computes its matmuls into its own accumulator, so
/// the result is never stored nor loaded back.
struct PartnerConv {
  mlir::linalg::GenericOp op; // the 1x1 convolution
  mlir::linalg::FillOp fill;  // its zero init
  conv::ConvGeneric g;
};
std::optional<PartnerConv> findPartnerConv(mlir::linalg::GenericOp conv,
                                           const conv::ConvGeneric &g);

/// A convolution whose zero-filled result only copies read, each copying a
/// block of its channels, all pixels, into a view of another buffer
/// (UpsampledConv.cpp's grouped phases: block k is phase k, copied into its
/// strided slice of the assembled result). The kernel evacuates each block
/// there itself, from its PSUM partitions; the result is never written.
/// Its channels must fit one block of `partitions` (the caller checks that
/// each block starts where an engine may read it).
struct PhaseScatter {
  struct Piece {
    int64_t channel = 0, channels = 0; // the block of the result
    mlir::Value source, target;        // the block's view, the one it goes into
    mlir::Operation *copy;             // the memref.copy between them
  };
  llvm::SmallVector<Piece> pieces; // by channel
  mlir::Operation *last = nullptr; // the last copy: the kernel goes there
};
std::optional<PhaseScatter> findPhaseScatter(mlir::linalg::GenericOp conv,
                                             int64_t partitions);

/// The global poolings of `ops` (the function's body, in order) that the
/// convolutions writing their source compute (GlobalPoolSum): each writer
/// of the source is a convolution's epilogue storing a block of whole
/// channels before the pooling, the blocks disjoint and covering every
/// channel. `pools` holds them; the map gives each such convolution its
/// pooling and block.
llvm::DenseMap<mlir::Operation *, FusedGlobalPool>
findFusedGlobalPools(llvm::ArrayRef<mlir::Operation *> ops,
                     std::deque<GlobalPoolSum> &pools);

/// An elementwise generic that consumes the matmul's (or convolution's)
/// product, right after it, where the product buffer is a scratch
/// allocation used by nothing else.
mlir::linalg::GenericOp findEpilogue(mlir::linalg::LinalgOp matmul,
                                     mlir::linalg::FillOp fill);

/// A matmul whose product the epilogue of `matmul` also reads (a SiLU-gated
/// MLP's gate, silu(x Wg) * (x Wu), where `matmul` is x Wu): both 2-D, the
/// same A, the same extents and B type, zero-filled, its f32 product a
/// scratch allocation that only the epilogue reads, with nothing in `ops`
/// writing A or its B between it and the epilogue. `matmul`'s kernel then
/// computes it too, in PSUM next to its own product.
mlir::linalg::MatmulOp findSiblingMatmul(llvm::ArrayRef<mlir::Operation *> ops,
                                         mlir::linalg::LinalgOp matmul,
                                         mlir::linalg::GenericOp epilogue);

/// A convolution input `x` that is a bufferized tensor.pad: an allocation
/// filled with a constant whose middle a memref.copy writes from the source,
/// read by nothing but `conv`. The fill, the copy and the view are returned
/// in `ops` (the kernel reads the source instead, so they become dead).
std::optional<ConvPadding>
findConvPadding(mlir::Value x, mlir::Operation *conv,
                llvm::SmallVectorImpl<mlir::Operation *> &ops);

/// The compact weights [C, KH, KW] of a convolution filter `w` that a
/// diagonal-filter generic (Conv/ConvGeneric.h) writes and only
/// convolutions read: their kernels build the diagonal on chip. `builder`
/// is set to that generic (erased once they are tiled).
std::optional<mlir::Value> findDiagonalFilter(mlir::Value w,
                                              mlir::linalg::GenericOp &builder);

/// The channel scale (Kernels.h) that writes convolution input `x`, an
/// allocation nothing but it and `conv` uses: the convolution reads the
/// scale's source and scales its filter instead.
std::optional<ChannelScale> findChannelScale(mlir::Value x,
                                             mlir::Operation *conv);

/// A matmul's A operand [M, K] that is a global pooling's [N, C] result
/// (M = N images, at most `partitions`; K = C channels: the layout the pooling
/// computes it in), read directly or through `cast`, an elementwise
/// generic that only rounds it to the matmul's input type and that only
/// the matmul reads (the matmul's kernel absorbs it).
struct PooledMatmulInput {
  /// The pooling's [N, C] result (findCastMatmulInput's: the program
  /// input; findTransposedMatmulInput's: the transpose's input's root).
  mlir::Value source;
  mlir::linalg::GenericOp cast;
  /// False for findCastMatmulInput's and findTransposedMatmulInput's: the
  /// source is in HBM, and the kernel's DMAs round it as they load it.
  bool pooling = true;
  /// The root of the buffer the pooling reads (a convolution's result).
  mlir::Value pooled;
  /// findTransposedMatmulInput's: the transpose that made A (absorbed with
  /// `cast` unless `transposeRead`: other ops read its result), and where
  /// A's element (m, k) is in `source`, its input's root: offset + m *
  /// mStride + k * kStride.
  mlir::linalg::TransposeOp transpose;
  bool transposeRead = false;
  /// findCastMatmulInput's source when it is not a program input: the
  /// transpose or elementwise generic that writes it (read in HBM only where
  /// that runs as it is and the residency plan does not keep the source in
  /// SBUF).
  mlir::Operation *sourceWriter = nullptr;
  int64_t offset = 0, mStride = 0, kStride = 0;
};
std::optional<PooledMatmulInput>
findPooledMatmulInput(mlir::linalg::LinalgOp matmul, int64_t partitions);

/// A matmul's A operand [M, K] written only by such a cast of a program
/// input of the same shape, row-major (the function's argument or a view
/// of it), or of a transpose's or an elementwise generic's result
/// (`sourceWriter`), that only the matmul reads: the kernel reads the
/// input, its DMAs rounding it, and absorbs the cast. A post-norm
/// transformer's first projection under --auto-cast=matmul had stored its
/// rounded input to HBM and loaded it back before its first matmul; an
/// LSTM's hidden state, which the next step's matmul and the output
/// sequence read, took a kernel of its own a step.
std::optional<PooledMatmulInput>
findCastMatmulInput(mlir::linalg::LinalgOp matmul);

/// A matmul's A operand [M, K] that is (a reshape of) a transpose's result,
/// or a cast as findCastMatmulInput's of one, when A's rows and columns are
/// each one dim of the transpose's input (a strided view of an allocation
/// or a program input): the kernel reads that input in place, its DMAs
/// rounding it, and absorbs the cast, and the transpose where nothing else
/// reads its result. A sequence model's first projection of a
/// convolution's [C, W] features, transposed to [W, C] rows, had stored the
/// transpose to HBM, loaded it to round it, stored that and loaded it again
/// with C on the partitions, where the features already have them.
std::optional<PooledMatmulInput>
findTransposedMatmulInput(mlir::linalg::LinalgOp matmul);

/// An MX matmul's A and scales quantised from an f32 A by --auto-cast=
/// mxfp8's (mxfp4's) three generics (QuantizeMx.cpp), on buffers: the
/// block maxima of
/// A viewed [M, K/32, 32] (|a| max-reduced into a zero fill), the scales
/// e8m0(max x `scaleFactor`), the quantised A = e4m3(A / scale) (e2m1), each
/// buffer read by nothing else. The matmul's kernel computes them per M
/// block in SBUF instead (they never reach HBM).
struct MxQuantizedA {
  mlir::Value source; // A [M, K] f32, or its view [M, K/32, 32]
  float scaleFactor = 0;
  llvm::SmallVector<mlir::Operation *> ops; // fill, maxima, scales, division
};
std::optional<MxQuantizedA> findMxQuantizedA(mlir::linalg::LinalgOp mx);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_MATCH_H
