//===- PlannerTest.cpp - The memory planner core, without IR --------------===//

#include "nki/Analysis/Planner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>

using namespace nki;
using ::testing::HasSubstr;

namespace {

PlannerBuffer buffer(std::string name, int64_t size, int64_t liveStart,
                     int64_t liveEnd, int64_t alignment = 1) {
  return {size, alignment, liveStart, liveEnd, std::move(name)};
}

PlannerOptions firstFit() {
  PlannerOptions options;
  options.policy = ReusePolicy::FirstFit;
  return options;
}

/// Rotate with a window of `window` positions.
PlannerOptions rotate(int64_t window) {
  PlannerOptions options;
  options.rotateWindow = window;
  return options;
}

/// A solution of `offsets` and `peak` (for verify()).
PlannerSolution solutionOf(std::vector<int64_t> offsets, int64_t peak) {
  PlannerSolution solution;
  solution.offsets = std::move(offsets);
  solution.peak = peak;
  return solution;
}

/// Allocates, expects success and a solution verify() accepts.
PlannerSolution plan(const PlannerProblem &problem,
                     const PlannerOptions &options = {}) {
  absl::StatusOr<PlannerSolution> solution = allocate(problem, options);
  EXPECT_TRUE(solution.ok()) << solution.status();
  if (!solution.ok())
    return {};
  EXPECT_TRUE(verify(problem, *solution).ok()) << verify(problem, *solution);
  return *solution;
}

//===----------------------------------------------------------------------===//
// check()
//===----------------------------------------------------------------------===//

TEST(PlannerCheck, AcceptsWellFormedProblem) {
  PlannerProblem problem{1024, 256, {buffer("a", 256, 0, 3, 64)}};
  EXPECT_TRUE(problem.check().ok());
}

TEST(PlannerCheck, RejectsBadCapacityAndBoundary) {
  PlannerProblem noCapacity{0, 0, {}};
  EXPECT_THAT(noCapacity.check().message(), HasSubstr("capacity 0"));
  PlannerProblem negativeBoundary{1024, -1, {}};
  EXPECT_THAT(negativeBoundary.check().message(), HasSubstr("boundary -1"));
}

TEST(PlannerCheck, RejectsBadBuffersByName) {
  auto reject = [](PlannerBuffer bad, int64_t boundary = 0) {
    PlannerProblem problem{4096, boundary, {buffer("ok", 8, 0, 0), bad}};
    absl::Status status = problem.check();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("buffer #1 'bad'"));
    return std::string(status.message());
  };
  EXPECT_THAT(reject(buffer("bad", 0, 0, 1)), HasSubstr("size 0"));
  EXPECT_THAT(reject(buffer("bad", -4, 0, 1)), HasSubstr("size -4"));
  EXPECT_THAT(reject(buffer("bad", 8, 0, 1, 3)), HasSubstr("alignment 3"));
  EXPECT_THAT(reject(buffer("bad", 8, 0, 1, 0)), HasSubstr("alignment 0"));
  EXPECT_THAT(reject(buffer("bad", 8, 3, 2)), HasSubstr("[3, 2]"));
  EXPECT_THAT(reject(buffer("bad", 8, -1, 2)), HasSubstr("negative"));
  EXPECT_THAT(reject(buffer("bad", 4096, 0, 1), 2048),
              HasSubstr("exceeds the boundary 2048"));
  EXPECT_THAT(reject(buffer("bad", 8, 0, 1, 4096), 2048),
              HasSubstr("does not divide the boundary"));
}

