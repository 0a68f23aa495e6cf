//===- HbmPlan.cpp - HBM offsets of the function's tensors ----------------===//
//
// HBM holds the program's tensors for its whole run, so there is no reuse:
// the root buffers are laid end to end, each 64-byte aligned, in a fixed
// order: arguments (inputs) in order, returned buffers (outputs) in return order, constants
// (memref.get_global, one slot per global) in first-use order, then scratch
// (every other memref.alloc) in program order.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace nki::planning {

static StringRef kindName(HbmBuffer::Kind kind) {
  switch (kind) {
  case HbmBuffer::Input:
    return "inputs";
  case HbmBuffer::Output:
    return "outputs";
  case HbmBuffer::Constant:
    return "constants";
  case HbmBuffer::Scratch:
    return "scratch";
  }
  llvm_unreachable("unknown HBM buffer kind");
}

/// The bytes of an HBM buffer of `type`, or failure after an error at `at`
/// naming the buffer `what`. Sizes saturate, so an absurd shape reports as
/// too large for HBM.
static FailureOr<int64_t> bufferBytes(Type type, Location at, const Twine &what,
                                      const isa::TargetDesc &target) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return emitError(at) << what << " has type " << type
                         << "; HBM tensors are memrefs";
  if (tile::getMemorySpace(memref))
    return emitError(at) << what << " has type " << type
                         << ", on chip; HBM tensors are memrefs in the "
                            "default memory space";
  if (!memref.hasStaticShape() || !memref.getLayout().isIdentity())
    return emitError(at) << what << " has type " << type
                         << "; HBM tensors must be static, row-major and "
                            "contiguous";
  Type elementType = memref.getElementType();
  uint64_t bits = tile::storageBits(memref);
  if (!bits)
    return emitError(at) << what << " has element type " << elementType
                         << ", which the machine cannot store";
  if (bits < 8 && (!memref.getRank() || memref.getShape().back() % 2))
    return emitError(at) << what << " has type " << memref
                         << "; f4E2M1FN tensors are stored two values a "
                            "byte, so their innermost dim must be even";
  for (int64_t dim : memref.getShape())
    bits = llvm::SaturatingMultiply(bits, uint64_t(dim));
  uint64_t bytes = bits / 8;
  if (bytes > uint64_t(target.hbmBytes))
    return emitError(at) << what << " needs " << bytes
                         << " bytes, more than the " << target.hbmBytes
                         << " bytes of HBM on " << target.name;
  return int64_t(bytes);
}

/// The returned buffers in return order, or failure after an error at the
/// return. Outputs must be distinct buffers allocated in the function:
/// the runtime copies each output out of its own HBM slot.
static FailureOr<SmallVector<memref::AllocOp>>
collectOutputs(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<memref::AllocOp> outputs;
  llvm::DenseMap<Operation *, unsigned> seen;
  bool ok = true;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      ret.emitOpError() << "returns function argument #" << arg.getArgNumber()
                        << " as result #" << i
                        << "; outputs must be distinct buffers allocated in "
                           "the function (bufferization should have copied "
                           "the argument)";
      ok = false;
      continue;
    }
    Operation *def = value.getDefiningOp();
    auto alloc = dyn_cast<memref::AllocOp>(def);
    if (!alloc) {
      ret.emitOpError() << "returns "
                        << (llvm::isa<ViewLikeOpInterface>(def)
                                ? "a view ('"
                                : "the result of '")
                        << def->getName() << "') as result #" << i
                        << "; outputs must be whole buffers allocated in the "
                           "function (memref.alloc)";
      ok = false;
      continue;
    }
    auto [it, inserted] = seen.try_emplace(alloc, unsigned(i));
    if (!inserted) {
      ret.emitOpError() << "returns the same buffer as results #" << it->second
                        << " and #" << i
                        << "; outputs must be distinct buffers (bufferization "
                           "should have copied one)";
      ok = false;
      continue;
    }
    outputs.push_back(alloc);
  }
  if (!ok)
    return failure();
  return outputs;
}

