//===- ToNISAPass.cpp - Tile ops to a scheduled nisa.program
//---------------===//
//
// The driver: lower every tile op of the entry function (Lowering.h),
// schedule and synchronise them (Schedule.h), then replace the function and
// the globals it reads with one nisa.program holding the tensor table
// (Tensors.h) and a nisa.stream per used stream.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Schedule.h"
#include "Tensors.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Verify.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace nki {
#define GEN_PASS_DEF_NKITONISA
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;
using namespace nki::tonisa;

namespace {

/// `main`, else the only public function.
func::FuncOp findEntry(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    if (!main.isExternal())
      return main;
  func::FuncOp entry;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    if (entry)
      return nullptr;
    entry = func;
  }
  return entry;
}

/// Ops that carry no instruction: views, buffers (placed by planning),
/// index constants left by unrolling, and the return.
bool isStructural(Operation *op) {
  return isa<nki::tile::AllocOp, memref::SubViewOp, memref::ReinterpretCastOp,
             memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
             arith::ConstantOp, func::ReturnOp>(op);
}

struct NKIToNISAPass : nki::impl::NKIToNISABase<NKIToNISAPass> {
  using NKIToNISABase::NKIToNISABase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const nki::isa::TargetDesc *targetDesc =
        nki::isa::lookupTarget(target.getValue());
    if (!targetDesc) {
      module.emitError() << "unknown target '" << target
                         << "' (expected trn1 or trn2)";
      return signalPassFailure();
    }
    func::FuncOp func = findEntry(module);
    if (!func) {
      module.emitError() << "no entry function: expected 'main' or exactly "
                            "one public function with a body";
      return signalPassFailure();
    }
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError() << "has control flow; run nki-unroll first";
      return signalPassFailure();
    }

    std::optional<std::vector<TensorEntry>> tensors = collectTensors(func);
    std::vector<LoweredInst> ops;
    bool ok = tensors.has_value();
    for (Operation &op : func.getBody().front()) {
      if (isStructural(&op))
        continue;
      if (!isa<nki::tile::NKIDialect>(op.getDialect())) {
        op.emitOpError() << "is not a tile op; nki-to-nisa expects "
                            "straight-line tile code (run nki-tile and "
                            "nki-unroll first)";
        ok = false;
        continue;
      }
      if (failed(lowerTileOp(*targetDesc, &op, ops)))
        ok = false;
    }
    if (!ok)
      return signalPassFailure();

    absl::StatusOr<ScheduledProgram> program =
        scheduleProgram(*targetDesc, ops);
    if (!program.ok()) {
      func.emitError() << program.status().message();
      return signalPassFailure();
    }
    // The final instructions, semaphores included, against the ISA: a
    // failure here is a bug of this pass, reported at the op.
    for (const ScheduledStream &stream : program->streams)
      for (auto [inst, opIndex] :
           llvm::zip_equal(stream.instructions, stream.opIndex))
        if (absl::Status st = nki::isa::verifyInstruction(
                *targetDesc, stream.id, inst, program->numSemaphores);
            !st.ok()) {
          ops[opIndex].op->emitOpError()
              << "nki-to-nisa internal error: the scheduled instruction on "
              << nki::isa::streamName(stream.id)
              << " fails the ISA checks: " << st.message();
          ok = false;
        }
    if (!ok)
      return signalPassFailure();
    emitProgram(func, *tensors, ops, *program);
  }

  void emitProgram(func::FuncOp func, ArrayRef<TensorEntry> tensors,
                   ArrayRef<LoweredInst> ops, const ScheduledProgram &program) {
    MLIRContext *ctx = &getContext();
    OpBuilder builder(func);
    auto programOp = nki::nisa::ProgramOp::create(
        builder, func.getLoc(), target.getValue(), program.numSemaphores);
    builder.setInsertionPointToStart(&programOp.getBody().front());
    for (const TensorEntry &t : tensors) {
      nki::nisa::TensorOp::create(
          builder, t.loc, builder.getStringAttr(t.decl.name),
          nki::nisa::TensorKindAttr::get(ctx, t.decl.kind),
          nki::nisa::DTypeAttr::get(ctx, t.decl.dtype),
          builder.getDenseI64ArrayAttr(t.decl.shape),
          builder.getI64IntegerAttr(t.decl.hbmOffset), t.data,
          t.decl.host == nki::isa::HostType::Device
              ? StringAttr()
              : builder.getStringAttr(nki::isa::hostTypeName(t.decl.host)));
    }
    for (const ScheduledStream &stream : program.streams) {
      auto streamOp = nki::nisa::StreamOp::create(
          builder, func.getLoc(), nki::isa::streamName(stream.id));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&streamOp.getBody().front());
      for (auto [inst, opIndex] :
           llvm::zip_equal(stream.instructions, stream.opIndex))
        nki::nisa::buildInstructionOp(builder, ops[opIndex].op->getLoc(), inst);
    }

    // The function and the globals it read are now the program.
    llvm::SetVector<Operation *> globals;
    ModuleOp module = getOperation();
    func.walk([&](memref::GetGlobalOp get) {
      if (auto global = module.lookupSymbol<memref::GlobalOp>(get.getName()))
        globals.insert(global);
    });
    func.erase();
    for (Operation *global : globals)
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        global->erase();
  }
};

} // namespace