TEST(PlannerCheck, AllocateAndVerifyCheckFirst) {
  PlannerProblem problem{1024, 0, {buffer("bad", 0, 0, 0)}};
  EXPECT_EQ(allocate(problem).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(verify(problem, solutionOf({0}, 0)).code(),
            absl::StatusCode::kInvalidArgument);
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

TEST(PlannerAllocate, EmptyProblem) {
  PlannerSolution solution = plan({1024, 0, {}});
  EXPECT_TRUE(solution.offsets.empty());
  EXPECT_EQ(solution.peak, 0);
}

TEST(PlannerAllocate, DeadBuffersBytesAreReused) {
  PlannerProblem problem{
      1024, 0, {buffer("a", 512, 0, 1), buffer("b", 512, 2, 3)}};
  PlannerSolution solution = plan(problem, firstFit());
  EXPECT_EQ(solution.offsets[0], solution.offsets[1]);
  EXPECT_EQ(solution.peak, 512);
}

TEST(PlannerAllocate, LiveEndIsInclusive) {
  // b starts where a ends: both are live at position 1.
  PlannerProblem problem{
      1024, 0, {buffer("a", 512, 0, 1), buffer("b", 512, 1, 2)}};
  PlannerSolution solution = plan(problem, firstFit());
  EXPECT_NE(solution.offsets[0], solution.offsets[1]);
  EXPECT_EQ(solution.peak, 1024);
}

TEST(PlannerAllocate, OverlappingLivesGetDisjointRanges) {
  PlannerProblem problem{
      1000,
      0,
      {buffer("a", 300, 0, 5), buffer("b", 300, 2, 3), buffer("c", 400, 3, 9)}};
  PlannerSolution solution = plan(problem);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (size_t i = 0; i < 3; ++i)
    ranges.push_back(
        {solution.offsets[i], solution.offsets[i] + problem.buffers[i].size});
  std::sort(ranges.begin(), ranges.end());
  EXPECT_LE(ranges[0].second, ranges[1].first);
  EXPECT_LE(ranges[1].second, ranges[2].first);
}

TEST(PlannerAllocate, OffsetsAreAligned) {
  PlannerProblem problem{4096,
                         0,
                         {buffer("odd", 3, 0, 4), buffer("wide", 100, 0, 4, 64),
                          buffer("odd2", 5, 1, 4, 1),
                          buffer("page", 8, 2, 4, 1024)}};
  for (PlannerOptions options : {firstFit(), PlannerOptions{}}) {
    PlannerSolution solution = plan(problem, options);
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      EXPECT_EQ(solution.offsets[i] % problem.buffers[i].alignment, 0) << i;
  }
}

TEST(PlannerAllocate, PsumBanksAreNeverCrossed) {
  // 8 banks of 2 KiB; 1.5 KiB accumulators live together need one bank each.
  PlannerProblem problem{8 * 2048, 2048, {}};
  for (int i = 0; i < 8; ++i)
    problem.buffers.push_back(buffer("acc" + std::to_string(i), 1536, 0, 1, 4));
  PlannerSolution solution = plan(problem, firstFit());
  std::set<int64_t> banks;
  for (int64_t offset : solution.offsets) {
    EXPECT_EQ(offset / 2048, (offset + 1536 - 1) / 2048);
    banks.insert(offset / 2048);
  }
  EXPECT_EQ(banks.size(), 8u);
}

TEST(PlannerAllocate, BufferLargerThanCapacity) {
  PlannerProblem problem{1024, 0, {buffer("huge", 2048, 0, 0)}};
  absl::Status status = allocate(problem).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("buffer #0 'huge' needs 2048 bytes, more than the "
                        "capacity 1024"));
}

//===----------------------------------------------------------------------===//
// Out of memory: the memory map
//===----------------------------------------------------------------------===//

TEST(PlannerMemoryMap, TooManyLiveBytes) {
  PlannerProblem problem{1024,
                         0,
                         {buffer("x", 512, 0, 3), buffer("w", 256, 1, 2, 64),
                          buffer("y", 512, 2, 3), buffer("later", 64, 5, 6)}};
  absl::Status status = allocate(problem).status();
  ASSERT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  std::string expected =
      "out of memory: the buffers live at position 2 need 1280 bytes, more "
      "than the capacity 1024\n"
      "memory map at position 2 (capacity 1024 bytes; 1280 bytes live, 0 "
      "placed):\n"
      "      offset        end       size  live                   buffer\n"
      "           -          -        512  [0, 3]                 #0 'x'\n"
      "           -          -        512  [2, 3]                 #2 'y'\n"
      "           -          -        256  [1, 2]                 #1 'w'\n";
  EXPECT_EQ(status.message(), expected);
}

TEST(PlannerMemoryMap, ScanStateWhereItFailed) {
  // 6 bytes are live at most, in 6, but y's alignment leaves no room: the map
  // shows the first-fit scan's placement when y came.
  PlannerProblem problem{
      6,
      0,
      {buffer("x", 3, 0, 2, 4), buffer("w", 1, 0, 0), buffer("y", 3, 1, 2, 4)}};
  absl::Status status = allocate(problem).status();
  ASSERT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  std::string expected =
      "out of memory: buffer #2 'y' (3 bytes, live [1, 2]) does not fit in 6 "
      "bytes; at most 6 bytes are live at once (position 1), alignment, "
      "boundaries and fragmentation take the rest\n"
      "memory map at position 1 (capacity 6 bytes; 6 bytes live, 3 placed):\n"
      "      offset        end       size  live                   buffer\n"
      "           0          3          3  [0, 2]                 #0 'x'\n"
      "           -          -          3  [1, 2]                 #2 'y'  <- "
      "does not fit\n";
  EXPECT_EQ(status.message(), expected);
}

TEST(PlannerMemoryMap, FragmentedBanks) {
  // 3600 bytes live fit 4096 bytes, but each 1200-byte buffer needs a bank.
  PlannerProblem problem{4096,
                         2048,
                         {buffer("p0", 1200, 0, 1), buffer("p1", 1200, 0, 1),
                          buffer("p2", 1200, 0, 1)}};
  absl::Status status = allocate(problem).status();
  ASSERT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("does not fit in 4096 bytes without crossing a "
                        "multiple of 2048; at most 3600 bytes are live at "
                        "once (position 0)"));
  EXPECT_THAT(status.message(), HasSubstr("#2 'p2'  <- does not fit"));
  EXPECT_THAT(status.message(), HasSubstr("2048       3248       1200"));
}

