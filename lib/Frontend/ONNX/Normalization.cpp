//===- Normalization.cpp - ONNX LayerNormalization and relatives ----------===//
//
// LayerNormalization, InstanceNormalization, MeanVarianceNormalization and
// BatchNormalization in training mode normalize rows of the input viewed as
// [rows, cols]: mean = sum(x / n), xc = x - mean, var = sum(xc * xc / n),
// y = xc * rsqrt(var + eps) * scale + bias, four 2-D generics over one
// space, which the compiler runs as one row-group kernel. BatchNormalization
// in inference mode folds its per-channel statistics into one multiply-add;
// LRN sums shifted copies of x^2 along the channels.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
Value add(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}
Value mul(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MulFOp::create(b, l, x, y);
}
Value sub(OpBuilder &b, Location l, Value x, Value y) {
  return arith::SubFOp::create(b, l, x, y);
}

struct Moments {
  Value mean, centered, var; // [rows], [rows, cols], [rows]
};

/// The mean and (biased) variance of each row of `r`, and x - mean.
Moments moments(Importer &imp, Location loc, const Rows &r) {
  Type elt = tensorType(r.v).getElementType();
  double n = double(r.cols);
  Moments m;
  m.mean = rowGeneric(
      imp, loc, r.rows, r.cols, {{r.v, Bcast::Full}}, elt,
      [n](OpBuilder &b, Location l, ValueRange a) -> Value {
        return arith::DivFOp::create(b, l, a[0], constLike(b, l, a[0], n));
      },
      Combine::Add);
  m.centered = rowGeneric(imp, loc, r.rows, r.cols,
                          {{r.v, Bcast::Full}, {m.mean, Bcast::Row}}, elt,
                          [](OpBuilder &b, Location l, ValueRange a) {
                            return sub(b, l, a[0], a[1]);
                          });
  m.var = rowGeneric(
      imp, loc, r.rows, r.cols, {{m.centered, Bcast::Full}}, elt,
      [n](OpBuilder &b, Location l, ValueRange a) -> Value {
        return arith::DivFOp::create(b, l, mul(b, l, a[0], a[0]),
                                     constLike(b, l, a[0], n));
      },
      Combine::Add);
  return m;
}

/// rsqrt(var + eps) as a scalar body.
Value invStd(OpBuilder &b, Location l, Value var, double eps) {
  return math::RsqrtOp::create(b, l, add(b, l, var, constLike(b, l, var, eps)));
}

/// xc * rsqrt(var + eps) * scale + bias over [rows, cols]; scale and bias
/// are optional and read as `kind` (Row or Col).
Value normalized(Importer &imp, Location loc, const Rows &r, const Moments &m,
                 double eps, Value scale, Value bias, Bcast kind) {
  SmallVector<RowOperand> ins = {{m.centered, Bcast::Full},
                                 {m.var, Bcast::Row}};
  if (scale)
    ins.push_back({scale, kind});
  if (bias)
    ins.push_back({bias, kind});
  bool hasScale = bool(scale), hasBias = bool(bias);
  return rowGeneric(imp, loc, r.rows, r.cols, ins,
                    tensorType(m.centered).getElementType(),
                    [=](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value y = mul(b, l, a[0], invStd(b, l, a[1], eps));
                      unsigned i = 2;
                      if (hasScale)
                        y = mul(b, l, y, a[i++]);
                      if (hasBias)
                        y = add(b, l, y, a[i]);
                      return y;
                    });
}

Value castTo(Importer &imp, Location loc, Value v, Type elt) {
  Type from = tensorType(v).getElementType();
  if (from == elt)
    return v;
  bool widen = from.getIntOrFloatBitWidth() < elt.getIntOrFloatBitWidth();
  return imp.elementwise(
      loc, {v},
      [=](OpBuilder &b, Location l, ValueRange a) -> Value {
        if (widen)
          return arith::ExtFOp::create(b, l, elt, a[0]);
        return arith::TruncFOp::create(b, l, elt, a[0]);
      },
      elt);
}

