//===- Generators.cpp - ONNX Dropout, Trilu, EyeLike, fills ---------------===//
//
// Ops whose result is mostly known at import: inference Dropout (the
// identity), Trilu (a select against a constant mask), and the generators
// EyeLike, ConstantOfShape and Range. Integer versions of the generators
// fold in IntFolding.cpp.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

namespace {

/// The only element of a float constant input, or an error.
FailureOr<double> constantScalar(Importer &imp, const onnx::NodeProto &node,
                                 int i) {
  FailureOr<Value> v = imp.input(node, i);
  if (failed(v))
    return failure();
  std::optional<std::vector<double>> vals = floatConstantValues(*v);
  if (!vals || vals->size() != 1)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " input '" << node.input(i)
           << "' must be a constant scalar";
  return (*vals)[0];
}

LogicalResult dropoutOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  // From opset 12 training is an input; a ratio of 0 keeps everything
  // even in training mode. Any real dropout is random and not supported.
  if (imp.hasInput(node, 2)) {
    // An int constant, or a bool one (torch writes a BOOL Constant: a Swin
    // Transformer's attention dropout, p = 0, says training_mode = true).
    std::optional<bool> training;
    if (const IntConstant *c = imp.intInput(node, 2)) {
      if (c->values.size() == 1)
        training = c->values[0] != 0;
    } else if (FailureOr<Value> v = imp.input(node, 2); succeeded(v)) {
      DenseIntElementsAttr attr;
      if (matchPattern(*v, m_Constant(&attr)) && attr.getNumElements() == 1)
        training = !(*attr.value_begin<APInt>()).isZero();
    } else {
      return failure();
    }
    if (!training)
      return emitError(loc) << "Dropout needs a constant training_mode";
    if (*training) {
      double ratio = 0.5;
      if (imp.hasInput(node, 1)) {
        FailureOr<double> r = constantScalar(imp, node, 1);
        if (failed(r))
          return failure();
        ratio = *r;
      }
      if (ratio != 0.0) {
        char text[32]; // as the user wrote it: 0.5, not 5.000000e-01
        std::snprintf(text, sizeof text, "%g", ratio);
        return emitError(loc) << "Dropout in training mode with ratio " << text
                              << " is random; not supported";
      }
    }
  }
  if (failed(imp.define(node, *x)))
    return failure();
  if (node.output_size() < 2 || node.output(1).empty())
    return success();
  // The mask keeps every element: a float tensor before opset 10, BOOL from
  // then on (a compile-time constant).
  SmallVector<int64_t> shape = shapeOf(*x);
  if (imp.opset < 10)
    return imp.define(
        node, imp.filled(loc, shape, tensorType(*x).getElementType(), 1.0), 1);
  return imp.defineInt(
      node,
      IntConstant{std::vector<int64_t>(shape.begin(), shape.end()),
                  std::vector<int64_t>(numElements(shape), 1),
                  onnx::TensorProto::BOOL},
      1);
}

LogicalResult triluOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  if (t.getRank() < 2)
    return emitError(loc) << "Trilu needs rank >= 2, got " << t;
  bool upper = intAttr(node, "upper", 1) != 0;
  int64_t rows = t.getDimSize(t.getRank() - 2),
          cols = t.getDimSize(t.getRank() - 1);
  Type elt = t.getElementType();
  auto select = [elt](OpBuilder &nb, Location l, Value keep, Value v) {
    Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(elt));
    return arith::SelectOp::create(nb, l, keep, v, zero).getResult();
  };
  const IntConstant *kc = imp.intInput(node, 1);
  if (!imp.hasInput(node, 1) || kc) {
    if (kc && kc->values.size() != 1)
      return emitError(loc) << "Trilu k must be a scalar";
    int64_t k = kc ? kc->values[0] : 0;
    // Kept elements: j - i >= k (upper) or j - i <= k (lower), as a
    // constant 0/1 mask; a select keeps NaN and inf where they are kept.
    std::vector<double> mask;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        mask.push_back(upper ? j - i >= k : j - i <= k);
    Value m =
        denseFloatConstant(imp, loc, {rows, cols}, imp.b.getF32Type(), mask);
    return imp.define(
        node,
        imp.elementwise(loc, {*x, m},
                        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          Value half = arith::ConstantOp::create(
                              nb, l, nb.getF32FloatAttr(0.5f));
                          Value keep = arith::CmpFOp::create(
                              nb, l, arith::CmpFPredicate::OGT, a[1], half);
                          return select(nb, l, keep, a[0]);
                        }));
  }
  // A runtime k: compare the constant j - i with it elementwise.
  FailureOr<Value> k = imp.input(node, 1);
  if (failed(k))
    return failure();
  RankedTensorType kt = tensorType(*k);
  if (kt.getNumElements() != 1 || !isa<IntegerType>(kt.getElementType()))
    return emitError(loc) << "Trilu k must be an integer scalar, got " << kt;
  if (kt.getRank() != 0)
    *k = imp.reshape(loc, *k, {});
  std::vector<double> diff;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      diff.push_back(double(j - i));
  Value d =
      denseFloatConstant(imp, loc, {rows, cols}, imp.b.getF32Type(), diff);
  return imp.define(
      node,
      imp.elementwise(
          loc, {*x, d, *k},
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value kf = arith::SIToFPOp::create(nb, l, nb.getF32Type(), a[2]);
            Value keep = arith::CmpFOp::create(
                nb, l,
                upper ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE,
                a[1], kf);
            return select(nb, l, keep, a[0]);
          }));
}

