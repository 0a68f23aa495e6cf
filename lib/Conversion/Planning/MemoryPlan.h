//===- MemoryPlan.h - nki-plan-memory's pieces -----------------*- C++ -*-===//
//
// Memory planning of one function of straight-line tile code: elementwise
// ops write over inputs that die there (InPlace.cpp), then three steps that
// each emit their own diagnostics: the liveness of every tile
// (Liveness.cpp), SBUF and PSUM offsets from the planner core
// (TilePlan.cpp), and HBM offsets for the function's tensors (HbmPlan.cpp).
// The pass and the test pass that prints the plan share planMemory().
// docs/memory-planning.md describes the conventions.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_PLANNING_MEMORYPLAN_H
#define NKI_LIB_CONVERSION_PLANNING_MEMORYPLAN_H

#include "nki/Analysis/Planner.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace nki::planning {

/// Attribute names shared with nki-schedule (NKIDialect.h).
using tile::kHbmOffsetAttr;
using tile::kOutputOffsetsAttr;

/// Alignments (docs/memory-planning.md says why).
inline constexpr int64_t kSbufAlignment = 64;
inline constexpr int64_t kPsumAlignment = 4;
inline constexpr int64_t kHbmAlignment = 64;

/// One tile: an nki.alloc with its bytes per partition and live range in
/// positions of the function body (the index of an op in its block).
struct TileBuffer {
  tile::AllocOp alloc;
  tile::MemorySpace space;
  int64_t size = 0;
  int64_t liveStart = 0;
  int64_t liveEnd = 0;
};

/// Lets each elementwise op whose input tile dies at the op write its
/// result over that input when the result is a fresh tile of the same
/// type (InPlace.cpp): the op's output alloc is replaced by the input's.
void reuseDeadInputs(mlir::func::FuncOp func);

/// Fails, at the offending op, unless `func` is one block without ops that
/// hold regions: the machine runs straight-line code (run nki-unroll first).
mlir::LogicalResult checkStraightLine(mlir::func::FuncOp func);

/// The tiles of a straight-line `func` in program order, or failure after an
/// error at a tile that cannot be planned (no whole-byte element type, no
/// bytes, more bytes than an SBUF partition holds).
mlir::FailureOr<std::vector<TileBuffer>>
collectTiles(mlir::func::FuncOp func, const isa::TargetDesc &target);

/// The placement of one memory's tiles, in the order of `tiles`.
struct TilePlacement {
  tile::MemorySpace space;
  /// Indices into the tiles given to planTiles, one per planner buffer.
  std::vector<size_t> tileIndices;
  PlannerSolution solution;
};

/// Places the tiles of `space` with the planner (Rotate policy) and writes
/// each nki.alloc's `offset`. Emits the out-of-memory error with the
/// planner's memory map.
mlir::FailureOr<TilePlacement> planTiles(mlir::func::FuncOp func,
                                         const isa::TargetDesc &target,
                                         llvm::ArrayRef<TileBuffer> tiles,
                                         tile::MemorySpace space);

/// One HBM root buffer and its placement.
struct HbmBuffer {
  enum Kind { Input, Output, Constant, Scratch } kind;
  /// The argument number (Input) or result number (Output), else -1.
  int index = -1;
  /// The defining op (memref.alloc or the first memref.get_global), null for
  /// an argument.
  mlir::Operation *op = nullptr;
  int64_t offset = 0;
  int64_t size = 0;
};

/// Lays out the HBM tensors of `func`: inputs, outputs, constants, scratch,
/// each 64-byte aligned, and records `nki.hbm_offset` and
/// `nki.output_offsets`.
mlir::FailureOr<std::vector<HbmBuffer>> planHbm(mlir::func::FuncOp func,
                                                const isa::TargetDesc &target);

/// The whole plan of a function, as the test pass prints it.
struct MemoryPlan {
  std::vector<TileBuffer> tiles;
  std::vector<TilePlacement> placements; // SBUF, then PSUM
  std::vector<HbmBuffer> hbm;
};

/// Runs every step on `func` for its module's target (tile::getTarget);
/// emits the diagnostics and fails when any step fails.
mlir::FailureOr<MemoryPlan> planMemory(mlir::func::FuncOp func);

/// "file:line:col 128x512xbf16": where the tile `alloc` (the `index`th of
/// its function) was allocated and its shape, as memory maps show it.
std::string tileName(tile::AllocOp alloc, size_t index);

/// "SBUF", "PSUM".
llvm::StringRef memoryName(tile::MemorySpace space);

} // namespace nki::planning

#endif // NKI_LIB_CONVERSION_PLANNING_MEMORYPLAN_H
