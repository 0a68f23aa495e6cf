//===- ImporterImpl.h - The ONNX importer's state and helpers ---*- C++ -*-===//
//
// Private to lib/Frontend/ONNX. The importer walks the graph in node order
// and dispatches each node to the handler registered for its op type; the
// handlers live in one file per op family (Elementwise.cpp, MatMul.cpp,
// Shape.cpp, ...) and build linalg/tensor/arith/math ops through the
// helpers declared here. Integer tensors that shape the graph (Reshape's
// shape, axes, Shape's result, ...) are kept as compile-time IntConstants
// rather than values, so shape chains fold at import.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
#define NKI_LIB_FRONTEND_ONNX_IMPORTERIMPL_H

#include "nki/Frontend/ONNX/Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nki::onnx_import {

using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

/// An integer tensor known at compile time (shapes, axes, indices).
struct IntConstant {
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
  /// The ONNX element type (INT64, INT32, BOOL, ...) the values stand for.
  int32_t type = onnx::TensorProto::INT64;
};

/// Builds one scalar of an elementwise body from the scalars of its operands.
using BodyFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

class Importer;

/// Lowers one node; defines its outputs through Importer::define.
using OpHandler = LogicalResult (*)(Importer &, const onnx::NodeProto &);
using OpTable = llvm::StringMap<OpHandler>;

/// Every handler of the default domain, by op type.
const OpTable &opTable();

// One registration function per op family (each in its own file).
void registerConvOps(OpTable &table);             // Conv.cpp
void registerConstantAndShapeOps(OpTable &table); // Shape.cpp
void registerElementwiseOps(OpTable &table);      // Elementwise.cpp
void registerLogicOps(OpTable &table);            // Logic.cpp
void registerMathOps(OpTable &table);             // Math.cpp
void registerMatMulOps(OpTable &table);           // MatMul.cpp
void registerSoftmaxOps(OpTable &table);          // Softmax.cpp
void registerGatherElementsOps(OpTable &table);   // GatherElements.cpp
void registerLossOps(OpTable &table);             // Loss.cpp
void registerReduceOps(OpTable &table);           // Reduce.cpp
void registerNormalizationOps(OpTable &table);    // Normalization.cpp
void registerDataMovementOps(OpTable &table);     // DataMovement.cpp
void registerGeneratorOps(OpTable &table);        // Generators.cpp
void registerCumSumOps(OpTable &table);           // CumSum.cpp
void registerEinsumOps(OpTable &table);           // Einsum.cpp
void registerResizeOps(OpTable &table);           // Resize.cpp
void registerRecurrentOps(OpTable &table);        // Recurrent.cpp
void registerQuantizeOps(OpTable &table);         // Quantize.cpp
void registerScatterOps(OpTable &table);          // Scatter.cpp
void registerOneHotOps(OpTable &table);           // OneHot.cpp
void registerTopKOps(OpTable &table);             // TopK.cpp

/// What an integer folder did with a node.
enum class FoldResult { Folded, NotConstant, Failed };
/// Evaluates a node at import when its inputs are compile-time integers
/// (or, for Shape and Size, whatever their input), defining its outputs as
/// IntConstants; NotConstant leaves the node to the op table's handler.
using IntFolder = FoldResult (*)(Importer &, const onnx::NodeProto &);
const llvm::StringMap<IntFolder> &intFolders(); // IntFolding.cpp

class Importer {
public:
  Importer(mlir::MLIRContext *ctx, llvm::StringRef fileName,
           const ONNXImportOptions &opts);

  mlir::OwningOpRef<mlir::ModuleOp> run(const onnx::ModelProto &model);

  // --- State the handlers use. ---
  mlir::MLIRContext *ctx;
  OpBuilder b;
  const ONNXImportOptions &opts;
  Location fileLoc;
  /// The default domain's opset version of the model.
  int64_t opset = 0;
  std::map<std::string, Value> values;
  std::map<std::string, IntConstant> ints;