TEST(PlannerMemoryMap, LongMapsAreCut) {
  PlannerProblem problem{1 << 20, 0, {}};
  for (int i = 0; i < 100; ++i)
    problem.buffers.push_back(buffer("t" + std::to_string(i), 16384, 0, 0));
  absl::Status status = allocate(problem).status();
  ASSERT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("need 1638400 bytes, more than the capacity 1048576"));
  EXPECT_THAT(status.message(), HasSubstr("... and 36 smaller buffers\n"));
}

//===----------------------------------------------------------------------===//
// Reuse policy and fallbacks
//===----------------------------------------------------------------------===//

/// A loop of `trips` iterations: tile i is loaded at position 2i and used at
/// 2i + 1, so under first-fit every tile takes the same bytes.
PlannerProblem loadUseLoop(int trips, int64_t tileBytes, int64_t capacity) {
  PlannerProblem problem{capacity, 0, {}};
  for (int i = 0; i < trips; ++i)
    problem.buffers.push_back(
        buffer("tile" + std::to_string(i), tileBytes, 2 * i, 2 * i + 1));
  return problem;
}

TEST(PlannerPolicy, FirstFitReusesOneSlot) {
  PlannerSolution solution = plan(loadUseLoop(8, 1024, 4096), firstFit());
  EXPECT_EQ(std::set<int64_t>(solution.offsets.begin(), solution.offsets.end()),
            std::set<int64_t>{0});
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::FirstFitScan);
}

TEST(PlannerPolicy, RotateCyclesThroughAllSlots) {
  PlannerSolution solution = plan(loadUseLoop(8, 1024, 4096));
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::RotateScan);
  std::vector<int64_t> expected = {0, 1024, 2048, 3072, 0, 1024, 2048, 3072};
  EXPECT_EQ(solution.offsets, expected);
}

TEST(PlannerPolicy, RotateUsesTwoSlotsWhenOnlyTwoFit) {
  PlannerSolution solution = plan(loadUseLoop(6, 1024, 2048 + 512));
  for (size_t i = 0; i + 1 < solution.offsets.size(); ++i)
    EXPECT_NE(solution.offsets[i], solution.offsets[i + 1]) << i;
}

TEST(PlannerPolicy, RotatePrefersBytesFreedLongestAgo) {
  // b (at 1024) dies at 0, a (at 0) at 1: c takes b's older bytes, where
  // first-fit would take the lowest address.
  PlannerProblem problem{2048,
                         0,
                         {buffer("a", 1024, 0, 1), buffer("b", 1024, 0, 0),
                          buffer("c", 1024, 2, 2)}};
  EXPECT_EQ(plan(problem).offsets[2], 1024);
  EXPECT_EQ(plan(problem, firstFit()).offsets[2], 0);
}

