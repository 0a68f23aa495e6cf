//===- OneHot.cpp - ONNX OneHot -------------------------------------------===//
//
// y = (wrap(indices) == iota) ? on : off with the iota along the new `axis`:
// one broadcasting elementwise op over indices reshaped with a unit dim at
// `axis`, a constant iota [depth, 1, ...] and values[0], values[1]. Indices
// may be a runtime tensor of any numeric type (floats truncate toward zero,
// negative ones wrap by depth; one outside [-depth, depth) matches nothing,
// so its row is all off_value as the spec says). The depth decides the
// output shape, so it must be a compile-time constant.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace nki::onnx_import;

namespace {

/// Input `i` as one compile-time number, if it is one.
std::optional<double> constantScalar(Importer &imp, const onnx::NodeProto &node,
                                     int i) {
  if (const IntConstant *c = imp.intInput(node, i))
    return c->values.size() == 1 ? std::optional<double>(c->values[0])
                                 : std::nullopt;
  auto it = imp.values.find(node.input(i));
  if (it == imp.values.end())
    return std::nullopt;
  DenseElementsAttr attr;
  if (!matchPattern(it->second, m_Constant(&attr)) ||
      attr.getNumElements() != 1)
    return std::nullopt;
  if (isa<FloatType>(attr.getElementType()))
    return (*attr.value_begin<APFloat>()).convertToDouble();
  return double((*attr.value_begin<APInt>()).getSExtValue());
}

LogicalResult oneHot(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> idx = imp.input(node, 0), values = imp.input(node, 2);
  if (failed(idx) || failed(values))
    return failure();
  std::optional<double> depthV = constantScalar(imp, node, 1);
  if (!depthV)
    return emitError(loc) << "OneHot depth '" << node.input(1)
                          << "' must be a compile-time scalar (it decides the "
                             "output shape)";
  int64_t depth = int64_t(std::trunc(*depthV));
  if (depth < 1)
    return emitError(loc) << "OneHot depth " << *depthV << " is not positive";
  if (tensorType(*values).getNumElements() != 2)
    return emitError(loc) << "OneHot values " << values->getType()
                          << " must hold two elements [off, on]";
  SmallVector<int64_t> is = shapeOf(*idx);
  int64_t rank = is.size();
  int64_t axis = intAttr(node, "axis", -1);
  if (axis < 0)
    axis += rank + 1;
  if (axis < 0 || axis > rank)
    return emitError(loc) << "OneHot axis " << intAttr(node, "axis", -1)
                          << " of rank-" << rank << " indices";
  SmallVector<int64_t> withUnit(is), iotaShape = {depth};
  withUnit.insert(withUnit.begin() + axis, 1);
  iotaShape.append(rank - axis, 1);
  Type i32 = imp.b.getI32Type();
  SmallVector<APInt> iota;
  for (int64_t j = 0; j < depth; ++j)
    iota.push_back(APInt(32, j));
  Value iotaV = arith::ConstantOp::create(
      imp.b, loc,
      DenseElementsAttr::get(RankedTensorType::get(iotaShape, i32), iota));
  Value flat = imp.reshape(loc, *values, {2});
  auto pick = [&](int64_t at) -> Value {
    return tensor::ExtractSliceOp::create(
        imp.b, loc, flat, ArrayRef<OpFoldResult>{imp.b.getIndexAttr(at)},
        ArrayRef<OpFoldResult>{imp.b.getIndexAttr(1)},
        ArrayRef<OpFoldResult>{imp.b.getIndexAttr(1)});
  };
  return imp.define(
      node,
      imp.elementwise(
          loc, {imp.reshape(loc, *idx, withUnit), iotaV, pick(0), pick(1)},
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value i = castScalar(b, l, a[0], b.getI32Type());
            Value zero =
                arith::ConstantOp::create(b, l, b.getI32IntegerAttr(0));
            Value d =
                arith::ConstantOp::create(b, l, b.getI32IntegerAttr(depth));
            Value neg =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
            i = arith::SelectOp::create(b, l, neg,
                                        arith::AddIOp::create(b, l, i, d), i);
            Value hit =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, a[1]);
            return arith::SelectOp::create(b, l, hit, a[3], a[2]);
          },
          tensorType(*values).getElementType()));
}

} // namespace

void nki::onnx_import::registerOneHotOps(OpTable &t) { t["OneHot"] = oneHot; }
