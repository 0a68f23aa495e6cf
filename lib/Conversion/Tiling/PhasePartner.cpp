//===- PhasePartner.cpp - Upsampled phases in a skip's accumulator --------===//

#include "PhasePartner.h"

#include "Match.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

int64_t PhasePartner::kwOf(int64_t px) const {
  int64_t kw = 0;
  for (int64_t py = 0; py < fh; ++py)
    kw = std::max(kw, phases[py * fw + px].g.kw);
  return kw;
}

/// The kernel rows of row phase py (the most of its column phases).
static int64_t khOf(const PhasePartner &p, int64_t py) {
  int64_t kh = 0;
  for (int64_t px = 0; px < p.fw; ++px)
    kh = std::max(kh, p.phases[py * p.fw + px].g.kh);
  return kh;
}

int64_t tiling::phaseRow(const PhasePartner &p, int64_t j, int64_t kh) {
  return j / p.fh + kh - p.topOf(j % p.fh);
}

SmallVector<PhaseWindow> tiling::phaseWindows(const PhasePartner &p,
                                              int64_t stack, int64_t rows) {
  int64_t lo = phaseRow(p, 0, 0), hi = lo;
  for (int64_t j = 0; j < stack; ++j) {
    lo = std::min(lo, phaseRow(p, j, 0));
    hi = std::max(hi, phaseRow(p, j, khOf(p, j % p.fh) - 1));
  }
  SmallVector<PhaseWindow> windows;
  for (int64_t r = lo; rows > 0 && r <= hi; r += rows)
    windows.push_back({r});
  return windows;
}

SmallVector<int64_t> tiling::phaseStackCounts(const PhasePartner &p,
                                              const conv::ConvGeneric &g,
                                              int64_t partitions,
                                              int64_t windows) {
  SmallVector<int64_t> counts;
  for (int64_t q = p.fh; q * g.f <= partitions && q <= g.oh; q += p.fh) {
    bool oneWindow = g.c * (g.kh + q - 1) <= partitions;
    // Two windows (ConvKernel's stackWindows): q rows of C on the
    // partitions, whole groups, the two windows holding the KH + q - 1
    // rows a group reads; only where one window would not fit.
    bool fits = windows == 1 ? oneWindow
                             : !oneWindow && g.c * q <= partitions &&
                                   2 * q >= g.kh + q - 1 && g.oh % q == 0;
    if (fits && !phaseWindows(p, q, partitions / p.c).empty())
      counts.push_back(q);
  }
  return counts;
}

