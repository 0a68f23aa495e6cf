//===- Quantize.cpp - ONNX linear quantization and integer matmul/conv ----===//
//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv. UINT8 is carried as i32 and
// INT8 as i8 (Importer::elementType); the engines compute in fp32, so every
// op here converts its 8-bit operands to f32 inside its elementwise bodies:
//
//   quantize    y = clamp(roundeven(x / scale) + zp, lo, hi)   ([0, 255] for
//               UINT8, [-128, 127] for INT8: the zero point's type)
//   dequantize  y = (x - zp) * scale
//
// The integer matmul and convolution are the float ones (Importer::matmul,
// convolution) on (a - a_zp) and (b - b_zp), each an exact integer of at
// most 255 in magnitude; their products and sums stay exact in fp32 while
// every partial sum is below 2^24 in magnitude, which holds for any data
// when the contraction has at most 2^24 / 255^2 = 258 terms and for most
// data far beyond. The
// QLinear ops requantize that sum with the multiplier
// a_scale * b_scale / y_scale computed in f32, as ONNX's reference does.
// Scales and zero points are per tensor (one element) or per axis (a 1-D
// tensor along `axis` for (De)QuantizeLinear, per row of A / column of B for
// the matmuls, per output channel for the convolution's weight).
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {

Value f32Of(OpBuilder &b, Location l, Value x) {
  return castScalar(b, l, x, b.getF32Type());
}

/// The range of the quantized type a zero point of element type `elt`
/// stands for (i8: INT8; i32: UINT8), or nothing for any other type.
std::optional<std::pair<double, double>> quantRange(Type elt) {
  if (elt.isInteger(8))
    return std::make_pair(-128.0, 127.0);
  if (elt.isInteger(32))
    return std::make_pair(0.0, 255.0);
  return std::nullopt;
}

/// clamp(roundeven(v) + zp, lo, hi) in f32, converted to `to`.
Value saturate(OpBuilder &b, Location l, Value v, Value zp, double lo,
               double hi, Type to) {
  Value q = math::RoundEvenOp::create(b, l, v);
  if (zp)
    q = arith::AddFOp::create(b, l, q, f32Of(b, l, zp));
  q = arith::MaximumFOp::create(b, l, q, constLike(b, l, q, lo));
  q = arith::MinimumFOp::create(b, l, q, constLike(b, l, q, hi));
  return castScalar(b, l, q, to);
}

/// A scale or zero point `p` shaped to broadcast against a rank-`rank`
/// tensor: one element stays as it is; a 1-D tensor of `dim` elements
/// lines up with dim `axis` (size-1 dims around it). An error names `what`
/// otherwise.
FailureOr<Value> alongAxis(Importer &imp, const onnx::NodeProto &node, Value p,
                           int64_t rank, int64_t axis, int64_t dim,
                           StringRef what) {
  if (!p)
    return p;
  RankedTensorType t = tensorType(p);
  if (t.getNumElements() == 1)
    return p;
  if (t.getRank() != 1 || t.getDimSize(0) != dim)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " " << what << " " << p.getType()
           << " is neither one value nor one per element of axis " << axis
           << " (" << dim << ")";
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = dim;
  return imp.reshape(imp.nodeLoc(node), p, shape);
}

/// The zero point's quantized range, with an error for other types.
FailureOr<std::pair<double, double>>
zeroPointRange(Importer &imp, const onnx::NodeProto &node, Value zp) {
  if (!zp)
    return std::make_pair(0.0, 255.0); // UINT8 by default
  std::optional<std::pair<double, double>> r =
      quantRange(tensorType(zp).getElementType());
  if (!r)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " zero point " << zp.getType()
           << " is not UINT8 or INT8";
  return *r;
}

/// Input `i` if present, else a null value.
FailureOr<Value> optionalInput(Importer &imp, const onnx::NodeProto &node,
                               int i) {
  if (!imp.hasInput(node, i))
    return Value();
  return imp.input(node, i);
}

/// Reads x, scale and zero point and lines the last two up with `axis`.
struct LinearOperands {
  Value x, scale, zp;
};
FailureOr<LinearOperands> linearOperands(Importer &imp,
                                         const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0), scale = imp.input(node, 1);
  FailureOr<Value> zp = optionalInput(imp, node, 2);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  int64_t rank = tensorType(*x).getRank();
  int64_t axis = intAttr(node, "axis", 1);
  if (axis < 0)
    axis += rank;
  bool perTensor = tensorType(*scale).getNumElements() == 1 &&
                   (!*zp || tensorType(*zp).getNumElements() == 1);
  if (!perTensor && (axis < 0 || axis >= rank))
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " axis " << intAttr(node, "axis", 1)
           << " of a rank-" << rank << " tensor";
  int64_t dim = perTensor ? 1 : tensorType(*x).getDimSize(axis);
  FailureOr<Value> s = alongAxis(imp, node, *scale, rank, axis, dim, "scale");
  FailureOr<Value> z = alongAxis(imp, node, *zp, rank, axis, dim, "zero point");
  if (failed(s) || failed(z))
    return failure();
  return LinearOperands{*x, *s, *z};
}

