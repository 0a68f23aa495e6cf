//===- BatchGroups.h - Which layers run in groups of images -*- C++ -*-===//
//
// At batch N the activations of a network's first layers may not fit in
// SBUF with the whole batch, while those of a group of N / G images do: run
// the layers up to the last one whose result does not fit once per group
// (G chains, one after another), and the tensors between them stay on chip
// (docs/compiler.md, "Batch groups"). Worth it where those tensors' trips
// through HBM, not the layers' compute, bound the layers (ResNet-50's
// residual stream under auto-cast), and where the PE bounds them by far
// (fp32 convolutions: the groups run the same matmuls, narrower, at little
// cost); elsewhere the smaller kernels' start-up costs more than the DMA
// saved. Where the whole prefix does not pay, a window of a few layers
// around one large result may: its writer and its readers per group, the
// layers before and after it on the whole batch (MobileNetV2's 112 x 112
// expansion, written by a 1x1 convolution and read by one depthwise
// layer).
//
// A pure algorithm core like the residency choice (Residency.h): a problem
// with check(), solve() and verify(), tested without IR; nki-split-batch
// builds the problem from the graph.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ANALYSIS_BATCHGROUPS_H
#define NKI_ANALYSIS_BATCHGROUPS_H

#include "absl/status/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nki {

/// One op of the graph, in program order, at the whole batch.
struct BatchLayer {
  /// Whether the op can run on a slice of the batch (its result and every
  /// batch operand have the batch as their first dim). The layers split are
  /// a prefix of splittable ones.
  bool splittable = false;
  int64_t bytes = 0;    ///< SBUF bytes per partition of its result, >= 0.
  /// The same with its rows spread over the partitions its channels leave
  /// free (the resident plan's packed band tiles, for a result of fewer
  /// channels than partitions), in [0, bytes]; 0: as `bytes`. Only the
  /// traffic rule counts it. A partial tensor's is the whole tensor's.
  int64_t packedBytes = 0;
  /// Bytes of the constants (weights) it is the first to read, >= 0: each
  /// group loads them again.
  int64_t constantBytes = 0;
  int64_t hbmBytes = 0; ///< Bytes its result moves through HBM when stored
                        ///< there (written once, read by each reader), >= 0.
  double peNs = 0;      ///< Estimated PE time, >= 0.
  double vectorNs = 0;  ///< Estimated ACT + DVE + POOL time, >= 0.
  /// The last layer that reads its result (an index after its own), the
  /// number of layers or more when an op after them does, -1 when none.
  int64_t lastReader = -1;
  /// A global pooling (a squeeze-and-excitation's squeeze): what follows it
  /// in a group waits for the whole of the group's earlier layers, and the
  /// engines idle while the pooled vector's short chain runs.
  bool barrier = false;
  /// No tensor of its own: a contraction's product that its elementwise
  /// epilogue consumes within the kernel, a pad or a reshape that its
  /// readers read through. A window never separates it from its readers.
  bool view = false;
  /// For a reshape or a channel scale (a view), the layer whose result it
  /// reads through (-1: none): a window holding that layer holds the view
  /// too, and so its readers. A global pooling of a depthwise layer's rows
  /// then stays in the kernels that write them, and a squeeze-and-
  /// excitation's scale in the convolution that takes it (EfficientNet-B0:
  /// read from the groups' concatenation, its squeezes were a pass of their
  /// own and its scaled projections 70 % slower).
  int64_t through = -1;
  /// A partial tensor (a view): an insert chain's value before its last
  /// insert, or a convolution's upsampled phases. A split that holds it
  /// holds its readers, and no window holds it: in windows of two images
  /// the decoders of upsampled-conv.test moved twice the HBM bytes
  /// (12.7 -> 34.2 MB, and 103.3 -> 110.3 us for one of them).
  bool partial = false;
  std::string name; ///< For diagnostics only.
};

