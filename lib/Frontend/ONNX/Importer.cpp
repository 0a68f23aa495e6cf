//===- Importer.cpp - ONNX ModelProto to func.func on tensors -------------===//
//
// One pass over the graph in node order (ONNX graphs are topologically
// sorted): each node's outputs are computed from the MLIR values of its
// inputs, whose tensor types carry the static shapes, so no separate shape
// inference is needed for the ops handled here. Unsupported ops are all
// reported before any lowering, one diagnostic per distinct op type.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/bit.h"

#include "onnx/checker.h"

#include <cstring>
#include <limits>
#include <set>

using namespace mlir;
using namespace nki;
using namespace nki::onnx_import;

const OpTable &onnx_import::opTable() {
  static const OpTable table = [] {
    OpTable t;
    registerConstantAndShapeOps(t);
    registerConvOps(t);
    registerElementwiseOps(t);
    registerMathOps(t);
    registerMatMulOps(t);
    registerSoftmaxOps(t);
    registerGatherElementsOps(t);
    registerLossOps(t);
    registerReduceOps(t);
    registerNormalizationOps(t);
    registerDataMovementOps(t);
    registerGeneratorOps(t);
    registerCumSumOps(t);
    registerEinsumOps(t);
    registerResizeOps(t);
    registerRecurrentOps(t);
    registerQuantizeOps(t);
    registerScatterOps(t);
    registerOneHotOps(t);
    registerTopKOps(t);
    // Last: its Cast/CastLike (every carried type) replace the float-only
    // ones of Generators.cpp.
    registerLogicOps(t);
    return t;
  }();
  return table;
}

Importer::Importer(MLIRContext *ctx, StringRef fileName,
                   const ONNXImportOptions &opts)
    : ctx(ctx), b(ctx), opts(opts),
      fileLoc(FileLineColLoc::get(ctx, fileName, 0, 0)) {}

Location Importer::nodeLoc(const onnx::NodeProto &node) {
  std::string name = node.name().empty() ? node.op_type() : node.name();
  return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
}

LogicalResult Importer::define(const onnx::NodeProto &node, Value v, int i) {
  if (i >= node.output_size())
    return emitError(nodeLoc(node))
           << node.op_type() << " node has no output " << i;
  values[node.output(i)] = v;
  return success();
}

LogicalResult Importer::defineInt(const onnx::NodeProto &node, IntConstant c,
                                  int i) {
  if (i >= node.output_size())
    return emitError(nodeLoc(node))
           << node.op_type() << " node has no output " << i;
  ints[node.output(i)] = std::move(c);
  return success();
}

const IntConstant *Importer::intInput(const onnx::NodeProto &node, int i) {
  if (!hasInput(node, i))
    return nullptr;
  auto it = ints.find(node.input(i));
  return it == ints.end() ? nullptr : &it->second;
}

FailureOr<SmallVector<Value>> Importer::inputs(const onnx::NodeProto &node,
                                               int n) {
  SmallVector<Value> ins;
  for (int i = 0; i < std::max(n, node.input_size()); ++i) {
    if (i >= n && !hasInput(node, i)) {
      ins.push_back(Value());
      continue;
    }
    FailureOr<Value> v = input(node, i);
    if (failed(v))
      return failure();
    ins.push_back(*v);
  }
  return ins;
}

std::optional<Type> Importer::elementType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE: // carried as f32 (host type f64)
    return b.getF32Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  // The device has no 64-bit type and no unsigned arithmetic: these are
  // carried as i32 (host types i64, ui8, i16, ui16, ui32).
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return b.getI32Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return std::nullopt;
  }
}

std::optional<Type> Importer::hostType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  default:
    return std::nullopt;
  }
}

FailureOr<Value> Importer::materializeInt(const std::string &name,
                                          Location loc) {
  auto known = values.find(name);
  if (known != values.end())
    return known->second;
  const IntConstant &c = ints.at(name);
  Type elt = elementType(c.type).value_or(b.getI32Type());
  if (!isa<IntegerType>(elt))
    elt = b.getI32Type();
  unsigned width = elt.getIntOrFloatBitWidth();
  SmallVector<APInt> data;
  for (int64_t v : c.values) {
    bool fits = width == 1 ? (v == 0 || v == 1)
                           : v >= -(int64_t(1) << (width - 1)) &&
                                 v < (int64_t(1) << (width - 1));
    if (!fits)
      return emitError(loc) << "integer tensor '" << name << "' holds " << v
                            << ", which does not fit the device's " << elt
                            << " (INT64 tensors are carried as i32)";
    data.push_back(APInt(width, uint64_t(v), /*isSigned=*/width > 1));
  }
  auto type = RankedTensorType::get(c.shape, elt);
  Value v =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, data));
  values[name] = v;
  return v;
}

