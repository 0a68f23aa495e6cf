//===- IntFolding.cpp - Evaluate integer shape computations at import -----===//
//
// Exported models compute shapes at run time: Shape -> Gather -> Concat ->
// Reshape, Range over a dim, ConstantOfShape of a computed rank. All shapes
// are static here, so these chains are evaluated when the node is imported
// and their results kept as IntConstants; the tensor handlers then see
// constant shapes, axes and pads. A node folds when each of its present
// inputs is an IntConstant (Shape and Size need only their input's type),
// or, for a few arithmetic ops, a small dense float constant; otherwise it
// goes to the op table's handler.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

namespace {
using Ints = std::vector<int64_t>;

/// The present inputs as IntConstants (absent optional inputs as null), or
/// nothing if one is not a compile-time integer tensor.
std::optional<SmallVector<const IntConstant *>>
intInputs(Importer &imp, const onnx::NodeProto &node) {
  SmallVector<const IntConstant *> ins;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!imp.hasInput(node, i)) {
      ins.push_back(nullptr);
      continue;
    }
    const IntConstant *c = imp.intInput(node, i);
    if (!c)
      return std::nullopt;
    ins.push_back(c);
  }
  return ins;
}

FoldResult done(LogicalResult r) {
  return succeeded(r) ? FoldResult::Folded : FoldResult::Failed;
}

/// The index into `in` (broadcast to `out`) of each element of `out`.
Ints broadcastIndices(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<int64_t> outStrides = stridesOf(out), inStrides = stridesOf(in);
  int64_t offset = out.size() - in.size();
  Ints idx;
  for (int64_t e = 0, n = numElements(out); e < n; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t i = (e / outStrides[offset + d]) % out[offset + d];
      if (in[d] != 1)
        at += i * inStrides[d];
    }
    idx.push_back(at);
  }
  return idx;
}

/// fn over the numpy broadcast of `ins`, elementwise.
FailureOr<IntConstant>
broadcastMap(Importer &imp, const onnx::NodeProto &node,
             ArrayRef<const IntConstant *> ins,
             function_ref<FailureOr<int64_t>(ArrayRef<int64_t>)> fn,
             int32_t type) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (const IntConstant *c : ins)
    shapes.push_back(SmallVector<int64_t>(c->shape.begin(), c->shape.end()));
  std::optional<SmallVector<int64_t>> out = broadcastShape(shapes);
  if (!out)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " operand shapes do not broadcast";
  std::vector<Ints> idx;
  for (const IntConstant *c : ins)
    idx.push_back(broadcastIndices(c->shape, *out));
  IntConstant r{Ints(out->begin(), out->end()), {}, type};
  SmallVector<int64_t> args(ins.size());
  for (int64_t e = 0, n = numElements(*out); e < n; ++e) {
    for (size_t i = 0; i < ins.size(); ++i)
      args[i] = ins[i]->values[idx[i][e]];
    FailureOr<int64_t> v = fn(args);
    if (failed(v))
      return failure();
    r.values.push_back(*v);
  }
  return r;
}

/// Element-type conversion of an integer value, wrapping like a C cast.
int64_t convertInt(int64_t v, int32_t to) {
  switch (to) {
  case onnx::TensorProto::BOOL:
    return v != 0;
  case onnx::TensorProto::INT8:
    return int8_t(v);
  case onnx::TensorProto::UINT8:
    return uint8_t(v);
  case onnx::TensorProto::INT16:
    return int16_t(v);
  case onnx::TensorProto::UINT16:
    return uint16_t(v);
  case onnx::TensorProto::INT32:
    return int32_t(v);
  case onnx::TensorProto::UINT32:
    return uint32_t(v);
  default:
    return v;
  }
}

// --- Ops that need only their input's shape. ---

FailureOr<Ints> shapeOfInput(Importer &imp, const onnx::NodeProto &node) {
  if (const IntConstant *c = imp.intInput(node, 0))
    return c->shape;
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> s = tensorType(*x).getShape();
  return Ints(s.begin(), s.end());
}

