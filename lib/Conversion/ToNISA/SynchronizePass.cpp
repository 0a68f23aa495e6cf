//===- SynchronizePass.cpp - nki-synchronize ------------------------------===//
//
// Semaphores for a scheduled nisa.program, from the instructions alone:
// `nisa.seq` gives the program order (the order in which the program
// means what it does), each instruction's access patterns the bytes it
// reads and writes (getAccesses), and the streams the order each runs in.
// Dependences come from byte intervals per memory (Dependences.h), the
// semaphores from Sync.h's vector-clock placement, and the plan is proved
// race- and deadlock-free before it is written on the ops.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Schedule.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"

#include "mlir/IR/Builders.h"

namespace nki {
#define GEN_PASS_DEF_NKISYNCHRONIZE
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;
using namespace nki::tonisa;
namespace nisa = nki::nisa;
namespace sched = nki::sched;

namespace {

struct Placed {
  nisa::InstructionOpInterface op;
  int64_t seq = 0;
  sched::StreamIndex stream = 0;
};

LogicalResult synchronize(nisa::ProgramOp program) {
  const nki::isa::TargetDesc *desc = program.getTargetDesc();
  if (!desc)
    return program.verify(); // its diagnostic for an unknown target
  size_t numStreams = size_t(desc->numStreams());
  std::vector<Placed> insts;
  nisa::InstructionOpInterface unordered;
  for (auto stream : program.getBody().front().getOps<nisa::StreamOp>()) {
    std::optional<nki::isa::StreamId> id = stream.getStreamId();
    if (!id || size_t(id->index()) >= numStreams)
      return stream.emitOpError()
             << "is not a stream of target '" << program.getTarget() << "'";
    for (Operation &op : stream.getBody().front()) {
      auto inst = cast<nisa::InstructionOpInterface>(op);
      auto seq = op.getAttrOfType<IntegerAttr>(kSeqAttr);
      if (!seq) {
        unordered = inst;
        continue;
      }
      if (inst.getWaitsAttr() || inst.getSignalAttr())
        return op.emitOpError()
               << "already has semaphores; nki-synchronize places all of "
                  "a program's semaphores";
      insts.push_back({inst, seq.getInt(), sched::StreamIndex(id->index())});
    }
  }
  if (insts.empty())
    return success(); // synchronised already (or written by hand)
  if (unordered)
    return unordered.emitOpError()
           << "has no '" << kSeqAttr
           << "' (its place in the program order) while other instructions "
              "of the program have one";

  // Instruction ids in program order; each stream's ids in its order.
  std::vector<size_t> byOrder(insts.size());
  for (size_t i = 0; i < insts.size(); ++i)
    byOrder[i] = i;
  // Ties (an error below) in index order: stable, without stable_sort's
  // temporary buffer (libstdc++ 12's get_temporary_buffer, deprecated).
  llvm::sort(byOrder, [&](size_t a, size_t b) {
    return insts[a].seq != insts[b].seq ? insts[a].seq < insts[b].seq : a < b;
  });
  std::vector<sched::InstrId> rankOf(insts.size());
  for (auto [rank, i] : llvm::enumerate(byOrder)) {
    if (rank > 0 && insts[byOrder[rank - 1]].seq == insts[i].seq)
      return insts[i].op.emitOpError()
             << "has '" << kSeqAttr << "' " << insts[i].seq
             << ", as another instruction has";
    rankOf[i] = sched::InstrId(rank);
  }
  std::vector<std::vector<sched::InstrId>> order(numStreams);
  for (auto [i, inst] : llvm::enumerate(insts))
    order[inst.stream].push_back(rankOf[i]);

  // Each instruction's accesses are made when the analysis reaches it, not
  // held for the whole program (reading the IR is safe from both shards).
  auto accessesOf = [&](sched::InstrId rank,
                        std::vector<sched::MemoryAccess> &scratch)
      -> const std::vector<sched::MemoryAccess> & {
    scratch = getAccesses(nisa::toInstruction(insts[byOrder[rank]].op));
    return scratch;
  };
  absl::StatusOr<sched::SyncPlan> plan = planSemaphores(
      std::move(order), sched::computeDependences(insts.size(), accessesOf));
  if (!plan.ok())
    return program.emitOpError() << "cannot be synchronised: "
                                 << std::string(plan.status().message());

  Builder b(program.getContext());
  for (auto [i, inst] : llvm::enumerate(insts)) {
    Operation *op = inst.op;
    op->removeAttr(kSeqAttr);
    const std::vector<sched::SemaphoreWait> &waits = plan->waits[rankOf[i]];
    if (!waits.empty()) {
      SmallVector<int64_t> pairs;
      for (const sched::SemaphoreWait &w : waits)
        pairs.append({int64_t(w.semaphore), int64_t(w.value)});
      op->setAttr("waits", b.getDenseI64ArrayAttr(pairs));
    }
    if (std::optional<uint32_t> signal = plan->signal[rankOf[i]])
      op->setAttr("signal", b.getDenseI64ArrayAttr({int64_t(*signal), 1}));
  }
  program.setSemaphores(plan->numSemaphores);
  return success();
}

struct NKISynchronizePass : nki::impl::NKISynchronizeBase<NKISynchronizePass> {
  void runOnOperation() override {
    for (auto program : getOperation().getOps<nisa::ProgramOp>())
      if (failed(synchronize(program)))
        return signalPassFailure();
  }
};

} // namespace
