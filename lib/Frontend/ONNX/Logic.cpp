//===- Logic.cpp - ONNX comparisons, logic, Where, Cast, Mod, ArgMax ------===//
//
// Integer and boolean runtime tensors: INT64/INT32/UINT8/INT16/UINT16/
// UINT32 are carried as i32, INT8 as i8, BOOL as i1 (Importer::elementType;
// the device computes in fp32, so integer results are exact below 2^24).
// Comparisons give i1; Not/And/Or/Xor work on i1; Where is a select;
// Cast/CastLike convert between all carried types; Mod is integer or float
// remainder; BitShift multiplies or divides by 2^y; ArgMax/ArgMin reduce
// with max/min and pick the first (or last) index where the extreme occurs;
// IsNaN and IsInf compare a float tensor with itself or with infinity.
//
//===----------------------------------------------------------------------===//

#include "Rows.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

namespace {

bool isInt(Type t) { return isa<IntegerType>(t); }
bool isInt(Value v) { return isInt(tensorType(v).getElementType()); }

/// Inputs 0..n-1, present, of one element type and broadcastable.
FailureOr<SmallVector<Value>> sameTypeInputs(Importer &imp,
                                             const onnx::NodeProto &node, int n,
                                             int firstSameType = 0) {
  Location loc = imp.nodeLoc(node);
  SmallVector<Value> ins;
  SmallVector<SmallVector<int64_t>> shapes;
  for (int i = 0; i < n; ++i) {
    FailureOr<Value> v = imp.input(node, i);
    if (failed(v))
      return failure();
    ins.push_back(*v);
    shapes.push_back(shapeOf(*v));
  }
  for (int i = firstSameType + 1; i < n; ++i)
    if (tensorType(ins[i]).getElementType() !=
        tensorType(ins[firstSameType]).getElementType())
      return emitError(loc)
             << node.op_type() << " operands have different element types ("
             << tensorType(ins[firstSameType]).getElementType() << " and "
             << tensorType(ins[i]).getElementType() << ")";
  if (!broadcastShape(shapes))
    return emitError(loc) << node.op_type() << " operands do not broadcast";
  return ins;
}

/// Equal, Less, LessOrEqual, Greater, GreaterOrEqual: an i1 tensor.
template <arith::CmpFPredicate fp, arith::CmpIPredicate ip>
LogicalResult compare(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = sameTypeInputs(imp, node, 2);
  if (failed(ins))
    return failure();
  return imp.define(node,
                    imp.elementwise(
                        imp.nodeLoc(node), *ins,
                        [](OpBuilder &b, Location l, ValueRange a) -> Value {
                          if (isInt(a[0].getType()))
                            return arith::CmpIOp::create(b, l, ip, a[0], a[1]);
                          return arith::CmpFOp::create(b, l, fp, a[0], a[1]);
                        },
                        imp.b.getI1Type()));
}

/// Checks that every input of a logic op is BOOL.
LogicalResult checkBool(Importer &imp, const onnx::NodeProto &node,
                        ArrayRef<Value> ins) {
  for (Value v : ins)
    if (!tensorType(v).getElementType().isInteger(1))
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " takes BOOL tensors, got " << v.getType();
  return success();
}

template <typename Op>
LogicalResult logic(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = sameTypeInputs(imp, node, 2);
  if (failed(ins) || failed(checkBool(imp, node, *ins)))
    return failure();
  return imp.define(node, imp.elementwise(imp.nodeLoc(node), *ins,
                                          [](OpBuilder &b, Location l,
                                             ValueRange a) -> Value {
                                            return Op::create(b, l, a[0], a[1]);
                                          }));
}

LogicalResult notOp(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = sameTypeInputs(imp, node, 1);
  if (failed(ins) || failed(checkBool(imp, node, *ins)))
    return failure();
  return imp.define(
      node,
      imp.elementwise(
          imp.nodeLoc(node), *ins, [](OpBuilder &b, Location l, ValueRange a) {
            Value one = arith::ConstantOp::create(
                b, l, b.getIntegerAttr(b.getI1Type(), 1));
            return arith::XOrIOp::create(b, l, a[0], one).getResult();
          }));
}

LogicalResult where(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins =
      sameTypeInputs(imp, node, 3, /*firstSameType=*/1);
  if (failed(ins))
    return failure();
  if (!tensorType((*ins)[0]).getElementType().isInteger(1))
    return emitError(imp.nodeLoc(node))
           << "Where condition must be BOOL, got " << (*ins)[0].getType();
  return imp.define(
      node,
      imp.elementwise(
          imp.nodeLoc(node), *ins,
          [](OpBuilder &b, Location l, ValueRange a) {
            return arith::SelectOp::create(b, l, a[0], a[1], a[2]).getResult();
          },
          tensorType((*ins)[1]).getElementType()));
}

} // namespace