TEST(PlannerPolicy, RotateSpreadsAccumulatorsOverPsumBanks) {
  PlannerProblem problem = loadUseLoop(16, 2048, 8 * 2048);
  problem.boundary = 2048;
  PlannerSolution solution = plan(problem);
  for (size_t i = 0; i < solution.offsets.size(); ++i)
    EXPECT_EQ(solution.offsets[i], 2048 * static_cast<int64_t>(i % 8)) << i;
}

TEST(PlannerPolicy, RotateWindowBoundsTheSpread) {
  // Bytes that rested more than 2 positions are fresh again: tile i + 2 takes
  // tile i's slot, so two slots rotate although four would fit.
  PlannerSolution solution = plan(loadUseLoop(8, 1024, 4096), rotate(2));
  std::vector<int64_t> expected = {0, 1024, 0, 1024, 0, 1024, 0, 1024};
  EXPECT_EQ(solution.offsets, expected);
  PlannerSolution zero = plan(loadUseLoop(8, 1024, 4096), rotate(0));
  EXPECT_EQ(zero.offsets, plan(loadUseLoop(8, 1024, 4096), firstFit()).offsets);
}

TEST(PlannerPolicy, RotateFallsBackToFirstFit) {
  // Rotation leaves b at 1 so that the 2-byte c finds no room; first-fit
  // puts b on a's dead byte and c fits after it.
  PlannerProblem problem{
      3, 0, {buffer("a", 1, 0, 0), buffer("b", 1, 1, 2), buffer("c", 2, 2, 2)}};
  PlannerSolution solution = plan(problem);
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::FirstFitScan);
}

TEST(PlannerPolicy, RotateNarrowsItsWindowBeforeFirstFit) {
  // A loop of 1 KiB tiles over 16 KiB; at position 41 a buffer that lives
  // to the end arrives, then one of 10.5 KiB. Rotating over all sixteen
  // slots puts the long-lived one in the middle of memory, where it leaves
  // no such hole, nor does a window of 25 positions (100 / 4); one of 6
  // (100 / 4 / 4) does, and bisection between the two finds the widest that
  // fits, 22 (23 does not, and 25 - 22 is within an eighth of 22): the loop
  // still rotates, over more slots than the four a window of 6 leaves it
  // (first-fit would put every tile in one slot).
  PlannerProblem problem = loadUseLoop(32, 1024, 16384);
  problem.buffers.push_back(buffer("long", 1024, 41, 100));
  problem.buffers.push_back(buffer("big", 10752, 70, 100));
  PlannerSolution solution = plan(problem);
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(solution.rotateWindow, 22);
  std::set<int64_t> slots;
  for (size_t i = 0; i < 32; ++i) {
    slots.insert(solution.offsets[i]);
    if (i + 1 < 32)
      EXPECT_NE(solution.offsets[i], solution.offsets[i + 1]) << i;
  }
  EXPECT_GT(slots.size(), 4u);
  // A window asked for is kept when it fits, narrowed when it does not.
  EXPECT_EQ(plan(problem, rotate(22)).rotateWindow, 22);
  EXPECT_LT(plan(problem, rotate(23)).rotateWindow, 23);
  PlannerSolution unbounded = plan(loadUseLoop(32, 1024, 16384));
  EXPECT_EQ(unbounded.rotateWindow, std::numeric_limits<int64_t>::max());
}

