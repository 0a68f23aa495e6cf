//===- PhasePartner.h - Upsampled phases in a skip's accumulator -*- C++
//-*-===//
//
// A U-Net decoder convolves the concatenation of a nearest upsample of x
// and a skip connection. UpsampledConv.cpp writes the upsampled part as one
// stride-1 convolution of x per output phase; when their result does not
// fit half of SBUF, nki-interleave-phases stacks the phases' f32 results
// and the skip convolution's epilogue adds them interleaved (nki-tile's
// findPhaseAddend reads the stack where it is). The stack then goes to HBM
// and back: 25 of the U-Net's 32.5 MB at batch 8 under auto-cast.
//
// A skip convolution with stacked output rows (Conv.cpp: block j of a
// group holds output row stack * g + j) computes the phases in its own
// accumulator instead, as its partner: with a stack that the row factor fh
// divides, block j is of row phase j % fh and reads x rows (stack / fh) * g
// + j / fh + kh - top, so one matmul over a tile of x's rows stacked on
// the partitions (block i holds x row (stack / fh) * g + lo + i) with a
// block-structured stationary covers every kernel row that reads a window
// of those rows, per column phase and kernel column, writing every fw-th
// column of the accumulator. The stack is never written; x stays where it
// is (SBUF or HBM).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_PHASEPARTNER_H
#define NKI_LIB_CONVERSION_TILING_PHASEPARTNER_H

#include "../Conv/ConvGeneric.h"
#include "Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace nki::tiling {

struct PhasePartner {
  struct Phase {
    mlir::linalg::GenericOp op;
    mlir::linalg::FillOp fill; // its zero init
    conv::ConvGeneric g;
    ConvPadding pad; // x within its padded input
  };
  llvm::SmallVector<Phase> phases; // by phase py * fw + px
  int64_t fh = 1, fw = 1;
  mlir::Value x; // the phases' input: their padding's source, [N, C, H, W]
  int64_t c = 0, h = 0, w = 0;
  mlir::Type inputType, filterType;
  mlir::linalg::GenericOp interleave;
  mlir::Value result; // the interleave's result, an epilogue operand
  /// The padding around x that some phase reads: rows before and after,
  /// columns before and after.
  int64_t top = 0, bottom = 0, left = 0, right = 0;
  /// Row phase py's padding before x's rows; column phase px's before its
  /// columns (the same for every phase of that row or column).
  int64_t topOf(int64_t py) const { return phases[py * fw].pad.top; }
  int64_t leftOf(int64_t px) const { return phases[px].pad.left; }
  int64_t kwOf(int64_t px) const;
};

/// The phases whose interleaved result `result` (written by `interleave`
/// from `stack`, [fh * fw, N, F, OH / fh, OW / fw]) the epilogue of `conv`
/// adds, when the kernel of `conv` (`g`) can compute them: fh * fw zero-
/// filled stride-1 convolutions of one zero-padded x, each writing its
/// slice of the stack, which nothing else touches; their padding the same
/// for a row (column) phase; `conv` a stride-1 convolution that can stack
/// a multiple of fh output rows on `partitions`, with OW a multiple of fw
/// that a chunk's columns (at most `bankColumns`) keep.
std::optional<PhasePartner>
findPhasePartner(mlir::linalg::GenericOp conv, const conv::ConvGeneric &g,
                 mlir::linalg::GenericOp interleave, mlir::Value result,
                 mlir::Value stack, int64_t fh, int64_t fw, int64_t partitions,
                 int64_t bankColumns);

/// The stacked-row counts `g` may take with the partner: multiples of fh
/// whose blocks and input rows fit the partitions (ConvBands.cpp's stackCounts
/// without its input conditions: the partner's saving outweighs those
/// copies); with `windows` 2, those whose input rows fit only in two
/// windows of q rows (whole groups of OH).
llvm::SmallVector<int64_t> phaseStackCounts(const PhasePartner &p,
                                            const conv::ConvGeneric &g,
                                            int64_t partitions,
                                            int64_t windows = 1);

/// A partner matmul's rows: x rows [lo, lo + rows) relative to row (stack /
/// fh) * group, block i of the tile holding row lo + i; it computes every
/// kernel row of every output block that reads one of them.
struct PhaseWindow {
  int64_t lo = 0;
};
/// The windows covering the x rows a stack's blocks read, `rows` (the
/// tile's blocks: partitions / C) at a time.
llvm::SmallVector<PhaseWindow> phaseWindows(const PhasePartner &p,
                                            int64_t stack, int64_t rows);
/// The x row (relative to (stack / fh) * group) that kernel row kh of
/// output block j reads.
int64_t phaseRow(const PhasePartner &p, int64_t j, int64_t kh);

/// Removes the partner's result from the epilogue: the addition of it to
/// the convolution's value `product` (in the accumulator already) goes.
/// Fails, changing nothing, unless the result is read by exactly one
/// addition whose other operand is the product.
mlir::LogicalResult dropPhaseAddend(mlir::RewriterBase &rewriter,
                                    mlir::linalg::GenericOp epilogue,
                                    mlir::Value result, mlir::Value product);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_PHASEPARTNER_H
