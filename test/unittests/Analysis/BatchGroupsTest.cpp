//===- BatchGroupsTest.cpp - Which first layers run in groups, without IR -===//

#include "nki/Analysis/BatchGroups.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace nki;
using ::testing::HasSubstr;

namespace {

BatchLayer layer(std::string name, int64_t bytes, double peNs,
                 int64_t hbmBytes = 0, bool splittable = true) {
  BatchLayer l;
  l.name = std::move(name);
  l.bytes = bytes;
  l.hbmBytes = hbmBytes;
  l.peNs = peNs;
  l.splittable = splittable;
  return l;
}

BatchGroupProblem problem(std::vector<BatchLayer> layers) {
  BatchGroupProblem p;
  p.batch = 8;
  p.capacity = 100;
  p.dmaBytesPerNs = 1;
  p.layers = std::move(layers);
  return p;
}

BatchGroupSolution solved(const BatchGroupProblem &p, int64_t forced = 0) {
  BatchGroupSolution s;
  absl::Status status = solve(p, s, forced);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(verify(p, s).ok()) << verify(p, s);
  return s;
}

TEST(BatchGroupsTest, DmaBoundPrefixSplitsAtTheLastLayerThatDoesNotFit) {
  // a and c do not fit with 8 images; at 4 images c (400 -> 200) still does
  // not, at 2 (100) everything does. d fits already and is not split.
  BatchGroupProblem p =
      problem({layer("a", 200, 10, 1000), layer("b", 50, 10, 1000),
               layer("c", 400, 10, 2000), layer("d", 60, 10, 5000)});
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 3);
  EXPECT_EQ(s.groups, 4);
  // Only the results that do not fit count as HBM time saved.
  EXPECT_DOUBLE_EQ(s.hbmNs, 3000);
  EXPECT_DOUBLE_EQ(s.computeNs, 30);
}

TEST(BatchGroupsTest, ThePrefixEndsWhereNoResultThatDoesNotFitIsRead) {
  // a does not fit and c reads it (a residual): the prefix takes c too, so
  // that a does not cross the split at the whole batch.
  std::vector<BatchLayer> layers = {layer("a", 200, 0, 1000),
                                    layer("b", 10, 0, 0), layer("c", 10, 0, 0),
                                    layer("d", 10, 0, 0)};
  layers[0].lastReader = 2;
  layers[1].lastReader = 2;
  layers[2].lastReader = 3;
  BatchGroupProblem p = problem(layers);
  EXPECT_EQ(solved(p).layers, 3);
  // An op after the layers reads it: no split.
  p.layers[0].lastReader = 4;
  EXPECT_EQ(solved(p).layers, 0);
  EXPECT_EQ(solved(p).why, "a result that does not fit is read after the "
                           "ops that can run per group");
  // The last layer reads it: all four are split.
  p.layers[0].lastReader = 3;
  EXPECT_EQ(solved(p).layers, 4);
}

TEST(BatchGroupsTest, ComputeBoundPrefixIsNotSplit) {
  BatchGroupProblem p = problem({layer("a", 200, 1000, 1000)});
  // The PE bounds it, but not by twice the vector time per engine.
  p.layers[0].vectorNs = 3 * 600;
  BatchGroupSolution declined = solved(p);
  EXPECT_EQ(declined.layers, 0);
  EXPECT_EQ(declined.groups, 1);
  EXPECT_FALSE(declined.peBound);
  // What was weighed is said.
  EXPECT_DOUBLE_EQ(declined.hbmNs, 1000);
  EXPECT_DOUBLE_EQ(declined.computeNs, 1000);
  EXPECT_EQ(declined.why, "the HBM time it saves, 1.0 us, is not 1.5 times "
                          "the 1.0 us of compute of its 1 ops (PE time 1.7 "
                          "times the vector time per engine)");
  // The vector engines' time counts per engine.
  p.layers[0].peNs = 0;
  p.layers[0].vectorNs = 3 * 700;
  EXPECT_EQ(solved(p).layers, 0); // 1000 < 1.5 x 700
  p.layers[0].vectorNs = 3 * 600;
  EXPECT_EQ(solved(p).layers, 1); // 1000 > 1.5 x 600
  EXPECT_EQ(solved(p).groups, 2);
}

TEST(BatchGroupsTest, PeBoundPrefixSplitsAtItsOwnMargin) {
  // PE 1000 against 400 per vector engine: the PE bounds it by 2.5x, so
  // the HBM time need only exceed a quarter of the compute.
  BatchGroupProblem p = problem({layer("a", 200, 1000, 300)});
  p.layers[0].vectorNs = 3 * 400;
  BatchGroupSolution split = solved(p);
  EXPECT_TRUE(split.peBound);
  EXPECT_EQ(split.layers, 1);
  EXPECT_EQ(split.groups, 2);
  p.layers[0].hbmBytes = 200; // 200 < 0.25 x 1000
  BatchGroupSolution declined = solved(p);
  EXPECT_EQ(declined.layers, 0);
  EXPECT_THAT(declined.why, HasSubstr("is not 0.25 times the 1.0 us"));
  // Below the ratio the usual margin applies.
  p.layers[0].hbmBytes = 300;
  p.peBoundRatio = 3;
  EXPECT_EQ(solved(p).layers, 0);
  EXPECT_FALSE(solved(p).peBound);
}

