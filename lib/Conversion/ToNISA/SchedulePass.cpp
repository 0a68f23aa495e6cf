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

/// A verified schedule and its estimated end in picoseconds.
struct Scheduled {
  nki::sched::Schedule schedule;
  int64_t makespan = 0;
};

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

    absl::StatusOr<Scheduled> scheduled = scheduleOps(*desc, *ops);
    if (!scheduled.ok()) {
      program.emitError() << "nki-schedule internal error: "
                          << std::string(scheduled.status().message());
      return signalPassFailure();
    }
    program->setAttr(kMakespanAttr,
                     builder.getI64IntegerAttr(scheduled->makespan));
    fillProgram(program, *tensors, *ops, scheduled->schedule);
  }

  /// The verified schedule of `ops`. The dependences and the problem are
  /// gone once it is made: the nisa program is built next, and large
  /// programs peak there.
  static absl::StatusOr<Scheduled>
  scheduleOps(const nki::isa::TargetDesc &desc, std::vector<LoweredInst> &ops) {
    nki::sched::SchedulingProblem problem = [&] {
      std::vector<nki::sched::Dependence> deps = computeOpDependences(ops);
      return buildSchedulingProblem(desc, ops, deps);
    }();
    absl::StatusOr<nki::sched::Schedule> schedule = nki::sched::solve(problem);
    if (!schedule.ok())
      return absl::InternalError("list scheduling failed: " +
                                 std::string(schedule.status().message()));
    if (absl::Status st = nki::sched::verify(problem, *schedule); !st.ok())
      return absl::InternalError("the schedule is invalid: " +
                                 std::string(st.message()));
    int64_t makespan = schedule->makespan(problem);
    return Scheduled{std::move(*schedule), makespan};
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