LogicalResult Importer::importTensor(const onnx::TensorProto &t, Location loc,
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
    IntConstant c{shape, {}, t.data_type()};
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
                          << ", which is not supported";
  // Every other type: its raw little-endian bytes or its typed field, as
  // doubles (exact for all of them) or 16-bit float patterns.
  int32_t dt = t.data_type();
  bool isHalf =
      dt == onnx::TensorProto::BFLOAT16 || dt == onnx::TensorProto::FLOAT16;
  // Raw floats the device stores as they are (f32, f16, bf16) are the
  // attribute's own little-endian buffer: no per-element conversion, which
  // dominated importing a model's weights.
  auto type = RankedTensorType::get(shape, *elt);
  bool storedAsIs = dt == onnx::TensorProto::FLOAT || isHalf;
  if (storedAsIs && !raw.empty() &&
      llvm::endianness::native == llvm::endianness::little) {
    if (raw.size() != size_t(n) * (isHalf ? 2 : 4))
      return emitError(loc)
             << "tensor '" << name << "' has " << raw.size()
             << " bytes of data, expected " << n * (isHalf ? 2 : 4);
    values[name] = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::getFromRawBuffer(
            type, ArrayRef<char>(raw.data(), raw.size())));
    return success();
  }
  size_t width =
      dt == onnx::TensorProto::DOUBLE || dt == onnx::TensorProto::UINT64  ? 8
      : dt == onnx::TensorProto::FLOAT || dt == onnx::TensorProto::UINT32 ? 4
      : isHalf || dt == onnx::TensorProto::INT16 ||
              dt == onnx::TensorProto::UINT16
          ? 2
          : 1;
  std::vector<double> data;
  if (!raw.empty()) {
    if (raw.size() != size_t(n) * width)
      return emitError(loc)
             << "tensor '" << name << "' has " << raw.size()
             << " bytes of data, expected " << n * int64_t(width);
    for (int64_t i = 0; i < n; ++i) {
      const char *p = raw.data() + i * width;
      auto read = [&](auto v) {
        std::memcpy(&v, p, sizeof(v));
        return double(v);
      };
      switch (dt) {
      case onnx::TensorProto::DOUBLE:
        data.push_back(read(double()));
        break;
      case onnx::TensorProto::FLOAT:
        data.push_back(read(float()));
        break;
      case onnx::TensorProto::UINT32:
        data.push_back(read(uint32_t()));
        break;
      case onnx::TensorProto::UINT64:
        data.push_back(read(uint64_t()));
        break;
      case onnx::TensorProto::INT16:
        data.push_back(read(int16_t()));
        break;
      case onnx::TensorProto::INT8:
        data.push_back(read(int8_t()));
        break;
      default: // BFLOAT16/FLOAT16 bit patterns, UINT16, UINT8, BOOL
        data.push_back(width == 2 ? read(uint16_t()) : read(uint8_t()));
      }
    }
  } else if (dt == onnx::TensorProto::FLOAT) {
    data.assign(t.float_data().begin(), t.float_data().end());
  } else if (dt == onnx::TensorProto::DOUBLE) {
    data.assign(t.double_data().begin(), t.double_data().end());
  } else if (dt == onnx::TensorProto::UINT32 ||
             dt == onnx::TensorProto::UINT64) {
    data.assign(t.uint64_data().begin(), t.uint64_data().end());
  } else {
    for (int32_t v : t.int32_data())
      data.push_back(isHalf ? double(uint16_t(v)) : double(v));
  }
  if (int64_t(data.size()) != n)
    return emitError(loc) << "tensor '" << name << "' has " << data.size()
                          << " values, expected " << n;
  DenseElementsAttr attr;
  if (auto ft = dyn_cast<FloatType>(*elt)) {
    SmallVector<APFloat> fs;
    for (double v : data) {
      if (isHalf) {
        fs.push_back(APFloat(ft.getFloatSemantics(), APInt(16, uint64_t(v))));
        continue;
      }
      // DOUBLE is carried as f32: rounded to nearest.
      APFloat f(v);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      fs.push_back(f);
    }
    attr = DenseElementsAttr::get(type, fs);
  } else {
    unsigned bits = elt->getIntOrFloatBitWidth();
    SmallVector<APInt> is;
    for (double v : data) {
      if (bits == 32 && v > double(std::numeric_limits<int32_t>::max()))
        return emitError(loc) << "tensor '" << name << "' holds " << v
                              << ", which does not fit the device's i32";
      is.push_back(bits == 1 ? APInt(1, v != 0)
                             : APInt(bits, uint64_t(int64_t(v)), true));
    }
    attr = DenseElementsAttr::get(type, is);
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
    // A compile-time integer tensor used as a runtime value: a constant.
    if (ints.count(node.input(i)))
      return materializeInt(node.input(i), nodeLoc(node));
    return emitError(nodeLoc(node))
           << node.op_type() << " input '" << node.input(i)
           << "' is not defined before its use";
  }
  return it->second;
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
    bool known = (domain == "ai.onnx") && (opTable().count(node.op_type()) ||
                                           intFolders().count(node.op_type()));
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
  SmallVector<std::optional<Type>> argHostTypes;
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
                         << ", which is not supported";
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
    argHostTypes.push_back(hostType(tt.elem_type()));
  }
  if (bad)
    return nullptr;

  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (size_t i = 0; i < argNames.size(); ++i) {
    func.setArgAttr(i, "nki.name", b.getStringAttr(argNames[i]));
    if (argHostTypes[i])
      func.setArgAttr(i, "nki.host_type", TypeAttr::get(*argHostTypes[i]));
    values[argNames[i]] = entry->getArgument(i);
  }
  b.setInsertionPointToStart(entry);

  for (const onnx::TensorProto &t : graph.initializer())
    if (failed(importTensor(t, fileLoc, t.name())))
      return nullptr;
  const OpTable &table = opTable();
  for (const onnx::NodeProto &node : graph.node()) {
    // Integer shape computations are evaluated here, so the handlers see
    // their results as constants (IntFolding.cpp).
    if (IntFolder fold = intFolders().lookup(node.op_type())) {
      FoldResult r = fold(*this, node);
      if (r == FoldResult::Failed)
        return nullptr;
      if (r == FoldResult::Folded)
        continue;
    }
    OpHandler handler = table.lookup(node.op_type());
    if (!handler) {
      emitError(nodeLoc(node))
          << "unsupported ONNX op '" << node.op_type()
          << "' (domain 'ai.onnx', opset " << opset << ") at node '"
          << (node.name().empty() ? "<unnamed>" : node.name())
          << "' on runtime tensors: it is only evaluated at import, on "
             "compile-time integer inputs";
      return nullptr;
    }
    if (failed(handler(*this, node)))
      return nullptr;
  }

  SmallVector<Value> results;
  SmallVector<std::optional<Type>> resultHostTypes;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end() && ints.count(out.name())) {
      FailureOr<Value> v = materializeInt(out.name(), fileLoc);
      if (failed(v))
        return nullptr;
      it = values.find(out.name());
    }
    if (it == values.end()) {
      emitError(fileLoc) << "graph output '" << out.name()
                         << "' is not a tensor computed by the graph";
      return nullptr;
    }
    // The declared type decides what the host reads: e.g. an INT64 output
    // carried as i32.
    int32_t declared = out.type().has_tensor_type()
                           ? out.type().tensor_type().elem_type()
                           : onnx::TensorProto::UNDEFINED;
    Type computed = tensorType(it->second).getElementType();
    std::optional<Type> elt = elementType(declared);
    if (declared != onnx::TensorProto::UNDEFINED && elt && *elt != computed) {
      emitError(fileLoc) << "graph output '" << out.name() << "' is declared "
                         << typeName(declared) << " (carried as " << *elt
                         << ") but the graph computes " << computed;
      return nullptr;
    }
    resultHostTypes.push_back(hostType(declared));
    results.push_back(it->second);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, TypeRange(ValueRange(results))));
  for (auto [i, host] : llvm::enumerate(resultHostTypes))
    if (host)
      func.setResultAttr(i, "nki.host_type", TypeAttr::get(*host));
  // Outputs keep their ONNX names, except one that is a graph input passed
  // through (the input already has that name): it stays out<i>.
  for (auto [i, out] : llvm::enumerate(graph.output()))
    if (!llvm::is_contained(argNames, out.name()))
      func.setResultAttr(i, "nki.name", b.getStringAttr(out.name()));
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
  // ONNX's own checker: node arity, attribute types, opset schemas, SSA
  // form and topological order, with messages that name the node. An op or
  // domain the installed ONNX does not know (a newer opset, a custom domain)
  // is left to the importer, which lowers it or reports every unsupported
  // op type.
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    std::string what = e.what();
    if (!StringRef(what).starts_with("No Op registered for") &&
        !StringRef(what).starts_with("No opset import for domain")) {
      // The message spans lines (it prints the node); keep it on one.
      for (char &c : what)
        if (c == '\n')
          c = ' ';
      return emitError(fileLoc)
                 << "not a valid ONNX model: " << StringRef(what).trim(),
             nullptr;
    }
  }
  context
      ->loadDialect<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                    tensor::TensorDialect, linalg::LinalgDialect>();
  return Importer(context, fileName, options).run(model);
}

void nki::registerONNXImportDialects(DialectRegistry &registry) {
  registry.insert<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
}