FoldResult shapeOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Ints> shape = shapeOfInput(imp, node);
  if (failed(shape))
    return FoldResult::Failed;
  int64_t rank = shape->size();
  // Opset 15's start/end: negative counts from the back; both clamp.
  auto clampDim = [&](int64_t d) {
    return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank);
  };
  int64_t start = clampDim(intAttr(node, "start", 0));
  int64_t end = clampDim(intAttr(node, "end", rank));
  Ints dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back((*shape)[i]);
  int64_t n = dims.size();
  return done(imp.defineInt(node, IntConstant{{n}, std::move(dims)}));
}

FoldResult sizeOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Ints> shape = shapeOfInput(imp, node);
  if (failed(shape))
    return FoldResult::Failed;
  return done(imp.defineInt(node, IntConstant{{}, {numElements(*shape)}}));
}

// --- Data movement on integer tensors. ---

FoldResult gatherOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() != 2)
    return FoldResult::NotConstant;
  const IntConstant &data = *(*ins)[0], &indices = *(*ins)[1];
  int64_t rank = data.shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(imp, node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return FoldResult::Failed;
  int64_t dim = data.shape[*axis];
  int64_t outer = numElements(ArrayRef(data.shape).take_front(*axis));
  int64_t inner = numElements(ArrayRef(data.shape).drop_front(*axis + 1));
  IntConstant r{{}, {}, data.type};
  r.shape.assign(data.shape.begin(), data.shape.begin() + *axis);
  r.shape.insert(r.shape.end(), indices.shape.begin(), indices.shape.end());
  r.shape.insert(r.shape.end(), data.shape.begin() + *axis + 1,
                 data.shape.end());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : indices.values) {
      if (i < -dim || i >= dim)
        return done(emitError(imp.nodeLoc(node))
                    << "Gather index " << i << " is out of range for a dim of "
                    << dim);
      if (i < 0)
        i += dim;
      for (int64_t k = 0; k < inner; ++k)
        r.values.push_back(data.values[(o * dim + i) * inner + k]);
    }
  return done(imp.defineInt(node, std::move(r)));
}

FoldResult concatOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->empty() || llvm::is_contained(*ins, nullptr))
    return FoldResult::NotConstant;
  const IntConstant &first = *(*ins)[0];
  int64_t rank = first.shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(imp, node, intAttr(node, "axis", 0), rank);
  if (failed(axis))
    return FoldResult::Failed;
  IntConstant r{first.shape, {}, first.type};
  r.shape[*axis] = 0;
  for (const IntConstant *c : *ins) {
    bool same = int64_t(c->shape.size()) == rank;
    for (int64_t d = 0; same && d < rank; ++d)
      same = d == *axis || c->shape[d] == first.shape[d];
    if (!same)
      return done(emitError(imp.nodeLoc(node))
                  << "Concat inputs differ in shape outside axis " << *axis);
    r.shape[*axis] += c->shape[*axis];
  }
  int64_t outer = numElements(ArrayRef(first.shape).take_front(*axis));
  for (int64_t o = 0; o < outer; ++o)
    for (const IntConstant *c : *ins) {
      int64_t chunk = numElements(ArrayRef(c->shape).drop_front(*axis));
      r.values.insert(r.values.end(), c->values.begin() + o * chunk,
                      c->values.begin() + (o + 1) * chunk);
    }
  return done(imp.defineInt(node, std::move(r)));
}

FoldResult sliceOp(Importer &imp, const onnx::NodeProto &node) {
  const IntConstant *data = imp.intInput(node, 0);
  if (!data)
    return FoldResult::NotConstant;
  FailureOr<SmallVector<SliceDim>> dims = sliceDims(imp, node, data->shape);
  if (failed(dims))
    return FoldResult::Failed;
  IntConstant r{{}, {}, data->type};
  for (const SliceDim &d : *dims)
    r.shape.push_back(d.size);
  SmallVector<int64_t> inStrides = stridesOf(data->shape),
                       outStrides = stridesOf(r.shape);
  for (int64_t e = 0, n = numElements(r.shape); e < n; ++e) {
    int64_t at = 0;
    for (size_t d = 0; d < dims->size(); ++d) {
      int64_t i = (e / outStrides[d]) % r.shape[d];
      at += ((*dims)[d].start + i * (*dims)[d].step) * inStrides[d];
    }
    r.values.push_back(data->values[at]);
  }
  return done(imp.defineInt(node, std::move(r)));
}