LogicalResult sameElementType(Importer &imp, const onnx::NodeProto &node,
                              ArrayRef<Value> ins) {
  for (Value v : ins)
    if (v &&
        tensorType(v).getElementType() != tensorType(ins[0]).getElementType())
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " inputs have different element types";
  return success();
}

bool wants(const onnx::NodeProto &node, int i) {
  return i < node.output_size() && !node.output(i).empty();
}

LogicalResult layerNorm(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  ins->resize(3);
  if (failed(sameElementType(imp, node, *ins)))
    return failure();
  Value x = (*ins)[0];
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  int64_t attr = intAttr(node, "axis", -1);
  int64_t axis = attr < 0 ? attr + rank : attr;
  if (axis < 0 || axis >= rank)
    return emitError(loc) << "LayerNormalization axis " << attr
                          << " is out of range for a rank-" << rank << " input";
  double eps = floatAttr(node, "epsilon", 1e-5f);
  // The statistics are computed in stash_type (FLOAT by default); Y is
  // cast back to the input's type.
  Type elt = tensorType(x).getElementType();
  int64_t stash = intAttr(node, "stash_type", onnx::TensorProto::FLOAT);
  Type stashElt;
  if (stash == onnx::TensorProto::FLOAT)
    stashElt = imp.b.getF32Type();
  else if (stash == onnx::TensorProto::BFLOAT16 && elt.isBF16())
    stashElt = elt;
  else
    return emitError(loc) << "LayerNormalization stash_type "
                          << typeName(int32_t(stash)) << " is not supported "
                          << "(FLOAT, or BFLOAT16 for BFLOAT16 inputs)";

  SmallVector<int64_t> normShape(shape.begin() + axis, shape.end());
  SmallVector<bool> cols(rank, false);
  for (int64_t i = axis; i < rank; ++i)
    cols[i] = true;
  Rows r = toRows(imp, loc, castTo(imp, loc, x, stashElt), cols);
  Value params[2] = {(*ins)[1], (*ins)[2]};
  const char *names[2] = {"scale", "bias"};
  for (int i = 0; i < 2; ++i) {
    if (!params[i])
      continue;
    FailureOr<Value> p = broadcastTo(imp, node, params[i], normShape, names[i]);
    if (failed(p))
      return failure();
    params[i] = castTo(imp, loc, imp.reshape(loc, *p, {r.cols}), stashElt);
  }
  Moments m = moments(imp, loc, r);
  Value y = normalized(imp, loc, r, m, eps, params[0], params[1], Bcast::Col);
  if (failed(imp.define(
          node, castTo(imp, loc, fromRows(imp, loc, y, r, shape), elt))))
    return failure();
  // Mean and InvStdDev keep the normalized dims as size 1.
  SmallVector<int64_t> statShape(shape.begin(), shape.begin() + axis);
  statShape.resize(rank, 1);
  if (wants(node, 1) &&
      failed(imp.define(node, imp.reshape(loc, m.mean, statShape), 1)))
    return failure();
  if (wants(node, 2)) {
    Value inv = imp.elementwise(loc, {m.var},
                                [eps](OpBuilder &b, Location l, ValueRange a) {
                                  return invStd(b, l, a[0], eps);
                                });
    return imp.define(node, imp.reshape(loc, inv, statShape), 2);
  }
  return success();
}

/// The channel count of an N x C x ... input, or an error.
FailureOr<int64_t> channels(Importer &imp, const onnx::NodeProto &node, Value x,
                            int64_t minRank) {
  int64_t rank = tensorType(x).getRank();
  if (rank < minRank)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " needs an input of rank " << minRank
           << " or more (N x C x ...), not " << rank;
  return tensorType(x).getDimSize(1);
}

LogicalResult checkPerChannel(Importer &imp, const onnx::NodeProto &node,
                              ArrayRef<Value> params, int64_t c) {
  for (auto [i, p] : llvm::enumerate(params))
    if (shapeOf(p) != SmallVector<int64_t>{c})
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " input " << i + 1 << " must have shape ["
             << c << "] (one value per channel)";
  return success();
}

