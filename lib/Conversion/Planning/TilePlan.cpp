//===- TilePlan.cpp - SBUF and PSUM offsets -------------------------------===//
//
// Each on-chip memory is one planner problem over the bytes of a partition
// (every tile occupies partitions [0, P) and the same bytes in each), solved
// with ReusePolicy::Rotate: a new tile takes fresh or long-freed bytes before
// the bytes its predecessor just released, so consecutive tiles of an
// unrolled loop rotate over several slots and the DMA that fills tile i+1
// need not wait for the last reader of tile i (multi-buffering). Where
// slots are reused, the scheduler orders the reuse as a write-after-read
// dependence on the byte interval.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlan.h"

#include "llvm/Support/Path.h"

#include <string>

using namespace mlir;

namespace nki::planning {

StringRef memoryName(tile::MemorySpace space) {
  return space == tile::MemorySpace::PSUM ? "PSUM" : "SBUF";
}

std::string tileName(tile::AllocOp alloc, size_t index) {
  std::string name;
  alloc.getLoc()->walk([&](Location loc) {
    auto file = dyn_cast<FileLineColLoc>(loc);
    if (!file)
      return WalkResult::advance();
    name = (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  if (name.empty())
    name = "nki.alloc #" + std::to_string(index);
  MemRefType type = alloc.getType();
  name += ' ';
  for (int64_t dim : type.getShape())
    name += std::to_string(dim) + "x";
  llvm::raw_string_ostream os(name);
  os << type.getElementType();
  return name;
}

/// absl's string_view is not std::string_view on every platform.
static StringRef messageOf(const absl::Status &status) {
  return StringRef(status.message().data(), status.message().size());
}

/// The integer after the first `prefix` in `text`, if any. The planner's
/// out-of-memory messages have a documented form (docs/planner.md):
/// "out of memory: buffer #N ..." names the buffer that did not fit and
/// "memory map at position N" the position the map shows.
static std::optional<int64_t> integerAfter(StringRef text, StringRef prefix) {
  size_t at = text.find(prefix);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = text.drop_front(at + prefix.size());
  int64_t value;
  if (rest.consumeInteger(10, value))
    return std::nullopt;
  return value;
}

/// The error for tiles that do not fit: at the tile the planner could not
/// place when it names one, else at the function; a note points at the op
/// of the position the memory map shows.
static void reportOutOfMemory(func::FuncOp func, const isa::TargetDesc &target,
                              ArrayRef<TileBuffer> tiles,
                              const TilePlacement &placement,
                              const PlannerProblem &problem,
                              StringRef message) {
  Location blame = func.getLoc();
  std::optional<int64_t> failed =
      integerAfter(message, "out of memory: buffer #");
  if (failed && *failed >= 0 && size_t(*failed) < placement.tileIndices.size())
    blame = tiles[placement.tileIndices[*failed]].alloc->getLoc();

  InFlightDiagnostic diag = emitError(blame);
  diag << memoryName(placement.space) << " overflow on " << target.name << " ("
       << problem.capacity << " bytes per partition";
  if (problem.boundary)
    diag << " in banks of " << problem.boundary;
  diag << "): " << message;

  std::optional<int64_t> position =
      integerAfter(message, "memory map at position ");
  Block &block = func.getBody().front();
  if (position && *position >= 0 &&
      size_t(*position) < block.getOperations().size())
    diag.attachNote(std::next(block.begin(), *position)->getLoc())
        << "position " << *position << " of the memory map is this op";
}

FailureOr<TilePlacement> planTiles(func::FuncOp func,
                                   const isa::TargetDesc &target,
                                   ArrayRef<TileBuffer> tiles,
                                   tile::MemorySpace space) {
  bool psum = space == tile::MemorySpace::PSUM;
  PlannerProblem problem;
  problem.capacity =
      psum ? target.psumBytesPerPartition() : target.sbufBytesPerPartition;
  // A PSUM tile never crosses a bank: the PE writes a matmul result into one
  // bank (machine model).
  problem.boundary = psum ? target.psumBankBytes : 0;
  int64_t alignment = psum ? kPsumAlignment : kSbufAlignment;

  TilePlacement placement{space, {}, {}};
  for (auto [i, tile] : llvm::enumerate(tiles)) {
    if (tile.space != space)
      continue;
    placement.tileIndices.push_back(i);
    problem.buffers.push_back(PlannerBuffer{tile.size, alignment,
                                            tile.liveStart, tile.liveEnd,
                                            tileName(tile.alloc, i)});
  }
  if (problem.buffers.empty())
    return placement;

  // collectTiles() rejected every tile check() would, so an input error
  // here is a bug of this pass.
  if (absl::Status status = problem.check(); !status.ok())
    return emitError(func.getLoc())
           << "internal error: invalid " << memoryName(space)
           << " planning problem: " << messageOf(status);

  // SBUF, when the rotation has to narrow: tiles of 1/16 of it or more (14
  // KiB on trn2: tensors kept between kernels, a convolution's band) tried
  // from the top. ResNet-50 under auto-cast at batch 8 rotated with a window
  // of 55 positions (of 38,925), 408 from the top: 1,775.6 -> 1,686.6 us
  // (1/64: 1,676.7, but MobileNetV2 at batch 8 819.0 where 1/16 gave
  // 807.9, both placed from the top always).
  // Where the window narrows below a 64th of the program, also buffers
  // live over half of it or more: the U-Net at batch 8 under auto-cast on
  // trn3, its SBUF full to within 320 bytes a partition, had a 72-byte
  // table of per-channel constants amid the memory from its start, which
  // left its 128 KiB decoder result room late in the program only with a
  // window of 222 positions (of 29,456) over the 17,400 before it: 466.7
  // -> 406.2 us. (Tried wherever the window narrows, the variant gave
  // unet_convt at batch 8 under auto-cast on trn2 a whole window and ran
  // it 410.7 -> 418.5 us.)
  PlannerOptions options;
  options.policy = ReusePolicy::Rotate;
  if (!psum) {
    options.largeFromTop = 16;
    options.longLivedFromTop = 2;
  }
  absl::StatusOr<PlannerSolution> solution = allocate(problem, options);
  if (!solution.ok()) {
    if (solution.status().code() != absl::StatusCode::kResourceExhausted)
      return emitError(func.getLoc())
             << "internal error: planning " << memoryName(space)
             << " failed: " << messageOf(solution.status());
    reportOutOfMemory(func, target, tiles, placement, problem,
                      messageOf(solution.status()));
    return failure();
  }
  // Never hand the scheduler overlapping tiles, even in a release build.
  if (absl::Status status = verify(problem, *solution); !status.ok())
    return emitError(func.getLoc())
           << "internal error: the " << memoryName(space)
           << " plan is invalid: " << messageOf(status);

  // A plan that could not rotate at any window reuses bytes as soon as
  // they are free, and each kernel's tiles wait for the previous ones'
  // readers (ResNet-50 under auto-cast at batch 4 on trn3, greedy by size:
  // 1,172.2 us, 628.2 planned again with an eighth of SBUF left free).
  if (!psum && solution->algorithm != PlannerAlgorithm::RotateScan)
    func->setAttr(
        tile::kSbufUnrotatedAttr,
        StringAttr::get(func.getContext(),
                        solution->algorithm == PlannerAlgorithm::GreedyBySize
                            ? "greedy-by-size"
                            : "first-fit"));
  placement.solution = *std::move(solution);
  Builder builder(func.getContext());
  for (auto [k, index] : llvm::enumerate(placement.tileIndices)) {
    tile::AllocOp alloc = tiles[index].alloc;
    alloc.setOffsetAttr(
        builder.getI64IntegerAttr(placement.solution.offsets[k]));
  }
  return placement;
}

} // namespace nki::planning
