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

/// A layer that reads nothing of its own size: a convolution's product its
/// epilogue consumes, a pad or a reshape.
BatchLayer view(std::string name, int64_t lastReader, int64_t bytes = 0) {
  BatchLayer l = layer(std::move(name), bytes, 0);
  l.view = true;
  l.lastReader = lastReader;
  return l;
}

/// A value of an insert chain: a partial view, released when the next
/// insert takes it.
BatchLayer partialView(std::string name, int64_t lastReader, int64_t bytes) {
  BatchLayer l = view(std::move(name), lastReader, bytes);
  l.partial = true;
  return l;
}

BatchLayer reads(BatchLayer l, int64_t lastReader) {
  l.lastReader = lastReader;
  return l;
}

BatchGroupProblem problem(std::vector<BatchLayer> layers) {
  BatchGroupProblem p;
  p.batch = 8;
  p.capacity = 100;
  p.windowCapacity = 200;
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

/// One layer, PE 1000 against 400 per vector engine (the PE bounds it by
/// 2.5x), saving 300 of HBM time.
BatchGroupProblem peBoundProblem() {
  BatchGroupProblem p = problem({layer("a", 200, 1000, 300)});
  p.layers[0].vectorNs = 3 * 400;
  return p;
}

TEST(BatchGroupsTest, PeBoundPrefixSplitsAtItsOwnMargin) {
  // The HBM time need only exceed a quarter of the compute.
  BatchGroupProblem p = peBoundProblem();
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

TEST(BatchGroupsTest, ACloseCallOfThePeBoundMarginNamesTheBatchUnsplit) {
  // Split by the PE-bound margin with a saving of 300 against the 250 it
  // asks (1.2 times, below kCloseCall's 1.5): the batch unsplit is the
  // second candidate, the split still taken.
  BatchGroupProblem p = peBoundProblem();
  BatchGroupSolution s = solved(p);
  EXPECT_TRUE(s.peBound);
  EXPECT_EQ(s.layers, 1);
  EXPECT_EQ(s.alternative, 1);
  // 400 is 1.6 times the margin's 250: no candidate.
  p.layers[0].hbmBytes = 400;
  EXPECT_EQ(solved(p).alternative, 0);
  // Split by the usual margin (not PE-bound), however close: none.
  p = problem({layer("a", 200, 0, 1000)});
  p.layers[0].vectorNs = 3 * 600; // 1000 > 1.5 x 600, by 1.1 times
  s = solved(p);
  EXPECT_FALSE(s.peBound);
  EXPECT_EQ(s.layers, 1);
  EXPECT_EQ(s.alternative, 0);
  // Forced groups compile one candidate.
  EXPECT_EQ(solved(peBoundProblem(), /*forced=*/2).alternative, 0);
}

/// The f32 U-Net's shape: PE-bound layers whose narrow results fit no
/// group channel-major (bytes 1000 against a capacity of 100 and a limit
/// per tensor of 200), but packed (packedBytes) at 8 / G images: a's 400 at
/// 8, 200 at 4; b's 200 at 8, 100 at 4. c reads b. The HBM time saved
/// (1000) is well below a quarter of the compute (100,000).
BatchGroupProblem packedNet() {
  BatchLayer a = reads(layer("a", 1000, 50000, 1000), 1);
  a.packedBytes = 400;
  a.constantBytes = 100;
  BatchLayer b = reads(layer("b", 1000, 50000, 1000), 2);
  b.packedBytes = 200;
  b.constantBytes = 100;
  BatchGroupProblem p = problem({a, b, layer("c", 10, 0)});
  p.liveCapacity = 300;
  // At the whole batch a (400 packed) is above the limit per tensor: 400 +
  // 1000 bytes of traffic against 3 x 400.
  p.programBytes = 400;
  return p;
}

TEST(BatchGroupsTest, TrafficRuleSplitsWhatFitsOnlyPacked) {
  BatchGroupProblem p = packedNet();
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 3);
  EXPECT_EQ(s.groups, 2); // a and b at 4 images: 200 + 100 <= 300
  EXPECT_TRUE(s.packed);
  EXPECT_TRUE(s.traffic);
  EXPECT_FALSE(s.peBound); // one group after another
  EXPECT_EQ(s.why, "");
  EXPECT_DOUBLE_EQ(s.hbmNs, 1000);
  // The results held at once decide G, not each alone: within 250 a and b
  // fit at 4 images each but not together; at 2 images (100 + 50) they do.
  // In 4 groups the constants (200) load 3 more times: 400 + 600 = 1000,
  // within 3 x 400.
  p.liveCapacity = 250;
  s = solved(p);
  EXPECT_EQ(s.groups, 4);
  // At a ratio of 2.4 not (1000 > 960).
  p.trafficRatio = 2.4;
  BatchGroupSolution declined = solved(p);
  EXPECT_EQ(declined.layers, 0);
  EXPECT_FALSE(declined.packed);
  EXPECT_THAT(declined.why,
              HasSubstr("does not fit with 1 image(s); HBM traffic 0.0 MB "
                        "at the whole batch, 0.0 MB in 4 groups"));
  // Off.
  p.trafficRatio = 0;
  EXPECT_EQ(solved(p).layers, 0);
  // verify checks that a split whose groups run one after another holds
  // its results.
  p = packedNet();
  p.liveCapacity = 250;
  s = solved(p);
  s.groups = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'a' does not fit at 4 images"));
  s.groups = 4;
  s.peBound = true;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("overlaps its groups"));
  // A forced G whose results fit only packed runs its groups so.
  p = packedNet();
  s = solved(p, 4);
  EXPECT_EQ(s.layers, 3);
  EXPECT_TRUE(s.packed);
  EXPECT_FALSE(s.traffic);
  EXPECT_EQ(solved(p, 8).groups, 8);
}

