//===- Importer.cpp - ONNX ModelProto to func.func on tensors -------------===//
//
// One pass over the graph in node order (ONNX graphs are topologically
// sorted): each node's outputs are computed from the MLIR values of its
// inputs, whose tensor types carry the static shapes, so no separate shape
// inference is needed for the ops handled here. Unsupported ops are all
// reported before any lowering, one diagnostic per distinct op type.
//
//===----------------------------------------------------------------------===//

#include "nki/Frontend/ONNX/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <set>

using namespace mlir;
using namespace nki;

namespace {

/// An int64 tensor known at compile time (Reshape's shape operand).
struct IntConstant {
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
};

using BodyFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef fileName, const ONNXImportOptions &opts)
      : ctx(ctx), b(ctx), opts(opts),
        fileLoc(FileLineColLoc::get(ctx, fileName, 0, 0)) {}

  OwningOpRef<ModuleOp> run(const onnx::ModelProto &model);

private:
  MLIRContext *ctx;
  OpBuilder b;
  const ONNXImportOptions &opts;
  Location fileLoc;
  int64_t opset = 0;
  std::map<std::string, Value> values;
  std::map<std::string, IntConstant> ints;

  Location nodeLoc(const onnx::NodeProto &node) {
    std::string name = node.name().empty() ? node.op_type() : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
  }
  std::optional<Type> elementType(int32_t onnxType);
  LogicalResult importInitializer(const onnx::TensorProto &t, Location loc,
                                  const std::string &name);
  LogicalResult importNode(const onnx::NodeProto &node);
  FailureOr<Value> input(const onnx::NodeProto &node, int i);

  Value elementwise(Location loc, ValueRange operands, BodyFn body);
  Value reduceLast(Location loc, Value x, bool isMax);
  Value rowwise(Location loc, Value x, Value row, BodyFn body);
  Value emptyLike(Location loc, ArrayRef<int64_t> shape, Type elt) {
    return tensor::EmptyOp::create(b, loc, shape, elt);
  }
  Value filled(Location loc, ArrayRef<int64_t> shape, Type elt, double v) {
    Value c = arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, v));
    return linalg::FillOp::create(b, loc, c, emptyLike(loc, shape, elt))
        .getResult(0);
  }
  Value reshape(Location loc, Value x, ArrayRef<int64_t> shape);
  Value transpose(Location loc, Value x, ArrayRef<int64_t> perm);
  FailureOr<Value> matmul(Location loc, Value a, Value bm);
};

} // namespace

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

std::optional<Type> Importer::elementType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  default:
    return std::nullopt;
  }
}

static std::string typeName(int32_t onnxType) {
  if (onnx::TensorProto_DataType_IsValid(onnxType))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(onnxType));
  return "type " + std::to_string(onnxType);
}

LogicalResult Importer::importInitializer(const onnx::TensorProto &t,
                                          Location loc,
                                          const std::string &name) {
  if (t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL)
    return emitError(loc) << "tensor '" << name
                          << "' uses external data, which is not supported";
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return emitError(loc) << "tensor '" << name << "' has a negative dim";
    n *= d;
  }
  const std::string &raw = t.raw_data();
  if (t.data_type() == onnx::TensorProto::INT64 ||
      t.data_type() == onnx::TensorProto::INT32) {
    IntConstant c{shape, {}};
    bool is64 = t.data_type() == onnx::TensorProto::INT64;
    size_t width = is64 ? 8 : 4;
    if (!raw.empty()) {
      if (raw.size() != size_t(n) * width)
        return emitError(loc)
               << "tensor '" << name << "' has " << raw.size()
               << " bytes of data, expected " << n * int64_t(width);
      for (int64_t i = 0; i < n; ++i) {
        if (is64) {
          int64_t v;
          std::memcpy(&v, raw.data() + i * 8, 8);
          c.values.push_back(v);
        } else {
          int32_t v;
          std::memcpy(&v, raw.data() + i * 4, 4);
          c.values.push_back(v);
        }
      }
    } else if (is64) {
      c.values.assign(t.int64_data().begin(), t.int64_data().end());
    } else {
      c.values.assign(t.int32_data().begin(), t.int32_data().end());
    }
    if (int64_t(c.values.size()) != n)
      return emitError(loc) << "tensor '" << name << "' has " << c.values.size()
                            << " values, expected " << n;
    ints[name] = std::move(c);
    return success();
  }
  std::optional<Type> elt = elementType(t.data_type());
  if (!elt)
    return emitError(loc) << "tensor '" << name << "' has element type "
                          << typeName(t.data_type())
                          << "; only FLOAT and BFLOAT16 are supported";
  auto type = RankedTensorType::get(shape, *elt);
  DenseElementsAttr attr;
  if (elt->isF32()) {
    std::vector<float> data;
    if (!raw.empty()) {
      if (raw.size() != size_t(n) * 4)
        return emitError(loc) << "tensor '" << name << "' has " << raw.size()
                              << " bytes of data, expected " << n * 4;
      data.resize(n);
      std::memcpy(data.data(), raw.data(), raw.size());
    } else {
      data.assign(t.float_data().begin(), t.float_data().end());
    }
    if (int64_t(data.size()) != n)
      return emitError(loc) << "tensor '" << name << "' has " << data.size()
                            << " values, expected " << n;
    attr = DenseElementsAttr::get(type, ArrayRef<float>(data));
  } else {
    std::vector<APFloat> data;
    auto push = [&](uint16_t bits) {
      data.push_back(APFloat(APFloat::BFloat(), APInt(16, bits)));
    };
    if (!raw.empty()) {
      if (raw.size() != size_t(n) * 2)
        return emitError(loc) << "tensor '" << name << "' has " << raw.size()
                              << " bytes of data, expected " << n * 2;
      for (int64_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, raw.data() + i * 2, 2);
        push(v);
      }
    } else {
      for (int32_t v : t.int32_data())
        push(uint16_t(v));
    }
    if (int64_t(data.size()) != n)
      return emitError(loc) << "tensor '" << name << "' has " << data.size()
                            << " values, expected " << n;
    attr = DenseElementsAttr::get(type, data);
  }
  values[name] = arith::ConstantOp::create(b, loc, attr);
  return success();
}