struct BatchGroupProblem {
  int64_t batch = 1;        ///< N, >= 1.
  int64_t capacity = 0;     ///< Bytes per partition a resident tensor may take.
  double dmaBytesPerNs = 0; ///< All DMA queues together, > 0.
  int64_t vectorEngines = 3; ///< Engines sharing vectorNs, >= 1.
  /// The split pays when the HBM time saved exceeds the compute time of the
  /// layers split by this factor, >= 0.
  double margin = 1.5;
  /// The factor instead when the PE bounds those layers by far (its time
  /// at least `peBoundRatio` >= 1 times the vector time per vector engine),
  /// >= 0: the groups then run the same matmuls, narrower, while the vector
  /// engines, with time to spare, fill and drain each group's pipeline
  /// (ResNet-50 and MobileNetV2 in f32 at batch 8, PE 5x: a split costs
  /// -1 to +1 %; MobileNetV2 under auto-cast, 1.4x: +16 %).
  double peBoundMargin = 0.25;
  double peBoundRatio = 2;
  /// Compute time each barrier of the prefix adds per group, >= 0
  /// (EfficientNet-B0 at batch 8, one image a group: the PE idled 4.6 us in
  /// f32 and 6.9 us under auto-cast more per squeeze and group than at the
  /// whole batch).
  double barrierNs = 5000;
  /// Whether to look for windows after the prefix (or where it was
  /// declined), and the factor a window's HBM time saved must exceed its
  /// compute time by, >= 0. Under auto-cast at batch 8 the windows of
  /// MobileNetV2's and EfficientNet-B0's 112 x 112 expansions (ratios 0.93
  /// and 0.73) cost -0.1 and +0.2 % of the time and save 44 and 36 % of the
  /// HBM traffic. The windows that reach back to their stems (0.70 to 0.74)
  /// ran 1.8 to 7.1 % slower, each group's pipeline filling and draining on
  /// vector-bound layers; they hold the inner windows, which have the
  /// better ratios and are taken first.
  bool windows = true;
  double windowMargin = 0.7;
  /// Bytes per partition above which a result goes through HBM, for the
  /// windows, >= capacity: the resident plan's own limit per tensor (half
  /// a partition). A result between `capacity` and this stays in SBUF
  /// (MobileNetV2's 144-channel expansions at batch 8, 98 KiB under
  /// auto-cast), so a window for it would only cost time. The windows' G
  /// makes their results fit `capacity`, as the prefix's.
  int64_t windowCapacity = 0;
  /// The traffic rule: where the PE bounds the prefix (as above) but the
  /// time rule declines it, estimate what the resident plan would keep of
  /// the prefix's results (`holdResults` in the .cpp): each held from its
  /// layer to its last reader, channel-major when that fits
  /// `windowCapacity` (the plan's limit per tensor), else packed
  /// (`packedBytes`) when that does, else in HBM; where those held at once
  /// exceed `liveCapacity`, the largest goes to HBM. The split is taken
  /// when the HBM traffic at the whole batch (`programBytes` plus the
  /// `hbmBytes` of the results left in HBM) exceeds `trafficRatio` times
  /// `programBytes`, and in G groups run one after another (G the smallest
  /// at which all are kept; each further group loads the constants again)
  /// it does not. `programBytes`: the weights, inputs and outputs the
  /// program moves at least, >= 0; a ratio of 0 turns the rule off. The
  /// U-Nets in f32 at batch 8: their 16-channel 128 x 128 tensors take 64
  /// KiB a partition packed, and 10 to 11 times their program's bytes
  /// went through HBM. Counting each result alone against `capacity`
  /// instead (session 56) split too little on trn1 (the top decoder's
  /// input, skip and result did not fit together: 31 MB moved) and not at
  /// all on trn3 (62.5 MB).
  int64_t programBytes = 0;
  double trafficRatio = 3;
  /// Chains (solve's comment): the most images a chain takes, >= 0; 0:
  /// no chains. The batch the rules above were measured at.
  int64_t chainImages = 8;
  /// Bytes per partition the results held at once may take, >= 0: SBUF
  /// less a kernel's working tiles.
  int64_t liveCapacity = 0;
  std::vector<BatchLayer> layers;

  /// Input errors, naming the layer.
  absl::Status check() const;
};

