//===- ShapeUtils.cpp - Shape arithmetic shared by ONNX data movement -----===//

#include "ShapeUtils.h"

#include <set>

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

FailureOr<int64_t> onnx_import::normalizeAxis(Importer &imp,
                                              const onnx::NodeProto &node,
                                              int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " axis " << axis
           << " is out of range for a rank-" << rank << " tensor";
  return axis < 0 ? axis + rank : axis;
}

FailureOr<std::optional<SmallVector<int64_t>>>
onnx_import::axesOperand(Importer &imp, const onnx::NodeProto &node,
                         int64_t inputSince, int inputIdx) {
  if (imp.opset < inputSince)
    return intsAttr(node, "axes");
  if (!imp.hasInput(node, inputIdx))
    return std::optional<SmallVector<int64_t>>();
  const IntConstant *c = imp.intInput(node, inputIdx);
  if (!c)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " needs constant axes (an int64 initializer "
           << "or a folded shape computation); '" << node.input(inputIdx)
           << "' is not one";
  if (c->shape.size() > 1)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " axes must be 1-D, got rank "
           << c->shape.size();
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(c->values.begin(), c->values.end()));
}

/// A 1-D integer operand of Slice: input `i` from opset 10, else attribute
/// `name`; nothing when absent.
static FailureOr<std::optional<SmallVector<int64_t>>>
sliceOperand(Importer &imp, const onnx::NodeProto &node, int i,
             StringRef name) {
  if (imp.opset < 10)
    return intsAttr(node, name);
  if (!imp.hasInput(node, i))
    return std::optional<SmallVector<int64_t>>();
  const IntConstant *c = imp.intInput(node, i);
  if (!c)
    return emitError(imp.nodeLoc(node))
           << "Slice needs constant " << name
           << " (an int64 initializer or a folded shape computation); '"
           << node.input(i) << "' is not one";
  if (c->shape.size() != 1)
    return emitError(imp.nodeLoc(node))
           << "Slice " << name << " must be 1-D, got rank " << c->shape.size();
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(c->values.begin(), c->values.end()));
}

FailureOr<SmallVector<SliceDim>>
onnx_import::sliceDims(Importer &imp, const onnx::NodeProto &node,
                       ArrayRef<int64_t> shape) {
  Location loc = imp.nodeLoc(node);
  int64_t rank = shape.size();
  auto starts = sliceOperand(imp, node, 1, "starts");
  auto ends = sliceOperand(imp, node, 2, "ends");
  auto axes = sliceOperand(imp, node, 3, "axes");
  auto steps = sliceOperand(imp, node, 4, "steps");
  if (failed(starts) || failed(ends) || failed(axes) || failed(steps))
    return failure();
  if (!*starts || !*ends)
    return emitError(loc) << "Slice needs starts and ends";
  size_t n = (*starts)->size();
  if ((*ends)->size() != n || (*axes && (*axes)->size() != n) ||
      (*steps && (*steps)->size() != n))
    return emitError(loc) << "Slice starts, ends, axes and steps differ in "
                             "length";
  SmallVector<SliceDim> dims;
  for (int64_t d : shape)
    dims.push_back({0, d, 1});
  std::set<int64_t> seen;
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = *axes ? (**axes)[i] : int64_t(i);
    FailureOr<int64_t> a = normalizeAxis(imp, node, axis, rank);
    if (failed(a))
      return failure();
    if (!seen.insert(*a).second)
      return emitError(loc) << "Slice axis " << axis << " is repeated";
    int64_t step = *steps ? (**steps)[i] : 1;
    if (step == 0)
      return emitError(loc) << "Slice step on axis " << axis << " is 0";
    int64_t dim = shape[*a];
    int64_t s = (**starts)[i], e = (**ends)[i];
    // INT64_MIN/MAX mean "to the end"; adding dim to a negative value
    // cannot overflow.
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    int64_t size;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size = s > e ? (s - e - step - 1) / -step : 0;
    }
    dims[*a] = {s, size, step};
  }
  return dims;
}