FailureOr<Value> Importer::input(const onnx::NodeProto &node, int i) {
  if (i >= node.input_size() || node.input(i).empty())
    return emitError(nodeLoc(node))
           << node.op_type() << " node is missing input " << i;
  auto it = values.find(node.input(i));
  if (it == values.end()) {
    if (ints.count(node.input(i)))
      return emitError(nodeLoc(node))
             << node.op_type() << " input '" << node.input(i)
             << "' is an integer tensor; only FLOAT and BFLOAT16 are "
                "supported here";
    return emitError(nodeLoc(node))
           << node.op_type() << " input '" << node.input(i)
           << "' is not defined before its use";
  }
  return it->second;
}

/// Numpy broadcasting of `shapes`, or nothing if they do not broadcast.
static std::optional<SmallVector<int64_t>>
broadcastShape(ArrayRef<SmallVector<int64_t>> shapes) {
  size_t rank = 0;
  for (auto &s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<int64_t> out(rank, 1);
  for (auto &s : shapes)
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = d;
    }
  return out;
}

Value Importer::elementwise(Location loc, ValueRange operands, BodyFn body) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : operands)
    shapes.push_back(llvm::to_vector(tensorType(v).getShape()));
  SmallVector<int64_t> out = *broadcastShape(shapes);
  int64_t rank = out.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (Value v : operands) {
    ArrayRef<int64_t> s = tensorType(v).getShape();
    int64_t offset = rank - int64_t(s.size());
    // Numpy broadcasting: missing leading dims are dropped from the map,
    // size-1 dims against a larger one read index 0. (Collapsing the unit
    // dims away instead makes the compiler return a memref view today.)
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < int64_t(s.size()); ++i)
      exprs.push_back(s[i] == 1 && out[offset + i] != 1
                          ? b.getAffineConstantExpr(0)
                          : b.getAffineDimExpr(offset + i));
    ins.push_back(v);
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Type elt = tensorType(operands[0]).getElementType();
  Value init = emptyLike(loc, out, elt);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto op = linalg::GenericOp::create(
      b, loc, init.getType(), ins, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value r = body(nb, l, args.drop_back());
        linalg::YieldOp::create(nb, l, r);
      });
  return op.getResult(0);
}

/// Max or sum over the last dim, as a tensor of the leading dims.
Value Importer::reduceLast(Location loc, Value x, bool isMax) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> outShape(t.getShape().drop_back());
  Type elt = t.getElementType();
  Value init = filled(loc, outShape, elt,
                      isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i + 1 < rank; ++i)
    outExprs.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value r =
                   isMax ? arith::MaximumFOp::create(nb, l, args[0], args[1])
                               .getResult()
                         : arith::AddFOp::create(nb, l, args[0], args[1])
                               .getResult();
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