LogicalResult quantizeLinear(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<LinearOperands> ops = linearOperands(imp, node);
  if (failed(ops))
    return failure();
  FailureOr<std::pair<double, double>> range =
      zeroPointRange(imp, node, ops->zp);
  if (failed(range))
    return failure();
  Type to = ops->zp ? tensorType(ops->zp).getElementType() : imp.b.getI32Type();
  SmallVector<Value> operands = {ops->x, ops->scale};
  if (ops->zp)
    operands.push_back(ops->zp);
  double lo = range->first, hi = range->second;
  return imp.define(node, imp.elementwise(
                              imp.nodeLoc(node), operands,
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                Value v = arith::DivFOp::create(
                                    b, l, f32Of(b, l, a[0]), f32Of(b, l, a[1]));
                                return saturate(b, l, v,
                                                a.size() > 2 ? a[2] : Value(),
                                                lo, hi, to);
                              },
                              to));
}

LogicalResult dequantizeLinear(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<LinearOperands> ops = linearOperands(imp, node);
  if (failed(ops))
    return failure();
  if (!isa<IntegerType>(tensorType(ops->x).getElementType()))
    return emitError(imp.nodeLoc(node))
           << "DequantizeLinear input " << ops->x.getType()
           << " is not an integer tensor";
  SmallVector<Value> operands = {ops->x, ops->scale};
  if (ops->zp)
    operands.push_back(ops->zp);
  Type f32 = imp.b.getF32Type();
  return imp.define(
      node, imp.elementwise(
                imp.nodeLoc(node), operands,
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  Value x = f32Of(b, l, a[0]);
                  if (a.size() > 2)
                    x = arith::SubFOp::create(b, l, x, f32Of(b, l, a[2]));
                  return arith::MulFOp::create(b, l, x, f32Of(b, l, a[1]));
                },
                f32));
}

/// y_scale = (max(x, 0) - min(x, 0)) / 255, y_zero_point =
/// clamp(roundeven(-min(x, 0) / y_scale), 0, 255), y = clamp(roundeven(x /
/// y_scale) + y_zero_point, 0, 255) (UINT8). A tensor of zeros has scale 0
/// and gives NaN-derived values, as the formula does.
LogicalResult dynamicQuantizeLinear(Importer &imp,
                                    const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> xIn = imp.input(node, 0);
  if (failed(xIn))
    return failure();
  Value x = *xIn;
  Type f32 = imp.b.getF32Type(), i32 = imp.b.getI32Type();
  if (tensorType(x).getElementType() != f32)
    return emitError(loc) << "DynamicQuantizeLinear input " << x.getType()
                          << " is not FLOAT";
  int64_t n = tensorType(x).getNumElements();
  if (n == 0)
    return emitError(loc) << "DynamicQuantizeLinear of an empty tensor";
  Value flat = imp.reshape(loc, x, {1, n});
  auto identity = [](OpBuilder &, Location, ValueRange a) { return a[0]; };
  Value mx = rowGeneric(imp, loc, 1, n, {{flat, Bcast::Full}}, f32, identity,
                        Combine::Max);
  Value mn = rowGeneric(imp, loc, 1, n, {{flat, Bcast::Full}}, f32, identity,
                        Combine::Min);
  Value scale = imp.elementwise(
      loc, {mx, mn}, [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value zero = constLike(b, l, a[0], 0.0);
        Value hi = arith::MaximumFOp::create(b, l, a[0], zero);
        Value lo = arith::MinimumFOp::create(b, l, a[1], zero);
        return arith::DivFOp::create(b, l, arith::SubFOp::create(b, l, hi, lo),
                                     constLike(b, l, hi, 255.0));
      });
  Value zp = imp.elementwise(
      loc, {mn, scale}, [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value zero = constLike(b, l, a[0], 0.0);
        Value lo = arith::MinimumFOp::create(b, l, a[0], zero);
        Value v = arith::DivFOp::create(
            b, l, arith::SubFOp::create(b, l, zero, lo), a[1]);
        return saturate(b, l, v, Value(), 0.0, 255.0, b.getF32Type());
      });
  Value y = imp.elementwise(
      loc, {x, scale, zp},
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value v = arith::DivFOp::create(b, l, a[0], a[1]);
        return saturate(b, l, v, a[2], 0.0, 255.0, b.getI32Type());
      },
      i32);
  Value zpInt = imp.elementwise(
      loc, {zp},
      [](OpBuilder &b, Location l, ValueRange a) {
        return castScalar(b, l, a[0], b.getI32Type());
      },
      i32);
  if (failed(imp.define(node, y)))
    return failure();
  if (node.output_size() > 1 &&
      failed(imp.define(node, imp.reshape(loc, scale, {}), 1)))
    return failure();
  if (node.output_size() > 2 &&
      failed(imp.define(node, imp.reshape(loc, zpInt, {}), 2)))
    return failure();
  return success();
}

