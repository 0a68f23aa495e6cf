//===- DataMovement.cpp - ONNX Concat, Split, Slice, Gather, Pad, ... -----===//
//
// Ops that move float tensor elements without computing on them. They
// become tensor.extract_slice / concat / pad, reshapes (collapse + expand)
// and linalg.transpose / broadcasting generics, which nki-compile lowers to
// DMAs and copies. Their integer operands (axes, starts, pads, repeats,
// indices) must be compile-time IntConstants; folded shape chains
// (IntFolding.cpp) count. Nothing here reads a value at run time to decide
// a shape.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

namespace {

/// `x[offsets : offsets + sizes]` with unit strides.
Value slice(Importer &imp, Location loc, Value x, ArrayRef<int64_t> offsets,
            ArrayRef<int64_t> sizes) {
  if (tensorType(x).getShape() == sizes)
    return x;
  SmallVector<int64_t> strides(sizes.size(), 1);
  MLIRContext *ctx = imp.ctx;
  return tensor::ExtractSliceOp::create(imp.b, loc, x,
                                        getAsIndexOpFoldResult(ctx, offsets),
                                        getAsIndexOpFoldResult(ctx, sizes),
                                        getAsIndexOpFoldResult(ctx, strides))
      .getResult();
}

/// `x` restricted to [start, start + size) along `axis`.
Value sliceAxis(Importer &imp, Location loc, Value x, int64_t axis,
                int64_t start, int64_t size) {
  SmallVector<int64_t> offsets(tensorType(x).getRank(), 0);
  SmallVector<int64_t> sizes = shapeOf(x);
  offsets[axis] = start;
  sizes[axis] = size;
  return slice(imp, loc, x, offsets, sizes);
}

Value concat(Importer &imp, Location loc, ArrayRef<Value> parts, int64_t axis) {
  if (parts.size() == 1)
    return parts.front();
  return tensor::ConcatOp::create(imp.b, loc, axis, parts).getResult();
}

/// Elements `indices` (in range, in order, repeats allowed) of `x` along
/// `axis`: runs of consecutive indices become one slice each.
Value pickAlong(Importer &imp, Location loc, Value x, int64_t axis,
                ArrayRef<int64_t> indices) {
  SmallVector<Value> parts;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i + 1;
    while (j < indices.size() && indices[j] == indices[j - 1] + 1)
      ++j;
    parts.push_back(sliceAxis(imp, loc, x, axis, indices[i], j - i));
    i = j;
  }
  return concat(imp, loc, parts, axis);
}

LogicalResult requireNonEmpty(Importer &imp, const onnx::NodeProto &node,
                              ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return emitError(imp.nodeLoc(node))
           << node.op_type()
           << " result would be empty; empty tensors are not supported";
  return success();
}

/// A constant integer operand: input `i`, or attribute `name` before opset
/// `inputSince`; nothing when absent.
FailureOr<std::optional<SmallVector<int64_t>>>
intOperand(Importer &imp, const onnx::NodeProto &node, int i, StringRef name,
           int64_t inputSince) {
  if (imp.opset < inputSince)
    return intsAttr(node, name);
  if (!imp.hasInput(node, i))
    return std::optional<SmallVector<int64_t>>();
  const IntConstant *c = imp.intInput(node, i);
  if (!c)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " needs a constant " << name
           << " (an int64 initializer or a folded shape computation); '"
           << node.input(i) << "' is not one";
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(c->values.begin(), c->values.end()));
}

// --- Concat, Split, Slice. ---

LogicalResult concatOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, node.input_size());
  if (failed(ins))
    return failure();
  if (ins->empty())
    return emitError(loc) << "Concat has no inputs";
  RankedTensorType first = tensorType((*ins)[0]);
  FailureOr<int64_t> axis =
      normalizeAxis(imp, node, intAttr(node, "axis", 0), first.getRank());
  if (failed(axis))
    return failure();
  for (Value v : *ins) {
    RankedTensorType t = tensorType(v);
    bool same = t.getRank() == first.getRank() &&
                t.getElementType() == first.getElementType();
    for (int64_t d = 0; same && d < t.getRank(); ++d)
      same = d == *axis || t.getDimSize(d) == first.getDimSize(d);
    if (!same)
      return emitError(loc) << "Concat inputs " << first << " and " << t
                            << " differ outside axis " << *axis;
  }
  return imp.define(node, concat(imp, loc, *ins, *axis));
}