FoldResult squeezeOp(Importer &imp, const onnx::NodeProto &node) {
  const IntConstant *data = imp.intInput(node, 0);
  if (!data)
    return FoldResult::NotConstant;
  auto axes = axesOperand(imp, node, 13);
  if (failed(axes))
    return FoldResult::Failed;
  auto shape = squeezeShape(imp, node, data->shape, *axes);
  if (failed(shape))
    return FoldResult::Failed;
  return done(
      imp.defineInt(node, IntConstant{Ints(shape->begin(), shape->end()),
                                      data->values, data->type}));
}

FoldResult unsqueezeOp(Importer &imp, const onnx::NodeProto &node) {
  const IntConstant *data = imp.intInput(node, 0);
  if (!data)
    return FoldResult::NotConstant;
  auto axes = axesOperand(imp, node, 13);
  if (failed(axes))
    return FoldResult::Failed;
  if (!*axes)
    return done(emitError(imp.nodeLoc(node)) << "Unsqueeze needs axes");
  auto shape = unsqueezeShape(imp, node, data->shape, **axes);
  if (failed(shape))
    return FoldResult::Failed;
  return done(
      imp.defineInt(node, IntConstant{Ints(shape->begin(), shape->end()),
                                      data->values, data->type}));
}

FoldResult reshapeOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() < 2 || !(*ins)[1])
    return FoldResult::NotConstant;
  const IntConstant &data = *(*ins)[0];
  auto shape = reshapeTarget(imp, node, data.shape, (*ins)[1]->values,
                             intAttr(node, "allowzero", 0) != 0);
  if (failed(shape))
    return FoldResult::Failed;
  return done(
      imp.defineInt(node, IntConstant{Ints(shape->begin(), shape->end()),
                                      data.values, data.type}));
}

FoldResult expandOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() != 2)
    return FoldResult::NotConstant;
  const IntConstant &data = *(*ins)[0];
  auto shape = expandShape(imp, node, data.shape, (*ins)[1]->values);
  if (failed(shape))
    return FoldResult::Failed;
  IntConstant r{Ints(shape->begin(), shape->end()), {}, data.type};
  for (int64_t i : broadcastIndices(data.shape, r.shape))
    r.values.push_back(data.values[i]);
  return done(imp.defineInt(node, std::move(r)));
}

/// Transpose of an integer tensor: torch's F.pad exports its computed pads
/// as [2, n] rows transposed and flattened (a Swin Transformer's window
/// padding, `(window - size % window) % window`).
FoldResult transposeOp(Importer &imp, const onnx::NodeProto &node) {
  const IntConstant *data = imp.intInput(node, 0);
  if (!data)
    return FoldResult::NotConstant;
  int64_t rank = int64_t(data->shape.size());
  FailureOr<SmallVector<int64_t>> perm = transposePermutation(imp, node, rank);
  if (failed(perm))
    return FoldResult::Failed;
  IntConstant r{Ints(rank), {}, data->type};
  for (int64_t d = 0; d < rank; ++d)
    r.shape[d] = data->shape[(*perm)[d]];
  SmallVector<int64_t> inStrides = stridesOf(data->shape),
                       outStrides = stridesOf(r.shape);
  r.values.resize(data->values.size());
  for (int64_t e = 0, n = int64_t(r.values.size()); e < n; ++e) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      at += (e / outStrides[d]) % r.shape[d] * inStrides[(*perm)[d]];
    r.values[e] = data->values[at];
  }
  return done(imp.defineInt(node, std::move(r)));
}

// --- Casts: integers to integers or floats, float constants to integers. ---