TEST(BatchGroupsTest, GlobalPoolingsCostEachGroupADrain) {
  // a does not fit (3000 ns of HBM saved against 1000 of compute, PE and
  // vector engines alike); b pools it globally (a squeeze), so each of the
  // two groups' later layers wait for all of its a.
  BatchGroupProblem p =
      problem({layer("a", 200, 1000, 3000), layer("b", 10, 0, 0)});
  p.layers[0].vectorNs = 3 * 1000;
  p.layers[0].lastReader = 1;
  p.layers[1].barrier = true;
  p.barrierNs = 0;
  BatchGroupSolution split = solved(p);
  EXPECT_EQ(split.layers, 2);
  EXPECT_EQ(split.groups, 2);
  EXPECT_DOUBLE_EQ(split.computeNs, 1000);
  // 1000 + 2 groups x 600 = 2200; 3000 is not 1.5 times that.
  p.barrierNs = 600;
  BatchGroupSolution declined = solved(p);
  EXPECT_EQ(declined.layers, 0);
  EXPECT_DOUBLE_EQ(declined.computeNs, 2200);
  EXPECT_THAT(declined.why, HasSubstr("1 global pooling(s) in 2 groups"));
  // Forced groups split whatever the cost.
  EXPECT_EQ(solved(p, /*forced=*/4).layers, 2);
}

TEST(BatchGroupsTest, NothingToSplit) {
  // Everything fits.
  EXPECT_EQ(solved(problem({layer("a", 100, 0, 1000)})).why,
            "every result fits with the whole batch");
  // Batch of one.
  BatchGroupProblem p = problem({layer("a", 200, 0, 1000)});
  p.batch = 1;
  EXPECT_EQ(solved(p).layers, 0);
  // Not even one image fits.
  p = problem({layer("a", 8 * 101, 0, 1000)});
  EXPECT_EQ(solved(p).layers, 0);
  EXPECT_EQ(solved(p).why, "a result does not fit with 1 image(s)");
  // The layer that does not fit comes after one that cannot be split.
  p = problem(
      {layer("a", 10, 0, 0, /*splittable=*/false), layer("b", 200, 0, 1000)});
  EXPECT_EQ(solved(p).layers, 0);
  // Groups of 2 or 4 images: 6 images split in 2 groups of 3 is too large,
  // 3 groups of 2 fit.
  p = problem({layer("a", 6 * 40, 0, 1000)});
  p.batch = 6;
  EXPECT_EQ(solved(p).groups, 3);
}

TEST(BatchGroupsTest, ForcedGroups) {
  BatchGroupProblem p = problem({layer("a", 200, 1000, 10)});
  BatchGroupSolution s = solved(p, /*forced=*/8);
  EXPECT_EQ(s.layers, 1);
  EXPECT_EQ(s.groups, 8);
  EXPECT_EQ(solved(p, /*forced=*/1).layers, 0);
  // Too few groups for the results to fit: no split.
  p.layers[0].bytes = 800;
  EXPECT_EQ(solved(p, /*forced=*/2).layers, 0);
  absl::Status bad = solve(p, s, /*forcedGroups=*/3);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("do not divide"));
}

TEST(BatchGroupsTest, CheckAndVerifyNameTheProblem) {
  BatchGroupProblem p = problem({layer("conv7", -1, 0)});
  BatchGroupSolution s;
  EXPECT_THAT(std::string(solve(p, s).message()), HasSubstr("conv7"));
  p = problem({layer("a", 200, 0, 1000)});
  p.margin = -1;
  EXPECT_THAT(std::string(solve(p, s).message()), HasSubstr("negative margin"));
  p.margin = 1.5;
  p.peBoundMargin = -1;
  EXPECT_THAT(std::string(solve(p, s).message()), HasSubstr("negative margin"));
  p.peBoundMargin = 0.25;
  p.peBoundRatio = 0.5;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("PE-bound ratio below 1"));
  p.peBoundRatio = 2;
  p.barrierNs = -1;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("negative barrier time"));
  p.barrierNs = 5000;
  p.dmaBytesPerNs = 0;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("DMA bandwidth must be positive"));
  p = problem({layer("a", 300, 0, 1000), layer("b", 10, 0, 0, false)});
  s.layers = 2;
  s.groups = 4;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'b' is split but cannot be"));
  s.layers = 1;
  s.groups = 3;
  EXPECT_THAT(std::string(verify(p, s).message()), HasSubstr("divide"));
  s.groups = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'a' does not fit at 4 images"));
}

} // namespace