LogicalResult instanceNorm(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 3);
  if (failed(ins) || failed(sameElementType(imp, node, *ins)))
    return failure();
  Value x = (*ins)[0];
  FailureOr<int64_t> c = channels(imp, node, x, 3);
  if (failed(c) ||
      failed(checkPerChannel(imp, node, {(*ins)[1], (*ins)[2]}, *c)))
    return failure();
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  // Rows are (n, c) pairs: the per-channel scale and bias are repeated
  // over N to be read per row.
  SmallVector<bool> cols(rank, true);
  cols[0] = cols[1] = false;
  Rows r = toRows(imp, loc, x, cols);
  Value params[2];
  for (int i = 0; i < 2; ++i) {
    FailureOr<Value> p =
        broadcastTo(imp, node, (*ins)[i + 1], {shape[0], *c}, "parameter");
    if (failed(p))
      return failure();
    params[i] = imp.reshape(loc, *p, {r.rows});
  }
  Moments m = moments(imp, loc, r);
  double eps = floatAttr(node, "epsilon", 1e-5f);
  Value y = normalized(imp, loc, r, m, eps, params[0], params[1], Bcast::Row);
  return imp.define(node, fromRows(imp, loc, y, r, shape));
}

LogicalResult meanVarianceNorm(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> shape = shapeOf(*in);
  SmallVector<int64_t> axes =
      intsAttr(node, "axes").value_or(SmallVector<int64_t>{0, 2, 3});
  FailureOr<SmallVector<bool>> mask = axesMask(imp, node, axes, shape.size());
  if (failed(mask))
    return failure();
  Rows r = toRows(imp, loc, *in, *mask);
  Moments m = moments(imp, loc, r);
  // ONNX's function body: (x - mean) / (sqrt(var) + 1e-9).
  Value y = rowGeneric(imp, loc, r.rows, r.cols,
                       {{m.centered, Bcast::Full}, {m.var, Bcast::Row}},
                       tensorType(r.v).getElementType(),
                       [](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value sd = add(b, l, math::SqrtOp::create(b, l, a[1]),
                                        constLike(b, l, a[1], 1e-9));
                         return arith::DivFOp::create(b, l, a[0], sd);
                       });
  return imp.define(node, fromRows(imp, loc, y, r, shape));
}

LogicalResult batchNorm(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 5);
  if (failed(ins) || failed(sameElementType(imp, node, *ins)))
    return failure();
  Value x = (*ins)[0];
  FailureOr<int64_t> c = channels(imp, node, x, 2);
  if (failed(c) ||
      failed(checkPerChannel(imp, node, ArrayRef<Value>(*ins).slice(1, 4), *c)))
    return failure();
  if (intAttr(node, "spatial", 1) != 1)
    return emitError(loc) << "BatchNormalization with spatial=0 is not "
                             "supported";
  // Opsets 14+ say training_mode; older ones is_test (from 6) or nothing,
  // with the training outputs as the sign of training.
  bool training;
  if (imp.opset >= 14)
    training = intAttr(node, "training_mode", 0) != 0;
  else if (imp.opset >= 6)
    training = intAttr(node, "is_test", 0) == 0 && node.output_size() > 1;
  else
    training = node.output_size() > 1;
  if (!training && node.output_size() > 1)
    return emitError(loc) << "BatchNormalization in inference mode has one "
                             "output, this node has "
                          << node.output_size();
  if (training && imp.opset < 14)
    return emitError(loc) << "BatchNormalization in training mode is "
                             "supported from opset 14 (this model has opset "
                          << imp.opset << ")";
  if (training && (wants(node, 3) || wants(node, 4)))
    return emitError(loc) << "BatchNormalization outputs 3 and 4 (saved "
                             "mean and variance) are not supported";

  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  double eps = floatAttr(node, "epsilon", 1e-5f);
  Value scale = (*ins)[1], bias = (*ins)[2], mean = (*ins)[3], var = (*ins)[4];
  Moments batch;
  if (training) {
    // Statistics per channel over N and the spatial dims: the channel dim
    // is moved first and the rest viewed as one row per channel.
    SmallVector<bool> cols(rank, true);
    cols[1] = false;
    batch = moments(imp, loc, toRows(imp, loc, x, cols));
    mean = batch.mean;
    var = batch.var;
  }
  // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a.
  Value a = imp.elementwise(loc, {scale, var},
                            [eps](OpBuilder &b, Location l, ValueRange v) {
                              return mul(b, l, v[0], invStd(b, l, v[1], eps));
                            });
  Value sh = imp.elementwise(loc, {bias, mean, a},
                             [](OpBuilder &b, Location l, ValueRange v) {
                               return sub(b, l, v[0], mul(b, l, v[1], v[2]));
                             });
  SmallVector<int64_t> chanShape(rank - 1, 1);
  chanShape[0] = *c;
  Value y = imp.elementwise(
      loc, {x, imp.reshape(loc, a, chanShape), imp.reshape(loc, sh, chanShape)},
      [](OpBuilder &b, Location l, ValueRange v) {
        return add(b, l, mul(b, l, v[0], v[1]), v[2]);
      });
  if (failed(imp.define(node, y)))
    return failure();
  if (!training)
    return success();
  // running = input * momentum + batch * (1 - momentum).
  double momentum = floatAttr(node, "momentum", 0.9f);
  for (int i = 1; i <= 2; ++i) {
    if (!wants(node, i))
      continue;
    Value running = imp.elementwise(
        loc, {(*ins)[2 + i], i == 1 ? batch.mean : batch.var},
        [momentum](OpBuilder &b, Location l, ValueRange v) {
          return add(b, l, mul(b, l, v[0], constLike(b, l, v[0], momentum)),
                     mul(b, l, v[1], constLike(b, l, v[1], 1.0 - momentum)));
        });
    if (failed(imp.define(node, running, i)))
      return failure();
  }
  return success();
}