FoldResult castTo(Importer &imp, const onnx::NodeProto &node, int32_t to) {
  Location loc = imp.nodeLoc(node);
  if (const IntConstant *c = imp.intInput(node, 0)) {
    if (isIntType(to)) {
      IntConstant r{c->shape, {}, to};
      for (int64_t v : c->values)
        r.values.push_back(convertInt(v, to));
      return done(imp.defineInt(node, std::move(r)));
    }
    std::optional<Type> elt = imp.elementType(to);
    if (!elt)
      return done(emitError(loc) << node.op_type() << " to " << typeName(to)
                                 << " is not supported");
    std::vector<double> vals(c->values.begin(), c->values.end());
    SmallVector<int64_t> shape(c->shape.begin(), c->shape.end());
    return done(
        imp.define(node, denseFloatConstant(imp, loc, shape, *elt, vals)));
  }
  if (!isIntType(to) || !imp.hasInput(node, 0))
    return FoldResult::NotConstant;
  auto it = imp.values.find(node.input(0));
  if (it == imp.values.end())
    return FoldResult::NotConstant;
  std::optional<std::vector<double>> vals = floatConstantValues(it->second);
  if (!vals)
    return FoldResult::NotConstant;
  ArrayRef<int64_t> s = tensorType(it->second).getShape();
  IntConstant r{Ints(s.begin(), s.end()), {}, to};
  for (double v : *vals) {
    // Float to integer truncates toward zero; out of range is undefined.
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
      return done(emitError(loc) << node.op_type() << " of " << v << " to "
                                 << typeName(to) << " is out of range");
    r.values.push_back(
        to == onnx::TensorProto::BOOL ? v != 0.0 : convertInt(int64_t(v), to));
  }
  return done(imp.defineInt(node, std::move(r)));
}

FoldResult castOp(Importer &imp, const onnx::NodeProto &node) {
  return castTo(imp, node, intAttr(node, "to", onnx::TensorProto::UNDEFINED));
}

FoldResult castLikeOp(Importer &imp, const onnx::NodeProto &node) {
  if (const IntConstant *like = imp.intInput(node, 1))
    return castTo(imp, node, like->type);
  auto it =
      imp.hasInput(node, 1) ? imp.values.find(node.input(1)) : imp.values.end();
  if (it == imp.values.end() || !imp.intInput(node, 0))
    return FoldResult::NotConstant;
  Type elt = tensorType(it->second).getElementType();
  return castTo(imp, node,
                elt.isBF16() ? onnx::TensorProto::BFLOAT16
                             : onnx::TensorProto::FLOAT);
}

// --- Arithmetic and logic with numpy broadcasting. ---

/// Shape arithmetic done in floats (Shape -> Cast -> Mul -> Floor -> Cast
/// in resize exports): an elementwise op whose inputs are all small dense
/// float constants of one element type becomes a new constant. Each op is
/// computed in double and rounded once to the element type, which is the
/// correctly rounded result for + - * / on f32 or bf16 operands.
FoldResult foldFloats(Importer &imp, const onnx::NodeProto &node,
                      function_ref<double(ArrayRef<double>)> fn) {
  // Shapes, scales and sizes only: larger constants stay runtime work.
  constexpr int64_t kMaxElements = 1024;
  SmallVector<SmallVector<int64_t>> shapes;
  std::vector<std::vector<double>> vals;
  Type elt;
  for (int i = 0; i < node.input_size(); ++i) {
    auto it = imp.hasInput(node, i) ? imp.values.find(node.input(i))
                                    : imp.values.end();
    if (it == imp.values.end())
      return FoldResult::NotConstant;
    RankedTensorType t = tensorType(it->second);
    if ((elt && t.getElementType() != elt) || t.getNumElements() > kMaxElements)
      return FoldResult::NotConstant;
    elt = t.getElementType();
    std::optional<std::vector<double>> v = floatConstantValues(it->second);
    if (!v)
      return FoldResult::NotConstant;
    shapes.push_back(shapeOf(it->second));
    vals.push_back(std::move(*v));
  }
  std::optional<SmallVector<int64_t>> out = broadcastShape(shapes);
  if (shapes.empty() || !out)
    return FoldResult::NotConstant;
  std::vector<Ints> idx;
  for (auto &s : shapes)
    idx.push_back(broadcastIndices(s, *out));
  std::vector<double> result;
  SmallVector<double> args(vals.size());
  for (int64_t e = 0, n = numElements(*out); e < n; ++e) {
    for (size_t i = 0; i < vals.size(); ++i)
      args[i] = vals[i][idx[i][e]];
    result.push_back(fn(args));
  }
  return done(imp.define(
      node, denseFloatConstant(imp, imp.nodeLoc(node), *out, elt, result)));
}