namespace {

LogicalResult castTo(Importer &imp, const onnx::NodeProto &node, Value x,
                     Type to) {
  if (tensorType(x).getElementType() == to)
    return imp.define(node, x);
  return imp.define(node, imp.elementwise(
                              imp.nodeLoc(node), {x},
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                return castScalar(b, l, a[0], to);
                              },
                              to));
}

LogicalResult cast(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  const onnx::AttributeProto *to = findAttr(node, "to");
  if (!to)
    return emitError(imp.nodeLoc(node)) << "Cast has no 'to' attribute";
  std::optional<Type> elt = imp.elementType(int32_t(to->i()));
  if (!elt)
    return emitError(imp.nodeLoc(node))
           << "Cast to " << typeName(int32_t(to->i())) << " is not supported";
  return castTo(imp, node, *x, *elt);
}

LogicalResult castLike(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  return castTo(imp, node, (*ins)[0], tensorType((*ins)[1]).getElementType());
}

/// Mod: fmod=1 is C's fmod / remsi (the sign of the dividend); fmod=0, for
/// integers only, is Python's % (the sign of the divisor).
LogicalResult mod(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = sameTypeInputs(imp, node, 2);
  if (failed(ins))
    return failure();
  int64_t fmod = intAttr(node, "fmod", 0);
  if (fmod != 0 && fmod != 1)
    return emitError(imp.nodeLoc(node))
           << "Mod fmod must be 0 or 1, got " << fmod;
  bool ints = isInt((*ins)[0]);
  if (!ints && fmod == 0)
    return emitError(imp.nodeLoc(node))
           << "Mod of floating-point tensors needs fmod=1";
  return imp.define(
      node,
      imp.elementwise(
          imp.nodeLoc(node), *ins,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value x = a[0], y = a[1];
            if (!ints)
              return arith::RemFOp::create(b, l, x, y);
            Value r = arith::RemSIOp::create(b, l, x, y);
            if (fmod)
              return r;
            // A nonzero remainder whose sign differs from the
            // divisor's moves by one divisor.
            Value zero =
                arith::ConstantOp::create(b, l, b.getZeroAttr(x.getType()));
            Value nonzero =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
            Value rNeg =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
            Value yNeg =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, y, zero);
            Value differ = arith::XOrIOp::create(b, l, rNeg, yNeg);
            Value fix = arith::AndIOp::create(b, l, nonzero, differ);
            return arith::SelectOp::create(
                b, l, fix, arith::AddIOp::create(b, l, r, y), r);
          }));
}

/// BitShift on the unsigned types (carried as i32): x * 2^y or x / 2^y, with
/// 2^y from powf in f32 (exact); the engines have no shifts.
LogicalResult bitShift(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = sameTypeInputs(imp, node, 2);
  if (failed(ins))
    return failure();
  std::string dir = stringAttr(node, "direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return emitError(imp.nodeLoc(node))
           << "BitShift direction must be LEFT or RIGHT, got '" << dir << "'";
  if (!isInt((*ins)[0]))
    return emitError(imp.nodeLoc(node))
           << "BitShift takes integer tensors, got " << (*ins)[0].getType();
  bool left = dir == "LEFT";
  return imp.define(
      node, imp.elementwise(
                imp.nodeLoc(node), *ins,
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  Type f32 = b.getF32Type();
                  Value two =
                      arith::ConstantOp::create(b, l, b.getFloatAttr(f32, 2.0));
                  Value p = math::PowFOp::create(b, l, two,
                                                 castScalar(b, l, a[1], f32));
                  Value scale = castScalar(b, l, p, a[0].getType());
                  if (left)
                    return arith::MulIOp::create(b, l, a[0], scale);
                  return arith::DivUIOp::create(b, l, a[0], scale);
                }));
}