LogicalResult splitOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(imp, node, intAttr(node, "axis", 0), t.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = t.getDimSize(*axis);
  auto split = intOperand(imp, node, 1, "split", 13);
  if (failed(split))
    return failure();
  SmallVector<int64_t> sizes;
  int64_t n = node.output_size();
  if (*split) {
    sizes = **split;
    if (int64_t(sizes.size()) != n)
      return emitError(loc) << "Split has " << n << " outputs but "
                            << sizes.size() << " split sizes";
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0)
        return emitError(loc) << "Split size " << s << " is negative";
      total += s;
    }
    if (total != dim)
      return emitError(loc) << "Split sizes add up to " << total
                            << " but the axis has " << dim;
  } else {
    // Opset 18's num_outputs: equal parts, the last one smaller.
    if (const onnx::AttributeProto *a = findAttr(node, "num_outputs"))
      if (a->i() != n)
        return emitError(loc) << "Split num_outputs " << a->i() << " but the "
                              << "node has " << n << " outputs";
    int64_t part = (dim + n - 1) / n;
    if (!findAttr(node, "num_outputs") && dim % n != 0)
      return emitError(loc)
             << "Split of " << dim << " into " << n << " equal parts";
    for (int64_t i = 0, left = dim; i < n; ++i, left -= part)
      sizes.push_back(std::min(part, left));
  }
  int64_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (sizes[i] == 0 && !node.output(i).empty())
      return emitError(loc) << "Split output " << i
                            << " would be empty; empty tensors are not "
                               "supported";
    if (sizes[i] != 0 &&
        failed(imp.define(node, sliceAxis(imp, loc, *x, *axis, start, sizes[i]),
                          i)))
      return failure();
    start += sizes[i];
  }
  return success();
}

LogicalResult sliceOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<SliceDim>> dims = sliceDims(imp, node, shapeOf(*x));
  if (failed(dims))
    return failure();
  SmallVector<int64_t> offsets, sizes, strides;
  for (const SliceDim &d : *dims)
    sizes.push_back(d.size);
  if (failed(requireNonEmpty(imp, node, sizes)))
    return failure();
  // Unit steps are one slice; other steps pick their indices along each
  // axis (runs of consecutive indices stay one slice).
  Value v = *x;
  SmallVector<int64_t> unitOffsets;
  for (auto [axis, d] : llvm::enumerate(*dims))
    unitOffsets.push_back(d.step == 1 ? d.start : 0);
  SmallVector<int64_t> unitSizes = shapeOf(v);
  for (auto [axis, d] : llvm::enumerate(*dims))
    if (d.step == 1)
      unitSizes[axis] = d.size;
  v = slice(imp, loc, v, unitOffsets, unitSizes);
  for (auto [axis, d] : llvm::enumerate(*dims)) {
    if (d.step == 1)
      continue;
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < d.size; ++i)
      indices.push_back(d.start + i * d.step);
    v = pickAlong(imp, loc, v, axis, indices);
  }
  return imp.define(node, v);
}

// --- Reshapes: Squeeze, Unsqueeze. ---

LogicalResult squeezeOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  auto axes = axesOperand(imp, node, 13);
  if (failed(axes))
    return failure();
  auto shape = squeezeShape(imp, node, shapeOf(*x), *axes);
  if (failed(shape))
    return failure();
  return imp.define(node, imp.reshape(imp.nodeLoc(node), *x, *shape));
}

LogicalResult unsqueezeOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  auto axes = axesOperand(imp, node, 13);
  if (failed(axes))
    return failure();
  if (!*axes)
    return emitError(imp.nodeLoc(node)) << "Unsqueeze needs axes";
  auto shape = unsqueezeShape(imp, node, shapeOf(*x), **axes);
  if (failed(shape))
    return failure();
  return imp.define(node, imp.reshape(imp.nodeLoc(node), *x, *shape));
}