template <typename Fn>
FoldResult binary(Importer &imp, const onnx::NodeProto &node, Fn fn,
                  bool boolResult = false) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() != 2 || llvm::is_contained(*ins, nullptr))
    return FoldResult::NotConstant;
  int32_t type = boolResult ? onnx::TensorProto::BOOL : (*ins)[0]->type;
  FailureOr<IntConstant> r = broadcastMap(
      imp, node, *ins,
      [&](ArrayRef<int64_t> a) -> FailureOr<int64_t> { return fn(a[0], a[1]); },
      type);
  return failed(r) ? FoldResult::Failed : done(imp.defineInt(node, *r));
}

FoldResult addOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r =
      binary(imp, node,
             [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a + b; });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) { return a[0] + a[1]; });
}
FoldResult subOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r =
      binary(imp, node,
             [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a - b; });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) { return a[0] - a[1]; });
}
FoldResult mulOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r =
      binary(imp, node,
             [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a * b; });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) { return a[0] * a[1]; });
}
FoldResult divOp(Importer &imp, const onnx::NodeProto &node) {
  // Integer Div truncates toward zero, as the ONNX runtimes do.
  FoldResult r =
      binary(imp, node, [&](int64_t a, int64_t b) -> FailureOr<int64_t> {
        if (b == 0)
          return emitError(imp.nodeLoc(node)) << "Div of integers by zero";
        return a / b;
      });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) { return a[0] / a[1]; });
}
FoldResult modOp(Importer &imp, const onnx::NodeProto &node) {
  bool fmod = intAttr(node, "fmod", 0) != 0;
  return binary(imp, node, [&](int64_t a, int64_t b) -> FailureOr<int64_t> {
    if (b == 0)
      return emitError(imp.nodeLoc(node)) << "Mod of integers by zero";
    int64_t r = a % b;
    // Without fmod the result takes the divisor's sign (Python's %).
    if (!fmod && r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  });
}
FoldResult maxOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r =
      binary(imp, node, [](int64_t a, int64_t b) -> FailureOr<int64_t> {
        return std::max(a, b);
      });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) {
    double m = a[0];
    for (double v : a)
      m = std::isnan(v) || std::isnan(m) ? NAN : std::max(m, v);
    return m;
  });
}
FoldResult minOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r =
      binary(imp, node, [](int64_t a, int64_t b) -> FailureOr<int64_t> {
        return std::min(a, b);
      });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) {
    double m = a[0];
    for (double v : a)
      m = std::isnan(v) || std::isnan(m) ? NAN : std::min(m, v);
    return m;
  });
}
FoldResult equalOp(Importer &imp, const onnx::NodeProto &node) {
  return binary(
      imp, node,
      [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a == b; }, true);
}
FoldResult lessOp(Importer &imp, const onnx::NodeProto &node) {
  return binary(
      imp, node,
      [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a < b; }, true);
}
FoldResult greaterOp(Importer &imp, const onnx::NodeProto &node) {
  return binary(
      imp, node,
      [](int64_t a, int64_t b) -> FailureOr<int64_t> { return a > b; }, true);
}

template <typename Fn>
FoldResult unary(Importer &imp, const onnx::NodeProto &node, Fn fn) {
  const IntConstant *c = imp.intInput(node, 0);
  if (!c)
    return FoldResult::NotConstant;
  IntConstant r{c->shape, {}, c->type};
  for (int64_t v : c->values)
    r.values.push_back(fn(v));
  return done(imp.defineInt(node, std::move(r)));
}
FoldResult negOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r = unary(imp, node, [](int64_t v) { return -v; });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node, [](ArrayRef<double> a) { return -a[0]; });
}
FoldResult absOp(Importer &imp, const onnx::NodeProto &node) {
  FoldResult r = unary(imp, node, [](int64_t v) { return v < 0 ? -v : v; });
  if (r != FoldResult::NotConstant)
    return r;
  return foldFloats(imp, node,
                    [](ArrayRef<double> a) { return std::fabs(a[0]); });
}
FoldResult notOp(Importer &imp, const onnx::NodeProto &node) {
  return unary(imp, node, [](int64_t v) -> int64_t { return v == 0; });
}

