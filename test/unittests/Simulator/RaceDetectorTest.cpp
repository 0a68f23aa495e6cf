//===- RaceDetectorTest.cpp - Races against a brute-force model -----------===//
//
// Random accesses by four streams, with random synchronisation between
// them, checked against every earlier access: the detector (which keeps
// only the records no later access supersedes) must report a race exactly
// when the first access that conflicts with any earlier one, unordered,
// comes.
//
//===----------------------------------------------------------------------===//

#include "RaceDetector.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using namespace nki::sim;

namespace {

struct Access {
  int stream;
  uint32_t index;
  int32_t start, count;
  std::vector<ByteRun> runs;
  bool write;
};

bool overlaps(const Access &a, const Access &b) {
  if (a.start >= b.start + b.count || b.start >= a.start + a.count)
    return false;
  for (const ByteRun &x : a.runs)
    for (const ByteRun &y : b.runs)
      if (x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes)
        return true;
  return false;
}

TEST(RaceDetectorTest, MatchesBruteForce) {
  constexpr int kStreams = 4;
  std::mt19937 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int races = 0;
  for (int round = 0; round < 300; ++round) {
    RaceDetector detector;
    std::vector<Access> history;
    VectorClock clocks[kStreams] = {};
    uint32_t issued[kStreams] = {};
    for (int step = 0; step < 60; ++step) {
      int s = int(pick(0, kStreams - 1));
      if (pick(0, 1) == 0) {
        // Stream t waits for everything s has issued.
        int t = int(pick(0, kStreams - 1));
        VectorClock from = clocks[s];
        from[s] = issued[s];
        joinClock(clocks[t], from);
        continue;
      }
      Access a{s,  issued[s]++,    int32_t(pick(0, 120)), int32_t(pick(1, 8)),
               {}, pick(0, 2) == 0};
      // One to three runs in 2 KiB of a partition, some repeating ranges
      // exactly (the detector's fast path).
      for (int64_t r = pick(1, 3); r > 0; --r) {
        int64_t off = pick(0, 63) * 32 + pick(0, 1) * pick(0, 31);
        a.runs.push_back({off, pick(1, 96)});
      }
      bool expected = false;
      for (const Access &b : history)
        if (b.stream != s && (a.write || b.write) && overlaps(a, b) &&
            clocks[s][b.stream] <= b.index)
          expected = true;
      std::optional<RaceConflict> got =
          detector.access(nki::isa::Memory::SBUF, a.start, a.count, a.runs,
                          a.write, s, a.index, clocks[s]);
      ASSERT_EQ(got.has_value(), expected)
          << "round " << round << " step " << step;
      if (got) {
        // The access named is an earlier one that conflicts.
        EXPECT_NE(got->stream, s);
        EXPECT_TRUE(a.write || got->earlierWrite);
        ++races;
        break; // the simulator stops at the first race
      }
      history.push_back(a);
    }
  }
  // Both outcomes were exercised.
  EXPECT_GT(races, 50);
  EXPECT_LT(races, 300);
}

} // namespace