/// body(x, row) where `row` holds one value per leading index of `x` (a
/// reduction over x's last dim), broadcast along that dim.
Value Importer::rowwise(Location loc, Value x, Value row, BodyFn body) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  SmallVector<AffineExpr> rowExprs;
  for (int64_t i = 0; i + 1 < rank; ++i)
    rowExprs.push_back(b.getAffineDimExpr(i));
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, rowExprs, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  Value init = emptyLike(loc, t.getShape(), t.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x, row}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

/// Any static reshape: collapse to 1-D, then expand to the target.
Value Importer::reshape(Location loc, Value x, ArrayRef<int64_t> shape) {
  RankedTensorType t = tensorType(x);
  if (t.getShape() == shape)
    return x;
  Type elt = t.getElementType();
  if (t.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < t.getRank(); ++i)
      all.push_back(i);
    SmallVector<ReassociationIndices> groups;
    if (t.getRank() > 0)
      groups.push_back(all);
    x = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({t.getNumElements()}, elt), x, groups);
  }
  if (shape.size() == 1)
    return x;
  ReassociationIndices all;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i)
    all.push_back(i);
  SmallVector<ReassociationIndices> groups;
  if (!shape.empty())
    groups.push_back(all);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({}, elt), x, groups);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, elt), x, groups);
}

Value Importer::transpose(Location loc, Value x, ArrayRef<int64_t> perm) {
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  Value init = emptyLike(loc, shape, t.getElementType());
  return linalg::TransposeOp::create(b, loc, x, init, perm).getResult()[0];
}

/// ONNX MatMul for ranks >= 2: 2-D is linalg.matmul; a rank-N A against a
/// 2-D B folds A's leading dims into rows; equal batch dims fold into one
/// batch of linalg.batch_matmul.
FailureOr<Value> Importer::matmul(Location loc, Value a, Value bm) {
  RankedTensorType ta = tensorType(a), tb = tensorType(bm);
  int64_t ra = ta.getRank(), rb = tb.getRank();
  Type elt = ta.getElementType();
  if (ra < 2 || rb < 2)
    return emitError(loc) << "MatMul of rank " << ra << " by rank " << rb
                          << " is not supported yet (both must be >= 2)";
  int64_t k = ta.getDimSize(ra - 1);
  if (tb.getDimSize(rb - 2) != k)
    return emitError(loc) << "MatMul contraction sizes differ: " << k << " and "
                          << tb.getDimSize(rb - 2);
  int64_t m = ta.getDimSize(ra - 2), n = tb.getDimSize(rb - 1);
  SmallVector<int64_t> outShape(ta.getShape().drop_back());
  outShape.push_back(n);
  if (rb == 2) {
    int64_t rows = ta.getNumElements() / k;
    Value a2 = reshape(loc, a, {rows, k});
    Value init = filled(loc, {rows, n}, elt, 0.0);
    Value r =
        linalg::MatmulOp::create(b, loc, ValueRange{a2, bm}, ValueRange{init})
            .getResult(0);
    return reshape(loc, r, outShape);
  }
  if (ra != rb || ta.getShape().drop_back(2) != tb.getShape().drop_back(2))
    return emitError(loc) << "MatMul with broadcast batch dims (" << ta
                          << " by " << tb << ") is not supported yet";
  int64_t batch = ta.getNumElements() / (m * k);
  Value a3 = reshape(loc, a, {batch, m, k});
  Value b3 = reshape(loc, bm, {batch, k, n});
  Value init = filled(loc, {batch, m, n}, elt, 0.0);
  Value r = linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3},
                                          ValueRange{init})
                .getResult(0);
  return reshape(loc, r, outShape);
}

static const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                            StringRef name) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}
static int64_t intAttr(const onnx::NodeProto &node, StringRef name,
                       int64_t dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->i() : dflt;
}
static float floatAttr(const onnx::NodeProto &node, StringRef name,
                       float dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->f() : dflt;
}

static const std::set<std::string> &supportedOps() {
  static const std::set<std::string> ops = {
      "Add",      "Sub",        "Mul",     "Div",       "Max",
      "Min",      "Relu",       "Sigmoid", "Tanh",      "Exp",
      "Log",      "Sqrt",       "Abs",     "Neg",       "Erf",
      "MatMul",   "Gemm",       "Softmax", "Transpose", "Reshape",
      "Identity", "Reciprocal", "Pow",     "Constant",  "Sum",
      "Mean",     "LeakyRelu",  "Elu",     "Selu",      "HardSigmoid",
      "Softsign", "Softplus",   "Sin",     "Cos",       "Flatten"};
  return ops;
}