FailureOr<SmallVector<int64_t>>
onnx_import::reshapeTarget(Importer &imp, const onnx::NodeProto &node,
                           ArrayRef<int64_t> inShape, ArrayRef<int64_t> req,
                           bool allowZero) {
  Location loc = imp.nodeLoc(node);
  int64_t rank = inShape.size();
  SmallVector<int64_t> shape;
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < req.size(); ++i) {
    int64_t d = req[i];
    if (d == 0 && !allowZero) {
      if (int64_t(i) >= rank)
        return emitError(loc) << "Reshape copies dim " << i << " of a rank-"
                              << rank << " input";
      d = inShape[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return emitError(loc) << "Reshape shape has more than one -1";
      inferred = i;
      shape.push_back(1);
      continue;
    }
    if (d < 0)
      return emitError(loc) << "Reshape shape has a negative dim " << d;
    known *= d;
    shape.push_back(d);
  }
  int64_t total = numElements(inShape);
  if (inferred >= 0 && known != 0)
    shape[inferred] = total / known;
  if (numElements(shape) != total)
    return emitError(loc) << "Reshape of " << total << " elements to a "
                          << shape.size() << "-D shape with "
                          << numElements(shape) << " elements";
  return shape;
}

FailureOr<SmallVector<int64_t>>
onnx_import::squeezeShape(Importer &imp, const onnx::NodeProto &node,
                          ArrayRef<int64_t> inShape,
                          const std::optional<SmallVector<int64_t>> &axes) {
  int64_t rank = inShape.size();
  std::set<int64_t> drop;
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i)
      if (inShape[i] == 1)
        drop.insert(i);
  } else {
    for (int64_t axis : *axes) {
      FailureOr<int64_t> a = normalizeAxis(imp, node, axis, rank);
      if (failed(a))
        return failure();
      if (inShape[*a] != 1)
        return emitError(imp.nodeLoc(node))
               << "Squeeze axis " << axis << " has size " << inShape[*a]
               << ", not 1";
      drop.insert(*a);
    }
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop.count(i))
      out.push_back(inShape[i]);
  return out;
}

FailureOr<SmallVector<int64_t>>
onnx_import::unsqueezeShape(Importer &imp, const onnx::NodeProto &node,
                            ArrayRef<int64_t> inShape, ArrayRef<int64_t> axes) {
  int64_t rank = inShape.size() + axes.size();
  std::set<int64_t> added;
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(imp, node, axis, rank);
    if (failed(a))
      return failure();
    if (!added.insert(*a).second)
      return emitError(imp.nodeLoc(node))
             << "Unsqueeze axis " << axis << " is repeated";
  }
  SmallVector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(added.count(i) ? 1 : inShape[next++]);
  return out;
}

FailureOr<SmallVector<int64_t>>
onnx_import::expandShape(Importer &imp, const onnx::NodeProto &node,
                         ArrayRef<int64_t> inShape, ArrayRef<int64_t> target) {
  for (int64_t d : target)
    if (d < 0)
      return emitError(imp.nodeLoc(node))
             << "Expand shape has a negative dim " << d;
  SmallVector<SmallVector<int64_t>> shapes = {SmallVector<int64_t>(inShape),
                                              SmallVector<int64_t>(target)};
  std::optional<SmallVector<int64_t>> out = broadcastShape(shapes);
  if (!out)
    return emitError(imp.nodeLoc(node))
           << "Expand shape does not broadcast with the input's";
  return *out;
}

SmallVector<int64_t> onnx_import::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

int64_t onnx_import::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Value onnx_import::denseFloatConstant(Importer &imp, Location loc,
                                      ArrayRef<int64_t> shape, Type elt,
                                      ArrayRef<double> values) {
  const llvm::fltSemantics &sem = cast<FloatType>(elt).getFloatSemantics();
  SmallVector<APFloat> data;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    data.push_back(f);
  }
  return arith::ConstantOp::create(
      imp.b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, elt), data));
}

std::optional<std::vector<double>> onnx_import::floatConstantValues(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<DenseFPElementsAttr>(c.getValue());
  if (!attr)
    return std::nullopt;
  std::vector<double> out;
  for (APFloat f : attr.getValues<APFloat>())
    out.push_back(f.convertToDouble());
  return out;
}

bool onnx_import::isIntType(int32_t t) {
  switch (t) {
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return true;
  default:
    return false;
  }
}

FailureOr<SmallVector<int64_t>>
onnx_import::transposePermutation(Importer &imp, const onnx::NodeProto &node,
                                  int64_t rank) {
  SmallVector<int64_t> perm;
  if (auto p = intsAttr(node, "perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  bool isPerm = int64_t(sorted.size()) == rank;
  for (int64_t i = 0; isPerm && i < rank; ++i)
    isPerm = sorted[i] == i;
  if (!isPerm)
    return emitError(imp.nodeLoc(node))
           << "Transpose perm is not a permutation of " << rank << " dims";
  return perm;
}