TEST(PlannerPolicy, RotateNarrowsItsWindowOnlyWhereItMust) {
  // RotateNarrowsItsWindowBeforeFirstFit's program, then a second loop of
  // twelve tiles once everything else is dead. The whole program's window
  // narrows to 7 positions, which the second loop pays too: its tiles take
  // 7 slots where all 16 are free. Narrowed locally, the window applies
  // only before the 10.5 KiB buffer, where the unbounded rotation runs out
  // of room ([69, 70] first, a 256th of the span but at least a position,
  // then twice as long while the scan still fails there: [39, 70]), and the
  // second loop rotates over twelve slots.
  PlannerProblem problem = loadUseLoop(32, 1024, 16384);
  problem.buffers.push_back(buffer("long", 1024, 41, 100));
  problem.buffers.push_back(buffer("big", 10752, 70, 100));
  for (int i = 0; i < 12; ++i)
    problem.buffers.push_back(
        buffer("second" + std::to_string(i), 1024, 102 + 2 * i, 103 + 2 * i));
  auto secondSlots = [&](const PlannerSolution &solution) {
    return std::set<int64_t>(solution.offsets.end() - 12,
                             solution.offsets.end())
        .size();
  };
  PlannerOptions global;
  global.localWindow = false;
  PlannerSolution whole = plan(problem, global);
  EXPECT_EQ(whole.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(whole.rotateWindow, 7);
  EXPECT_FALSE(whole.windowRegions);
  EXPECT_EQ(secondSlots(whole), 7u);
  PlannerSolution local = plan(problem);
  EXPECT_EQ(local.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(local.rotateWindow, 7);
  ASSERT_TRUE(local.windowRegions);
  std::vector<std::pair<int64_t, int64_t>> regions = {{39, 70}};
  EXPECT_EQ(*local.windowRegions, regions);
  EXPECT_EQ(secondSlots(local), 12u);
  // A program that rotates whole needs no regions.
  EXPECT_FALSE(plan(loadUseLoop(8, 1024, 4096)).windowRegions);
}

/// Two long-lived large buffers among short small ones (found by a random
/// search): rotating places the 4-byte one where no 4 bytes are left at 6
/// but with a window of 4 positions.
PlannerProblem twoLargeBuffers() {
  return {16,
          0,
          {buffer("t0", 3, 0, 0), buffer("large0", 7, 1, 10),
           buffer("t1", 1, 2, 3), buffer("t2", 1, 3, 5), buffer("t3", 1, 4, 5),
           buffer("t4", 2, 5, 7), buffer("large1", 4, 6, 17)}};
}

TEST(PlannerPolicy, RotateBisectsDownToTheSmallestWindow) {
  // The widest window that fits is 4 and 5 does not: the bisection ends
  // (it looped for ever when the two differed by one below 8 positions).
  PlannerSolution solution = plan(twoLargeBuffers());
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(solution.rotateWindow, 4);
}

TEST(PlannerPolicy, LargeBuffersFromTheTop) {
  // With largeFromTop = 4, a buffer of at least a quarter of the memory
  // takes the highest address that fits: large0 the top 7 bytes, the small
  // ones rotate below it from 3 up, and large1 finds [0, 4) free at 6; the
  // rotation keeps its whole window where the lowest-address placement had
  // to narrow it to 4.
  PlannerOptions options;
  options.largeFromTop = 4;
  PlannerSolution solution = plan(twoLargeBuffers(), options);
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(solution.rotateWindow, std::numeric_limits<int64_t>::max());
  std::vector<int64_t> offsets = {0, 9, 3, 4, 5, 6, 0};
  EXPECT_EQ(solution.offsets, offsets);
  // Without narrowing, the lowest-address placement stays: a tiny problem
  // puts its larger buffer first, at 0, either way.
  PlannerProblem fits{16384,
                      0,
                      {buffer("tile", 1024, 0, 1), buffer("tensor", 4096, 0, 9),
                       buffer("next", 4096, 2, 9)}};
  std::vector<int64_t> lowest = {4096, 0, 5120};
  EXPECT_EQ(plan(fits, options).offsets, lowest);
  // A boundary (PSUM banks) keeps the lowest address for every buffer.
  PlannerProblem banked = loadUseLoop(4, 2048, 8 * 2048);
  banked.boundary = 2048;
  options.largeFromTop = 1;
  EXPECT_EQ(plan(banked, options).offsets[0], 0);
}

TEST(PlannerPolicy, LongLivedBuffersFromTheTopWhereTheWindowCollapses) {
  // `table` (1 byte, live over the whole program) starts while `tile`'s
  // bytes rest, so rotating puts it in the fresh bytes at 8, amid the
  // memory for good: `late` (12 bytes) then finds holes of 8 and 7. Only a
  // window of 0 (first fit: `table` at 0) would place it, so rotation is
  // given up for the whole program.
  PlannerProblem problem{16,
                         0,
                         {buffer("tile", 8, 0, 0), buffer("table", 1, 1, 100),
                          buffer("late", 12, 50, 60)}};
  PlannerSolution without = plan(problem);
  EXPECT_EQ(without.algorithm, PlannerAlgorithm::FirstFitScan);
  // Live over at least half the program, `table` takes the top byte and
  // the rotation keeps its whole window.
  PlannerOptions options;
  options.longLivedFromTop = 2;
  PlannerSolution solution = plan(problem, options);
  EXPECT_EQ(solution.algorithm, PlannerAlgorithm::RotateScan);
  EXPECT_EQ(solution.rotateWindow, std::numeric_limits<int64_t>::max());
  std::vector<int64_t> offsets = {0, 15, 0};
  EXPECT_EQ(solution.offsets, offsets);
  // Where the rotation needs no narrowing the lowest-address placement
  // stays: `table` at 8, beside the resting tile's bytes.
  PlannerProblem fits{16,
                      0,
                      {buffer("tile", 8, 0, 0), buffer("table", 1, 1, 100),
                       buffer("late", 4, 50, 60)}};
  std::vector<int64_t> lowest = {0, 8, 9};
  EXPECT_EQ(plan(fits, options).offsets, lowest);
}

TEST(PlannerPolicy, GreedyBySizeWhenTheScanFragments) {
  // The scan puts a at 0 and b at 2; when a dies, c's 3 bytes find only two
  // holes of 2 and 1. Largest first, c takes 0..3 and b goes to 3.
  PlannerProblem problem{
      4, 0, {buffer("a", 2, 0, 0), buffer("b", 1, 0, 2), buffer("c", 3, 1, 2)}};
  for (PlannerOptions options : {firstFit(), PlannerOptions{}}) {
    PlannerSolution solution = plan(problem, options);
    EXPECT_EQ(solution.algorithm, PlannerAlgorithm::GreedyBySize);
    EXPECT_EQ(solution.peak, 4);
  }
}

//===----------------------------------------------------------------------===//
// verify() and computePeakLoad()
//===----------------------------------------------------------------------===//

TEST(PlannerVerify, RejectsBrokenSolutions) {
  PlannerProblem problem{4096,
                         2048,
                         {buffer("a", 1024, 0, 3, 64), buffer("b", 1024, 2, 5),
                          buffer("c", 1024, 4, 6)}};
  auto message = [&](std::vector<int64_t> offsets, int64_t peak) {
    absl::Status status = verify(problem, solutionOf(std::move(offsets), peak));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  EXPECT_TRUE(verify(problem, solutionOf({0, 1024, 0}, 2048)).ok());
  EXPECT_EQ(message({0, 512, 0}, 1536),
            "buffer #0 'a' and buffer #1 'b' share bytes [512, 1024) while "
            "both are live at positions [2, 3]");
  EXPECT_EQ(message({0, 1024, 1536}, 2560),
            "buffer #2 'c' at offset 1536: its 1024 bytes cross the boundary "
            "at 2048");
  EXPECT_EQ(message({32, 1024, 0}, 2048),
            "buffer #0 'a' at offset 32: not a multiple of its alignment 64");
  EXPECT_EQ(message({0, 1024, 3584}, 4608),
            "buffer #2 'c' at offset 3584: bytes [3584, 4608) are not inside "
            "[0, 4096)");
  EXPECT_EQ(message({0, 1024, -1}, 2048),
            "buffer #2 'c' at offset -1: bytes [-1, 1023) are not inside "
            "[0, 4096)");
  EXPECT_EQ(message({0, 1024, 0}, 4096),
            "peak 4096 is not the highest end address used, 2048");
  EXPECT_EQ(message({0, 1024}, 2048), "solution has 2 offsets for 3 buffers");
}

TEST(PlannerVerify, SameOffsetIsAConflict) {
  PlannerProblem problem{4096, 0, {buffer("", 8, 0, 0), buffer("", 16, 0, 0)}};
  EXPECT_EQ(verify(problem, solutionOf({0, 0}, 16)).message(),
            "buffer #0 and buffer #1 share bytes [0, 8) while both are live "
            "at positions [0, 0]");
}

TEST(PlannerPeakLoad, MaxBytesLiveAtOnePosition) {
  PlannerProblem problem{1 << 20,
                         0,
                         {buffer("a", 100, 0, 2), buffer("b", 50, 2, 4),
                          buffer("c", 70, 3, 3), buffer("d", 10, 5, 9)}};
  PlannerLoad load = computePeakLoad(problem);
  EXPECT_EQ(load.bytes, 150);
  EXPECT_EQ(load.position, 2);
  EXPECT_EQ(computePeakLoad({1, 0, {}}).bytes, 0);
}

//===----------------------------------------------------------------------===//
// Randomised and large problems
//===----------------------------------------------------------------------===//

PlannerProblem randomProblem(std::mt19937_64 &rng, size_t count,
                             int64_t boundary) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  PlannerProblem problem{1, boundary, {}};
  int64_t largest = 1;
  int64_t horizon = uniform(1, 3 * static_cast<int64_t>(count));
  for (size_t i = 0; i < count; ++i) {
    int64_t alignment = int64_t{1} << uniform(0, 6);
    int64_t maxSize = boundary ? boundary : 4096;
    int64_t start = uniform(0, horizon);
    int64_t size = uniform(1, maxSize);
    largest = std::max(largest, size);
    problem.buffers.push_back(buffer("r" + std::to_string(i), size, start,
                                     start + uniform(0, 12), alignment));
  }
  // Between half and twice the live-bytes peak: some fit, some do not.
  int64_t load = computePeakLoad(problem).bytes;
  problem.capacity = std::max(uniform(load / 2, 2 * load), largest);
  return problem;
}

/// verify()'s pairwise rule, the slow obvious way, so that a bug in its
/// sweep cannot hide a bad placement.
bool noPairShares(const PlannerProblem &problem,
                  const std::vector<int64_t> &offsets) {
  const std::vector<PlannerBuffer> &buffers = problem.buffers;
  for (size_t a = 0; a < buffers.size(); ++a)
    for (size_t b = a + 1; b < buffers.size(); ++b)
      if (buffers[a].liveStart <= buffers[b].liveEnd &&
          buffers[b].liveStart <= buffers[a].liveEnd &&
          offsets[a] < offsets[b] + buffers[b].size &&
          offsets[b] < offsets[a] + buffers[a].size)
        return false;
  return true;
}

TEST(PlannerRandom, EverySolutionVerifies) {
  std::mt19937_64 rng(20261129);
  std::map<PlannerAlgorithm, int> solvedBy;
  int exhausted = 0;
  for (int round = 0; round < 300; ++round) {
    int64_t boundary = round % 3 == 0 ? 2048 : 0;
    PlannerProblem problem = randomProblem(rng, 1 + round % 150, boundary);
    PlannerOptions fromTop;
    fromTop.largeFromTop = 4;
    fromTop.longLivedFromTop = 2;
    for (PlannerOptions options :
         {firstFit(), PlannerOptions{}, rotate(5), fromTop}) {
      absl::StatusOr<PlannerSolution> solution = allocate(problem, options);
      if (!solution.ok()) {
        ASSERT_EQ(solution.status().code(),
                  absl::StatusCode::kResourceExhausted);
        EXPECT_THAT(solution.status().message(), HasSubstr("memory map"));
        ++exhausted;
        continue;
      }
      ASSERT_TRUE(verify(problem, *solution).ok())
          << "round " << round << ": " << verify(problem, *solution);
      EXPECT_TRUE(noPairShares(problem, solution->offsets)) << round;
      EXPECT_GE(solution->peak, computePeakLoad(problem).bytes);
      ++solvedBy[solution->algorithm];
    }
  }
  // The generator must exercise every algorithm and the failure path.
  EXPECT_GT(solvedBy[PlannerAlgorithm::RotateScan], 50);
  EXPECT_GT(solvedBy[PlannerAlgorithm::FirstFitScan], 50);
  EXPECT_GT(solvedBy[PlannerAlgorithm::GreedyBySize], 5);
  EXPECT_GT(exhausted, 10);
}

TEST(PlannerLarge, HundredThousandBuffers) {
  // A long tiled program: double-buffered loads, a few longer-lived
  // accumulators and the odd weight that lives for thousands of positions.
  std::mt19937_64 rng(7);
  PlannerProblem problem{192 * 1024, 0, {}};
  for (int i = 0; i < 100000; ++i) {
    int64_t length = i % 997 == 0 ? 5000 : i % 7 == 0 ? 40 : 3;
    int64_t size = 512 * (1 + static_cast<int64_t>(rng() % 8));
    problem.buffers.push_back({size, 64, i, i + length, ""});
  }
  for (PlannerOptions options : {firstFit(), PlannerOptions{}}) {
    absl::StatusOr<PlannerSolution> solution = allocate(problem, options);
    ASSERT_TRUE(solution.ok()) << solution.status();
    EXPECT_TRUE(verify(problem, *solution).ok());
  }
}

} // namespace