TEST(BatchGroupsTest, TrafficRulePacksWhatItHeldChannelMajorBeforeSpilling) {
  // At 4 images a is held channel-major (150 <= 200) and b packed (100):
  // 250 > 200 of live capacity, so a is packed (50) rather than either
  // going to HBM, as the resident plan packs what it declines
  // channel-major.
  BatchGroupProblem p = packedNet();
  p.layers[0].bytes = 300;
  p.layers[0].packedBytes = 100;
  p.liveCapacity = 200;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.groups, 2);
  // A result that packs no smaller (read by several convolutions) stays
  // channel-major: the packed b goes to HBM at 4 images, none at 2.
  p.layers[0].packedBytes = 300;
  EXPECT_EQ(solved(p).groups, 4);
}

TEST(BatchGroupsTest, TrafficRuleHoldsAnInsertChainOnce) {
  // b and c are an insert chain's values (partial views, each the whole
  // tensor of 160): each is released when the next insert takes it, so
  // the chain counts once beside a (100 at 4 images) within 300.
  BatchLayer a = reads(layer("a", 200, 50000, 1000), 3);
  BatchLayer b = partialView("b", 2, 320);
  BatchLayer c = partialView("c", 3, 320);
  BatchGroupProblem p = problem(
      {a, b, c, reads(layer("d", 320, 50000, 1000), 4), layer("e", 10, 0)});
  p.windowCapacity = 400;
  p.liveCapacity = 300;
  p.programBytes = 100;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 5);
  EXPECT_TRUE(s.packed);
  EXPECT_EQ(s.groups, 2);
}

TEST(BatchGroupsTest, TrafficRuleCountsASpilledChainValueAsItsChain) {
  // b and c are an insert chain's values; c, the last, carries the chain's
  // 0.8 MB of traffic. At the whole batch b (320) does not fit beside a
  // (200) within 350 and goes to HBM, c then fits: the chain moves through
  // HBM (0.8 MB, not b's own 0), above 3 x 0.1 MB; at 4 images all fit.
  // (The PE bounds the layers, 10 ms of it: the time rule declines.)
  BatchLayer a = reads(layer("a", 200, 5e6, 1000), 1);
  BatchLayer b = partialView("b", 2, 320);
  BatchLayer c = partialView("c", 3, 320);
  c.hbmBytes = 800000;
  BatchGroupProblem p =
      problem({a, b, c, reads(layer("d", 10, 5e6), 4), layer("e", 10, 0)});
  p.windowCapacity = 400;
  p.liveCapacity = 350;
  p.programBytes = 100000;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 4);
  EXPECT_EQ(s.groups, 2);
  EXPECT_TRUE(s.traffic);
  EXPECT_DOUBLE_EQ(s.hbmNs, 800000);
  // Both values spilled (within 300 c does not fit either): the chain
  // still counts once, 0.1 + 0.8 MB (within 100 x 0.1 MB: no split).
  p.liveCapacity = 300;
  p.trafficRatio = 100;
  s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_THAT(s.why, HasSubstr("HBM traffic 0.9 MB at the whole batch"));
}