FailureOr<std::vector<HbmBuffer>> planHbm(func::FuncOp func,
                                          const isa::TargetDesc &target) {
  FailureOr<SmallVector<memref::AllocOp>> outputs = collectOutputs(func);
  if (failed(outputs))
    return failure();

  std::vector<HbmBuffer> buffers;
  bool ok = true;
  auto add = [&](HbmBuffer::Kind kind, int index, Operation *op, Type type,
                 Location at, const Twine &what) {
    FailureOr<int64_t> size = bufferBytes(type, at, what, target);
    if (failed(size)) {
      ok = false;
      return;
    }
    buffers.push_back(HbmBuffer{kind, index, op, 0, *size});
  };

  for (BlockArgument arg : func.getArguments())
    add(HbmBuffer::Input, int(arg.getArgNumber()), nullptr, arg.getType(),
        arg.getLoc(),
        "argument #" + Twine(arg.getArgNumber()) + " of @" + func.getName());
  for (auto [i, alloc] : llvm::enumerate(*outputs))
    add(HbmBuffer::Output, int(i), alloc, alloc.getType(), alloc.getLoc(),
        "result #" + Twine(i) + " of @" + func.getName());

  // Constants: one slot per global, shared by every get_global of it.
  llvm::StringMap<size_t> globalSlot;
  SmallVector<std::pair<memref::GetGlobalOp, size_t>> globalUses;
  func.walk([&](memref::GetGlobalOp get) {
    auto [it, inserted] = globalSlot.try_emplace(get.getName(), buffers.size());
    if (inserted) {
      size_t before = buffers.size();
      add(HbmBuffer::Constant, -1, get, get.getType(), get.getLoc(),
          "global '" + get.getName() + "'");
      if (buffers.size() == before) {
        globalSlot.erase(get.getName());
        return;
      }
    }
    globalUses.push_back({get, it->second});
  });

  llvm::SmallPtrSet<Operation *, 4> isOutput;
  for (memref::AllocOp alloc : *outputs)
    isOutput.insert(alloc);
  func.walk([&](memref::AllocOp alloc) {
    if (!isOutput.contains(alloc))
      add(HbmBuffer::Scratch, -1, alloc, alloc.getType(), alloc.getLoc(),
          "scratch buffer");
  });
  if (!ok)
    return failure();

  // Lay out end to end. Each size is at most hbmBytes (< 2^40), so the
  // running end cannot overflow for any buffer count an IR can hold.
  int64_t end = 0;
  int64_t bytesByKind[4] = {0, 0, 0, 0};
  for (HbmBuffer &buffer : buffers) {
    buffer.offset = int64_t(llvm::alignTo(uint64_t(end), kHbmAlignment));
    end = buffer.offset + buffer.size;
    bytesByKind[buffer.kind] += buffer.size;
  }
  if (end > target.hbmBytes) {
    InFlightDiagnostic diag = emitError(func.getLoc());
    diag << "function @" << func.getName() << " needs " << end
         << " bytes of HBM for its tensors, more than the " << target.hbmBytes
         << " bytes of " << target.name << " (";
    for (int kind = 0; kind < 4; ++kind)
      diag << (kind ? ", " : "") << kindName(HbmBuffer::Kind(kind)) << " "
           << bytesByKind[kind];
    diag << " bytes, each tensor 64-byte aligned)";
    return diag;
  }

  Builder builder(func.getContext());
  SmallVector<int64_t> outputOffsets;
  for (const HbmBuffer &buffer : buffers) {
    IntegerAttr offset = builder.getI64IntegerAttr(buffer.offset);
    if (buffer.kind == HbmBuffer::Input)
      func.setArgAttr(buffer.index, kHbmOffsetAttr, offset);
    else
      buffer.op->setAttr(kHbmOffsetAttr, offset);
    if (buffer.kind == HbmBuffer::Output)
      outputOffsets.push_back(buffer.offset);
  }
  for (auto [get, slot] : globalUses)
    get->setAttr(kHbmOffsetAttr,
                 builder.getI64IntegerAttr(buffers[slot].offset));
  func->setAttr(kOutputOffsetsAttr,
                builder.getDenseI64ArrayAttr(outputOffsets));
  return buffers;
}

} // namespace nki::planning
