//===- Epilogue.cpp - Elementwise consumers on PSUM tiles -----------------===//

#include "Epilogue.h"

#include "TileUtils.h"

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

LogicalResult Epilogue::analyze(linalg::GenericOp generic, Value product) {
  op = generic;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<Access> e = analyzeOperand(op, operand);
    if (failed(e))
      return failure();
    // Every input that names the product reads the PSUM tile (an input may
    // appear several times, e.g. x + x).
    readsProduct.push_back(operand.get() == product &&
                           operand.getOperandNumber() < op.getNumDpsInputs());
    operands.push_back(*e);
  }
  return success();
}

FailureOr<Value>
Epilogue::compute(OpBuilder &b, Location loc, BodyLowering &lowering,
                  TileValue product, Value acc, Type productType,
                  int64_t partitions, int64_t cols,
                  function_ref<std::pair<Value, bool>(const Access &)> load,
                  bool roundOnStore) {
  Block &body = op.getRegion().front();
  for (auto [i, e] : llvm::enumerate(operands)) {
    BlockArgument arg = body.getArgument(i);
    if (readsProduct[i]) {
      TileValue p = product;
      if (!productType.isF32() && p.tile == acc) {
        // The product is rounded to its type before the epilogue reads it.
        Value r = allocTile(b, loc, {partitions, cols}, productType);
        tile::CopyOp::create(b, loc, acc, r);
        p = {TileValue::Full, 0.0, r, productType};
      }
      lowering.bind(arg, p);
      continue;
    }
    if (!e.buffer) {
      lowering.bind(arg, {TileValue::Scalar, e.scalar, {}, e.elementType});
      continue;
    }
    if (arg.use_empty() || i == operands.size() - 1)
      continue;
    auto [tile, column] = load(e);
    lowering.bind(arg, {column ? TileValue::Column : TileValue::Full, 0.0, tile,
                        e.elementType});
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = yield.getOperand(0);
  if (auto trunc = result.getDefiningOp<arith::TruncFOp>();
      trunc && roundOnStore)
    result = trunc.getIn();
  FailureOr<TileValue> r = lowering.lower(result);
  if (failed(r))
    return failure();
  Value t = lowering.materializeFull(*r, r->elementType);
  if (t == acc) {
    t = allocTile(b, loc, {partitions, cols}, operands.back().elementType);
    tile::CopyOp::create(b, loc, acc, t);
  }
  return t;
}
