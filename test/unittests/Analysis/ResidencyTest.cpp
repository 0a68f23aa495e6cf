//===- ResidencyTest.cpp - Which tensors stay in SBUF, without IR ---------===//

#include "nki/Analysis/Residency.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <random>

using namespace nki;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

ResidencyCandidate candidate(std::string name, int64_t bytes, int64_t start,
                             int64_t end, int64_t benefit) {
  return {bytes, start, end, benefit, std::move(name)};
}

ResidencySolution solved(const ResidencyProblem &problem) {
  ResidencySolution solution;
  absl::Status s = solve(problem, solution);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(verify(problem, solution).ok()) << verify(problem, solution);
  return solution;
}

TEST(ResidencyTest, EverythingFits) {
  ResidencyProblem p;
  p.capacity = {100, 100, 100, 100};
  p.candidates = {candidate("a", 40, 0, 1, 80), candidate("b", 50, 1, 3, 100)};
  EXPECT_THAT(solved(p).resident, ElementsAre(true, true));
}

TEST(ResidencyTest, TheDenserBenefitWinsAContestedPosition) {
  // a and b overlap at position 1, where only one fits; b saves more per
  // byte held.
  ResidencyProblem p;
  p.capacity = {100, 100, 100};
  p.candidates = {candidate("a", 60, 0, 1, 60), candidate("b", 60, 1, 2, 120)};
  EXPECT_THAT(solved(p).resident, ElementsAre(false, true));
}

TEST(ResidencyTest, CapacityVariesByPosition) {
  // Position 2 is a kernel with a large working set: nothing crossing it
  // fits, the candidates on either side do.
  ResidencyProblem p;
  p.capacity = {100, 100, 10, 100, 100};
  p.candidates = {candidate("before", 50, 0, 1, 100),
                  candidate("across", 50, 1, 3, 1000),
                  candidate("after", 50, 3, 4, 100)};
  EXPECT_THAT(solved(p).resident, ElementsAre(true, false, true));
}

TEST(ResidencyTest, ZeroBenefitStaysInHbm) {
  ResidencyProblem p;
  p.capacity = {100};
  p.candidates = {candidate("useless", 1, 0, 0, 0)};
  EXPECT_THAT(solved(p).resident, ElementsAre(false));
}

TEST(ResidencyTest, CheckNamesTheCandidate) {
  ResidencyProblem p;
  p.capacity = {100, 100};
  p.candidates = {candidate("late", 10, 1, 2, 10)};
  ResidencySolution s;
  absl::Status status = solve(p, s);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("'late'"));
  p.candidates = {candidate("empty", 0, 0, 1, 10)};
  EXPECT_THAT(std::string(solve(p, s).message()), HasSubstr("'empty' has 0"));
  p.candidates.clear();
  p.capacity = {-1};
  EXPECT_FALSE(p.check().ok());
}

TEST(ResidencyTest, VerifyRejectsAnOverfullPosition) {
  ResidencyProblem p;
  p.capacity = {100, 50};
  p.candidates = {candidate("a", 40, 0, 1, 1), candidate("b", 40, 1, 1, 1)};
  ResidencySolution s;
  s.resident = {true, true};
  absl::Status status = verify(p, s);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("position 1 holds 80 resident bytes, above its "
                        "capacity of 50: a (40), b (40)"));
  s.resident = {true};
  EXPECT_THAT(std::string(verify(p, s).message()), HasSubstr("1 flags for 2"));
}

// Random problems: every solution verifies, and no rejected candidate would
// have fit beside the chosen ones (the greedy is maximal).
TEST(ResidencyTest, ResidentBytesSumTheLiveCandidates) {
  ResidencyProblem p;
  p.capacity = {100, 100, 100, 100};
  p.candidates = {candidate("a", 40, 0, 1, 80), candidate("b", 50, 1, 3, 100),
                  candidate("c", 30, 2, 2, 0)};
  EXPECT_THAT(residentBytes(p, solved(p)), ElementsAre(40, 90, 50, 50));
}

TEST(ResidencyTest, AdmitTakesACandidateThatFitsBesideTheSolution) {
  // After the plan, b (60 bytes over 2..3) fits beside a; c (70 over 1..2)
  // would overfill position 1, which a holds.
  ResidencyProblem p;
  p.capacity = {100, 100, 100, 100};
  p.candidates = {candidate("a", 40, 0, 1, 80)};
  ResidencySolution s = solved(p);
  absl::StatusOr<bool> b = admit(p, s, candidate("b", 60, 2, 3, 10));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(*b);
  absl::StatusOr<bool> c = admit(p, s, candidate("c", 70, 1, 2, 10));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(*c);
  EXPECT_THAT(s.resident, ElementsAre(true, true, false));
  EXPECT_TRUE(verify(p, s).ok()) << verify(p, s);
  EXPECT_THAT(residentBytes(p, s), ElementsAre(40, 40, 60, 60));
}

TEST(ResidencyTest, AdmitChecksTheCandidate) {
  ResidencyProblem p;
  p.capacity = {100, 100};
  ResidencySolution s = solved(p);
  absl::StatusOr<bool> r = admit(p, s, candidate("late", 10, 1, 2, 5));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("late"));
  EXPECT_TRUE(p.candidates.empty());
  ResidencySolution other;
  other.resident = {true};
  EXPECT_FALSE(admit(p, other, candidate("x", 10, 0, 1, 5)).ok());
}

TEST(ResidencyTest, RandomProblemsAreFeasibleAndMaximal) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    ResidencyProblem p;
    int positions = 1 + int(rng() % 40);
    for (int i = 0; i < positions; ++i)
      p.capacity.push_back(int64_t(rng() % 200));
    int n = int(rng() % 30);
    for (int i = 0; i < n; ++i) {
      int64_t a = rng() % positions, b = rng() % positions;
      p.candidates.push_back(candidate("c" + std::to_string(i),
                                       1 + int64_t(rng() % 80), std::min(a, b),
                                       std::max(a, b), int64_t(rng() % 100)));
    }
    ResidencySolution s = solved(p);
    std::vector<int64_t> load(positions, 0);
    for (int i = 0; i < n; ++i)
      if (s.resident[i])
        for (int64_t q = p.candidates[i].liveStart;
             q <= p.candidates[i].liveEnd; ++q)
          load[q] += p.candidates[i].bytes;
    for (int i = 0; i < n; ++i) {
      const ResidencyCandidate &c = p.candidates[i];
      if (s.resident[i] || c.benefit == 0)
        continue;
      bool fits = true;
      for (int64_t q = c.liveStart; q <= c.liveEnd; ++q)
        fits = fits && load[q] + c.bytes <= p.capacity[q];
      EXPECT_FALSE(fits) << "round " << round << ": " << c.name
                         << " would have fit";
    }
  }
}

} // namespace