  // --- Nodes. ---
  Location nodeLoc(const onnx::NodeProto &node);
  /// Binds output `i` of `node` to `v`.
  LogicalResult define(const onnx::NodeProto &node, Value v, int i = 0);
  /// Binds output `i` of `node` to a compile-time integer tensor.
  LogicalResult defineInt(const onnx::NodeProto &node, IntConstant c,
                          int i = 0);
  /// Input `i` as a tensor value (an error if it is missing or integer).
  FailureOr<Value> input(const onnx::NodeProto &node, int i);
  /// Inputs 0..n-1 as tensor values; inputs past n that are present are
  /// appended too, optional (empty) ones as null values.
  FailureOr<llvm::SmallVector<Value>> inputs(const onnx::NodeProto &node,
                                             int n);
  /// Input `i` as a compile-time integer tensor, or null if it is absent or
  /// not one.
  const IntConstant *intInput(const onnx::NodeProto &node, int i);
  bool hasInput(const onnx::NodeProto &node, int i) const {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// The element type an ONNX tensor type is carried in on the device.
  std::optional<Type> elementType(int32_t onnxType);
  /// The `nki.host_type` of a graph input/output of `onnxType` when the
  /// carried type differs (INT64 -> i64, DOUBLE -> f64, UINT8 -> ui8, ...).
  std::optional<Type> hostType(int32_t onnxType);
  /// The runtime value of the compile-time integer tensor `name`: a dense
  /// constant of its carried type, made once on first use.
  FailureOr<Value> materializeInt(const std::string &name, Location loc);
  LogicalResult importTensor(const onnx::TensorProto &t, Location loc,
                             const std::string &name);

  // --- Builders (Builders.cpp). ---
  /// A linalg.generic over the numpy broadcast of `operands` whose body is
  /// `body`; the result has `resultElt` elements, or operand 0's.
  Value elementwise(Location loc, ValueRange operands, BodyFn body,
                    Type resultElt = nullptr);
  /// Max or sum over the last dim, as a tensor of the leading dims.
  Value reduceLast(Location loc, Value x, bool isMax);
  /// body(x, row) where `row` holds one value per leading index of `x`.
  Value rowwise(Location loc, Value x, Value row, BodyFn body);
  Value emptyLike(Location loc, llvm::ArrayRef<int64_t> shape, Type elt);
  Value filled(Location loc, llvm::ArrayRef<int64_t> shape, Type elt, double v);
  /// Any static reshape with the same element count.
  Value reshape(Location loc, Value x, llvm::ArrayRef<int64_t> shape);
  Value transpose(Location loc, Value x, llvm::ArrayRef<int64_t> perm);
  /// out[m, n] = x[m, idx[n]] (or x[m, idx[m, n]] with `perRow`) for an
  /// [M, D] `x` and integer indices: a reduction over j < D of
  /// (idx == j ? x[m, j] : 0) against a constant iota. Negative indices
  /// wrap; one out of range gives 0 (nothing checks it at run time).
  Value gatherLast(Location loc, Value x, Value idx, bool perRow);
  /// ONNX MatMul semantics for ranks >= 2.
  FailureOr<Value> matmul(Location loc, Value a, Value bm);
  /// A constant linear map along one axis of a float tensor: dim `axis`
  /// (size n) becomes size m with y[.., o, ..] = sum_i w[o * n + i] *
  /// x[.., i, ..], as one matmul by a constant ([m, n] from the left when
  /// nothing precedes the axis, else [n, m] from the right with the axis
  /// moved last and back), plus `bias[o]` when a bias (m values) is given.
  Value matmulAlong(Location loc, Value x, int64_t axis, int64_t m,
                    llvm::ArrayRef<double> w, llvm::ArrayRef<double> bias = {});
};

// --- Free helpers. ---
RankedTensorType tensorType(Value v);
llvm::SmallVector<int64_t> shapeOf(Value v);
/// The numpy broadcast of `shapes`, or nothing if they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShape(llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes);
/// A scalar constant of `like`'s type.
Value constLike(OpBuilder &b, Location l, Value like, double v);
/// Conv's convolution (group, strides, dilations, pads, auto_pad) of float
/// x[N, C, S...] by w[F, C/group, K...], without a bias (Conv.cpp; the
/// integer and quantized convolutions reuse it).
FailureOr<Value> convolution(Importer &imp, const onnx::NodeProto &node,
                             Value x, Value w);
/// Scalar `x` converted to the carried element type `to` with ONNX Cast
/// semantics.
Value castScalar(OpBuilder &b, Location l, Value x, Type to);
/// `x` broadcast (numpy rules, unidirectionally) to `shape`, which its shape
/// must broadcast to: one linalg.generic, or `x` itself when it has that
/// shape (Rows.h's broadcastTo checks first).
Value broadcastValue(Importer &imp, Location loc, Value x,
                     llvm::ArrayRef<int64_t> shape);
std::string typeName(int32_t onnxType);

const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     llvm::StringRef name);
int64_t intAttr(const onnx::NodeProto &node, llvm::StringRef name,
                int64_t dflt);
float floatAttr(const onnx::NodeProto &node, llvm::StringRef name, float dflt);
std::string stringAttr(const onnx::NodeProto &node, llvm::StringRef name,
                       llvm::StringRef dflt);
/// An ints attribute, or nothing when absent.
std::optional<llvm::SmallVector<int64_t>> intsAttr(const onnx::NodeProto &node,
                                                   llvm::StringRef name);

} // namespace nki::onnx_import

#endif // NKI_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
