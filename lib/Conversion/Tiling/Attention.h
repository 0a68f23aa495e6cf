//===- Attention.h - softmax(Q K^T) V as one kernel -------------*- C++ -*-===//
//
// Attention as exporters write it, after bufferization: a matmul (or batch
// matmul) of the scores S = Q K^T, an optional elementwise prologue on S
// (the 1/sqrt(d) scale, an additive mask), the softmax decomposed into a row
// max, exp(x - max), a row sum and a division, and the matmul of the
// probabilities with V. nki-tile replaces the whole chain by one kernel
// (Attention.cpp) that never stores a score: an online softmax over blocks
// of keys, P V accumulated in PSUM.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_ATTENTION_H
#define NKI_LIB_CONVERSION_TILING_ATTENTION_H

#include "Access.h"
#include "Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace nki::tiling {

/// The matched chain. Scores are [B, Sq, Sk] (B = 1 for a plain matmul);
/// the kernel computes x = scale * (innerScale * S + mask) row by row.
/// Keys [begin, end) of K or V read from a buffer of their own: `a` walks
/// the same dims as the whole operand, key `begin` at its offset.
struct KeySegment {
  int64_t begin = 0, end = 0;
  Access a;
};

struct AttentionChain {
  mlir::linalg::LinalgOp scores;  // S = Q K^T (zero-filled output)
  mlir::linalg::LinalgOp context; // O = P V (zero-filled output)
  /// Every op the kernel replaces besides `context` (fills, the prologue,
  /// the softmax's generics): erased with it.
  llvm::SmallVector<mlir::Operation *> absorbed;
  /// The allocation (and views) of the buffer O is stored to, when that
  /// is a later op's output the kernel writes instead: moved before the
  /// kernel.
  llvm::SmallVector<mlir::Operation *> hoist;
  int64_t batch = 1, queries = 0, keys = 0, headDim = 0, valueDim = 0;
  /// Q [b, q, d], K^T [b, d, k], V [b, k, e] and O [b, q, e] as iteration
  /// points of their matmuls: dims (batch or -1, row, column). Q, K and V
  /// look through the casts and transposes that made them, O through the
  /// ones that read it (absorbed).
  Access q, kT, v, out;
  /// When K (V) is assembled by copies of key ranges (a KV cache and the
  /// new token's keys, concatenated), the copies' sources by key range;
  /// empty when `kT` (`v`) is read as it is.
  llvm::SmallVector<KeySegment> kSegments, vSegments;
  int qB = -1, qRow = 0, qCol = 0, kB = -1, kRow = 0, kCol = 0, vB = -1,
      vRow = 0, vCol = 0, oB = -1, oRow = 0, oCol = 0;
  /// Grouped-query attention: batch b reads K (V) head b / kGroup (b /
  /// vGroup), the strides of `kT` (`v`) along their batch dim applying to
  /// that head index; each K and V head is loaded once for its group.
  int64_t kGroup = 1, vGroup = 1;
  /// The prologue's scale factors (positive) and its additive mask, an
  /// operand of the prologue generic over [b, q, k] (or [b * q, k]).
  double innerScale = 1.0, scale = 1.0;
  std::optional<Access> mask;
  int maskRank = 0; // the prologue's rank (2 or 3)
  /// The mask's values when it is a constant (block classification).
  mlir::DenseElementsAttr maskValues;
  /// The matmuls' input types (bf16 or f32); Q, K and V may be read from
  /// wider buffers (a cast the kernel absorbed), the DMAs rounding them.
  mlir::Type scoresType, multiplyType;
};

/// The attention chain whose scores matmul is ops[start], if there is one
/// and its kernel's resident K and V fit in half of `options`' SBUF budget.
/// The casts, transposes and copies around Q, K, V and O it absorbs are not
/// in `taken` (an earlier kernel's: one chain's output cast may be the next
/// one's Q cast, which only one of them can absorb).
std::optional<AttentionChain>
findAttention(llvm::ArrayRef<mlir::Operation *> ops, size_t start,
              const llvm::DenseSet<mlir::Operation *> &taken,
              const TileOptions &options);

/// Emits the kernel before the builder's insertion point (the context
/// matmul).
mlir::LogicalResult tileAttention(mlir::OpBuilder &b,
                                  const AttentionChain &chain,
                                  const TileOptions &options);

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_ATTENTION_H