/// ArgMax/ArgMin along `axis`: the extreme m of each row, then the smallest
/// (or, with select_last_index, largest) column index where x == m, both
/// computed in f32 (exact for indices below 2^24) and converted to i32 (the
/// carried type of the INT64 result).
template <bool isMax>
LogicalResult argExtreme(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> xIn = imp.input(node, 0);
  if (failed(xIn))
    return failure();
  Value x = *xIn;
  SmallVector<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  if (rank == 0)
    return emitError(loc) << node.op_type() << " of a scalar";
  int64_t axis = intAttr(node, "axis", 0);
  int64_t keepdims = intAttr(node, "keepdims", 1);
  int64_t last = intAttr(node, "select_last_index", 0);
  if ((keepdims != 0 && keepdims != 1) || (last != 0 && last != 1))
    return emitError(loc) << node.op_type()
                          << " keepdims and select_last_index must be 0 or 1";
  FailureOr<SmallVector<bool>> mask = axesMask(imp, node, {axis}, rank);
  if (failed(mask))
    return failure();
  Type f32 = imp.b.getF32Type();
  Type elt = tensorType(x).getElementType();
  if (elt != f32)
    x = imp.elementwise(
        loc, {x},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return castScalar(b, l, a[0], f32);
        },
        f32);
  Rows r = toRows(imp, loc, x, *mask);
  Combine extreme = isMax ? Combine::Max : Combine::Min;
  Value m = rowGeneric(
      imp, loc, r.rows, r.cols, {{r.v, Bcast::Full}}, f32,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, extreme);
  SmallVector<float> iotaData;
  for (int64_t i = 0; i < r.cols; ++i)
    iotaData.push_back(float(i));
  auto iotaType = RankedTensorType::get({r.cols}, f32);
  Value iota = arith::ConstantOp::create(
      imp.b, loc, DenseElementsAttr::get(iotaType, ArrayRef<float>(iotaData)));
  // Columns that are not the extreme get an index no pick can choose.
  double none = last ? -1.0 : double(r.cols);
  Value idx = rowGeneric(
      imp, loc, r.rows, r.cols,
      {{r.v, Bcast::Full}, {m, Bcast::Row}, {iota, Bcast::Col}}, f32,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value hit =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        return arith::SelectOp::create(b, l, hit, a[2],
                                       constLike(b, l, a[2], none))
            .getResult();
      },
      last ? Combine::Max : Combine::Min);
  Value asInt = imp.elementwise(
      loc, {idx},
      [](OpBuilder &b, Location l, ValueRange a) {
        return arith::FPToSIOp::create(b, l, b.getI32Type(), a[0]).getResult();
      },
      imp.b.getI32Type());
  SmallVector<int64_t> outShape;
  for (int64_t i = 0; i < rank; ++i)
    if (!(*mask)[i])
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  return imp.define(node, imp.reshape(loc, asInt, outShape));
}

/// IsNaN is x != x (unordered: true for NaN); IsInf compares x, or |x| when
/// both signs count, with +inf or -inf. With neither sign detected nothing
/// is infinite: |x| < -1 is false everywhere, NaN included.
LogicalResult isNaN(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return emitError(imp.nodeLoc(node))
           << "IsNaN takes a floating-point tensor, got " << x->getType();
  return imp.define(node, imp.elementwise(
                              imp.nodeLoc(node), {*x},
                              [](OpBuilder &b, Location l, ValueRange a) {
                                return arith::CmpFOp::create(
                                           b, l, arith::CmpFPredicate::UNE,
                                           a[0], a[0])
                                    .getResult();
                              },
                              imp.b.getI1Type()));
}

LogicalResult isInf(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return emitError(imp.nodeLoc(node))
           << "IsInf takes a floating-point tensor, got " << x->getType();
  bool neg = intAttr(node, "detect_negative", 1) != 0;
  bool pos = intAttr(node, "detect_positive", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  return imp.define(
      node, imp.elementwise(
                imp.nodeLoc(node), {*x},
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  Value v = a[0];
                  if (pos == neg)
                    v = math::AbsFOp::create(b, l, v);
                  if (!pos && !neg)
                    return arith::CmpFOp::create(b, l,
                                                 arith::CmpFPredicate::OLT, v,
                                                 constLike(b, l, v, -1.0));
                  return arith::CmpFOp::create(
                      b, l, arith::CmpFPredicate::OEQ, v,
                      constLike(b, l, v, neg && !pos ? -inf : inf));
                },
                imp.b.getI1Type()));
}

} // namespace

void nki::onnx_import::registerLogicOps(OpTable &t) {
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  t["Equal"] = compare<FP::OEQ, IP::eq>;
  t["Less"] = compare<FP::OLT, IP::slt>;
  t["LessOrEqual"] = compare<FP::OLE, IP::sle>;
  t["Greater"] = compare<FP::OGT, IP::sgt>;
  t["GreaterOrEqual"] = compare<FP::OGE, IP::sge>;
  t["And"] = logic<arith::AndIOp>;
  t["Or"] = logic<arith::OrIOp>;
  t["Xor"] = logic<arith::XOrIOp>;
  t["Not"] = notOp;
  t["Where"] = where;
  t["Cast"] = cast;
  t["CastLike"] = castLike;
  t["Mod"] = mod;
  t["BitShift"] = bitShift;
  t["ArgMax"] = argExtreme<true>;
  t["ArgMin"] = argExtreme<false>;
  t["IsNaN"] = isNaN;
  t["IsInf"] = isInf;
}