static Value constLike(OpBuilder &b, Location l, Value like, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(like.getType(), v));
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  Location loc = nodeLoc(node);
  StringRef op = node.op_type();
  auto define = [&](Value v) {
    if (node.output_size() < 1)
      return failure();
    values[node.output(0)] = v;
    return success();
  };

  if (op == "Constant") {
    if (const onnx::AttributeProto *a = findAttr(node, "value"))
      return importInitializer(a->t(), loc, node.output(0));
    if (const onnx::AttributeProto *a = findAttr(node, "value_float"))
      return define(arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                 a->f())));
    if (const onnx::AttributeProto *a = findAttr(node, "value_floats")) {
      std::vector<float> v(a->floats().begin(), a->floats().end());
      return define(arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
              ArrayRef<float>(v))));
    }
    if (const onnx::AttributeProto *a = findAttr(node, "value_int")) {
      ints[node.output(0)] = IntConstant{{}, {a->i()}};
      return success();
    }
    if (const onnx::AttributeProto *a = findAttr(node, "value_ints")) {
      ints[node.output(0)] = IntConstant{{int64_t(a->ints_size())},
                                         {a->ints().begin(), a->ints().end()}};
      return success();
    }
    return emitError(loc) << "Constant node has no supported value attribute";
  }

  if (op == "Reshape") {
    FailureOr<Value> x = input(node, 0);
    if (failed(x))
      return failure();
    if (node.input_size() < 2 || !ints.count(node.input(1)))
      return emitError(loc)
             << "Reshape needs a constant shape (an int64 "
                "initializer or Constant); '"
             << (node.input_size() > 1 ? node.input(1) : "") << "' is not one";
    const std::vector<int64_t> &req = ints[node.input(1)].values;
    RankedTensorType t = tensorType(*x);
    bool allowZero = intAttr(node, "allowzero", 0) != 0;
    SmallVector<int64_t> shape;
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < req.size(); ++i) {
      int64_t d = req[i];
      if (d == 0 && !allowZero) {
        if (int64_t(i) >= t.getRank())
          return emitError(loc) << "Reshape copies dim " << i << " of a rank-"
                                << t.getRank() << " input";
        d = t.getDimSize(i);
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
    if (inferred >= 0 && known != 0)
      shape[inferred] = t.getNumElements() / known;
    int64_t total = 1;
    for (int64_t d : shape)
      total *= d;
    if (total != t.getNumElements())
      return emitError(loc) << "Reshape of " << t << " to " << shape.size()
                            << "-D shape with " << total << " elements";
    return define(reshape(loc, *x, shape));
  }

  // Every other op reads float tensors.
  SmallVector<Value> ins;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty()) {
      ins.push_back(Value());
      continue;
    }
    // A constant exponent is read by the Pow lowering itself.
    if (op == "Pow" && i == 1 && !values.count(node.input(1)))
      break;
    FailureOr<Value> v = input(node, i);
    if (failed(v))
      return failure();
    ins.push_back(*v);
  }
  auto need = [&](size_t n) -> LogicalResult {
    if (ins.size() < n)
      return emitError(loc)
             << op << " needs " << n << " inputs, got " << ins.size();
    for (size_t i = 0; i < n; ++i)
      if (!ins[i])
        return emitError(loc) << op << " input " << i << " is empty";
    return success();
  };

  using Fn2 = std::function<Value(OpBuilder &, Location, Value, Value)>;
  static const std::map<std::string, Fn2> binary = {
      {"Add",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::AddFOp::create(b, l, x, y);
       }},
      {"Sub",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::SubFOp::create(b, l, x, y);
       }},
      {"Mul",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::MulFOp::create(b, l, x, y);
       }},
      {"Div",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::DivFOp::create(b, l, x, y);
       }},
      {"Max",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::MaximumFOp::create(b, l, x, y);
       }},
      {"Sum",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::AddFOp::create(b, l, x, y);
       }},
      {"Mean",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::AddFOp::create(b, l, x, y);
       }},
      {"Min",
       [](OpBuilder &b, Location l, Value x, Value y) -> Value {
         return arith::MinimumFOp::create(b, l, x, y);
       }},
  };
  if (auto it = binary.find(op.str()); it != binary.end()) {
    // Max and Min take 1 or more inputs (folded in one generic); the
    // arithmetic ops take exactly 2.
    bool variadic = op == "Max" || op == "Min" || op == "Sum" || op == "Mean";
    if (failed(need(variadic ? 1 : 2)))
      return failure();
    if (!variadic)
      ins.resize(2);
    SmallVector<SmallVector<int64_t>> shapes;
    for (Value v : ins) {
      if (!v)
        return emitError(loc) << op << " has an empty input";
      shapes.push_back(llvm::to_vector(tensorType(v).getShape()));
      if (tensorType(v).getElementType() != tensorType(ins[0]).getElementType())
        return emitError(loc) << op << " operands have different element types";
    }
    if (!broadcastShape(shapes))
      return emitError(loc) << op << " operands do not broadcast";
    Fn2 fn = it->second;
    bool mean = op == "Mean";
    return define(
        elementwise(loc, ins, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value r = a[0];
          for (Value v : a.drop_front())
            r = fn(nb, l, r, v);
          if (mean)
            r = arith::DivFOp::create(nb, l, r,
                                      constLike(nb, l, r, double(a.size())));
          return r;
        }));
  }

  using Fn1 = std::function<Value(OpBuilder &, Location, Value)>;
  static const std::map<std::string, Fn1> unary = {
      {"Relu",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return arith::MaximumFOp::create(b, l, x, constLike(b, l, x, 0.0));
       }},
      {"Sigmoid",
       [](OpBuilder &b, Location l, Value x) -> Value {
         Value one = constLike(b, l, x, 1.0);
         Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
         return arith::DivFOp::create(b, l, one,
                                      arith::AddFOp::create(b, l, one, e));
       }},
      {"Tanh",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::TanhOp::create(b, l, x);
       }},
      {"Exp",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::ExpOp::create(b, l, x);
       }},
      {"Log",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::LogOp::create(b, l, x);
       }},
      {"Sqrt",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::SqrtOp::create(b, l, x);
       }},
      {"Abs",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::AbsFOp::create(b, l, x);
       }},
      {"Neg",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return arith::NegFOp::create(b, l, x);
       }},
      {"Erf",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return math::ErfOp::create(b, l, x);
       }},
      {"Reciprocal",
       [](OpBuilder &b, Location l, Value x) -> Value {
         return arith::DivFOp::create(b, l, constLike(b, l, x, 1.0), x);
       }},
  };
  if (auto it = unary.find(op.str()); it != unary.end()) {
    if (failed(need(1)))
      return failure();
    Fn1 fn = it->second;
    return define(elementwise(loc, {ins[0]},
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                return fn(nb, l, a[0]);
                              }));
  }

  // Activations with attributes, written with exp/select so that the
  // compiler's body ops cover them.
  if (op == "LeakyRelu" || op == "Elu" || op == "Selu" || op == "HardSigmoid" ||
      op == "Softsign" || op == "Softplus" || op == "Sin" || op == "Cos") {
    if (failed(need(1)))
      return failure();
    double alpha = floatAttr(node, "alpha",
                             op == "LeakyRelu"     ? 0.01f
                             : op == "Selu"        ? 1.67326319217681884765625f
                             : op == "HardSigmoid" ? 0.2f
                                                   : 1.0f);
    double gamma = floatAttr(node, "gamma", 1.05070102214813232421875f);
    double beta = floatAttr(node, "beta", 0.5f);
    return define(elementwise(
        loc, {ins[0]}, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value x = a[0];
          auto c = [&](double v) { return constLike(nb, l, x, v); };
          if (op == "Sin")
            return math::SinOp::create(nb, l, x);
          if (op == "Cos")
            return math::CosOp::create(nb, l, x);
          if (op == "Softsign")
            return arith::DivFOp::create(
                nb, l, x,
                arith::AddFOp::create(nb, l, c(1.0),
                                      math::AbsFOp::create(nb, l, x)));
          if (op == "Softplus")
            return math::LogOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, c(1.0),
                                      math::ExpOp::create(nb, l, x)));
          if (op == "HardSigmoid") {
            Value y = arith::AddFOp::create(
                nb, l, arith::MulFOp::create(nb, l, x, c(alpha)), c(beta));
            return arith::MinimumFOp::create(
                nb, l, arith::MaximumFOp::create(nb, l, y, c(0.0)), c(1.0));
          }
          Value neg;
          if (op == "LeakyRelu")
            neg = arith::MulFOp::create(nb, l, x, c(alpha));
          else // Elu, Selu: alpha * (exp(x) - 1)
            neg = arith::MulFOp::create(
                nb, l,
                arith::SubFOp::create(nb, l, math::ExpOp::create(nb, l, x),
                                      c(1.0)),
                c(alpha));
          Value pos = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, x,
                                            c(0.0));
          Value r = arith::SelectOp::create(nb, l, pos, x, neg);
          if (op == "Selu")
            r = arith::MulFOp::create(nb, l, r, c(gamma));
          return r;
        }));
  }

  if (op == "Flatten") {
    if (failed(need(1)))
      return failure();
    RankedTensorType t = tensorType(ins[0]);
    int64_t axis = intAttr(node, "axis", 1);
    if (axis < 0)
      axis += t.getRank();
    if (axis < 0 || axis > t.getRank())
      return emitError(loc) << "Flatten axis " << axis << " of a rank-"
                            << t.getRank() << " tensor";
    int64_t rows = 1;
    for (int64_t i = 0; i < axis; ++i)
      rows *= t.getDimSize(i);
    return define(reshape(loc, ins[0], {rows, t.getNumElements() / rows}));
  }

  if (op == "Identity") {
    if (failed(need(1)))
      return failure();
    return define(ins[0]);
  }

  if (op == "Pow") {
    if (failed(need(1)))
      return failure();
    // The exponent must be a scalar float constant (arith.constant splat).
    std::optional<double> e;
    if (node.input_size() > 1) {
      auto it = values.find(node.input(1));
      if (it != values.end())
        if (auto c = it->second.getDefiningOp<arith::ConstantOp>())
          if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
            if (dense.isSplat())
              e = dense.getSplatValue<APFloat>().convertToDouble();
      if (!e && ints.count(node.input(1)) &&
          ints[node.input(1)].values.size() == 1)
        e = double(ints[node.input(1)].values[0]);
    }
    if (!e) {
      if (ins.size() < 2 || !ins[1])
        return emitError(loc) << "Pow exponent '" << node.input(1)
                              << "' is neither a float tensor nor a scalar "
                                 "integer constant";
      SmallVector<SmallVector<int64_t>> shapes = {
          llvm::to_vector(tensorType(ins[0]).getShape()),
          llvm::to_vector(tensorType(ins[1]).getShape())};
      if (!broadcastShape(shapes) || tensorType(ins[0]).getElementType() !=
                                         tensorType(ins[1]).getElementType())
        return emitError(loc) << "Pow operands " << ins[0].getType() << " and "
                              << ins[1].getType() << " do not broadcast";
      return define(
          elementwise(loc, {ins[0], ins[1]},
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return math::PowFOp::create(nb, l, a[0], a[1]);
                      }));
    }
    double ex = *e;
    return define(elementwise(
        loc, {ins[0]}, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value x = a[0];
          if (ex == 1.0)
            return x;
          if (ex == 2.0)
            return arith::MulFOp::create(nb, l, x, x);
          if (ex == 3.0)
            return arith::MulFOp::create(nb, l,
                                         arith::MulFOp::create(nb, l, x, x), x);
          if (ex == 0.5)
            return math::SqrtOp::create(nb, l, x);
          if (ex == -1.0)
            return arith::DivFOp::create(nb, l, constLike(nb, l, x, 1.0), x);
          return math::PowFOp::create(nb, l, x, constLike(nb, l, x, ex));
        }));
  }

  if (op == "MatMul") {
    if (failed(need(2)))
      return failure();
    FailureOr<Value> r = matmul(loc, ins[0], ins[1]);
    return failed(r) ? failure() : define(*r);
  }

  if (op == "Gemm") {
    if (failed(need(2)))
      return failure();
    Value a = ins[0], bm = ins[1];
    if (tensorType(a).getRank() != 2 || tensorType(bm).getRank() != 2)
      return emitError(loc) << "Gemm inputs must be 2-D";
    if (intAttr(node, "transA", 0))
      a = transpose(loc, a, {1, 0});
    if (intAttr(node, "transB", 0))
      bm = transpose(loc, bm, {1, 0});
    FailureOr<Value> y = matmul(loc, a, bm);
    if (failed(y))
      return failure();
    double alpha = floatAttr(node, "alpha", 1.0f);
    double beta = floatAttr(node, "beta", 1.0f);
    Value c = ins.size() > 2 ? ins[2] : Value();
    if (c) {
      SmallVector<SmallVector<int64_t>> shapes = {
          llvm::to_vector(tensorType(*y).getShape()),
          llvm::to_vector(tensorType(c).getShape())};
      std::optional<SmallVector<int64_t>> s = broadcastShape(shapes);
      if (!s || *s != tensorType(*y).getShape())
        return emitError(loc) << "Gemm C " << c.getType()
                              << " does not broadcast to " << y->getType();
    }
    if (alpha == 1.0 && (!c || beta == 0.0))
      return define(*y);
    SmallVector<Value> operands = {*y};
    if (c && beta != 0.0)
      operands.push_back(c);
    return define(elementwise(
        loc, operands, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value r = a[0];
          if (alpha != 1.0)
            r = arith::MulFOp::create(nb, l, r, constLike(nb, l, r, alpha));
          if (a.size() > 1) {
            Value cc = a[1];
            if (beta != 1.0)
              cc = arith::MulFOp::create(nb, l, cc, constLike(nb, l, cc, beta));
            r = arith::AddFOp::create(nb, l, r, cc);
          }
          return r;
        }));
  }

  if (op == "Softmax") {
    if (failed(need(1)))
      return failure();
    Value x = ins[0];
    int64_t rank = tensorType(x).getRank();
    int64_t axis = intAttr(node, "axis", opset >= 13 ? -1 : 1);
    if (axis < 0)
      axis += rank;
    if (rank == 0 || axis < 0 || axis >= rank)
      return emitError(loc)
             << "Softmax axis " << axis << " of a rank-" << rank << " tensor";
    auto softmaxLast = [&](Value v) {
      Value mx = reduceLast(loc, v, /*isMax=*/true);
      Value e = rowwise(loc, v, mx,
                        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          return math::ExpOp::create(
                              nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
                        });
      Value sum = reduceLast(loc, e, /*isMax=*/false);
      return rowwise(loc, e, sum,
                     [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return arith::DivFOp::create(nb, l, a[0], a[1]);
                     });
    };
    ArrayRef<int64_t> shape = tensorType(x).getShape();
    if (axis == rank - 1)
      return define(softmaxLast(x));
    if (opset < 13) {
      // Before opset 13 the input is coerced to 2-D at `axis` and the
      // softmax runs over the flattened trailing dims.
      int64_t rows = 1;
      for (int64_t i = 0; i < axis; ++i)
        rows *= shape[i];
      Value flat =
          reshape(loc, x, {rows, tensorType(x).getNumElements() / rows});
      return define(reshape(loc, softmaxLast(flat), shape));
    }
    // From opset 13 the softmax is over `axis` alone: move it last and back.
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis)
        perm.push_back(i);
    perm.push_back(axis);
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[perm[i]] = i;
    return define(
        transpose(loc, softmaxLast(transpose(loc, x, perm)), inverse));
  }

  if (op == "Transpose") {
    if (failed(need(1)))
      return failure();
    int64_t rank = tensorType(ins[0]).getRank();
    SmallVector<int64_t> perm;
    if (const onnx::AttributeProto *a = findAttr(node, "perm"))
      perm.assign(a->ints().begin(), a->ints().end());
    else
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    SmallVector<int64_t> sorted(perm);
    llvm::sort(sorted);
    for (int64_t i = 0; i < int64_t(sorted.size()); ++i)
      if (sorted[i] != i || int64_t(sorted.size()) != rank)
        return emitError(loc)
               << "Transpose perm is not a permutation of " << rank << " dims";
    return define(transpose(loc, ins[0], perm));
  }

  return emitError(loc) << "no lowering for ONNX op " << op;
}

