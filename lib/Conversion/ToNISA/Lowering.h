//===- Lowering.h - One nki tile op as ISA instructions --------*- C++ -*-===//
//
// Instruction selection: every nki tile op becomes one machine instruction
// (a large DMA one per 32-partition block, so that several queues share it),
// with a variant per stream that may run it (a tensor_tensor on DVE or POOL,
// a copy on DVE, POOL or ACT, a DMA on any queue). Variants that the ISA's
// constraint checks reject on their stream are dropped here, so the
// scheduler only sees legal choices; an op with no legal variant is an error.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_LOWERING_H
#define NKI_LIB_CONVERSION_TONISA_LOWERING_H

#include "nki/Analysis/Dependences.h"
#include "nki/ISA/Instruction.h"
#include "nki/ISA/PackedInstruction.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace nki::tonisa {

/// A stream that may run an op, and which of its forms it runs.
struct Variant {
  isa::StreamId stream;
  uint8_t form = 0;
};

/// One instruction of an op, with the streams that may run it.
struct LoweredInst {
  /// The tile op's location (the op itself is gone once nki-schedule has
  /// lowered the function).
  mlir::LocationAttr loc;
  /// The distinct instructions the op may become: usually one, shared by
  /// every stream that can run it (the DVE and the POOL, all DMA queues),
  /// and a second when the ACT runs it in another form. Packed (a program
  /// holds all of them until it is scheduled) and on the heap: a
  /// LoweredInst moves as a few pointers.
  std::vector<isa::PackedInstruction> forms;
  /// Legal on their streams; DMA copies have one per queue.
  llvm::SmallVector<Variant, 4> variants;
  /// What every variant reads and writes (they share their operands)
  /// when `accessesFromForm` is false; else they are getAccesses(forms[0])
  /// and not stored (accessesOf makes them).
  std::vector<sched::MemoryAccess> accesses;
  bool accessesFromForm = false;

  LoweredInst() = default;
  LoweredInst(const LoweredInst &) = default;
  LoweredInst &operator=(const LoweredInst &) = default;
  // noexcept, so that a growing std::vector moves rather than copies them.
  LoweredInst(LoweredInst &&) noexcept = default;
  LoweredInst &operator=(LoweredInst &&) noexcept = default;

  isa::Instruction instruction(const Variant &v) const {
    return forms[v.form].unpack();
  }
};

/// Lowers one nki tile op (not nki.alloc) to its instructions, appended to
/// `out`: one, or for a large DMA of whole partition blocks one per block,
/// so that several queues share the transfer. Emits an error at the op and
/// returns failure when an operand cannot be addressed or no engine can run
/// the instruction.
mlir::LogicalResult lowerTileOp(const isa::TargetDesc &target,
                                mlir::Operation *op,
                                std::vector<LoweredInst> &out);

/// What `op` reads and writes: its stored accesses, or those of its first
/// form written into `scratch`. Most instructions do not store theirs (a
/// large program's accesses are made as the dependence analysis needs
/// them, not held all at once).
const std::vector<sched::MemoryAccess> &
accessesOf(const LoweredInst &op, std::vector<sched::MemoryAccess> &scratch);

/// The operands `inst` reads and writes as conservative byte intervals. An
/// on-chip operand is one interval per block of 32 partitions it touches
/// (each block a memory of its own), holding its byte range within a
/// partition; an HBM operand is its hull.
std::vector<sched::MemoryAccess> getAccesses(const isa::Instruction &inst);

/// The entry function of planned tile code: `main`, else the only public
/// function with a body; it must be one block. Emits an error naming `pass`
/// and returns null otherwise.
mlir::func::FuncOp findEntryFunction(mlir::ModuleOp module,
                                     llvm::StringRef pass);

/// Ops that carry no instruction: views, buffers (placed by planning),
/// index constants left by unrolling, and the return.
bool isStructural(mlir::Operation *op);

/// Every tile op of `func` lowered in program order. Reports every op that
/// is not a tile op or cannot be lowered, then fails.
mlir::FailureOr<std::vector<LoweredInst>>
lowerFunction(const isa::TargetDesc &target, mlir::func::FuncOp func,
              llvm::StringRef pass);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_LOWERING_H