// --- Gather, Expand, Tile. ---

/// Gather with runtime indices: the gathered axis is moved last, x viewed as
/// [M, D] and out[m, n] = x[m, idx[n]] (Importer::gatherLast).
LogicalResult gatherRuntime(Importer &imp, const onnx::NodeProto &node, Value x,
                            Value idx, int64_t axis) {
  Location loc = imp.nodeLoc(node);
  RankedTensorType t = tensorType(x), it = tensorType(idx);
  auto idxElt = dyn_cast<IntegerType>(it.getElementType());
  if (!idxElt || idxElt.getWidth() < 8)
    return emitError(loc) << "Gather indices must be integers, got " << it;
  int64_t rank = t.getRank(), dim = t.getDimSize(axis);
  SmallVector<int64_t> perm, rest;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) {
      perm.push_back(d);
      rest.push_back(t.getDimSize(d));
    }
  perm.push_back(axis);
  Value xt = axis == rank - 1 ? x : imp.transpose(loc, x, perm);
  int64_t m = numElements(rest), n = it.getNumElements();
  SmallVector<int64_t> outShape(t.getShape().take_front(axis));
  outShape.append(it.getShape().begin(), it.getShape().end());
  outShape.append(t.getShape().begin() + axis + 1, t.getShape().end());
  if (failed(requireNonEmpty(imp, node, outShape)))
    return failure();
  Value x2 = imp.reshape(loc, xt, {m, dim});
  Value i1 = imp.reshape(loc, idx, {n});
  Value g = imp.gatherLast(loc, x2, i1, /*perRow=*/false);
  // [M, N] is [outer..., inner..., idx...]: move the index dims after outer.
  SmallVector<int64_t> mid(rest);
  mid.append(it.getShape().begin(), it.getShape().end());
  g = imp.reshape(loc, g, mid);
  int64_t ir = it.getRank(), inner = rank - 1 - axis;
  SmallVector<int64_t> back;
  for (int64_t d = 0; d < axis; ++d)
    back.push_back(d);
  for (int64_t d = 0; d < ir; ++d)
    back.push_back(rank - 1 + d);
  for (int64_t d = 0; d < inner; ++d)
    back.push_back(axis + d);
  bool identity = llvm::equal(back, llvm::seq<int64_t>(0, back.size()));
  return imp.define(node, identity ? g : imp.transpose(loc, g, back));
}

LogicalResult gatherOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(imp, node, intAttr(node, "axis", 0), t.getRank());
  if (failed(axis))
    return failure();
  const IntConstant *indices = imp.intInput(node, 1);
  if (!indices) {
    FailureOr<Value> idx = imp.input(node, 1);
    if (failed(idx))
      return failure();
    return gatherRuntime(imp, node, *x, *idx, *axis);
  }
  int64_t dim = t.getDimSize(*axis);
  SmallVector<int64_t> idx;
  for (int64_t i : indices->values) {
    if (i < -dim || i >= dim)
      return emitError(loc)
             << "Gather index " << i << " is out of range for a dim of " << dim;
    idx.push_back(i < 0 ? i + dim : i);
  }
  SmallVector<int64_t> shape(t.getShape().take_front(*axis));
  shape.append(indices->shape.begin(), indices->shape.end());
  shape.append(t.getShape().begin() + *axis + 1, t.getShape().end());
  if (failed(requireNonEmpty(imp, node, shape)))
    return failure();
  Value picked = pickAlong(imp, loc, *x, *axis, idx);
  return imp.define(node, imp.reshape(loc, picked, shape));
}

LogicalResult expandOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  const IntConstant *target = imp.intInput(node, 1);
  if (!target)
    return emitError(loc) << "Expand needs a constant shape (an int64 "
                             "initializer or a folded shape computation)";
  auto shape = expandShape(imp, node, shapeOf(*x), target->values);
  if (failed(shape) || failed(requireNonEmpty(imp, node, *shape)))
    return failure();
  return imp.define(node, broadcastValue(imp, loc, *x, *shape));
}