/// Layers [begin, end) run once per group of `groups` images, after the
/// layers before them and before the layers after them, which keep the
/// whole batch.
struct BatchWindow {
  int64_t begin = 0, end = 0;
  int64_t groups = 1;
  double hbmNs = 0;     ///< HBM time of its results above windowCapacity.
  double computeNs = 0; ///< Compute time of its layers.
  /// Taken by the traffic rule (solve's comment), its HBM time not above
  /// windowMargin times its compute.
  bool traffic = false;
  /// The layer whose result above windowCapacity the window was made for
  /// (-1: none named).
  int64_t seed = -1;
  /// Whether results above windowCapacity in it other than the seed's (not
  /// views) may be read after it (solve's comment): they go through HBM
  /// whole, as without the window, and count neither for G nor for the HBM
  /// time it saves.
  bool escapes = false;
};

struct BatchGroupSolution {
  int64_t layers = 0; ///< Layers split (a prefix); 0: none.
  int64_t groups = 1; ///< G, a divisor of the batch.
  /// The estimates compared (also when the split was declined for them).
  double hbmNs = 0;     ///< HBM time the split saves.
  double computeNs = 0; ///< Compute time of the prefix.
  /// Whether peBoundMargin applied; nki-split-batch then starts each group
  /// half way through the previous one's layers.
  bool peBound = false;
  /// Whether the prefix's results fit at N / G only as the traffic rule
  /// holds them (its split, or a forced G): the groups run one after
  /// another (two in flight would hold the tensors that did not fit at the
  /// whole batch).
  bool packed = false;
  /// Whether the traffic rule split the prefix (not a forced G).
  bool traffic = false;
  /// Why the prefix is not split (empty when it is), for --report.
  std::string why;
  /// Where the prefix is not split, no window is taken, and the traffic
  /// rule's estimate spills results at the whole batch beyond its ratio
  /// that this many groups, one after another, would all hold (0: none):
  /// whether the resident plan spills them too, and what that costs, the
  /// estimate cannot tell (trn1's U-Nets under auto-cast at batch 8 run
  /// 10.5 % faster in two groups, trn2's 10.6 % slower, the estimate the
  /// same on both), so the driver compiles this G too and keeps the
  /// shorter schedule (nki::compileModule). 1: the batch unsplit, where
  /// the split taken may do more work in groups than the estimate sees:
  /// windows (the prefix not split) that hold a result of few channels (it
  /// packs bands of rows beside one another when its result goes to HBM,
  /// and keeps it channel-major in SBUF in a window: the text detector's
  /// features.2 at batch 8 under auto-cast took twice the PE and ACT time
  /// in its window of eight groups, and the net ran 6 % slower with its
  /// three windows), a prefix the time rule splits by less than
  /// kCloseCall times its PE-bound margin, or a prefix the traffic rule
  /// splits (its groups one after another: the text detector at batch 4 in
  /// f32 ran 30 % longer in four groups of one image); the driver keeps it
  /// only when it runs clearly faster (kUnsplitMargin, kTrafficMargin).
  int64_t alternative = 0;
  /// The second candidate of chains instead (solve's comment; 0: none):
  /// this many, each the problem at N / K images solved.
  int64_t alternativeChains = 0;
  /// Windows after the prefix, in order, disjoint.
  std::vector<BatchWindow> windows;
  /// K >= 1, a divisor of the batch: every layer runs K times, on N / K
  /// images each, one chain after another; the fields above are then each
  /// chain's choice, for the problem at N / K images (chainProblem). In
  /// place of a prefix of most of the network (solve's comment), or forced
  /// (the driver's second candidate, --batch-chains).
  int64_t chains = 1;
};

/// The problem of one chain of `images` images (a divisor of the batch):
/// the layers' bytes and times scaled to them, the constants whole, the
/// program's inputs and outputs scaled (its bytes less the constants the
/// layers read first), no chains.
BatchGroupProblem chainProblem(const BatchGroupProblem &problem,
                               int64_t images);

