//===- ConvGeneric.h - The implicit-GEMM convolution generic ----*- C++ -*-===//
//
// nki-prepare-graph writes a 2-D convolution whose kernel nki-tile runs as
// implicit GEMM (a matmul per kernel tap over a shifted window of the input
// in SBUF) as this linalg.generic over (n, f, oh, ow, c, kh, kw):
//
//   y[n, f, oh, ow] += x[n, c, oh * sh + kh * dh, ow * sw + kw * dw]
//                      * w[c, kh, kw, f]
//
// The filter is in [C, KH, KW, F] order, so that the stationary operand of
// every tap (C on the partitions, F along the free axis) is a contiguous
// run of one SBUF row loaded in one descriptor per partition; constant
// filters are permuted at compile time. x is already padded (tensor.pad).
// The graph builder and the tiler both use this header, so the op's form
// has one home.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_CONV_CONVGENERIC_H
#define NKI_LIB_CONVERSION_CONV_CONVGENERIC_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace nki::conv {

struct ConvGeneric {
  int64_t n = 0, c = 0, h = 0, w = 0; // padded input [N, C, H, W]
  int64_t f = 0, kh = 0, kw = 0;      // filter [C, KH, KW, F]
  int64_t oh = 0, ow = 0;             // output [N, F, OH, OW]
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  /// The types the PE multiplies: the input's and the filter's element
  /// types, or bf16 for an f32 operand the body rounds to bf16 first
  /// (auto-cast; the kernel's DMA rounds it while loading).
  mlir::Type inputType, filterType;
};

/// The convolution `op` is, when it has exactly the form above (maps,
/// iterator types, static shapes) and its body is out + a * b with a and b
/// the input's and the filter's elements, each possibly extended
/// (`arith.extf`) to the output's float type, the input possibly rounded to
/// bf16 first (`extf(truncf(x))`, what auto-cast writes).
std::optional<ConvGeneric> matchConvGeneric(mlir::linalg::GenericOp op);

/// Builds the generic: x [N, C, H, W] (padded), w [C, KH, KW, F], init
/// [N, F, OH, OW], all of one float type.
mlir::Value buildConvGeneric(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, mlir::Value w, mlir::Value init,
                             int64_t strideH, int64_t strideW,
                             int64_t dilationH, int64_t dilationW);

/// A depthwise filter as a dense one: the generic
///   d[c, kh, kw, f] = c == f ? w[c, kh, kw] : 0
/// over w [C, KH, KW] (the filter of a block of depthwise channels). Its
/// convolution runs each tap as one matmul with a diagonal stationary
/// operand; nki-tile builds the diagonal on chip from `w` instead of moving
/// C times the weights (matchDiagonalFilter).
mlir::Value buildDiagonalFilter(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value w);

/// The compact filter `w` of a generic buildDiagonalFilter built.
std::optional<mlir::Value> matchDiagonalFilter(mlir::linalg::GenericOp op);

/// The weight of such a generic after a splat `w` (every weight the same:
/// a box filter) was folded into its body, which then selects a constant.
std::optional<mlir::FloatAttr>
matchSplatDiagonalFilter(mlir::linalg::GenericOp op);

/// Rebuilds `op` (a matched conv generic with f32 operands) so that the PE
/// multiplies bf16: a constant f32 filter becomes a bf16 constant, any other
/// is rounded in the body, and the input is rounded in the body
/// (`extf(truncf(x))`); accumulation and the result stay f32.
void castConvGenericToBF16(mlir::OpBuilder &b, mlir::linalg::GenericOp op);

/// Whether `op` (a matched conv generic) rounds its f32 input to bf16 in
/// the body (what castConvGenericToBF16 writes).
bool roundsInputToBF16(mlir::linalg::GenericOp op);

/// Whether nki-tile's convolution kernel may fold the kernel rows into the
/// contraction (partition kh * C + c holding the input rows kernel row kh
/// reads): C * KH within `partitions`, KH > 1, and at most 32 channels, 64
/// when the PE multiplies fp32 (beyond that the contraction is large
/// enough and the folded tile, which holds every input row KH / stride
/// times, would cost SBUF and DMA; at four fp32 cycles a column a
/// 33-channel 3x3 convolution at 56x56 runs in 32.8 instead of 40.4 us
/// folded, and the sub-pixel phases of a 3x3 convolution after a 2x
/// upsample are 2x2 convolutions of 64 channels).
bool foldsKernelRows(int64_t channels, int64_t kh, bool fp32,
                     int64_t partitions);

/// Makes `op` (a conv generic that rounds its f32 input to bf16) read `x`,
/// that input already rounded and stored in bf16, in place.
void readInputInBF16(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
                     mlir::Value x);

} // namespace nki::conv

#endif // NKI_LIB_CONVERSION_CONV_CONVGENERIC_H