/// y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring
/// channels)^beta; the neighbours are zero-padded shifted views of x^2.
LogicalResult lrn(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> in = imp.input(node, 0);
  if (failed(in))
    return failure();
  Value x = *in;
  FailureOr<int64_t> c = channels(imp, node, x, 3);
  if (failed(c))
    return failure();
  const onnx::AttributeProto *sizeAttr = findAttr(node, "size");
  if (!sizeAttr)
    return emitError(loc) << "LRN needs the size attribute";
  int64_t size = sizeAttr->i();
  if (size < 1)
    return emitError(loc) << "LRN size must be positive, not " << size;
  double alpha = floatAttr(node, "alpha", 1e-4f);
  double beta = floatAttr(node, "beta", 0.75f);
  double bias = floatAttr(node, "bias", 1.0f);
  OpBuilder &b = imp.b;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value sq =
      imp.elementwise(loc, {x}, [](OpBuilder &nb, Location l, ValueRange a) {
        return mul(nb, l, a[0], a[0]);
      });
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)),
      high(rank, b.getIndexAttr(0));
  low[1] = b.getIndexAttr(before);
  high[1] = b.getIndexAttr(after);
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(tensorType(x).getElementType(), 0.0));
  Value padded =
      tensor::PadOp::create(b, loc, Type(), sq, low, high, zero).getResult();
  SmallVector<Value> terms = {x};
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  for (int64_t k = 0; k < size; ++k) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[1] = b.getIndexAttr(k);
    terms.push_back(tensor::ExtractSliceOp::create(b, loc, padded, offsets,
                                                   sizes, strides));
  }
  double scale = alpha / double(size);
  return imp.define(
      node,
      imp.elementwise(loc, terms, [=](OpBuilder &nb, Location l, ValueRange a) {
        Value s = a[1];
        for (Value t : a.drop_front(2))
          s = add(nb, l, s, t);
        Value d = add(nb, l, mul(nb, l, s, constLike(nb, l, s, scale)),
                      constLike(nb, l, s, bias));
        Value p = math::PowFOp::create(nb, l, d, constLike(nb, l, d, -beta));
        return mul(nb, l, a[0], p);
      }));
}
} // namespace

void nki::onnx_import::registerNormalizationOps(OpTable &t) {
  t["LayerNormalization"] = layerNorm;
  t["InstanceNormalization"] = instanceNorm;
  t["MeanVarianceNormalization"] = meanVarianceNorm;
  t["BatchNormalization"] = batchNorm;
  t["LRN"] = lrn;
}