/// The prefix ends at the last splittable layer (of the first run of them)
/// whose result does not fit at the whole batch, or later, at the first
/// layer after which no such result is read (a residual or a convolution's
/// product whose epilogue comes next would cross the split in HBM, the
/// size of the whole batch); G is the smallest divisor
/// of N > 1 at which every result of the prefix fits; the split is taken
/// when the HBM time of the results that do not fit exceeds `margin` times
/// the prefix's compute time (max of PE time and vector time per vector
/// engine, plus `barrierNs` per barrier and group), `peBoundMargin` times
/// when the PE time is at least
/// `peBoundRatio` times the vector time per engine.
/// Otherwise, when the PE bounds the prefix so, the traffic rule (above).
/// Otherwise no split.
///
/// Windows (when `windows`, and G is not forced): for each splittable layer
/// after the prefix whose result is above `windowCapacity`, the fewest
/// layers from it that hold every reader of each result in them above it or
/// of each view in them, the views before them that they read (a
/// contraction's product, whose epilogue starts the window; none in the
/// prefix) and the views after them that read their results through; G the
/// smallest at which their results fit `capacity`. Where that reaches a
/// layer that cannot be split, a partial tensor or past the layers, the
/// window that holds the readers of its first result and of its views
/// only (`escapes`: the other large results go through HBM whole, as
/// without it; EfficientNet-B0 on trn1, whose 24-channel 56 x 56 results
/// at batch 8 are just above the limit and read four blocks later, past a
/// channel-block concatenation). A window is a candidate
/// when its layers are all splittable and the HBM time of its results above
/// `windowCapacity` exceeds `windowMargin` times its compute time (as the
/// prefix's); candidates are taken best ratio first, each disjoint from
/// those taken. Then the traffic rule for windows: while the estimated
/// HBM traffic (`programBytes` plus the `hbmBytes` of the results above
/// `windowCapacity` even packed, outside the prefix and the windows)
/// exceeds
/// `trafficRatio` times `programBytes`, the windows the margin declined are
/// taken too, best ratio first, each disjoint, when the bytes they save
/// exceed their constants loaded again by the further groups (trn3's faster
/// DMA halves the HBM time MobileNetV2's 112 x 112 expansions save, and its
/// window was declined: 4.7 times the floor's bytes under auto-cast at
/// batch 8).
///
/// Chains (neither G nor chains forced, every layer splittable, some
/// result above `capacity`, N above `chainImages`): K, the fewest chains
/// of at most `chainImages` images each. Where the prefix holds more than
/// half of the layers' compute (max of PE and vector time per engine) in
/// more than K groups (much of the network in chains of fewer images,
/// nothing split within them), K chains take its place, each chain's own
/// choice within (at batch 32 such a prefix ran
/// MobileNetV2 in f32 in 32 groups of one image, 7,684.7 us, four chains
/// of eight 6,483.9; EfficientNet-B0 under auto-cast 6,894.7 and 4,750.1).
/// Else K is the second candidate (`alternativeChains`), which the driver
/// compiles too, keeping the shorter schedule (nki::compileModule): the
/// margins and ratios above were measured at batch 8, and at batch 32
/// neither they nor the traffic estimate (which counts results the
/// resident plan keeps: EfficientNet-B0 under auto-cast at batch 8, 83.7
/// MB estimated, 39.4 MB moved) tell which runs faster (MobileNetV2 under
/// auto-cast: 2,904.0 us and 9.8 times the program's bytes through HBM at
/// the whole batch, 2,981.6 and 4.4 times in four chains).
/// `forcedChains` > 1 takes that K (a divisor of N) and each chain's own
/// choice; 1 names no chains.
///
/// `forcedGroups` > 1 takes that G (a divisor
/// of N) for the prefix and skips the time comparison (when its results fit
/// at N / G only as the traffic rule holds them, its groups run one after
/// another); 1 never splits.
/// Errors: check()'s, a forced G or K that does not divide N, chains forced
/// over a layer that cannot be split or together with G.
absl::Status solve(const BatchGroupProblem &problem,
                   BatchGroupSolution &solution, int64_t forcedGroups = 0,
                   int64_t forcedChains = 0);

/// Checks `solution`: G divides N, the layers split are splittable and a
/// prefix of the problem's, and their results fit at N / G (for a split
/// whose groups run one after another, all held as the traffic rule
/// holds them); each window
/// lies after the prefix and the one before it, its layers splittable and
/// their results fitting at its G, no result of it above `windowCapacity`,
/// nor a view, is read after it, and no view outside it reads its results
/// through or is read in it. Chains divide the batch, every layer is
/// splittable, no second candidate is named beside them, and the rest
/// checks against chainProblem; a second candidate of chains divides the
/// batch, every layer splittable, and no second candidate of groups beside
/// it.
absl::Status verify(const BatchGroupProblem &problem,
                    const BatchGroupSolution &solution);

} // namespace nki

#endif // NKI_ANALYSIS_BATCHGROUPS_H
