//===- ToNISAPass.cpp - Scheduled tile ops to a nisa.program --------------===//
//
// The driver: lower every tile op of the entry function (Lowering.h), read
// the schedule nki-schedule wrote on them and check it, place the
// semaphores (Schedule.h), then replace the function and the globals it
// reads with one nisa.program holding the tensor table (Tensors.h) and a
// nisa.stream per used stream.
//
//===----------------------------------------------------------------------===//

#include "../Common/Globals.h"
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

/// The schedule nki-schedule wrote on the ops (Schedule.h): each
/// instruction's stream and start, and per stream the instructions by
/// start time. Errors at the op whose annotation is missing or does not fit
/// its instructions.
FailureOr<nki::sched::Schedule>
readSchedule(ArrayRef<LoweredInst> ops,
             const nki::sched::SchedulingProblem &problem) {
  if (llvm::none_of(ops, [](const LoweredInst &inst) {
        return inst.op->hasAttr(kStreamsAttr) || inst.op->hasAttr(kStartAttr);
      })) {
    if (!ops.empty()) {
      auto func = ops.front().op->getParentOfType<func::FuncOp>();
      func.emitError() << "the tile code has no schedule ('" << kStreamsAttr
                       << "' and '" << kStartAttr
                       << "' on its ops); run nki-schedule first";
      return failure();
    }
  }
  nki::sched::Schedule schedule;
  schedule.resource.resize(ops.size());
  schedule.start.resize(ops.size());
  schedule.order.resize(problem.numResources());
  bool ok = true;
  for (size_t i = 0; i < ops.size();) {
    Operation *op = ops[i].op;
    size_t first = i;
    while (i < ops.size() && ops[i].op == op)
      ++i;
    size_t count = i - first;
    auto streams = op->getAttrOfType<ArrayAttr>(kStreamsAttr);
    auto starts = op->getAttrOfType<DenseI64ArrayAttr>(kStartAttr);
    if (!streams || !starts) {
      op->emitOpError() << "has no schedule ('" << kStreamsAttr << "' and '"
                        << kStartAttr << "'); run nki-schedule first";
      ok = false;
      continue;
    }
    if (streams.size() != count || size_t(starts.size()) != count) {
      op->emitOpError() << "'" << kStreamsAttr << "' and '" << kStartAttr
                        << "' must have one entry per instruction of the op ("
                        << count << "), found " << streams.size() << " and "
                        << starts.size();
      ok = false;
      continue;
    }
    for (size_t k = 0; k < count; ++k) {
      size_t t = first + k;
      auto name = dyn_cast<StringAttr>(streams[k]);
      std::optional<nki::isa::StreamId> stream =
          name ? nki::isa::parseStream(name.getValue().str()) : std::nullopt;
      if (!stream || size_t(stream->index()) >= problem.numResources()) {
        op->emitOpError() << "'" << kStreamsAttr << "' entry " << k << " ("
                          << streams[k] << ") is not a stream of the target";
        ok = false;
        continue;
      }
      if (!problem.findOption(t, stream->index())) {
        InFlightDiagnostic diag = op->emitOpError();
        diag << "cannot run on stream '" << name.getValue()
             << "' (it may run on";
        for (const Variant &v : ops[t].variants)
          diag << " " << nki::isa::streamName(v.stream);
        diag << ")";
        ok = false;
        continue;
      }
      schedule.resource[t] = stream->index();
      schedule.start[t] = starts[k];
      schedule.order[stream->index()].push_back(t);
    }
  }
  if (!ok)
    return failure();
  for (std::vector<nki::sched::TaskId> &order : schedule.order)
    llvm::stable_sort(order, [&](nki::sched::TaskId a, nki::sched::TaskId b) {
      return schedule.start[a] < schedule.start[b];
    });
  return schedule;
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
    func::FuncOp func = findEntryFunction(module, "nki-to-nisa");
    if (!func)
      return signalPassFailure();

    std::optional<std::vector<TensorEntry>> tensors = collectTensors(func);
    FailureOr<std::vector<LoweredInst>> lowered =
        lowerFunction(*targetDesc, func, "nki-to-nisa");
    if (!tensors || failed(lowered))
      return signalPassFailure();
    std::vector<LoweredInst> &ops = *lowered;

    std::vector<nki::sched::Dependence> deps = computeOpDependences(ops);
    nki::sched::SchedulingProblem problem =
        buildSchedulingProblem(*targetDesc, ops, deps);
    FailureOr<nki::sched::Schedule> schedule = readSchedule(ops, problem);
    if (failed(schedule))
      return signalPassFailure();
    // A schedule edited by hand or made for other tile code may order a
    // dependent pair the wrong way round or overlap two instructions.
    if (absl::Status st = nki::sched::verify(problem, *schedule); !st.ok()) {
      func.emitError() << "the schedule in '" << kStreamsAttr << "' and '"
                       << kStartAttr << "' does not fit this program: "
                       << std::string(st.message())
                       << " (tasks are the op's instructions in program "
                          "order; rerun nki-schedule)";
      return signalPassFailure();
    }
    absl::StatusOr<ScheduledProgram> program =
        synchronizeProgram(ops, deps, problem, *schedule);
    if (!program.ok()) {
      func.emitError() << std::string(program.status().message());
      return signalPassFailure();
    }
    bool ok = true;
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
              << " fails the ISA checks: " << std::string(st.message());
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
    SymbolTable symbols(module);
    func.walk([&](memref::GetGlobalOp get) {
      if (auto global = symbols.lookup<memref::GlobalOp>(get.getName()))
        globals.insert(global);
    });
    func.erase();
    nki::eraseUnreferencedGlobals(module, [&](memref::GlobalOp global) {
      return globals.contains(global);
    });
  }
};

} // namespace