/// `v - zp` in f32 (`v` converted when there is no zero point).
Value minusZeroPoint(Importer &imp, Location loc, Value v, Value zp) {
  SmallVector<Value> operands = {v};
  if (zp)
    operands.push_back(zp);
  return imp.elementwise(
      loc, operands,
      [](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value x = f32Of(b, l, a[0]);
        if (a.size() > 1)
          x = arith::SubFOp::create(b, l, x, f32Of(b, l, a[1]));
        return x;
      },
      imp.b.getF32Type());
}

LogicalResult checkInt8(Importer &imp, const onnx::NodeProto &node, Value v,
                        StringRef what) {
  Type elt = tensorType(v).getElementType();
  if (elt.isInteger(8) || elt.isInteger(32))
    return success();
  return emitError(imp.nodeLoc(node)) << node.op_type() << " " << what << " "
                                      << v.getType() << " is not UINT8 or INT8";
}

/// (a - a_zp) x (b - b_zp) in f32 with per-row a_zp and per-column b_zp.
/// `aAt`/`bAt` are the input indices of a, a_zp and b, b_zp.
FailureOr<Value> integerMatmul(Importer &imp, const onnx::NodeProto &node,
                               int aAt, int aZpAt, int bAt, int bZpAt) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> a = imp.input(node, aAt), bm = imp.input(node, bAt);
  FailureOr<Value> azp = optionalInput(imp, node, aZpAt);
  FailureOr<Value> bzp = optionalInput(imp, node, bZpAt);
  if (failed(a) || failed(bm) || failed(azp) || failed(bzp) ||
      failed(checkInt8(imp, node, *a, "A")) ||
      failed(checkInt8(imp, node, *bm, "B")))
    return failure();
  int64_t ra = tensorType(*a).getRank(), rb = tensorType(*bm).getRank();
  if (ra < 2 || rb < 2)
    return emitError(loc) << node.op_type() << " of rank " << ra << " by rank "
                          << rb << " is not supported yet (both must be >= 2)";
  // a_zp per row of A ([M] as [M, 1]), b_zp per column of B ([N]).
  FailureOr<Value> az = alongAxis(
      imp, node, *azp, 2, 0, tensorType(*a).getDimSize(ra - 2), "A zero point");
  FailureOr<Value> bz =
      alongAxis(imp, node, *bzp, 1, 0, tensorType(*bm).getDimSize(rb - 1),
                "B zero point");
  if (failed(az) || failed(bz))
    return failure();
  return imp.matmul(loc, minusZeroPoint(imp, loc, *a, *az),
                    minusZeroPoint(imp, loc, *bm, *bz));
}

/// An exact integer sum in f32 converted to the INT32 result (i32).
Value toInt32(Importer &imp, Location loc, Value v) {
  return imp.elementwise(
      loc, {v},
      [](OpBuilder &b, Location l, ValueRange a) {
        return castScalar(b, l, a[0], b.getI32Type());
      },
      imp.b.getI32Type());
}

LogicalResult matMulInteger(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> y = integerMatmul(imp, node, 0, 2, 1, 3);
  if (failed(y))
    return failure();
  return imp.define(node, toInt32(imp, imp.nodeLoc(node), *y));
}

/// (x - x_zp) conv (w - w_zp) in f32, with a per-tensor x_zp and a
/// per-output-channel w_zp.
FailureOr<Value> integerConv(Importer &imp, const onnx::NodeProto &node,
                             int xAt, int xZpAt, int wAt, int wZpAt) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, xAt), w = imp.input(node, wAt);
  FailureOr<Value> xzp = optionalInput(imp, node, xZpAt);
  FailureOr<Value> wzp = optionalInput(imp, node, wZpAt);
  if (failed(x) || failed(w) || failed(xzp) || failed(wzp) ||
      failed(checkInt8(imp, node, *x, "x")) ||
      failed(checkInt8(imp, node, *w, "w")))
    return failure();
  if (*xzp && tensorType(*xzp).getNumElements() != 1)
    return emitError(loc) << node.op_type() << " x zero point "
                          << xzp->getType() << " must be one value";
  int64_t rank = tensorType(*w).getRank();
  FailureOr<Value> wz = alongAxis(imp, node, *wzp, rank, 0,
                                  tensorType(*w).getDimSize(0), "w zero point");
  if (failed(wz))
    return failure();
  return convolution(imp, node, minusZeroPoint(imp, loc, *x, *xzp),
                     minusZeroPoint(imp, loc, *w, *wz));
}