LogicalResult tileOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  const IntConstant *repeats = imp.intInput(node, 1);
  if (!repeats)
    return emitError(loc) << "Tile needs constant repeats (an int64 "
                             "initializer or a folded shape computation)";
  int64_t rank = tensorType(*x).getRank();
  if (int64_t(repeats->values.size()) != rank)
    return emitError(loc) << "Tile has " << repeats->values.size()
                          << " repeats for a rank-" << rank << " input";
  Value v = *x;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t r = repeats->values[d];
    if (r < 1)
      return emitError(loc) << "Tile repeat " << r << " on axis " << d
                            << "; it must be positive";
    v = concat(imp, loc, SmallVector<Value>(r, v), d);
  }
  return imp.define(node, v);
}

// --- Pad. ---

LogicalResult padOp(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  int64_t rank = t.getRank();
  // Opset 1 calls the attribute `paddings`; 2 to 10 `pads`; from 11 the
  // pads, value and (18) axes are inputs.
  auto pads = intOperand(imp, node, 1, imp.opset < 2 ? "paddings" : "pads", 11);
  if (failed(pads))
    return failure();
  if (!*pads)
    return emitError(loc) << "Pad needs pads";
  SmallVector<int64_t> axes;
  if (imp.opset >= 18 && imp.hasInput(node, 3)) {
    auto a = intOperand(imp, node, 3, "axes", 18);
    if (failed(a))
      return failure();
    for (int64_t axis : **a) {
      FailureOr<int64_t> n = normalizeAxis(imp, node, axis, rank);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t n = axes.size();
  if (int64_t((*pads)->size()) != 2 * n)
    return emitError(loc) << "Pad has " << (*pads)->size() << " pads for " << n
                          << " axes; expected " << 2 * n;
  SmallVector<int64_t> before(rank, 0), after(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    before[axes[i]] = (**pads)[i];
    after[axes[i]] = (**pads)[i + n];
  }
  // Negative pads crop first.
  Value v = *x;
  SmallVector<int64_t> offsets(rank, 0), sizes = shapeOf(v);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t cropB = std::max<int64_t>(0, -before[d]);
    int64_t cropA = std::max<int64_t>(0, -after[d]);
    offsets[d] = cropB;
    sizes[d] -= cropB + cropA;
    before[d] = std::max<int64_t>(0, before[d]);
    after[d] = std::max<int64_t>(0, after[d]);
    if (sizes[d] < 0)
      return emitError(loc) << "Pad crops more than axis " << d << " holds";
  }
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    outShape.push_back(sizes[d] + before[d] + after[d]);
  if (failed(requireNonEmpty(imp, node, outShape)) ||
      failed(requireNonEmpty(imp, node, sizes)))
    return failure();
  v = slice(imp, loc, v, offsets, sizes);

  std::string mode = stringAttr(node, "mode", "constant");
  if (mode == "constant") {
    double value = 0.0;
    if (imp.opset < 11) {
      value = floatAttr(node, "value", 0.0f);
    } else if (const IntConstant *c = imp.intInput(node, 2)) {
      if (c->values.size() != 1)
        return emitError(loc) << "Pad value must be a scalar";
      value = double(c->values[0]);
    } else if (imp.hasInput(node, 2)) {
      FailureOr<Value> cv = imp.input(node, 2);
      if (failed(cv))
        return failure();
      std::optional<std::vector<double>> vals = floatConstantValues(*cv);
      if (!vals || vals->size() != 1)
        return emitError(loc) << "Pad needs a constant scalar value; '"
                              << node.input(2) << "' is not one";
      value = (*vals)[0];
    }
    Type elt = t.getElementType();
    Value pad = arith::ConstantOp::create(
        b, loc,
        isa<FloatType>(elt) ? TypedAttr(b.getFloatAttr(elt, value))
                            : TypedAttr(b.getIntegerAttr(elt, int64_t(value))));
    auto type = RankedTensorType::get(outShape, t.getElementType());
    return imp.define(
        node, tensor::PadOp::create(b, loc, type, v,
                                    getAsIndexOpFoldResult(imp.ctx, before),
                                    getAsIndexOpFoldResult(imp.ctx, after), pad)
                  .getResult());
  }
  if (mode != "reflect" && mode != "edge")
    return emitError(loc) << "Pad mode '" << mode
                          << "' is not supported (constant, reflect, edge)";
  // Edge repeats the border element; reflect mirrors without repeating it.
  for (int64_t d = 0; d < rank; ++d) {
    if (!before[d] && !after[d])
      continue;
    int64_t dim = sizes[d];
    if (mode == "reflect" && (before[d] >= dim || after[d] >= dim))
      return emitError(loc) << "Pad reflect of " << before[d] << " and "
                            << after[d] << " on axis " << d << " of size "
                            << dim << "; pads must be smaller than the axis";
    SmallVector<int64_t> idx;
    for (int64_t i = before[d]; i > 0; --i)
      idx.push_back(mode == "edge" ? 0 : i);
    for (int64_t i = 0; i < dim; ++i)
      idx.push_back(i);
    for (int64_t i = 1; i <= after[d]; ++i)
      idx.push_back(mode == "edge" ? dim - 1 : dim - 1 - i);
    v = pickAlong(imp, loc, v, d, idx);
  }
  return imp.define(node, v);
}

// --- DepthToSpace, SpaceToDepth. ---

LogicalResult depthToSpace(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  int64_t bs = intAttr(node, "blocksize", 0);
  if (t.getRank() != 4)
    return emitError(loc) << "DepthToSpace needs a rank-4 input, got " << t;
  int64_t n = t.getDimSize(0), c = t.getDimSize(1), h = t.getDimSize(2),
          w = t.getDimSize(3);
  if (bs < 1 || c % (bs * bs) != 0)
    return emitError(loc) << "DepthToSpace blocksize " << bs
                          << " does not divide " << c << " channels";
  std::string mode = stringAttr(node, "mode", "DCR");
  int64_t oc = c / (bs * bs);
  Value v;
  if (mode == "DCR") {
    v = imp.reshape(loc, *x, {n, bs, bs, oc, h, w});
    v = imp.transpose(loc, v, {0, 3, 4, 1, 5, 2});
  } else if (mode == "CRD") {
    v = imp.reshape(loc, *x, {n, oc, bs, bs, h, w});
    v = imp.transpose(loc, v, {0, 1, 4, 2, 5, 3});
  } else {
    return emitError(loc) << "DepthToSpace mode '" << mode
                          << "' is not DCR or CRD";
  }
  return imp.define(node, imp.reshape(loc, v, {n, oc, h * bs, w * bs}));
}

LogicalResult spaceToDepth(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  RankedTensorType t = tensorType(*x);
  int64_t bs = intAttr(node, "blocksize", 0);
  if (t.getRank() != 4)
    return emitError(loc) << "SpaceToDepth needs a rank-4 input, got " << t;
  int64_t n = t.getDimSize(0), c = t.getDimSize(1), h = t.getDimSize(2),
          w = t.getDimSize(3);
  if (bs < 1 || h % bs != 0 || w % bs != 0)
    return emitError(loc) << "SpaceToDepth blocksize " << bs
                          << " does not divide " << h << "x" << w;
  Value v = imp.reshape(loc, *x, {n, c, h / bs, bs, w / bs, bs});
  v = imp.transpose(loc, v, {0, 3, 5, 1, 2, 4});
  return imp.define(node,
                    imp.reshape(loc, v, {n, c * bs * bs, h / bs, w / bs}));
}
} // namespace

void nki::onnx_import::registerDataMovementOps(OpTable &t) {
  t["Concat"] = concatOp;
  t["Split"] = splitOp;
  t["Slice"] = sliceOp;
  t["Squeeze"] = squeezeOp;
  t["Unsqueeze"] = unsqueezeOp;
  t["Gather"] = gatherOp;
  t["Expand"] = expandOp;
  t["Tile"] = tileOp;
  t["Pad"] = padOp;
  t["DepthToSpace"] = depthToSpace;
  t["SpaceToDepth"] = spaceToDepth;
}
