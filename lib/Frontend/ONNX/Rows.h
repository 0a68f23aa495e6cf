//===- Rows.h - Row-wise builders of the reduction families -----*- C++ -*-===//
//
// Private to lib/Frontend/ONNX. The reduction, softmax and normalization
// families all work on a tensor viewed as [rows, cols] and reduce along
// cols: the compiler's reduction kernels reduce trailing dims, and a run of
// 2-D generics over one [rows, cols] space, at least one a row reduction,
// becomes one row-group kernel (lib/Conversion/Tiling/RowGroup.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_FRONTEND_ONNX_ROWS_H
#define NKI_LIB_FRONTEND_ONNX_ROWS_H

#include "ImporterImpl.h"

#include <optional>

namespace nki::onnx_import {

/// The combiners the compiler's reduction kernels take.
enum class Combine { Add, Max, Min };

/// How an operand of a [rows, cols] generic is read.
enum class Bcast { Full, Row, Col }; // [rows, cols], [rows], [cols]

struct RowOperand {
  Value v;
  Bcast kind;
};

/// A linalg.generic over [rows, cols] whose body is `body` of the operands'
/// scalars. With `combine`, it is a reduction along cols into a [rows] tensor
/// starting from the combiner's identity (out = combine(out, body(...)));
/// without, an elementwise op with a [rows, cols] result. Elements are `elt`.
Value rowGeneric(Importer &imp, Location loc, int64_t rows, int64_t cols,
                 llvm::ArrayRef<RowOperand> ins, Type elt, BodyFn body,
                 std::optional<Combine> combine = std::nullopt);

/// `x` with the dims in `reduced` moved last (each group keeps its order)
/// and viewed as [rows, cols]; `perm` is the transpose applied, empty when
/// none was needed.
struct Rows {
  Value v;
  int64_t rows = 1, cols = 1;
  llvm::SmallVector<int64_t> perm;
};
Rows toRows(Importer &imp, Location loc, Value x, llvm::ArrayRef<bool> reduced);
/// The inverse of toRows for a [rows, cols] result `y` of an `x` of shape
/// `shape`.
Value fromRows(Importer &imp, Location loc, Value y, const Rows &r,
               llvm::ArrayRef<int64_t> shape);

/// `axes` (may be negative) as a mask over `rank` dims; an error for an
/// axis out of range or repeated.
FailureOr<llvm::SmallVector<bool>> axesMask(Importer &imp,
                                            const onnx::NodeProto &node,
                                            llvm::ArrayRef<int64_t> axes,
                                            int64_t rank);

/// `v` broadcast (numpy, unidirectionally) to `shape`: `v` itself when it
/// already has that shape; an error naming `what` when it does not
/// broadcast.
FailureOr<Value> broadcastTo(Importer &imp, const onnx::NodeProto &node,
                             Value v, llvm::ArrayRef<int64_t> shape,
                             llvm::StringRef what);

} // namespace nki::onnx_import

#endif // NKI_LIB_FRONTEND_ONNX_ROWS_H