TEST(BatchGroupsTest, TrafficRuleOnlyWherePackedResultsDoNotFitAndThePeBounds) {
  // Everything is held at the whole batch: the resident plan keeps it.
  BatchGroupProblem p = packedNet();
  p.layers[0].packedBytes = p.layers[1].packedBytes = 100;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_THAT(s.why, HasSubstr("HBM traffic 0.0 MB at the whole batch, the "
                               "program's own 0.0 MB"));
  // The vector engines bound it: each group's pipeline would fill and
  // drain on them.
  p = packedNet();
  p.layers[0].vectorNs = p.layers[1].vectorNs = 3 * 40000;
  EXPECT_EQ(solved(p).layers, 0);
  // The results do not all stay in SBUF at one image either (a and b,
  // 125 each channel-major, a 50 packed, within 100).
  p = packedNet();
  p.layers[1].packedBytes = 1000;
  p.liveCapacity = 100;
  s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_THAT(s.why, HasSubstr("do not all stay in SBUF with 1 image"));
  // The traffic at the whole batch is within the ratio.
  p = packedNet();
  p.programBytes = 1000; // 2000 <= 3 x 1000
  EXPECT_EQ(solved(p).layers, 0);
  // Bad input.
  p = packedNet();
  p.layers[0].packedBytes = 2000;
  BatchGroupSolution bad;
  EXPECT_THAT(std::string(solve(p, bad).message()),
              HasSubstr("'a' takes more bytes packed than channel-major"));
  p = packedNet();
  p.trafficRatio = -1;
  EXPECT_THAT(std::string(solve(p, bad).message()),
              HasSubstr("negative program bytes, traffic ratio or live "
                        "capacity"));
}

TEST(BatchGroupsTest, ASecondCandidateWhereTheTrafficEstimateCannotTell) {
  // The vector engines bound the prefix, so the traffic rule does not
  // split it; its estimate still spills a at the whole batch and holds
  // everything in 2 groups: the driver's second candidate.
  BatchGroupProblem p = packedNet();
  p.layers[0].vectorNs = p.layers[1].vectorNs = 3 * 40000;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_EQ(s.alternative, 2);
  // Within 250 of live capacity, 4 groups.
  p.liveCapacity = 250;
  EXPECT_EQ(solved(p).alternative, 4);
  // Where the rule splits, the batch unsplit: the split's cost in time is
  // what the estimate cannot tell (its groups one after another).
  p = packedNet();
  s = solved(p);
  EXPECT_EQ(s.layers, 3);
  EXPECT_TRUE(s.traffic);
  EXPECT_EQ(s.alternative, 1);
  EXPECT_TRUE(verify(p, s).ok());
  // None where everything is held at the whole batch,
  p.layers[0].packedBytes = p.layers[1].packedBytes = 100;
  EXPECT_EQ(solved(p).alternative, 0);
  // where the traffic at the whole batch is within the ratio,
  p = packedNet();
  p.layers[0].vectorNs = p.layers[1].vectorNs = 3 * 40000;
  p.programBytes = 1000;
  EXPECT_EQ(solved(p).alternative, 0);
  // where no G holds the results,
  p = packedNet();
  p.layers[1].packedBytes = 1000;
  p.liveCapacity = 100;
  EXPECT_EQ(solved(p).alternative, 0);
  // and with G forced.
  p = packedNet();
  p.layers[0].vectorNs = p.layers[1].vectorNs = 3 * 40000;
  EXPECT_EQ(solved(p, 2).alternative, 0);
  EXPECT_EQ(solved(p, 1).alternative, 0);
  // verify: a second candidate divides the batch and stands alone.
  s = solved(p);
  s.alternative = 3;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("a second candidate of 3 groups beside a split or "
                        "windows, or not dividing the batch of 8"));
  s = solved(p, 2);
  s.alternative = 2;
  EXPECT_FALSE(verify(p, s).ok());
}