OwningOpRef<ModuleOp> Importer::run(const onnx::ModelProto &model) {
  if (!model.has_graph())
    return emitError(fileLoc) << "ONNX model has no graph", nullptr;
  const onnx::GraphProto &graph = model.graph();
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();

  // Every unsupported op type first, one diagnostic each.
  std::set<std::pair<std::string, std::string>> reported;
  bool unsupported = false;
  for (const onnx::NodeProto &node : graph.node()) {
    std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
    bool known = (domain == "ai.onnx") && supportedOps().count(node.op_type());
    if (known || !reported.insert({domain, node.op_type()}).second)
      continue;
    int64_t version = 0;
    for (const onnx::OperatorSetIdProto &o : model.opset_import())
      if ((o.domain().empty() ? "ai.onnx" : o.domain()) == domain)
        version = o.version();
    emitError(nodeLoc(node))
        << "unsupported ONNX op '" << node.op_type() << "' (domain '" << domain
        << "', opset "
        << (version ? std::to_string(version) : std::string("not imported"))
        << ") at node '" << (node.name().empty() ? "<unnamed>" : node.name())
        << "'";
    unsupported = true;
  }
  if (unsupported)
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());

  std::set<std::string> initNames;
  for (const onnx::TensorProto &t : graph.initializer())
    initNames.insert(t.name());

  // Arguments: graph inputs that are not initializers.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  bool bad = false;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (initNames.count(in.name()))
      continue;
    if (!in.type().has_tensor_type()) {
      emitError(fileLoc) << "graph input '" << in.name() << "' is not a tensor";
      bad = true;
      continue;
    }
    const onnx::TypeProto::Tensor &tt = in.type().tensor_type();
    std::optional<Type> elt = elementType(tt.elem_type());
    if (!elt) {
      emitError(fileLoc) << "graph input '" << in.name()
                         << "' has element type " << typeName(tt.elem_type())
                         << "; only FLOAT and BFLOAT16 are supported";
      bad = true;
      continue;
    }
    SmallVector<int64_t> shape;
    auto fixed = opts.inputShapes.find(in.name());
    if (fixed != opts.inputShapes.end()) {
      if (tt.has_shape() &&
          tt.shape().dim_size() != int(fixed->second.size())) {
        emitError(fileLoc) << "--input-shape for '" << in.name() << "' has "
                           << fixed->second.size()
                           << " dims but the input has rank "
                           << tt.shape().dim_size();
        bad = true;
        continue;
      }
      shape.assign(fixed->second.begin(), fixed->second.end());
    } else if (!tt.has_shape()) {
      emitError(fileLoc) << "graph input '" << in.name()
                         << "' has no shape; static shapes are required: "
                            "give one with --input-shape="
                         << in.name() << ":AxBx...";
      bad = true;
      continue;
    } else {
      std::string dynamic;
      for (int i = 0; i < tt.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto::Dimension &d = tt.shape().dim(i);
        if (d.has_dim_value() && d.dim_value() > 0) {
          shape.push_back(d.dim_value());
          continue;
        }
        if (d.has_dim_value()) {
          emitError(fileLoc) << "graph input '" << in.name() << "' has dim "
                             << i << " of size " << d.dim_value()
                             << "; empty tensors are not supported";
          bad = true;
          break;
        }
        if (dynamic.empty())
          dynamic = d.has_dim_param() ? "'" + d.dim_param() + "'"
                                      : "dim " + std::to_string(i);
        shape.push_back(-1);
      }
      if (bad)
        continue;
      if (!dynamic.empty()) {
        std::string example;
        for (size_t i = 0; i < shape.size(); ++i)
          example += (i ? "x" : "") + (shape[i] < 0 ? std::string("N")
                                                    : std::to_string(shape[i]));
        emitError(fileLoc) << "graph input '" << in.name()
                           << "' has a dynamic dimension (" << dynamic
                           << "); static shapes are required: give one with "
                              "--input-shape="
                           << in.name() << ":" << example;
        bad = true;
        continue;
      }
    }
    argTypes.push_back(RankedTensorType::get(shape, *elt));
    argNames.push_back(in.name());
  }
  if (bad)
    return nullptr;

  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (size_t i = 0; i < argNames.size(); ++i) {
    func.setArgAttr(i, "nki.name", b.getStringAttr(argNames[i]));
    values[argNames[i]] = entry->getArgument(i);
  }
  b.setInsertionPointToStart(entry);

  for (const onnx::TensorProto &t : graph.initializer())
    if (failed(importInitializer(t, fileLoc, t.name())))
      return nullptr;
  for (const onnx::NodeProto &node : graph.node())
    if (failed(importNode(node)))
      return nullptr;

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      emitError(fileLoc) << "graph output '" << out.name()
                         << "' is not a FLOAT or BFLOAT16 tensor computed "
                            "by the graph";
      return nullptr;
    }
    results.push_back(it->second);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, TypeRange(ValueRange(results))));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

