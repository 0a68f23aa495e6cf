//===- Access.cpp - How a linalg operand walks its buffer -----------------===//

#include "Access.h"
#include "TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace nki::tiling;

Value Access::offsetAt(OpBuilder &b, Location loc, ArrayRef<Value> ivs) const {
  SmallVector<Value> values;
  SmallVector<int64_t> s;
  int64_t base = offset;
  for (auto [d, iv, stride] : llvm::enumerate(ivs, strides)) {
    if (!iv)
      continue;
    if (int(d) != splitDim) {
      values.push_back(iv);
      s.push_back(stride);
    } else if (std::optional<int64_t> i = getConstantIntValue(iv)) {
      base += step(d, *i);
    } else {
      Value count = indexConst(b, loc, splitCount);
      values.push_back(arith::DivUIOp::create(b, loc, iv, count));
      s.push_back(stride);
      values.push_back(arith::RemUIOp::create(b, loc, iv, count));
      s.push_back(splitStride);
    }
  }
  return linearIndex(b, loc, base, values, s);
}

/// analyzeOperand, with its diagnostics only when `diagnose`.
static FailureOr<Access> analyze(linalg::LinalgOp op, OpOperand &operand,
                                 bool diagnose) {
  auto fail = [&](const Twine &message) -> LogicalResult {
    if (diagnose)
      return op->emitOpError(message);
    return failure();
  };
  Access a;
  a.strides.assign(op.getNumLoops(), 0);
  Value v = operand.get();
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type) {
    a.elementType = v.getType();
    auto cst = v.getDefiningOp<arith::ConstantOp>();
    if (!cst)
      return fail("scalar operand must be a constant");
    if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
      a.scalar = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
      a.scalar = double(i.getValue().getSExtValue());
    else
      return fail("unsupported scalar operand");
    return a;
  }
  a.buffer = v;
  a.elementType = type.getElementType();
  SmallVector<int64_t> memStrides;
  if (failed(getStaticLayout(type, memStrides, a.offset)))
    return fail("operand #" + Twine(operand.getOperandNumber()) +
                " has a dynamic layout");
  AffineMap map = op.getMatchingIndexingMap(&operand);
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      a.strides[dim.getPosition()] += memStrides[r];
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(expr);
    if (!c) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "indexing map " << AffineMapAttr::get(map)
         << " is not supported (results must be dims or constants)";
      return fail(text);
    }
    a.offset += c.getValue() * memStrides[r];
  }
  return a;
}

FailureOr<Access> nki::tiling::analyzeOperand(linalg::LinalgOp op,
                                              OpOperand &operand) {
  return analyze(op, operand, /*diagnose=*/true);
}

std::optional<Access> nki::tiling::probeOperand(linalg::LinalgOp op,
                                                OpOperand &operand) {
  FailureOr<Access> a = analyze(op, operand, /*diagnose=*/false);
  return succeeded(a) ? std::optional<Access>(*a) : std::nullopt;
}
