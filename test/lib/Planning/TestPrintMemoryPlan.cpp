//===- TestPrintMemoryPlan.cpp - nki-test-print-memory-plan ---------------===//
//
// A test pass (nki-opt registers it when the tests are built; the libraries
// do not carry it): plans a function like nki-plan-memory and prints the
// plan, one line per buffer, for lit tests:
//
//   memory plan @main on trn2
//     hbm  offset 0 size 4096 input #0
//     sbuf offset 0 size 2048 live [1, 3] test.mlir:4:8 128x512xf32
//     sbuf peak 4096 (rotate)
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "Conversion/Planning/MemoryPlan.h"

#include "nki/Dialect/NKI/ModuleTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace nki;
using namespace nki::planning;

static StringRef algorithmName(nki::PlannerAlgorithm algorithm) {
  switch (algorithm) {
  case nki::PlannerAlgorithm::RotateScan:
    return "rotate";
  case nki::PlannerAlgorithm::FirstFitScan:
    return "first-fit";
  case nki::PlannerAlgorithm::GreedyBySize:
    return "greedy-by-size";
  }
  llvm_unreachable("unknown planner algorithm");
}

static void printHbm(llvm::raw_ostream &os, const HbmBuffer &buffer) {
  os << "  hbm  offset " << buffer.offset << " size " << buffer.size << ' ';
  switch (buffer.kind) {
  case HbmBuffer::Input:
    os << "input #" << buffer.index;
    break;
  case HbmBuffer::Output:
    os << "output #" << buffer.index;
    break;
  case HbmBuffer::Constant:
    os << "constant @" << cast<memref::GetGlobalOp>(buffer.op).getName();
    break;
  case HbmBuffer::Scratch:
    os << "scratch";
    break;
  }
  os << '\n';
}

static void printTile(llvm::raw_ostream &os, const TileBuffer &tile,
                      size_t index) {
  tile::AllocOp alloc = tile.alloc;
  os << "  " << memoryName(tile.space).lower() << " offset "
     << *alloc.getOffset() << " size " << tile.size << " live ["
     << tile.liveStart << ", " << tile.liveEnd << "] " << tileName(alloc, index)
     << '\n';
}

namespace {
struct TestPrintMemoryPlanPass
    : PassWrapper<TestPrintMemoryPlanPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintMemoryPlanPass)

  StringRef getArgument() const final { return "nki-test-print-memory-plan"; }
  StringRef getDescription() const final {
    return "Plans memory exactly as nki-plan-memory does (and annotates the "
           "IR the same way), then prints to stdout one line per tile "
           "(memory, offset, size per partition, live range, allocation "
           "site) and per HBM tensor (offset, size, role), so lit tests can "
           "check a plan line by line";
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<MemoryPlan> plan = planMemory(func);
    if (failed(plan))
      return signalPassFailure();
    llvm::raw_ostream &os = llvm::outs();
    os << "memory plan @" << func.getName() << " on "
       << tile::findTarget(func)->name << '\n';
    for (const HbmBuffer &buffer : plan->hbm)
      printHbm(os, buffer);
    for (auto [i, tile] : llvm::enumerate(plan->tiles))
      printTile(os, tile, i);
    for (const TilePlacement &placement : plan->placements)
      if (!placement.tileIndices.empty())
        os << "  " << memoryName(placement.space).lower() << " peak "
           << placement.solution.peak << " ("
           << algorithmName(placement.solution.algorithm) << ")\n";
  }
};
} // namespace

void nki::test::registerTestPrintMemoryPlanPass() {
  PassRegistration<TestPrintMemoryPlanPass>();
}