FoldResult floorOp(Importer &imp, const onnx::NodeProto &node) {
  return foldFloats(imp, node,
                    [](ArrayRef<double> a) { return std::floor(a[0]); });
}
FoldResult ceilOp(Importer &imp, const onnx::NodeProto &node) {
  return foldFloats(imp, node,
                    [](ArrayRef<double> a) { return std::ceil(a[0]); });
}

FoldResult whereOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() != 3 || llvm::is_contained(*ins, nullptr))
    return FoldResult::NotConstant;
  FailureOr<IntConstant> r = broadcastMap(
      imp, node, *ins,
      [](ArrayRef<int64_t> a) -> FailureOr<int64_t> {
        return a[0] ? a[1] : a[2];
      },
      (*ins)[1]->type);
  return failed(r) ? FoldResult::Failed : done(imp.defineInt(node, *r));
}

// --- Generators. ---

FoldResult rangeOp(Importer &imp, const onnx::NodeProto &node) {
  auto ins = intInputs(imp, node);
  if (!ins || ins->size() != 3 || llvm::is_contained(*ins, nullptr))
    return FoldResult::NotConstant;
  for (const IntConstant *c : *ins)
    if (c->values.size() != 1)
      return done(emitError(imp.nodeLoc(node))
                  << "Range start, limit and delta must be scalars");
  int64_t start = (*ins)[0]->values[0], limit = (*ins)[1]->values[0],
          delta = (*ins)[2]->values[0];
  if (delta == 0)
    return done(emitError(imp.nodeLoc(node)) << "Range delta is 0");
  int64_t n =
      std::max<int64_t>(0, delta > 0 ? (limit - start + delta - 1) / delta
                                     : (start - limit - delta - 1) / -delta);
  IntConstant r{{n}, {}, (*ins)[0]->type};
  for (int64_t i = 0; i < n; ++i)
    r.values.push_back(start + i * delta);
  return done(imp.defineInt(node, std::move(r)));
}

/// The single value of a ConstantOfShape `value` tensor with an integer
/// element type.
FailureOr<int64_t> intScalar(Importer &imp, const onnx::NodeProto &node,
                             const onnx::TensorProto &t) {
  std::optional<int64_t> v;
  const std::string &raw = t.raw_data();
  int32_t type = t.data_type();
  size_t width =
      type == onnx::TensorProto::INT64 || type == onnx::TensorProto::UINT64 ? 8
      : type == onnx::TensorProto::INT32 || type == onnx::TensorProto::UINT32
          ? 4
      : type == onnx::TensorProto::INT16 || type == onnx::TensorProto::UINT16
          ? 2
          : 1;
  if (raw.size() == width) {
    int64_t x = 0;
    std::memcpy(&x, raw.data(), width);
    v = convertInt(x, type);
  } else if (raw.empty() && t.int64_data_size() == 1) {
    v = t.int64_data(0);
  } else if (raw.empty() && t.int32_data_size() == 1) {
    v = convertInt(t.int32_data(0), type);
  }
  if (!v)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " value must hold exactly one element";
  return *v;
}

FoldResult constantOfShapeOp(Importer &imp, const onnx::NodeProto &node) {
  const onnx::AttributeProto *value = findAttr(node, "value");
  // Float fills are runtime tensors (Generators.cpp).
  if (!value || !isIntType(value->t().data_type()))
    return FoldResult::NotConstant;
  const IntConstant *shape = imp.intInput(node, 0);
  if (!shape)
    return FoldResult::NotConstant;
  FailureOr<int64_t> v = intScalar(imp, node, value->t());
  if (failed(v))
    return FoldResult::Failed;
  for (int64_t d : shape->values)
    if (d < 0)
      return done(emitError(imp.nodeLoc(node))
                  << "ConstantOfShape shape has a negative dim " << d);
  return done(imp.defineInt(
      node, IntConstant{shape->values, Ints(numElements(shape->values), *v),
                        value->t().data_type()}));
}