std::optional<PhasePartner>
tiling::findPhasePartner(linalg::GenericOp conv, const conv::ConvGeneric &g,
                         linalg::GenericOp interleave, Value result,
                         Value stack, int64_t fh, int64_t fw,
                         int64_t partitions, int64_t bankColumns) {
  auto stackType = cast<MemRefType>(stack.getType());
  if (g.strideH != 1 || g.strideW != 1 || g.dilationH != 1 ||
      g.dilationW != 1 || g.kh == 1 || fh < 1 || fw < 1 || g.oh % fh ||
      g.ow % fw || (g.ow > bankColumns && bankColumns % fw) ||
      !stack.getDefiningOp<memref::AllocOp>() || stackType.getRank() != 5 ||
      stackType.getDimSize(0) != fh * fw)
    return std::nullopt;
  PhasePartner p;
  p.fh = fh;
  p.fw = fw;
  p.interleave = interleave;
  p.result = result;
  p.phases.resize(fh * fw);
  SmallVector<linalg::FillOp> fills;
  // Each phase's convolution writes the stack's slice of that phase.
  for (Operation *user : usersThroughViews(stack)) {
    if (isBufferBookkeeping(user) || user == interleave.getOperation())
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      fills.push_back(fill);
      continue;
    }
    auto op = dyn_cast<linalg::GenericOp>(user);
    std::optional<conv::ConvGeneric> pg =
        op ? conv::matchConvGeneric(op) : std::nullopt;
    auto view = op ? op.getDpsInits()[0].getDefiningOp<memref::SubViewOp>()
                   : memref::SubViewOp();
    if (!pg || !view || view.getSource() != stack)
      return std::nullopt;
    ArrayRef<int64_t> at = view.getStaticOffsets();
    int64_t k = at[0];
    if (ShapedType::isDynamic(k) || k < 0 || k >= fh * fw ||
        llvm::any_of(at.drop_front(), [](int64_t o) { return o != 0; }) ||
        p.phases[k].op)
      return std::nullopt;
    SmallVector<Operation *> padOps;
    std::optional<ConvPadding> pad =
        findConvPadding(op.getDpsInputs()[0], op, padOps);
    linalg::FillOp fill = findZeroFill(op.getDpsInits()[0], op);
    if (!pad || pad->value != 0.0 || !fill || pg->strideH != 1 ||
        pg->strideW != 1 || pg->dilationH != 1 || pg->dilationW != 1 ||
        pg->n != g.n || pg->f != g.f || pg->oh * fh != g.oh ||
        pg->ow * fw != g.ow || findEpilogue(op, fill))
      return std::nullopt;
    p.phases[k] = {op, fill, *pg, *pad};
  }
  for (const PhasePartner::Phase &ph : p.phases)
    if (!ph.op)
      return std::nullopt;
  for (linalg::FillOp fill : fills)
    if (llvm::none_of(p.phases, [&](const PhasePartner::Phase &ph) {
          return ph.fill == fill;
        }))
      return std::nullopt;
  // One x, one element type; a row (column) phase's padding the same in
  // every column (row) phase, so that a window's blocks share the matmul's
  // moving rows (columns).
  const PhasePartner::Phase &first = p.phases.front();
  p.x = first.pad.source;
  p.c = first.g.c;
  p.h = first.pad.height;
  p.w = first.pad.width;
  p.inputType = first.g.inputType;
  p.filterType = first.g.filterType;
  for (auto [k, ph] : llvm::enumerate(p.phases)) {
    int64_t py = int64_t(k) / fw, px = int64_t(k) % fw;
    if (ph.pad.source != p.x || ph.g.c != p.c ||
        ph.g.inputType != p.inputType || ph.g.filterType != p.filterType ||
        ph.pad.top != p.topOf(py) || ph.pad.left != p.leftOf(px))
      return std::nullopt;
    p.top = std::max(p.top, ph.pad.top);
    p.left = std::max(p.left, ph.pad.left);
    p.bottom = std::max(p.bottom, ph.g.h - ph.pad.top - ph.pad.height);
    p.right = std::max(p.right, ph.g.w - ph.pad.left - ph.pad.width);
  }
  // x is not written between the first phase and `conv`, where the kernel
  // reads it.
  Operation *begin = conv.getOperation();
  for (const PhasePartner::Phase &ph : p.phases)
    if (ph.op->isBeforeInBlock(begin))
      begin = ph.op;
  DenseSet<Operation *> xUsers = usersThroughViews(viewRoot(p.x));
  for (Operation *op = begin->getNextNode(); op && op != conv.getOperation();
       op = op->getNextNode()) {
    if (!xUsers.contains(op))
      continue;
    auto copy = dyn_cast<memref::CopyOp>(op);
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    if ((copy && viewRoot(copy.getTarget()) == viewRoot(p.x)) ||
        (dps && llvm::any_of(dps.getDpsInits(), [&](Value v) {
           return viewRoot(v) == viewRoot(p.x);
         })))
      return std::nullopt;
  }
  if (phaseStackCounts(p, g, partitions).empty())
    return std::nullopt;
  return p;
}

LogicalResult tiling::dropPhaseAddend(RewriterBase &rewriter,
                                      linalg::GenericOp epilogue, Value result,
                                      Value product) {
  OpOperand *addend = nullptr, *own = nullptr;
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    if (in->get() == result)
      addend = addend ? nullptr : in;
    if (in->get() == product)
      own = in;
  }
  if (!addend || !own)
    return failure();
  Block *body = epilogue.getBody();
  BlockArgument a = body->getArgument(addend->getOperandNumber());
  BlockArgument b = body->getArgument(own->getOperandNumber());
  auto add = a.hasOneUse() ? dyn_cast<arith::AddFOp>(*a.getUsers().begin())
                           : arith::AddFOp();
  if (!add || (add.getLhs() == a ? add.getRhs() : add.getLhs()) != b)
    return failure();
  rewriter.replaceAllUsesWith(add.getResult(), b);
  rewriter.eraseOp(add);
  unsigned index = addend->getOperandNumber();
  SmallVector<Attribute> maps(epilogue.getIndexingMaps().getValue());
  maps.erase(maps.begin() + index);
  rewriter.modifyOpInPlace(epilogue, [&] {
    epilogue.setIndexingMapsAttr(rewriter.getArrayAttr(maps));
    epilogue.getInputsMutable().erase(index);
    body->eraseArgument(index);
  });
  return success();
}
