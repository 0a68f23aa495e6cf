//===- Shape.cpp - ONNX Constant, Reshape, Flatten, Identity, Transpose ---===//

#include "ShapeUtils.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
LogicalResult constant(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  if (node.output_size() < 1)
    return emitError(loc) << "Constant node has no output";
  if (const onnx::AttributeProto *a = findAttr(node, "value"))
    return imp.importTensor(a->t(), loc, node.output(0));
  if (const onnx::AttributeProto *a = findAttr(node, "value_float"))
    return imp.define(
        node, arith::ConstantOp::create(
                  b, loc,
                  DenseElementsAttr::get(
                      RankedTensorType::get({}, b.getF32Type()), a->f())));
  if (const onnx::AttributeProto *a = findAttr(node, "value_floats")) {
    std::vector<float> v(a->floats().begin(), a->floats().end());
    return imp.define(node, arith::ConstantOp::create(
                                b, loc,
                                DenseElementsAttr::get(
                                    RankedTensorType::get({int64_t(v.size())},
                                                          b.getF32Type()),
                                    ArrayRef<float>(v))));
  }
  if (const onnx::AttributeProto *a = findAttr(node, "value_int"))
    return imp.defineInt(node, IntConstant{{}, {a->i()}});
  if (const onnx::AttributeProto *a = findAttr(node, "value_ints"))
    return imp.defineInt(node,
                         IntConstant{{int64_t(a->ints_size())},
                                     {a->ints().begin(), a->ints().end()}});
  return emitError(loc) << "Constant node has no supported value attribute";
}

LogicalResult reshapeOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  const IntConstant *shapeIn = imp.intInput(node, 1);
  if (!shapeIn)
    return emitError(loc)
           << "Reshape needs a constant shape (an int64 "
              "initializer, Constant or folded shape computation); '"
           << (node.input_size() > 1 ? node.input(1) : "") << "' is not one";
  FailureOr<SmallVector<int64_t>> shape =
      reshapeTarget(imp, node, shapeOf(*x), shapeIn->values,
                    intAttr(node, "allowzero", 0) != 0);
  if (failed(shape))
    return failure();
  return imp.define(node, imp.reshape(loc, *x, *shape));
}

LogicalResult flatten(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  int64_t axis = intAttr(node, "axis", 1);
  if (axis < 0)
    axis += t.getRank();
  if (axis < 0 || axis > t.getRank())
    return emitError(loc) << "Flatten axis " << axis << " of a rank-"
                          << t.getRank() << " tensor";
  int64_t rows = 1;
  for (int64_t i = 0; i < axis; ++i)
    rows *= t.getDimSize(i);
  return imp.define(node,
                    imp.reshape(loc, *x, {rows, t.getNumElements() / rows}));
}

LogicalResult identity(Importer &imp, const onnx::NodeProto &node) {
  if (const IntConstant *c = imp.intInput(node, 0))
    return imp.defineInt(node, *c);
  FailureOr<Value> x = imp.input(node, 0);
  return failed(x) ? failure() : imp.define(node, *x);
}

LogicalResult transposeOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> perm =
      transposePermutation(imp, node, tensorType(*x).getRank());
  if (failed(perm))
    return failure();
  return imp.define(node, imp.transpose(loc, *x, *perm));
}
} // namespace

void nki::onnx_import::registerConstantAndShapeOps(OpTable &t) {
  t["Constant"] = constant;
  t["Reshape"] = reshapeOp;
  t["Flatten"] = flatten;
  t["Identity"] = identity;
  t["Transpose"] = transposeOp;
}