TEST(BatchGroupsTest, PartialTensorsAreCompletedInTheirSplit) {
  // a does not fit; b, a partial tensor (an insert chain's value), is
  // completed by c: the prefix ends after c, not after a's reader b.
  BatchLayer b = partialView("b", 2, 10);
  BatchGroupProblem p = problem({reads(layer("a", 200, 10, 1000), 1), b,
                                 layer("c", 10, 10), layer("d", 10, 10)});
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 3);
  s.layers = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("partial tensor 'b' is completed after the layers "
                        "split"));
  // No window holds one: a's window (it does not fit the windows either)
  // would read b's chain from the layers before.
  // (The stem's vector time keeps the prefix from paying.)
  p = problem({layer("stem", 10, 0), b, layer("c", 10, 10),
               reads(layer("e", 300, 0, 100000), 4), layer("f", 10, 10)});
  p.layers[0].vectorNs = 3e6;
  p.layers[1].lastReader = 3;
  EXPECT_TRUE(solved(p).windows.empty());
  p.layers[1].partial = false;
  EXPECT_EQ(solved(p).windows.size(), 1u);
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
  BatchGroupProblem p =
      problem({reads(layer("a", 200, 1000, 10), 1), layer("b", 10, 0)});
  BatchGroupSolution s = solved(p, /*forced=*/8);
  EXPECT_EQ(s.layers, 2);
  EXPECT_EQ(s.groups, 8);
  EXPECT_EQ(solved(p, /*forced=*/1).layers, 0);
  // Too few groups for the results to fit, even packed: no split.
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

/// An expansion (1x1 convolution) whose result does not fit even the
/// windows' capacity, read through a pad by a depthwise layer, after a stem
/// whose compute keeps the prefix from paying.
std::vector<BatchLayer> expansion() {
  BatchLayer stem = reads(layer("stem", 150, 10000, 1000), 1);
  stem.vectorNs = 30000;     // not PE-bound: the prefix's margin is 1.5
  return {stem,              // 0: fits windows
          view("expand", 2), // 1: its product
          reads(layer("expand.act", 400, 0, 3000), 3), // 2: too large
          view("pad", 4, 400),                         // 3
          view("dw", 5),                               // 4: its product
          reads(layer("dw.act", 50, 0, 0), 6),         // 5
          layer("proj", 40, 100)};                     // 6
}

TEST(BatchGroupsTest, WindowAroundAResultTooLargeForTheResidentPlan) {
  BatchGroupProblem p = problem(expansion());
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_THAT(s.why, HasSubstr("is not 1.5 times"));
  // The expansion's product before it joins the window, and the pad, the
  // depthwise product and its epilogue after it.
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 1);
  EXPECT_EQ(s.windows[0].end, 6);
  // 400 bytes fit the quarter (100) at 2 images: 4 groups.
  EXPECT_EQ(s.windows[0].groups, 4);
  // Only the result above the windows' capacity counts (the pad is a view).
  EXPECT_DOUBLE_EQ(s.windows[0].hbmNs, 3000);
  EXPECT_DOUBLE_EQ(s.windows[0].computeNs, 0);
  // Just below and above the windows' margin (0.7: 3000 / 0.7 = 4285.7).
  p.layers[4].peNs = 4286;
  EXPECT_TRUE(solved(p).windows.empty());
  p.layers[4].peNs = 4285;
  EXPECT_EQ(solved(p).windows.size(), 1u);
  // Windows off, or the prefix's G forced (or splits off): none.
  p.windows = false;
  EXPECT_TRUE(solved(p).windows.empty());
  p.windows = true;
  EXPECT_TRUE(solved(p, /*forced=*/2).windows.empty());
  EXPECT_TRUE(solved(p, /*forced=*/1).windows.empty());
}

