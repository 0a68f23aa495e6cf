//===- SchedulePass.cpp - nki-schedule ------------------------------------===//
//
// Instruction selection and list scheduling of planned tile code, lowered
// once: every tile op becomes its instructions (Lowering.h), the list
// scheduler places each on a stream with the target's costs (Schedule.h),
// and the entry function and the globals it reads are replaced by a
// nisa.program holding the tensor table (Tensors.h) and every stream's
// instructions in the order they run. Each instruction carries its place in
// the program order (`nisa.seq`); nki-synchronize places the semaphores
// from that order and the instructions' own accesses.
//
//===----------------------------------------------------------------------===//

#include "../Common/Globals.h"
#include "Lowering.h"
#include "Schedule.h"
#include "Tensors.h"

#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace nki {
#define GEN_PASS_DEF_NKISCHEDULE
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;
using namespace nki::tonisa;

namespace {

struct NKISchedulePass : nki::impl::NKIScheduleBase<NKISchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<const nki::isa::TargetDesc *> chosen =
        nki::tile::getTarget(module);
    if (failed(chosen))
      return signalPassFailure();
    const nki::isa::TargetDesc *desc = *chosen;
    func::FuncOp func = findEntryFunction(module, "nki-schedule");
    if (!func)
      return signalPassFailure();
    std::optional<std::vector<TensorEntry>> tensors = collectTensors(func);
    FailureOr<std::vector<LoweredInst>> ops =
        lowerFunction(*desc, func, "nki-schedule");
    if (!tensors || failed(ops))
      return signalPassFailure();
    // The lowered instructions are the program now: the tile code goes
    // before the scheduling data is built, so that the two are never held
    // at once (the unrolled tile code is the larger).
    OpBuilder builder(func);
    auto program =
        nki::nisa::ProgramOp::create(builder, func.getLoc(), desc->name, 0);
    eraseFunction(func);

    std::vector<nki::sched::Dependence> deps = computeOpDependences(*ops);
    nki::sched::SchedulingProblem problem =
        buildSchedulingProblem(*desc, *ops, deps);
    deps.clear();
    deps.shrink_to_fit();
    absl::StatusOr<nki::sched::Schedule> schedule = nki::sched::solve(problem);
    absl::Status status = schedule.ok() ? nki::sched::verify(problem, *schedule)
                                        : schedule.status();
    if (!status.ok()) {
      program.emitError() << "nki-schedule internal error: "
                          << (schedule.ok() ? "the schedule is invalid: "
                                            : "list scheduling failed: ")
                          << std::string(status.message());
      return signalPassFailure();
    }
    program->setAttr(kMakespanAttr, builder.getI64IntegerAttr(
                                        schedule->makespan(problem)));
    fillProgram(program, *tensors, *ops, *schedule);
  }

  /// Erases the entry function and the globals only it read.
  void eraseFunction(func::FuncOp func) {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::SetVector<Operation *> globals;
    func.walk([&](memref::GetGlobalOp get) {
      if (auto global = symbols.lookup<memref::GlobalOp>(get.getName()))
        globals.insert(global);
    });
    func.erase();
    nki::eraseUnreferencedGlobals(module, [&](memref::GlobalOp global) {
      return globals.contains(global);
    });
  }

  void fillProgram(nki::nisa::ProgramOp program, ArrayRef<TensorEntry> tensors,
                   ArrayRef<LoweredInst> ops,
                   const nki::sched::Schedule &schedule) {
    MLIRContext *ctx = &getContext();
    OpBuilder builder = OpBuilder::atBlockBegin(&program.getBody().front());
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
    for (auto [index, order] : llvm::enumerate(schedule.order)) {
      if (order.empty())
        continue;
      auto stream = nki::isa::StreamId::fromIndex(int(index));
      auto streamOp = nki::nisa::StreamOp::create(
          builder, program.getLoc(), nki::isa::streamName(stream));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&streamOp.getBody().front());
      for (nki::sched::TaskId t : order) {
        const LoweredInst &op = ops[t];
        const Variant *variant = llvm::find_if(
            op.variants, [&](const Variant &v) { return v.stream == stream; });
        Operation *inst = nki::nisa::buildInstructionOp(
            builder, op.loc, op.instruction(*variant));
        inst->setAttr(kSeqAttr, builder.getI64IntegerAttr(int64_t(t)));
      }
    }
  }
};

} // namespace