/// ReduceSum/Prod/Max/Min over constant integers.
template <typename Fn>
FoldResult reduce(Importer &imp, const onnx::NodeProto &node,
                  int64_t axesInputSince, int64_t init, Fn fn) {
  const IntConstant *data = imp.intInput(node, 0);
  if (!data)
    return FoldResult::NotConstant;
  auto axes = axesOperand(imp, node, axesInputSince);
  if (failed(axes))
    return FoldResult::Failed;
  int64_t rank = data->shape.size();
  SmallVector<bool> reduced(rank, false);
  if (*axes && !(*axes)->empty()) {
    for (int64_t axis : **axes) {
      FailureOr<int64_t> a = normalizeAxis(imp, node, axis, rank);
      if (failed(a))
        return FoldResult::Failed;
      reduced[*a] = true;
    }
  } else if (intAttr(node, "noop_with_empty_axes", 0)) {
    return done(imp.defineInt(node, *data));
  } else {
    reduced.assign(rank, true);
  }
  bool keep = intAttr(node, "keepdims", 1) != 0;
  Ints kept, out;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : data->shape[d]);
    if (!reduced[d] || keep)
      out.push_back(kept.back());
  }
  Ints acc(numElements(kept), init);
  SmallVector<int64_t> inStrides = stridesOf(data->shape),
                       keptStrides = stridesOf(kept);
  for (int64_t e = 0, n = data->values.size(); e < n; ++e) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        at += (e / inStrides[d]) % data->shape[d] * keptStrides[d];
    acc[at] = fn(acc[at], data->values[e]);
  }
  return done(imp.defineInt(node, IntConstant{out, acc, data->type}));
}

FoldResult reduceSumOp(Importer &imp, const onnx::NodeProto &node) {
  return reduce(imp, node, 13, 0, [](int64_t a, int64_t b) { return a + b; });
}
FoldResult reduceProdOp(Importer &imp, const onnx::NodeProto &node) {
  return reduce(imp, node, 18, 1, [](int64_t a, int64_t b) { return a * b; });
}
FoldResult reduceMaxOp(Importer &imp, const onnx::NodeProto &node) {
  return reduce(imp, node, 18, std::numeric_limits<int64_t>::min(),
                [](int64_t a, int64_t b) { return std::max(a, b); });
}
FoldResult reduceMinOp(Importer &imp, const onnx::NodeProto &node) {
  return reduce(imp, node, 18, std::numeric_limits<int64_t>::max(),
                [](int64_t a, int64_t b) { return std::min(a, b); });
}
} // namespace

const llvm::StringMap<IntFolder> &onnx_import::intFolders() {
  static const llvm::StringMap<IntFolder> table = {
      {"Shape", shapeOp},
      {"Size", sizeOp},
      {"Gather", gatherOp},
      {"Concat", concatOp},
      {"Slice", sliceOp},
      {"Squeeze", squeezeOp},
      {"Unsqueeze", unsqueezeOp},
      {"Reshape", reshapeOp},
      {"Expand", expandOp},
      {"Transpose", transposeOp},
      {"Cast", castOp},
      {"CastLike", castLikeOp},
      {"Add", addOp},
      {"Sub", subOp},
      {"Mul", mulOp},
      {"Div", divOp},
      {"Mod", modOp},
      {"Max", maxOp},
      {"Min", minOp},
      {"Equal", equalOp},
      {"Less", lessOp},
      {"Greater", greaterOp},
      {"Neg", negOp},
      {"Abs", absOp},
      {"Not", notOp},
      {"Floor", floorOp},
      {"Ceil", ceilOp},
      {"Where", whereOp},
      {"Range", rangeOp},
      {"ConstantOfShape", constantOfShapeOp},
      {"ReduceSum", reduceSumOp},
      {"ReduceProd", reduceProdOp},
      {"ReduceMax", reduceMaxOp},
      {"ReduceMin", reduceMinOp},
  };
  return table;
}