TEST(BatchGroupsTest, NoSecondCandidateWhereAWindowHoldsTheLargeResult) {
  // The traffic estimate spills the expansion's 400 bytes at the whole
  // batch (above the windows' limit, 200) beyond 3 x 1 byte of program and
  // holds them at 4 images, but a window takes them: no second candidate.
  BatchGroupProblem p = problem(expansion());
  p.programBytes = 1;
  p.liveCapacity = 1000;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 0);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.alternative, 0);
  // Without windows the prefix in 2 groups is the second candidate.
  p.windows = false;
  s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_EQ(s.alternative, 2);
}

TEST(BatchGroupsTest, TheBatchUnsplitWhereAWindowHoldsAResultOfFewChannels) {
  // The expansion's result of few channels (packed in fewer bytes than
  // channel-major): its kernel may pack bands at the whole batch, not in
  // the window, so the batch unsplit is the second candidate.
  BatchGroupProblem p = problem(expansion());
  p.layers[2].packedBytes = p.layers[2].bytes / 2;
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.alternative, 1);
  // Channel-major only (packedBytes as bytes, or 0 for "as bytes"): none.
  p.layers[2].packedBytes = p.layers[2].bytes;
  EXPECT_EQ(solved(p).alternative, 0);
  p.layers[2].packedBytes = 0;
  EXPECT_EQ(solved(p).alternative, 0);
  // No window, no such candidate.
  p.layers[2].packedBytes = p.layers[2].bytes / 2;
  p.windows = false;
  EXPECT_NE(solved(p).alternative, 1);
  // verify: the unsplit candidate needs windows or a split prefix.
  s = BatchGroupSolution();
  s.alternative = 1;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("the batch unsplit as a second candidate with "
                        "nothing split"));
  s.alternative = -2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("a second candidate of -2 groups"));
}

TEST(BatchGroupsTest, WindowsOnlyWhereEveryLayerSplitsAndEveryReaderIsIn) {
  // a's result is read after d, which cannot be split: the prefix does not
  // reach it. a's window holds b; c's would hold d: none.
  BatchGroupProblem p = problem({reads(layer("a", 300, 0, 1000), 1),
                                 reads(layer("b", 10, 0, 0), 3),
                                 reads(layer("c", 300, 0, 1000), 3),
                                 layer("d", 10, 0, 0, /*splittable=*/false)});
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.layers, 0);
  EXPECT_THAT(s.why, HasSubstr("read after the ops that can run per group"));
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 0);
  EXPECT_EQ(s.windows[0].end, 2);
  // A result read after the layers (an op the problem does not hold) keeps
  // its window from closing.
  p = problem({reads(layer("a", 10, 0, 0, false), 1),
               reads(layer("b", 300, 0, 1000), 5)});
  EXPECT_TRUE(solved(p).windows.empty());
  // One image does not fit the quarter: no G.
  p = problem(
      {reads(layer("a", 10, 0, 0, false), 1), layer("b", 8 * 101, 0, 1000)});
  EXPECT_TRUE(solved(p).windows.empty());
  // The prefix (a and the product b that reads it) ends at x, which cannot
  // be split; b's epilogue c, whose result does not fit, comes after it:
  // c's window would need b.
  p = problem({reads(layer("a", 300, 0, 1000), 1), view("b", 3),
               layer("x", 10, 0, 0, false), reads(layer("c", 300, 0, 1000), 4),
               layer("d", 10, 0)});
  s = solved(p);
  EXPECT_EQ(s.layers, 2);
  EXPECT_TRUE(s.windows.empty());
}

