//===- BodyLowering.h - A linalg body as tile instructions -----*- C++ -*-===//
//
// Lowers the scalar body of a linalg.generic to tile ops for one tile of
// P partitions x F elements: each arith/math op becomes one instruction
// (tensor_tensor, tensor_scalar with an immediate or a per-partition column,
// activation, copy for casts, select). Values keep their MLIR element type,
// so a bf16 body rounds after every op exactly as its MLIR semantics say.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TILING_BODYLOWERING_H
#define NKI_LIB_CONVERSION_TILING_BODYLOWERING_H

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace nki::tiling {

/// One op of a tensor_scalar: `x op operand` (`operand op x` if reversed),
/// the operand a [P,1] column or an immediate.
struct ScalarStep {
  llvm::StringRef op;
  mlir::Value column = {}; // null: `imm`
  double imm = 0.0;
  bool reversed = false;
  bool operator==(const ScalarStep &o) const {
    return op == o.op && column == o.column && imm == o.imm &&
           reversed == o.reversed;
  }
};

/// A body value for one tile: a constant, a [P,1] column broadcast along the
/// free axis, or a full [P,F] tile.
struct TileValue {
  enum Kind { Scalar, Column, Full };
  Kind kind = Scalar;
  double scalar = 0.0;
  mlir::Value tile;      // Column and Full
  mlir::Type elementType; // the MLIR element type of the value
  /// Full values: ops with a per-partition operand not yet applied to
  /// `tile` (at most two, one tensor_scalar). Deferred so that a consumer
  /// can absorb them: an activation as its scale and bias, a further such
  /// op as the tensor_scalar's second op. BodyLowering::resolve applies them.
  llvm::SmallVector<ScalarStep, 2> pending = {};
};

class BodyLowering {
public:
  BodyLowering(mlir::OpBuilder &b, mlir::Location loc, int64_t partitions,
               int64_t freeSize)
      : b(b), loc(loc), partitions(partitions), freeSize(freeSize) {}

  void bind(mlir::Value v, TileValue t) {
    values[v] = t;
    bound.insert(t.tile);
  }

  /// Lowers `v` and everything it depends on (memoized). Fails with a
  /// diagnostic at the offending op for unsupported ops or types.
  mlir::FailureOr<TileValue> lower(mlir::Value v);

  /// `t` with its pending ops applied (one tensor_scalar, emitted once; on
  /// `engine` when one is named).
  TileValue resolve(const TileValue &t, llvm::StringRef engine = {});

  /// A full [P,F] tile of `t` (materializing constants and columns) with
  /// element type `type`.
  mlir::Value materializeFull(const TileValue &t, mlir::Type type);
  /// A [P,1] column of a Scalar or Column value.
  mlir::Value materializeColumn(const TileValue &t, mlir::Type type);

  /// Emits dst = a <op> b for any kinds (the result kind is the wider one).
  mlir::FailureOr<TileValue> binary(llvm::StringRef op, const TileValue &a,
                                    const TileValue &b,
                                    mlir::Type resultType);

  /// Emits dst = func(x + bias) (bias a [P,1] tile or an immediate).
  mlir::FailureOr<TileValue> activation(llvm::StringRef func,
                                        const TileValue &x,
                                        mlir::Type resultType,
                                        mlir::Value bias = {},
                                        float biasImm = 0.0f);

  /// `v` reduced along the free axis with `combine` (add, max, min) into a
  /// new fp32 [P,1] tile: a sum of an activation's result comes from that
  /// activation's accumulator. `scratch` is a [P,F] tile nobody reads: with
  /// one, other sums are an ACT identity pass writing there (the DVE is the
  /// busier engine of row-wise kernels), and an activation whose result
  /// `valueDies` after the sum writes there too instead of in a tile of its
  /// own. The rest is a DVE reduce. `eitherEngine`: other sums are a reduce
  /// with the scratch tile, the scheduler choosing DVE or ACT.
  mlir::FailureOr<mlir::Value> reduceRows(llvm::StringRef combine,
                                          const TileValue &v,
                                          mlir::Value scratch = {},
                                          bool valueDies = false,
                                          bool eitherEngine = false);

  /// The tile dtype an MLIR element type is computed in (i1 -> f32).
  static mlir::Type storageType(mlir::Type t);

  /// Asked, where a sum of a PSUM accumulator and another tile may take
  /// the adds deferred on either side after it (addBeforePending), whether
  /// it should: the caller weighs the engines (the reassociated sum is a
  /// DVE add reading PSUM; the other order an ACT pass out of PSUM and an
  /// add that the POOL can take). Unset: always.
  void setAddBeforePendingChoice(llvm::function_ref<bool()> choose) {
    chooseAddBeforePending = choose;
  }
  /// Asked, where a SiLU of a full tile with no bias of its own could run
  /// on the DVE and the POOL instead of the ACT (siluOnVectorEngines),
  /// whether it should. Unset: never.
  void setSiluChoice(llvm::function_ref<bool()> choose) { chooseSilu = choose; }

private:
  mlir::FailureOr<TileValue> lowerOp(mlir::Operation *op);
  /// f(a +- c): a TileValue with a null tile when the pattern does not apply.
  mlir::FailureOr<TileValue> lowerBiasedActivation(mlir::Operation *op,
                                                   llvm::StringRef func);
  /// silu(x) as x / (1 + e^-x) without the ACT (see the definition).
  TileValue siluOnVectorEngines(const TileValue &x, mlir::Type resultType);
  /// (a + c) + (t + d) as (a + t) + c + d with c, d pending (see the
  /// definition); nothing when that does not apply.
  std::optional<TileValue> addBeforePending(const TileValue &x,
                                            const TileValue &y,
                                            mlir::Type resultType);
  mlir::Value newTile(int64_t free, mlir::Type type);
  /// The pending ops of `t` as an activation's scale and bias (x * scale +
  /// bias), emitting the [P,1] arithmetic that needs; failure if they are
  /// not of that form.
  mlir::FailureOr<std::pair<TileValue, TileValue>>
  scaleAndBias(const TileValue &t);

  mlir::OpBuilder &b;
  mlir::Location loc;
  int64_t partitions, freeSize;
  llvm::DenseMap<mlir::Value, TileValue> values;
  llvm::DenseMap<mlir::Value, tile::ActivationOp> activations;
  /// Tiles of bound values: others may read them after this body.
  llvm::DenseSet<mlir::Value> bound;
  llvm::function_ref<bool()> chooseAddBeforePending;
  llvm::function_ref<bool()> chooseSilu;
  /// Values with pending ops already resolved, and their tiles.
  llvm::SmallVector<std::pair<TileValue, mlir::Value>> resolved;
};

/// The ISA ALU name of a binary arith/math op, or "" if it is not one.
llvm::StringRef aluNameOf(mlir::Operation *op);

/// Whether `op` lowers to an ACT function (exp, tanh, erf, sqrt, ...): an
/// op no other engine computes.
bool isActivationOp(mlir::Operation *op);

/// The value of a float constant (a body's operand captured from outside),
/// or nullopt.
std::optional<double> constantFloat(mlir::Value v);

/// A reduction body `out = combine(out, expr)`.
struct ReductionBody {
  llvm::StringRef combine; // add, max or min
  mlir::Value expr;
};
/// Matches the body of a reduction generic; a diagnostic at `op` otherwise.
mlir::FailureOr<ReductionBody> matchReductionBody(mlir::Operation *op,
                                                  mlir::Block &body,
                                                  unsigned outputArg);

/// A sum's float summand `of / c` or `of * c` (c a finite nonzero
/// constant) that only the sum reads: a mean's or a variance's 1 / n.
struct SumFactor {
  mlir::Value of;
  bool divide;
  double c;
};
/// The constant factor of `reduction`'s summand when it sums such a
/// product: kernels then sum `of` and scale the [P, 1] sum once (the pass
/// computing `of`, an ACT square or copy, also sums it) instead of a pass
/// over the row dividing each element. Rounding: one division of the sum
/// instead of one per element, as reductions over the partitions do.
std::optional<SumFactor> sumFactor(const ReductionBody &reduction);
/// `column` (an f32 sum: [P, 1], or a [1, C] row) scaled by `factor` into
/// `into` (a view of its shape, rounding to its type), by default a new f32
/// tile of its shape.
mlir::Value scaleBySumFactor(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value column, const SumFactor &factor,
                             mlir::Value into = {});

} // namespace nki::tiling

#endif // NKI_LIB_CONVERSION_TILING_BODYLOWERING_H