LogicalResult convInteger(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> y = integerConv(imp, node, 0, 2, 1, 3);
  if (failed(y))
    return failure();
  return imp.define(node, toInt32(imp, imp.nodeLoc(node), *y));
}

/// y = clamp(roundeven(acc * (sa * sb / sy)) + y_zp) with the scales already
/// shaped to broadcast against `acc`.
LogicalResult requantize(Importer &imp, const onnx::NodeProto &node, Value acc,
                         Value sa, Value sb, Value sy, Value yzp) {
  FailureOr<std::pair<double, double>> range = zeroPointRange(imp, node, yzp);
  if (failed(range))
    return failure();
  if (tensorType(sy).getNumElements() != 1 ||
      (yzp && tensorType(yzp).getNumElements() != 1))
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " y scale and zero point must be one value";
  Type to = yzp ? tensorType(yzp).getElementType() : imp.b.getI32Type();
  SmallVector<Value> operands = {acc, sa, sb, sy};
  if (yzp)
    operands.push_back(yzp);
  double lo = range->first, hi = range->second;
  return imp.define(
      node, imp.elementwise(
                imp.nodeLoc(node), operands,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value m = arith::MulFOp::create(b, l, f32Of(b, l, a[1]),
                                                  f32Of(b, l, a[2]));
                  m = arith::DivFOp::create(b, l, m, f32Of(b, l, a[3]));
                  Value v = arith::MulFOp::create(b, l, a[0], m);
                  return saturate(b, l, v, a.size() > 4 ? a[4] : Value(), lo,
                                  hi, to);
                },
                to));
}

LogicalResult qlinearMatMul(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> acc = integerMatmul(imp, node, 0, 2, 3, 5);
  FailureOr<Value> sa = imp.input(node, 1), sb = imp.input(node, 4);
  FailureOr<Value> sy = imp.input(node, 6);
  FailureOr<Value> yzp = optionalInput(imp, node, 7);
  if (failed(acc) || failed(sa) || failed(sb) || failed(sy) || failed(yzp))
    return failure();
  int64_t rank = tensorType(*acc).getRank();
  SmallVector<int64_t> ys = shapeOf(*acc);
  FailureOr<Value> a = alongAxis(imp, node, *sa, 2, 0, ys[rank - 2], "a scale");
  FailureOr<Value> bb =
      alongAxis(imp, node, *sb, 1, 0, ys[rank - 1], "b scale");
  if (failed(a) || failed(bb))
    return failure();
  return requantize(imp, node, *acc, *a, *bb, *sy, *yzp);
}

LogicalResult qlinearConv(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> acc = integerConv(imp, node, 0, 2, 3, 5);
  FailureOr<Value> sx = imp.input(node, 1), sw = imp.input(node, 4);
  FailureOr<Value> sy = imp.input(node, 6);
  FailureOr<Value> yzp = optionalInput(imp, node, 7);
  FailureOr<Value> bias = optionalInput(imp, node, 8);
  if (failed(acc) || failed(sx) || failed(sy) || failed(sw) || failed(yzp) ||
      failed(bias))
    return failure();
  int64_t rank = tensorType(*acc).getRank(), f = shapeOf(*acc)[1];
  if (tensorType(*sx).getNumElements() != 1)
    return emitError(loc) << "QLinearConv x scale " << sx->getType()
                          << " must be one value";
  FailureOr<Value> w = alongAxis(imp, node, *sw, rank, 1, f, "w scale");
  if (failed(w))
    return failure();
  Value y = *acc;
  if (*bias) {
    if (shapeOf(*bias) != SmallVector<int64_t>{f})
      return emitError(loc)
             << "QLinearConv bias " << bias->getType()
             << " is not one value per output channel (" << f << ")";
    FailureOr<Value> bb = alongAxis(imp, node, *bias, rank, 1, f, "bias");
    y = imp.elementwise(
        loc, {y, *bb}, [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, a[0], f32Of(b, l, a[1]));
        });
  }
  return requantize(imp, node, y, *sx, *w, *sy, *yzp);
}

} // namespace

void nki::onnx_import::registerQuantizeOps(OpTable &t) {
  t["QuantizeLinear"] = quantizeLinear;
  t["DequantizeLinear"] = dequantizeLinear;
  t["DynamicQuantizeLinear"] = dynamicQuantizeLinear;
  t["MatMulInteger"] = matMulInteger;
  t["ConvInteger"] = convInteger;
  t["QLinearMatMul"] = qlinearMatMul;
  t["QLinearConv"] = qlinearConv;
}