TEST(BatchGroupsTest, AWindowLetsOtherLargeResultsGoWhereHoldingThemCannot) {
  // x's window holds y, whose reader u cannot be split: no window holds
  // both. One that holds x alone lets y go through HBM whole (escapes), and
  // neither G (y, 800 bytes, would need 8 groups; x needs 4) nor the HBM
  // time saved (x's 3000 alone) counts it.
  BatchGroupProblem p = problem({reads(layer("x", 300, 0, 3000), 1),
                                 reads(layer("y", 800, 0, 2000), 3),
                                 reads(layer("z", 10, 0, 0), 3),
                                 layer("u", 10, 0, 0, /*splittable=*/false)});
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 0);
  EXPECT_EQ(s.windows[0].end, 2);
  EXPECT_EQ(s.windows[0].groups, 4);
  EXPECT_EQ(s.windows[0].seed, 0);
  EXPECT_TRUE(s.windows[0].escapes);
  EXPECT_DOUBLE_EQ(s.windows[0].hbmNs, 3000);
  // verify holds the window to what it lets go: not y without `escapes`
  // (nor then y's size at 4 images), not the seed's own result, not a view.
  s.windows[0].escapes = false;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'y' does not fit at 2 images"));
  s.windows[0].groups = 8;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'y' is read after its window [0, 2)"));
  s.windows[0].escapes = true;
  s.windows[0].seed = 1;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'y' is read after its window [0, 2)"));
  p.layers[1].view = true;
  s.windows[0].seed = 0;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'y' is read after its window [0, 2)"));
  // Where the whole window closes, it is taken as before (nothing escapes;
  // a, which cannot be split, keeps the prefix from the layers).
  p = problem({reads(layer("a", 10, 0, 0, /*splittable=*/false), 1),
               reads(layer("x", 300, 0, 3000), 2),
               reads(layer("y", 800, 0, 2000), 3), layer("z", 10, 0, 0)});
  s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 1);
  EXPECT_EQ(s.windows[0].end, 4);
  EXPECT_FALSE(s.windows[0].escapes);
  EXPECT_EQ(s.windows[0].groups, 8);
}

TEST(BatchGroupsTest, ViewsThatReadAWindowsResultsJoinIt) {
  // A squeeze's rows (a reshape of the window's last result) and its
  // pooling join the window, so that the convolution writing them sums it.
  BatchLayer rows = view("rows", 4, 50);
  rows.through = 2;
  BatchGroupProblem p =
      problem({reads(layer("x", 10, 0, 0, false), 1),
               reads(layer("expand.act", 400, 0, 3000), 2),
               reads(layer("dw.act", 50, 0, 0), 3), rows,
               reads(layer("pool", 1, 0, 0), 5), layer("z", 1, 0)});
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 1);
  EXPECT_EQ(s.windows[0].end, 5);
}

TEST(BatchGroupsTest, OverlappingWindowsBestRatioFirst) {
  // Two large results: a's window [1, 4) holds b's [2, 4). b's own saves
  // nearly the same HBM time for far less compute, so it is taken, and
  // a's, which overlaps it, is not.
  BatchGroupProblem p =
      problem({reads(layer("x", 10, 0, 0, false), 1),
               reads(layer("a", 300, 1000, 200), 2),
               reads(layer("b", 300, 10, 3000), 3), layer("c", 10, 0)});
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 2);
  EXPECT_EQ(s.windows[0].end, 4);
}

TEST(BatchGroupsTest, TrafficRuleTakesWindowsTheMarginDeclines) {
  // a (300, above the windows' 200) saves 500 bytes of HBM traffic for
  // 1000 of compute: below the margin of 0.7. The program's own 100 bytes
  // against 600 of traffic: the traffic rule takes a's window, in 4
  // groups, its constants (100) loaded 3 more times.
  BatchLayer a = reads(layer("a", 300, 1000, 500), 2);
  a.constantBytes = 100;
  BatchGroupProblem p =
      problem({reads(layer("x", 10, 0, 0, false), 1), a, layer("c", 10, 0)});
  p.programBytes = 100;
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, 1);
  EXPECT_EQ(s.windows[0].groups, 4);
  EXPECT_TRUE(s.windows[0].traffic);
  // Within 3 times the program's bytes (800 <= 900): not taken.
  p.programBytes = 300;
  EXPECT_TRUE(solved(p).windows.empty());
  // The constants loaded again would cost more than it saves.
  p.programBytes = 100;
  p.layers[1].constantBytes = 200;
  EXPECT_TRUE(solved(p).windows.empty());
  // Off.
  p.layers[1].constantBytes = 100;
  p.trafficRatio = 0;
  EXPECT_TRUE(solved(p).windows.empty());
  // Above the margin the time rule takes it, not for traffic.
  p.trafficRatio = 3;
  p.windowMargin = 0.3;
  s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_FALSE(s.windows[0].traffic);
}

