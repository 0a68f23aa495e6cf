//===- BatchGroups.h - Which first layers run a group of images at once -*-===//
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
// saved.
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
  std::vector<BatchLayer> layers;

  /// Input errors, naming the layer.
  absl::Status check() const;
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
  /// Why nothing is split (empty when something is), for --report.
  std::string why;
};

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
/// Otherwise no split. `forcedGroups` > 1 takes that G (a divisor
/// of N) and skips the time comparison; 1 never splits. Errors: check()'s,
/// a forced G that does not divide N.
absl::Status solve(const BatchGroupProblem &problem,
                   BatchGroupSolution &solution, int64_t forcedGroups = 0);

/// Checks `solution`: G divides N, the layers split are splittable and a
/// prefix of the problem's, and their results fit at N / G.
absl::Status verify(const BatchGroupProblem &problem,
                    const BatchGroupSolution &solution);

} // namespace nki

#endif // NKI_ANALYSIS_BATCHGROUPS_H
