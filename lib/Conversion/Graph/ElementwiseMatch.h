//===- ElementwiseMatch.h - Per-channel operands of elementwise ops -*- C++
//-*-===//
//
// What the graph passes that fold an elementwise op's per-channel operand
// into a convolution (FoldConvScales, ComposeConvs) match: an elementwise
// generic, a body op combining one input with another, and an operand read
// per channel.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_GRAPH_ELEMENTWISEMATCH_H
#define NKI_LIB_CONVERSION_GRAPH_ELEMENTWISEMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <utility>

namespace nki {

/// An elementwise generic with one result and an identity output map.
inline bool isElementwise(mlir::linalg::GenericOp op) {
  return op && op->getNumResults() == 1 &&
         op.getNumParallelLoops() == op.getNumLoops() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity();
}

/// The body op that is `operand`'s block argument's only use when it is a
/// binary `OpTy` of that argument and another input's; that input.
template <typename OpTy>
std::pair<OpTy, mlir::OpOperand *> binaryWithInput(mlir::linalg::GenericOp op,
                                                   mlir::OpOperand &operand) {
  mlir::BlockArgument arg = op.getMatchingBlockArgument(&operand);
  if (!arg.hasOneUse())
    return {};
  auto bin = llvm::dyn_cast<OpTy>(*arg.getUsers().begin());
  if (!bin)
    return {};
  mlir::Value other = bin.getLhs() == arg ? bin.getRhs() : bin.getLhs();
  auto otherArg = llvm::dyn_cast<mlir::BlockArgument>(other);
  if (!otherArg || otherArg.getOwner() != op.getBody() ||
      otherArg.getArgNumber() >= op.getNumDpsInputs() || otherArg == arg)
    return {};
  return {bin, op.getDpsInputOperand(otherArg.getArgNumber())};
}

/// The position of the one result of `op`'s indexing map for `operand`
/// that varies, when it is a plain loop dim (in `dim`) and every other
/// result is the constant 0 or a dim of a single iteration: an operand read
/// per channel, broadcast over the rest ([C, 1, 1] against [N, C, H, W],
/// also through (d1, d2, d3) when H = W = 1).
inline std::optional<unsigned> perChannelPosition(mlir::linalg::GenericOp op,
                                                  mlir::OpOperand &operand,
                                                  unsigned &dim) {
  llvm::SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<unsigned> pos;
  for (auto [i, e] :
       llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
    if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(e)) {
      if (c.getValue() != 0)
        return std::nullopt;
      continue;
    }
    auto d = llvm::dyn_cast<mlir::AffineDimExpr>(e);
    if (!d)
      return std::nullopt;
    if (ranges[d.getPosition()] == 1)
      continue;
    if (pos)
      return std::nullopt;
    pos = i;
    dim = d.getPosition();
  }
  return pos;
}

} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_ELEMENTWISEMATCH_H
