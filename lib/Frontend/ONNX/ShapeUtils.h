//===- ShapeUtils.h - Shape arithmetic shared by ONNX data movement -*- C++
//-*-//
//
// Private to lib/Frontend/ONNX. The shape rules of Slice, Squeeze,
// Unsqueeze, Reshape, Expand and friends, shared by the compile-time integer
// folders (IntFolding.cpp) and the tensor handlers (DataMovement.cpp,
// Shape.cpp), so that a folded shape chain and the tensor it describes obey
// exactly the same rules and diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_FRONTEND_ONNX_SHAPEUTILS_H
#define NKI_LIB_FRONTEND_ONNX_SHAPEUTILS_H

#include "ImporterImpl.h"

namespace nki::onnx_import {

/// `axis` of a rank-`rank` tensor in [0, rank), or an error naming the node.
FailureOr<int64_t> normalizeAxis(Importer &imp, const onnx::NodeProto &node,
                                 int64_t axis, int64_t rank);

/// The axes of Squeeze, Unsqueeze and the Reduce* ops: the `axes` attribute
/// before opset `inputSince`, input `inputIdx` from then on (a
/// compile-time integer tensor); nothing when absent.
FailureOr<std::optional<llvm::SmallVector<int64_t>>>
axesOperand(Importer &imp, const onnx::NodeProto &node, int64_t inputSince,
            int inputIdx = 1);

/// One dim of a Slice: the first index read, the number of elements and
/// the step (negative steps walk backwards from `start`).
struct SliceDim {
  int64_t start, size, step;
};
/// ONNX Slice on a tensor of `shape`: starts/ends/axes/steps from inputs
/// 1-4 (opset >= 10, compile-time integers) or attributes (before), with
/// negative indices and out-of-range bounds clamped as ONNX specifies.
FailureOr<llvm::SmallVector<SliceDim>> sliceDims(Importer &imp,
                                                 const onnx::NodeProto &node,
                                                 llvm::ArrayRef<int64_t> shape);

/// Reshape's target for an input of `inShape` and requested `req` (0 copies
/// a dim unless `allowZero`, one -1 is inferred).
FailureOr<llvm::SmallVector<int64_t>>
reshapeTarget(Importer &imp, const onnx::NodeProto &node,
              llvm::ArrayRef<int64_t> inShape, llvm::ArrayRef<int64_t> req,
              bool allowZero);

/// Squeeze's result shape (all size-1 dims when `axes` is absent).
FailureOr<llvm::SmallVector<int64_t>>
squeezeShape(Importer &imp, const onnx::NodeProto &node,
             llvm::ArrayRef<int64_t> inShape,
             const std::optional<llvm::SmallVector<int64_t>> &axes);

/// Unsqueeze's result shape.
FailureOr<llvm::SmallVector<int64_t>>
unsqueezeShape(Importer &imp, const onnx::NodeProto &node,
               llvm::ArrayRef<int64_t> inShape, llvm::ArrayRef<int64_t> axes);

/// Expand's result: the numpy broadcast of the input's shape and `target`.
FailureOr<llvm::SmallVector<int64_t>>
expandShape(Importer &imp, const onnx::NodeProto &node,
            llvm::ArrayRef<int64_t> inShape, llvm::ArrayRef<int64_t> target);

/// Transpose's permutation of a rank-`rank` input (its `perm`, reversed dims
/// when absent), or an error at the node when it is not a permutation.
FailureOr<llvm::SmallVector<int64_t>>
transposePermutation(Importer &imp, const onnx::NodeProto &node, int64_t rank);

/// A dense constant of element type `elt` (f32 or bf16) holding `values`,
/// rounded to nearest even.
Value denseFloatConstant(Importer &imp, Location loc,
                         llvm::ArrayRef<int64_t> shape, Type elt,
                         llvm::ArrayRef<double> values);
/// The elements of `v` when it is a dense float constant, else nothing.
std::optional<std::vector<double>> floatConstantValues(Value v);

/// Whether an ONNX element type is an integer or BOOL type.
bool isIntType(int32_t onnxType);

/// Row-major strides of `shape`, in elements.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);
int64_t numElements(llvm::ArrayRef<int64_t> shape);

} // namespace nki::onnx_import

#endif // NKI_LIB_FRONTEND_ONNX_SHAPEUTILS_H