bool nki::parseONNXInputShape(StringRef spec, ONNXImportOptions &options,
                              std::string &error) {
  size_t colon = spec.rfind(':');
  if (colon == StringRef::npos || colon == 0) {
    error = "--input-shape='" + spec.str() + "': expected NAME:AxBxC";
    return false;
  }
  std::vector<int64_t> shape;
  StringRef dims = spec.substr(colon + 1);
  SmallVector<StringRef> parts;
  if (!dims.empty())
    dims.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d <= 0) {
      error = "--input-shape='" + spec.str() + "': '" + p.str() +
              "' is not a positive dimension";
      return false;
    }
    shape.push_back(d);
  }
  options.inputShapes[spec.substr(0, colon).str()] = shape;
  return true;
}

OwningOpRef<ModuleOp> nki::importONNX(StringRef bytes, StringRef fileName,
                                      MLIRContext *context,
                                      const ONNXImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  onnx::ModelProto model;
  if (bytes.size() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return emitError(fileLoc) << "not a valid ONNX model: the protobuf is "
                                 "malformed or truncated",
           nullptr;
  if (!model.has_graph() || model.opset_import_size() == 0)
    return emitError(fileLoc)
               << "not a valid ONNX model: "
               << (model.has_graph() ? "no opset_import" : "no graph"),
           nullptr;
  context
      ->loadDialect<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                    tensor::TensorDialect, linalg::LinalgDialect>();
  return Importer(context, fileName, options).run(model);
}

void nki::registerONNXImportDialects(DialectRegistry &registry) {
  registry.insert<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
}