TEST(BatchGroupsTest, VerifyNamesWhatAWindowBreaks) {
  BatchGroupProblem p = problem(expansion());
  BatchGroupSolution s;
  s.windows = {BatchWindow{2, 6, 4, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'expand' is read in the window [2, 6)"));
  s.windows = {BatchWindow{1, 3, 4, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'expand.act' is read after its window [1, 3)"));
  s.windows = {BatchWindow{1, 6, 3, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("has 3 groups for a batch of 8"));
  s.windows = {BatchWindow{1, 6, 2, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'expand.act' does not fit at 4 images"));
  s.layers = 2;
  s.groups = 4;
  s.windows = {BatchWindow{1, 6, 4, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("overlaps the split before it"));
  s = BatchGroupSolution();
  p.layers[6].through = 5;
  s.windows = {BatchWindow{1, 6, 4, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'proj' reads a result of the window [1, 6) through"));
  p = problem(expansion());
  p.windowMargin = -1;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("negative window margin"));
  p.windowMargin = 0.7;
  p.windowCapacity = 50;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("the windows' capacity is below the capacity"));
}

/// expansion() at 4 times its images: batch 32, every size and time 4x.
BatchGroupProblem expansionAt32() {
  BatchGroupProblem p = problem(expansion());
  p.batch = 32;
  for (BatchLayer &l : p.layers) {
    l.bytes *= 4;
    l.packedBytes *= 4;
    l.hbmBytes *= 4;
    l.peNs *= 4;
    l.vectorNs *= 4;
  }
  return p;
}

TEST(BatchGroupsTest, ChainProblemScalesTheLayersNotTheConstants) {
  BatchGroupProblem p = expansionAt32();
  p.layers[0].constantBytes = 1000;
  p.programBytes = 1000 + 32 * 50; // the weights, and 50 bytes an image
  BatchGroupProblem c = chainProblem(p, 8);
  EXPECT_EQ(c.batch, 8);
  EXPECT_EQ(c.chainImages, 0);
  EXPECT_EQ(c.programBytes, 1000 + 8 * 50);
  EXPECT_EQ(c.layers[0].constantBytes, 1000);
  EXPECT_EQ(c.layers[2].bytes, 400);
  EXPECT_EQ(c.layers[2].hbmBytes, 3000);
  EXPECT_DOUBLE_EQ(c.layers[0].peNs, 10000);
  EXPECT_DOUBLE_EQ(c.layers[0].vectorNs, 30000);
  // Chain problems are the batch-8 one: the same choice.
  BatchGroupSolution s = solved(c), eight = solved(problem(expansion()));
  EXPECT_EQ(s.layers, eight.layers);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].begin, eight.windows[0].begin);
  EXPECT_EQ(s.windows[0].groups, eight.windows[0].groups);
}

TEST(BatchGroupsTest, ChainsOfTheMeasuredBatchAsASecondCandidate) {
  // At batch 32 the expansion's 1600 bytes hold 16 groups of a window; four
  // chains of eight images, each with batch 8's window, are compiled too.
  BatchGroupProblem p = expansionAt32();
  BatchGroupSolution s = solved(p);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].groups, 16);
  EXPECT_EQ(s.chains, 1);
  EXPECT_EQ(s.alternativeChains, 4);
  EXPECT_EQ(s.alternative, 0);
  // The fewest chains of at most chainImages images: 12 -> 2 of 6, 9 ->
  // 3 of 3.
  p.chainImages = 6;
  EXPECT_EQ(solved(p).alternativeChains, 8);
  p = expansionAt32();
  p.batch = 12;
  EXPECT_EQ(solved(p).alternativeChains, 2);
  p.batch = 9;
  EXPECT_EQ(solved(p).alternativeChains, 3);
  // None at the measured batch or below, with chains off (0 images, a
  // forced K of 1, a forced G), where every result fits, or where a layer
  // cannot run on part of the batch.
  p = expansionAt32();
  p.batch = 8;
  EXPECT_EQ(solved(p).alternativeChains, 0);
  p = expansionAt32();
  p.chainImages = 0;
  EXPECT_EQ(solved(p).alternativeChains, 0);
  p = expansionAt32();
  BatchGroupSolution none;
  ASSERT_TRUE(solve(p, none, 0, /*forcedChains=*/1).ok());
  EXPECT_EQ(none.alternativeChains, 0);
  EXPECT_EQ(solved(p, /*forced=*/2).alternativeChains, 0);
  p.capacity = 4000;
  p.windowCapacity = 4000;
  EXPECT_EQ(solved(p).alternativeChains, 0);
  p = expansionAt32();
  p.layers[6].splittable = false;
  EXPECT_EQ(solved(p).alternativeChains, 0);
}

TEST(BatchGroupsTest, ChainsReplaceAPrefixOfMostOfTheNetwork) {
  // A DMA-bound net whose every result fits only with one image: the
  // prefix would hold all of it in 32 groups; four chains of eight, each
  // with its own prefix in 8 groups, take its place.
  std::vector<BatchLayer> layers = {reads(layer("a", 32 * 100, 10, 100000), 1),
                                    reads(layer("b", 32 * 100, 10, 100000), 2),
                                    layer("c", 32 * 100, 10, 100000)};
  BatchGroupProblem p = problem(layers);
  p.batch = 32;
  BatchGroupSolution s = solved(p);
  EXPECT_EQ(s.chains, 4);
  EXPECT_EQ(s.alternativeChains, 0);
  EXPECT_EQ(s.layers, 3);
  EXPECT_EQ(s.groups, 8);
  // A layer after it that fits and takes more compute than the three: the
  // prefix holds less than half, and chains are only the second candidate.
  p.layers.push_back(layer("d", 10, 40));
  s = solved(p);
  EXPECT_EQ(s.chains, 1);
  EXPECT_EQ(s.groups, 32);
  EXPECT_EQ(s.alternativeChains, 4);
}

TEST(BatchGroupsTest, ForcedChains) {
  BatchGroupProblem p = expansionAt32();
  BatchGroupSolution s;
  ASSERT_TRUE(solve(p, s, 0, /*forcedChains=*/2).ok());
  EXPECT_TRUE(verify(p, s).ok()) << verify(p, s);
  EXPECT_EQ(s.chains, 2);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].groups, 8); // 16 images a chain, 2 a group
  EXPECT_THAT(std::string(solve(p, s, 0, 3).message()),
              HasSubstr("3 chains do not divide the batch of 32"));
  EXPECT_THAT(std::string(solve(p, s, 2, 2).message()),
              HasSubstr("chains and groups of the first layers both forced"));
  p.layers[3].splittable = false;
  EXPECT_THAT(std::string(solve(p, s, 0, 2).message()),
              HasSubstr("chains: layer 'pad' cannot run on part of the batch"));
}

TEST(BatchGroupsTest, VerifyNamesWhatChainsBreak) {
  BatchGroupProblem p = expansionAt32();
  BatchGroupSolution s;
  s.chains = 3;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("3 chains do not divide the batch of 32"));
  // Each chain is checked at its own batch: 4 groups of a chain of 8.
  s.chains = 4;
  s.windows = {BatchWindow{1, 6, 4, 0, 0}};
  EXPECT_TRUE(verify(p, s).ok()) << verify(p, s);
  s.windows = {BatchWindow{1, 6, 16, 0, 0}};
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("has 16 groups for a batch of 8"));
  s.windows.clear();
  s.alternativeChains = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("chains with a second candidate"));
  s = BatchGroupSolution();
  s.alternativeChains = 4;
  EXPECT_TRUE(verify(p, s).ok()) << verify(p, s);
  s.alternative = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("a second candidate of 4 chains beside groups"));
  s.alternative = 0;
  p.layers[0].splittable = false;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("a second candidate of 4 chains"));
  s.alternativeChains = 0;
  s.chains = 2;
  EXPECT_THAT(std::string(verify(p, s).message()),
              HasSubstr("'stem' runs in chains but cannot be split"));
  p = expansionAt32();
  p.chainImages = -1;
  EXPECT_THAT(std::string(solve(p, s).message()),
              HasSubstr("negative images per chain"));
}

} // namespace
