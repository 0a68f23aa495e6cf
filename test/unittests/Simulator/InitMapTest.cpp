//===- InitMapTest.cpp - The uninitialised-read bitmap --------------------===//
//
// InitMap's masked word operations against a byte-by-byte model, over ranges
// that start and end inside, at and across word boundaries.
//
//===----------------------------------------------------------------------===//

#include "InitMap.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using nki::sim::InitMap;

namespace {

int64_t modelFirstUnset(const std::vector<bool> &bits, int64_t a, int64_t b) {
  for (int64_t i = a; i < b; ++i)
    if (!bits[i])
      return i;
  return -1;
}

TEST(InitMapTest, EmptyAndWholeRanges) {
  InitMap map(256);
  EXPECT_EQ(map.firstUnset(10, 10), -1);
  EXPECT_EQ(map.firstUnset(0, 256), 0);
  map.set(5, 5); // empty: sets nothing
  EXPECT_EQ(map.firstUnset(5, 6), 5);
  map.set(0, 256);
  EXPECT_EQ(map.firstUnset(0, 256), -1);
}

TEST(InitMapTest, RangesWithinOneWord) {
  InitMap map(128);
  map.set(3, 9);
  EXPECT_EQ(map.firstUnset(3, 9), -1);
  EXPECT_EQ(map.firstUnset(2, 9), 2);
  EXPECT_EQ(map.firstUnset(3, 10), 9);
  map.set(64, 128); // the whole second word, ending at the map's end
  EXPECT_EQ(map.firstUnset(64, 128), -1);
  EXPECT_EQ(map.firstUnset(60, 128), 60);
  map.set(63, 64); // the first word's last bit alone
  EXPECT_EQ(map.firstUnset(63, 128), -1);
}

TEST(InitMapTest, MatchesByteModel) {
  constexpr int64_t kBytes = 1000; // not a multiple of 64
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> at(0, kBytes);
  for (int round = 0; round < 50; ++round) {
    InitMap map(kBytes);
    std::vector<bool> bits(kBytes);
    for (int op = 0; op < 40; ++op) {
      int64_t a = at(rng), b = at(rng);
      if (a > b)
        std::swap(a, b);
      if (op % 2) {
        map.set(a, b);
        for (int64_t i = a; i < b; ++i)
          bits[i] = true;
      }
      int64_t c = at(rng), d = at(rng);
      if (c > d)
        std::swap(c, d);
      ASSERT_EQ(map.firstUnset(c, d), modelFirstUnset(bits, c, d))
          << "round " << round << " op " << op << " range [" << c << ", " << d
          << ")";
    }
  }
}

} // namespace
