//===- SchedulePass.cpp - nki-schedule ------------------------------------===//
//
// Instruction selection and list scheduling of planned tile code: every
// tile op is lowered (Lowering.h), the list scheduler places each
// instruction on a stream with the target's costs (Schedule.h), and the
// answer is written back on the ops as `nki.streams` and `nki.start_ps`,
// which nki-to-nisa reads to order the streams and place the semaphores.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Schedule.h"

#include "nki/Conversion/Passes.h"

#include "mlir/IR/Builders.h"

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
    const nki::isa::TargetDesc *desc = nki::isa::lookupTarget(target);
    if (!desc) {
      module.emitError() << "unknown target '" << target
                         << "' (expected trn1 or trn2)";
      return signalPassFailure();
    }
    func::FuncOp func = findEntryFunction(module, "nki-schedule");
    if (!func)
      return signalPassFailure();
    FailureOr<std::vector<LoweredInst>> ops =
        lowerFunction(*desc, func, "nki-schedule");
    if (failed(ops))
      return signalPassFailure();

    std::vector<nki::sched::Dependence> deps = computeOpDependences(*ops);
    nki::sched::SchedulingProblem problem =
        buildSchedulingProblem(*desc, *ops, deps);
    absl::StatusOr<nki::sched::Schedule> schedule = nki::sched::solve(problem);
    absl::Status status = schedule.ok() ? nki::sched::verify(problem, *schedule)
                                        : schedule.status();
    if (!status.ok()) {
      func.emitError() << "nki-schedule internal error: "
                       << (schedule.ok() ? "the schedule is invalid: "
                                         : "list scheduling failed: ")
                       << std::string(status.message());
      return signalPassFailure();
    }

    // The instructions of one op are consecutive.
    Builder b(&getContext());
    for (size_t i = 0; i < ops->size();) {
      Operation *op = (*ops)[i].op;
      SmallVector<Attribute> streams;
      SmallVector<int64_t> starts;
      for (; i < ops->size() && (*ops)[i].op == op; ++i) {
        streams.push_back(
            b.getStringAttr(problem.getResourceName(schedule->resource[i])));
        starts.push_back(schedule->start[i]);
      }
      op->setAttr(kStreamsAttr, b.getArrayAttr(streams));
      op->setAttr(kStartAttr, b.getDenseI64ArrayAttr(starts));
    }
    func->setAttr(kMakespanAttr,
                  b.getI64IntegerAttr(schedule->makespan(problem)));
  }
};
} // namespace