LogicalResult eyeLikeOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  std::vector<int64_t> shape;
  int32_t inType;
  if (const IntConstant *c = imp.intInput(node, 0)) {
    shape = c->shape;
    inType = c->type;
  } else {
    FailureOr<Value> x = imp.input(node, 0);
    if (failed(x))
      return failure();
    SmallVector<int64_t> s = shapeOf(*x);
    shape.assign(s.begin(), s.end());
    Type elt = tensorType(*x).getElementType();
    if (!isa<FloatType>(elt) && !elt.isInteger(32))
      return emitError(loc) << "EyeLike of a " << elt
                            << " tensor without dtype is not supported";
    inType = elt.isBF16()  ? onnx::TensorProto::BFLOAT16
             : elt.isF32() ? onnx::TensorProto::FLOAT
             : elt.isF16() ? onnx::TensorProto::FLOAT16
                           : onnx::TensorProto::INT32;
  }
  if (shape.size() != 2)
    return emitError(loc) << "EyeLike needs a rank-2 input, got rank "
                          << shape.size();
  int32_t type = intAttr(node, "dtype", inType);
  int64_t k = intAttr(node, "k", 0);
  std::vector<int64_t> ones;
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      ones.push_back(j - i == k);
  if (isIntType(type))
    return imp.defineInt(node, IntConstant{shape, ones, type});
  std::optional<Type> elt = imp.elementType(type);
  if (!elt || !isa<FloatType>(*elt))
    return emitError(loc) << "EyeLike of type " << typeName(type)
                          << " is not supported";
  std::vector<double> vals(ones.begin(), ones.end());
  return imp.define(node, denseFloatConstant(imp, loc, shape, *elt, vals));
}

/// The single element of a float `value` tensor attribute.
FailureOr<double> floatScalar(Importer &imp, const onnx::NodeProto &node,
                              const onnx::TensorProto &t) {
  const std::string &raw = t.raw_data();
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    float f;
    if (raw.size() == 4) {
      std::memcpy(&f, raw.data(), 4);
      return double(f);
    }
    if (raw.empty() && t.float_data_size() == 1)
      return double(t.float_data(0));
  } else if (t.data_type() == onnx::TensorProto::BFLOAT16) {
    uint32_t bits = 0;
    if (raw.size() == 2)
      std::memcpy(&bits, raw.data(), 2);
    else if (raw.empty() && t.int32_data_size() == 1)
      bits = uint16_t(t.int32_data(0));
    else
      bits = ~0u;
    if (bits != ~0u) {
      bits <<= 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return double(f);
    }
  } else {
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " value of type " << typeName(t.data_type())
           << " is not supported";
  }
  return emitError(imp.nodeLoc(node))
         << node.op_type() << " value must hold exactly one element";
}

LogicalResult constantOfShapeOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  const IntConstant *shape = imp.intInput(node, 0);
  if (!shape)
    return emitError(loc) << "ConstantOfShape needs a constant shape (an "
                             "int64 initializer or a folded shape "
                             "computation)";
  for (int64_t d : shape->values)
    if (d <= 0)
      return emitError(loc) << "ConstantOfShape dim " << d
                            << "; empty tensors are not supported";
  double value = 0.0;
  Type elt = imp.b.getF32Type();
  if (const onnx::AttributeProto *a = findAttr(node, "value")) {
    FailureOr<double> v = floatScalar(imp, node, a->t());
    if (failed(v))
      return failure();
    value = *v;
    elt = *imp.elementType(a->t().data_type());
  }
  return imp.define(node, imp.filled(loc, shape->values, elt, value));
}

LogicalResult rangeOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  double v[3];
  Type elt;
  for (int i = 0; i < 3; ++i) {
    FailureOr<Value> in = imp.input(node, i);
    if (failed(in))
      return failure();
    elt = tensorType(*in).getElementType();
    std::optional<std::vector<double>> vals = floatConstantValues(*in);
    if (!vals || vals->size() != 1)
      return emitError(loc) << "Range needs constant scalar start, limit and "
                               "delta (the result's length depends on "
                               "them); '"
                            << node.input(i) << "' is not one";
    v[i] = (*vals)[0];
  }
  double start = v[0], limit = v[1], delta = v[2];
  if (delta == 0.0)
    return emitError(loc) << "Range delta is 0";
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((limit - start) / delta)));
  if (n == 0)
    return emitError(loc)
           << "Range result would be empty; empty tensors are not supported";
  std::vector<double> vals;
  for (int64_t i = 0; i < n; ++i)
    vals.push_back(start + i * delta);
  return imp.define(node, denseFloatConstant(imp, loc, {n}, elt, vals));
}
} // namespace

void nki::onnx_import::registerGeneratorOps(OpTable &t) {
  t["Dropout"] = dropoutOp;
  t["Trilu"] = triluOp;
  t["EyeLike"] = eyeLikeOp;
  t["ConstantOfShape"] = constantOfShapeOp;
  t["Range"] = rangeOp;
}
