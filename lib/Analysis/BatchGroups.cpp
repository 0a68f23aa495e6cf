//===- BatchGroups.cpp - Which layers run a group of images at once ------===//

#include "nki/Analysis/BatchGroups.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <optional>

using namespace nki;

absl::Status BatchGroupProblem::check() const {
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("batch ", batch, " < 1"));
  if (capacity < 0)
    return absl::InvalidArgumentError("negative capacity");
  if (!(dmaBytesPerNs > 0))
    return absl::InvalidArgumentError("DMA bandwidth must be positive");
  if (vectorEngines < 1)
    return absl::InvalidArgumentError("no vector engine");
  if (!(margin >= 0) || !(peBoundMargin >= 0))
    return absl::InvalidArgumentError("negative margin");
  if (!(barrierNs >= 0))
    return absl::InvalidArgumentError("negative barrier time");
  if (programBytes < 0 || !(trafficRatio >= 0) || liveCapacity < 0)
    return absl::InvalidArgumentError(
        "negative program bytes, traffic ratio or live capacity");
  if (!(windowMargin >= 0))
    return absl::InvalidArgumentError("negative window margin");
  if (windows && windowCapacity < capacity)
    return absl::InvalidArgumentError(
        "the windows' capacity is below the capacity");
  if (!(peBoundRatio >= 1))
    return absl::InvalidArgumentError("PE-bound ratio below 1");
  if (chainImages < 0)
    return absl::InvalidArgumentError("negative images per chain");
  for (const BatchLayer &l : layers) {
    if (l.bytes < 0 || l.hbmBytes < 0 || l.packedBytes < 0 ||
        l.constantBytes < 0 || !(l.peNs >= 0) || !(l.vectorNs >= 0))
      return absl::InvalidArgumentError(
          absl::StrCat("layer '", l.name, "' has a negative size or time"));
    if (l.packedBytes > l.bytes)
      return absl::InvalidArgumentError(absl::StrCat(
          "layer '", l.name, "' takes more bytes packed than channel-major"));
  }
  return absl::OkStatus();
}

/// Whether a result of `bytes` at the whole batch fits at batch / groups
/// (the bytes per partition grow with the images).
static bool fits(int64_t bytes, int64_t batch, int64_t groups,
                 int64_t capacity) {
  return bytes * (batch / groups) / batch <= capacity;
}

/// The smallest divisor G > 1 of the batch at which a result of `bytes`
/// fits, or 0.
static int64_t groupsToFit(const BatchGroupProblem &problem, int64_t bytes) {
  for (int64_t g = 2; g <= problem.batch; ++g)
    if (problem.batch % g == 0 &&
        fits(bytes, problem.batch, g, problem.capacity))
      return g;
  return 0;
}

/// The estimated work of layers [begin, end): PE time, vector time per
/// vector engine, global poolings.
struct Work {
  double pe = 0, perEngine = 0;
  int64_t barriers = 0;
};

static Work workOf(const BatchGroupProblem &problem, int64_t begin,
                   int64_t end) {
  Work w;
  double vector = 0;
  for (int64_t i = begin; i < end; ++i) {
    w.pe += problem.layers[i].peNs;
    vector += problem.layers[i].vectorNs;
    w.barriers += problem.layers[i].barrier;
  }
  w.perEngine = vector / double(problem.vectorEngines);
  return w;
}

/// Their compute time in `groups` groups: the larger of the PE's and the
/// vector engines' times, plus barrierNs per global pooling and group.
static double computeNs(const BatchGroupProblem &problem, const Work &w,
                        int64_t groups) {
  return std::max(w.pe, w.perEngine) +
         double(w.barriers * groups) * problem.barrierNs;
}

/// What the resident plan would keep of the results of layers [0, end) in
/// `groups` groups run one after another (BatchGroupProblem::trafficRatio).
struct Held {
  double hbmBytes = 0; ///< Of the results left in HBM.
  int64_t first = -1;  ///< The first of them, -1: none.
};

/// The last value of the insert chain that layer `i`'s result is a value
/// of (`i` itself when it is not partial): each partial value's last
/// reader is the chain's next insert, up to the value its readers read.
static int64_t chainEnd(const BatchGroupProblem &problem, int64_t i) {
  int64_t size = int64_t(problem.layers.size());
  while (problem.layers[i].partial && problem.layers[i].lastReader > i &&
         problem.layers[i].lastReader < size &&
         problem.layers[problem.layers[i].lastReader].partial)
    i = problem.layers[i].lastReader;
  return i;
}

/// Whether layer `i`'s result is one that window `w` lets go (it escapes,
/// BatchWindow::escapes): above windowCapacity, not a view, not the seed's,
/// read after the window.
static bool escapesWindow(const BatchGroupProblem &problem,
                          const BatchWindow &w, int64_t i) {
  const BatchLayer &l = problem.layers[i];
  return w.escapes && i != w.seed && !l.view &&
         l.bytes > problem.windowCapacity && l.lastReader >= w.end;
}

/// `l`'s bytes per partition packed (BatchLayer::packedBytes; 0: as
/// channel-major).
static int64_t packedBytesOf(const BatchLayer &l) {
  return l.packedBytes > 0 ? l.packedBytes : l.bytes;
}

/// The bytes per partition the plan may hold `l` in at N / `groups`
/// images: channel-major and packed, each -1 when above its limit per
/// tensor.
static std::pair<int64_t, int64_t> heldBytes(const BatchGroupProblem &problem,
                                             const BatchLayer &l,
                                             int64_t groups) {
  int64_t images = problem.batch / groups;
  auto within = [&](int64_t bytes) {
    bytes = bytes * images / problem.batch;
    return bytes <= problem.windowCapacity ? bytes : -1;
  };
  return {within(l.bytes), within(packedBytesOf(l))};
}

/// A sweep over the layers: each result (a partial tensor's chain as one:
/// each value until the next insert takes it) is held from its layer to its
/// last reader, channel-major when that fits the limit per tensor, else
/// packed; one read after the prefix is held to its end, with every
/// group's part. Where the held results exceed liveCapacity, the largest
/// is packed, or goes to HBM when it is already (Residents.cpp: what the
/// plan declines channel-major it may still keep packed). Linear in the
/// layers times the results held at once.
static Held holdResults(const BatchGroupProblem &problem, int64_t end,
                        int64_t groups) {
  Held held;
  // An insert chain goes through HBM as its last value, which carries the
  // chain's bytes (its earlier values carry none): a spilled value counts
  // its chain's bytes, once however many of its values spill.
  std::vector<int64_t> spilledChains;
  auto spill = [&](int64_t i) {
    int64_t last = chainEnd(problem, i);
    bool chain = problem.layers[last].partial;
    if (!chain || std::find(spilledChains.begin(), spilledChains.end(), last) ==
                      spilledChains.end()) {
      held.hbmBytes += double(problem.layers[last].hbmBytes);
      if (chain)
        spilledChains.push_back(last);
    }
    if (held.first < 0 || i < held.first)
      held.first = i;
  };
  struct Live {
    int64_t layer, bytes, packed;
    bool packedOnly; ///< Held packed: channel-major is above the limit.
  };
  std::vector<Live> live;
  int64_t total = 0;
  for (int64_t i = 0; i < end; ++i) {
    const BatchLayer &l = problem.layers[i];
    // Results whose last reader came before, and a chain's value that
    // this layer takes over (its next insert, a result as large), are no
    // longer held.
    for (size_t k = 0; k < live.size();) {
      const BatchLayer &h = problem.layers[live[k].layer];
      bool done = h.lastReader < i ||
                  (h.partial && h.lastReader == i && l.bytes >= h.bytes);
      if (done) {
        total -= live[k].bytes;
        live[k] = live.back();
        live.pop_back();
      } else {
        ++k;
      }
    }
    if ((l.view && !l.partial) || l.lastReader < i || l.bytes == 0)
      continue;
    auto [channelMajor, packed] =
        heldBytes(problem, l, l.lastReader >= end ? 1 : groups);
    if (packed < 0) {
      spill(i);
      continue;
    }
    live.push_back({i, channelMajor < 0 ? packed : channelMajor, packed,
                    channelMajor < 0});
    total += live.back().bytes;
    while (total > problem.liveCapacity) {
      // The plan keeps what it can channel-major and packs what it
      // declines so, when it can, in the room left (Residents.cpp): the
      // largest held channel-major that packs smaller is packed, else the
      // largest packed one goes to HBM, else the largest.
      auto largest = [&](auto take) {
        auto best = live.end();
        for (auto it = live.begin(); it != live.end(); ++it)
          if (take(*it) && (best == live.end() || it->bytes > best->bytes))
            best = it;
        return best;
      };
      auto it = largest(
          [](const Live &h) { return !h.packedOnly && h.packed < h.bytes; });
      if (it != live.end()) {
        total -= it->bytes - it->packed;
        it->bytes = it->packed;
        it->packedOnly = true;
        continue;
      }
      it = largest([](const Live &h) { return h.packedOnly; });
      if (it == live.end())
        it = largest([](const Live &) { return true; });
      total -= it->bytes;
      spill(it->layer);
      *it = live.back();
      live.pop_back();
    }
  }
  return held;
}

/// The fewest groups (a divisor of the batch > 1) in which holdResults
/// keeps every result of the prefix of `end` layers, or 0.
static int64_t fewestHoldingGroups(const BatchGroupProblem &problem,
                                   int64_t end) {
  for (int64_t g = 2; g <= problem.batch; ++g)
    if (problem.batch % g == 0 && holdResults(problem, end, g).first < 0)
      return g;
  return 0;
}

/// The traffic rule (BatchGroupProblem::trafficRatio) for the prefix of
/// `end` layers that the other rules declined: splits it when it applies,
/// with the batch unsplit as the driver's second candidate, else says why
/// not after their reason. Where the estimate spills at the whole batch and
/// some G holds everything, that G is the driver's second candidate unless
/// the rule takes it (BatchGroupSolution::alternative).
static void solveTraffic(const BatchGroupProblem &problem,
                         BatchGroupSolution &solution, int64_t end,
                         const Work &work) {
  if (!(problem.trafficRatio > 0) || problem.programBytes == 0)
    return;
  double budget = problem.trafficRatio * double(problem.programBytes);
  double program = double(problem.programBytes);
  Held held = holdResults(problem, end, 1);
  double whole = program + held.hbmBytes;
  int64_t holding =
      whole > budget ? fewestHoldingGroups(problem, end) : int64_t(0);
  solution.alternative = holding;
  if (!(work.pe >= problem.peBoundRatio * work.perEngine))
    return;
  double constants = 0;
  for (int64_t i = 0; i < end; ++i)
    constants += double(problem.layers[i].constantBytes);
  int64_t groups = holding;
  double split = program + double(groups - 1) * constants;
  if (whole <= budget || !groups || split > budget) {
    solution.why += absl::StrFormat(
        "; HBM traffic %.1f MB at the whole batch%s, the program's own %.1f "
        "MB",
        whole / 1e6,
        whole <= budget ? ""
        : groups
            ? absl::StrFormat(", %.1f MB in %d groups", split / 1e6, groups)
            : ", its results do not all stay in SBUF with 1 image",
        program / 1e6);
    return;
  }
  solution.why.clear();
  solution.layers = end;
  solution.groups = groups;
  solution.packed = solution.traffic = true;
  solution.peBound = false; // the time rule's flag, for its own groups
  // The split trades time for traffic, and how much time the estimate
  // cannot tell: its groups run one after another, each with a pipeline
  // to fill and drain (the text detector at batch 4 in f32, four groups of
  // one image: 2,874.6 us against 2,205.9 unsplit; the U-Nets at batch 8,
  // two groups of four: 0.7 to 7.7 % longer). The driver compiles the
  // batch unsplit too and keeps it where the split costs too much.
  solution.alternative = 1;
  solution.hbmNs = (whole - program) / problem.dmaBytesPerNs;
  solution.computeNs = computeNs(problem, work, groups);
}

/// How many times the PE-bound margin the time rule's saving may be and
/// still name the batch unsplit as the second candidate (solvePrefix).
constexpr double kCloseCall = 1.5;

/// Whether a window holds a result whose channels leave partitions free
/// (BatchLayer::packedBytes below its bytes): at the whole batch, in HBM,
/// its kernel may pack bands of rows beside one another; kept in SBUF in a
/// window, channel-major, it does not.
static bool windowsHoldFewChannels(const BatchGroupProblem &problem,
                                   const BatchGroupSolution &solution) {
  for (const BatchWindow &w : solution.windows)
    for (int64_t i = w.begin; i < w.end; ++i) {
      const BatchLayer &l = problem.layers[i];
      if (!l.view && l.packedBytes > 0 && l.packedBytes < l.bytes)
        return true;
    }
  return false;
}

/// The prefix's choice (solve's first part).
static void solvePrefix(const BatchGroupProblem &problem,
                        BatchGroupSolution &solution, int64_t forcedGroups) {
  int64_t n = problem.batch;
  // The prefix: up to the last layer of the first splittable run whose
  // result does not fit with the whole batch.
  int64_t run = 0;
  while (run < int64_t(problem.layers.size()) && problem.layers[run].splittable)
    ++run;
  int64_t end = 0;
  for (int64_t i = 0; i < run; ++i)
    if (problem.layers[i].bytes > problem.capacity)
      end = i + 1;
  if (end == 0) {
    solution.why = "every result fits with the whole batch";
    return;
  }
  // No result that does not fit may be read after the prefix: it ends at
  // the last reader of those results (which all come before `end`, so one
  // pass finds it), when that reader can run per group too.
  int64_t lastReader = -1;
  for (int64_t i = 0; i < end; ++i)
    if (problem.layers[i].bytes > problem.capacity)
      lastReader = std::max(lastReader, problem.layers[i].lastReader);
  end = std::max(end, lastReader + 1);
  // Nor a partial tensor in it (the groups must complete it): grows with
  // the end.
  for (int64_t i = 0; i < end && end <= run; ++i)
    if (problem.layers[i].partial)
      end = std::max(end, problem.layers[i].lastReader + 1);
  if (end > run) {
    solution.why = "a result that does not fit is read after the ops that "
                   "can run per group";
    return;
  }
  int64_t largest = 0;
  double hbmBytes = 0;
  for (int64_t i = 0; i < end; ++i) {
    const BatchLayer &l = problem.layers[i];
    largest = std::max(largest, l.bytes);
    if (l.bytes > problem.capacity)
      hbmBytes += double(l.hbmBytes);
  }
  int64_t groups = forcedGroups ? forcedGroups : groupsToFit(problem, largest);
  Work work = workOf(problem, 0, end);
  if (!groups || !fits(largest, n, groups, problem.capacity)) {
    if (forcedGroups && holdResults(problem, end, groups).first < 0) {
      solution.layers = end;
      solution.groups = groups;
      solution.packed = true;
      solution.computeNs = computeNs(problem, work, groups);
      return;
    }
    solution.why = absl::StrCat("a result does not fit with ",
                                n / (groups ? groups : n), " image(s)");
    if (forcedGroups == 0)
      solveTraffic(problem, solution, end, work);
    return;
  }
  solution.hbmNs = hbmBytes / problem.dmaBytesPerNs;
  solution.computeNs = computeNs(problem, work, groups);
  solution.peBound = work.pe >= problem.peBoundRatio * work.perEngine;
  double margin = solution.peBound ? problem.peBoundMargin : problem.margin;
  if (forcedGroups < 2 && !(solution.hbmNs > margin * solution.computeNs)) {
    solution.why = absl::StrFormat(
        "the HBM time it saves, %.1f us, is not %g times the %.1f us of "
        "compute of its %d ops (PE time %.1f times the vector time per "
        "engine%s)",
        solution.hbmNs / 1e3, margin, solution.computeNs / 1e3, end,
        work.perEngine > 0 ? work.pe / work.perEngine : 0.0,
        work.barriers ? absl::StrFormat("; %d global pooling(s) in %d groups",
                                        work.barriers, groups)
                      : std::string());
    solveTraffic(problem, solution, end, work);
    return;
  }
  solution.layers = end;
  solution.groups = groups;
  // A close call of the PE-bound margin, which takes a split that saves a
  // quarter of the compute: the estimate takes each layer's whole-batch
  // time split among the groups, but a PE-bound kernel's forms change with
  // its images (the text recogniser's first layers on trn3 at batch 8 in
  // f32, 90.5 us of HBM saved against the 80 the margin asks, ran 588.0 us
  // in eight groups of one image, 498.2 unsplit: its second convolution's
  // PE time 106 against 79 us). The batch unsplit is the second candidate
  // then.
  if (forcedGroups == 0 && solution.peBound &&
      solution.hbmNs < kCloseCall * margin * solution.computeNs)
    solution.alternative = 1;
}

/// The window that the large result of layer `first` needs (solve's
/// comment), or nullopt when it reaches a layer that cannot be split, a
/// partial tensor, a view in the prefix, or past the layers, or no G fits
/// it. With `escapes`, only `first`'s result and views hold their readers
/// in it (BatchWindow::escapes).
static std::optional<BatchWindow> windowAt(const BatchGroupProblem &problem,
                                           int64_t first, int64_t floor,
                                           bool escapes = false) {
  int64_t size = int64_t(problem.layers.size());
  BatchWindow w;
  w.begin = first;
  w.end = first + 1;
  w.seed = first;
  w.escapes = escapes;
  // Grows to a fixed point: each step only widens [begin, end).
  for (bool grew = true; grew;) {
    grew = false;
    for (int64_t i = w.begin; i < w.end; ++i) {
      const BatchLayer &l = problem.layers[i];
      bool held = l.view || (l.bytes > problem.windowCapacity &&
                             (!escapes || i == first));
      if (held) {
        if (l.lastReader >= size)
          return std::nullopt;
        if (l.lastReader + 1 > w.end) {
          w.end = l.lastReader + 1;
          grew = true;
        }
      }
    }
    // A view before the window that a layer in it reads (a convolution's
    // product, whose epilogue starts the window) joins it; one in the
    // prefix cannot.
    for (int64_t i = w.begin - 1; i >= 0; --i) {
      const BatchLayer &l = problem.layers[i];
      if (l.view && l.lastReader >= w.begin) {
        if (i < floor)
          return std::nullopt;
        w.begin = i;
        grew = true;
      }
    }
    // So does a view after it that reads a result in it through.
    for (int64_t i = w.end; i < size; ++i) {
      int64_t source = problem.layers[i].through;
      if (source >= w.begin && source < w.end) {
        w.end = i + 1;
        grew = true;
      }
    }
  }
  int64_t largest = 0;
  double hbmBytes = 0;
  for (int64_t i = w.begin; i < w.end; ++i) {
    const BatchLayer &l = problem.layers[i];
    if (!l.splittable || l.partial)
      return std::nullopt;
    if (escapesWindow(problem, w, i))
      continue;
    largest = std::max(largest, l.bytes);
    if (l.bytes > problem.windowCapacity)
      hbmBytes += double(l.hbmBytes);
  }
  w.groups = groupsToFit(problem, largest);
  if (!w.groups)
    return std::nullopt;
  w.hbmNs = hbmBytes / problem.dmaBytesPerNs;
  w.computeNs = computeNs(problem, workOf(problem, w.begin, w.end), w.groups);
  return w;
}

/// The windows (solve's comment). Each candidate's scans are linear in the
/// layers; the candidates are the results too large for the resident plan,
/// a few per network.
static void solveWindows(const BatchGroupProblem &problem,
                         BatchGroupSolution &solution) {
  std::vector<BatchWindow> candidates;
  int64_t floor = solution.layers;
  for (int64_t i = floor; i < int64_t(problem.layers.size()); ++i) {
    const BatchLayer &l = problem.layers[i];
    if (l.view || l.bytes <= problem.windowCapacity || !l.splittable)
      continue;
    std::optional<BatchWindow> w = windowAt(problem, i, floor);
    if (!w)
      w = windowAt(problem, i, floor, /*escapes=*/true);
    if (w)
      candidates.push_back(*w);
  }
  // Best ratio first (ties: the earlier window); each taken window keeps
  // the layers it covers from every other.
  std::sort(candidates.begin(), candidates.end(),
            [](const BatchWindow &a, const BatchWindow &b) {
              double x = a.hbmNs * b.computeNs, y = b.hbmNs * a.computeNs;
              return x != y ? x > y : a.begin < b.begin;
            });
  auto disjoint = [&](const BatchWindow &w) {
    return std::none_of(solution.windows.begin(), solution.windows.end(),
                        [&](const BatchWindow &t) {
                          return w.begin < t.end && t.begin < w.end;
                        });
  };
  std::vector<BatchWindow> declined;
  for (const BatchWindow &w : candidates) {
    if (!(w.hbmNs > problem.windowMargin * w.computeNs))
      declined.push_back(w);
    else if (disjoint(w))
      solution.windows.push_back(w);
  }
  // The traffic rule for windows (solve's comment): the results above
  // the limit per tensor even packed, which the resident plan leaves in
  // HBM.
  if (problem.trafficRatio > 0 && problem.programBytes > 0) {
    auto inHbm = [&](int64_t i) {
      const BatchLayer &l = problem.layers[i];
      return !l.view && packedBytesOf(l) > problem.windowCapacity;
    };
    auto covered = [&](int64_t i) {
      return i < floor ||
             std::any_of(solution.windows.begin(), solution.windows.end(),
                         [&](const BatchWindow &t) {
                           return i >= t.begin && i < t.end &&
                                  !escapesWindow(problem, t, i);
                         });
    };
    double traffic = double(problem.programBytes);
    for (int64_t i = 0; i < int64_t(problem.layers.size()); ++i)
      if (inHbm(i) && !covered(i))
        traffic += double(problem.layers[i].hbmBytes);
    double budget = problem.trafficRatio * double(problem.programBytes);
    for (BatchWindow &w : declined) {
      if (!(traffic > budget))
        break;
      double saved = 0;
      for (int64_t i = w.begin; i < w.end; ++i)
        saved += (inHbm(i) && !escapesWindow(problem, w, i)
                      ? double(problem.layers[i].hbmBytes)
                      : 0) -
                 double(w.groups - 1) * double(problem.layers[i].constantBytes);
      if (saved > 0 && disjoint(w)) {
        w.traffic = true;
        solution.windows.push_back(w);
        traffic -= saved;
      }
    }
  }
  std::sort(solution.windows.begin(), solution.windows.end(),
            [](const BatchWindow &a, const BatchWindow &b) {
              return a.begin < b.begin;
            });
}

BatchGroupProblem nki::chainProblem(const BatchGroupProblem &problem,
                                    int64_t images) {
  BatchGroupProblem chain = problem;
  chain.batch = images;
  chain.chainImages = 0;
  auto scale = [&](int64_t bytes) { return bytes * images / problem.batch; };
  double factor = double(images) / double(problem.batch);
  int64_t constants = 0;
  for (BatchLayer &l : chain.layers) {
    constants += l.constantBytes;
    l.bytes = scale(l.bytes);
    l.packedBytes = scale(l.packedBytes);
    l.hbmBytes = scale(l.hbmBytes);
    l.peNs *= factor;
    l.vectorNs *= factor;
  }
  chain.programBytes =
      std::min(constants, problem.programBytes) +
      scale(std::max<int64_t>(problem.programBytes - constants, 0));
  return chain;
}

/// One chain's choice for `k` chains: the problem at N / k images solved.
static absl::Status chainSolution(const BatchGroupProblem &problem, int64_t k,
                                  BatchGroupSolution &solution) {
  BatchGroupProblem chain = chainProblem(problem, problem.batch / k);
  if (absl::Status s = nki::solve(chain, solution); !s.ok())
    return s;
  solution.chains = k;
  // A chain's second candidate would be a split of each chain: none.
  solution.alternative = 0;
  return absl::OkStatus();
}

/// Chains (solve's comment) beside `solution`, the whole batch's choice:
/// named as the second candidate, or taking its place.
static absl::Status chooseChains(const BatchGroupProblem &problem,
                                 BatchGroupSolution &solution) {
  int64_t n = problem.batch;
  auto large = [&](const BatchLayer &l) { return l.bytes > problem.capacity; };
  if (problem.chainImages < 1 || n <= problem.chainImages ||
      std::none_of(problem.layers.begin(), problem.layers.end(), large) ||
      std::any_of(problem.layers.begin(), problem.layers.end(),
                  [](const BatchLayer &l) { return !l.splittable; }))
    return absl::OkStatus();
  int64_t k = 2;
  while (n % k || n / k > problem.chainImages)
    ++k;
  // A prefix in more than K groups that holds most of the network's
  // compute: chains of fewer images with nothing split within them.
  auto compute = [&](int64_t end) {
    Work w = workOf(problem, 0, end);
    return std::max(w.pe, w.perEngine);
  };
  if (solution.groups > k &&
      compute(solution.layers) > 0.5 * compute(int64_t(problem.layers.size())))
    return chainSolution(problem, k, solution);
  solution.alternativeChains = k;
  solution.alternative = 0;
  return absl::OkStatus();
}

absl::Status nki::solve(const BatchGroupProblem &problem,
                        BatchGroupSolution &solution, int64_t forcedGroups,
                        int64_t forcedChains) {
  if (absl::Status s = problem.check(); !s.ok())
    return s;
  solution = BatchGroupSolution();
  int64_t n = problem.batch;
  if (forcedChains > 1) {
    if (n % forcedChains)
      return absl::InvalidArgumentError(
          absl::StrCat(forcedChains, " chains do not divide the batch of ", n));
    for (const BatchLayer &l : problem.layers)
      if (!l.splittable)
        return absl::InvalidArgumentError(absl::StrCat(
            "chains: layer '", l.name, "' cannot run on part of the batch"));
    if (forcedGroups > 1)
      return absl::InvalidArgumentError(
          "chains and groups of the first layers both forced");
    return chainSolution(problem, forcedChains, solution);
  }
  if (forcedGroups > 1 && n % forcedGroups)
    return absl::InvalidArgumentError(
        absl::StrCat(forcedGroups, " groups do not divide the batch of ", n));
  if (forcedGroups == 1) {
    solution.why = "turned off";
    return absl::OkStatus();
  }
  if (n == 1) {
    solution.why = "a batch of one";
    return absl::OkStatus();
  }
  solvePrefix(problem, solution, forcedGroups);
  if (problem.windows && forcedGroups == 0)
    solveWindows(problem, solution);
  // Windows hold the large results the estimate spilled; the prefix in
  // groups would only add each group's fill and drain (MobileNetV2 and
  // EfficientNet-B0 under auto-cast at batch 8, all three targets: 0.7 to
  // 18 % slower), so not that second candidate. But where a window holds
  // a result of few channels its compute in groups may be more than the
  // estimate's: the batch unsplit is the second candidate then
  // (BatchGroupSolution::alternative).
  if (!solution.windows.empty() && solution.layers == 0)
    solution.alternative = windowsHoldFewChannels(problem, solution) ? 1 : 0;
  if (forcedGroups == 0 && forcedChains == 0)
    return chooseChains(problem, solution);
  return absl::OkStatus();
}

/// Layers [begin, end) can run in `groups` groups: each splittable, its
/// result fitting at batch / groups (`held`: all as the traffic rule holds
/// them, for a prefix whose groups run one after another).
static absl::Status checkSplit(const BatchGroupProblem &problem, int64_t begin,
                               int64_t end, int64_t groups, bool held = false,
                               const BatchWindow *window = nullptr) {
  auto doesNotFit = [&](int64_t i) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer '", problem.layers[i].name, "' does not fit at ",
                     problem.batch / groups, " images"));
  };
  for (int64_t i = begin; i < end; ++i) {
    const BatchLayer &l = problem.layers[i];
    if (!l.splittable)
      return absl::InvalidArgumentError(
          absl::StrCat("layer '", l.name, "' is split but cannot be"));
    if (!held && !(window && escapesWindow(problem, *window, i)) &&
        !fits(l.bytes, problem.batch, groups, problem.capacity))
      return doesNotFit(i);
  }
  if (held)
    if (int64_t first = holdResults(problem, end, groups).first; first >= 0)
      return doesNotFit(first);
  return absl::OkStatus();
}

absl::Status nki::verify(const BatchGroupProblem &problem,
                         const BatchGroupSolution &solution) {
  if (solution.chains < 1 || problem.batch % solution.chains)
    return absl::InvalidArgumentError(absl::StrCat(
        solution.chains, " chains do not divide the batch of ", problem.batch));
  if (solution.chains > 1) {
    for (const BatchLayer &l : problem.layers)
      if (!l.splittable)
        return absl::InvalidArgumentError(absl::StrCat(
            "layer '", l.name, "' runs in chains but cannot be split"));
    if (solution.alternative || solution.alternativeChains)
      return absl::InvalidArgumentError("chains with a second candidate");
    BatchGroupSolution chain = solution;
    chain.chains = 1;
    return verify(chainProblem(problem, problem.batch / solution.chains),
                  chain);
  }
  if (solution.groups < 1 || problem.batch % solution.groups)
    return absl::InvalidArgumentError(absl::StrCat(
        solution.groups, " groups do not divide the batch of ", problem.batch));
  if (solution.layers < 0 || solution.layers > int64_t(problem.layers.size()))
    return absl::InvalidArgumentError(absl::StrCat(
        solution.layers, " layers split of ", problem.layers.size()));
  if (solution.layers > 0 && solution.groups == 1)
    return absl::InvalidArgumentError("layers split into one group");
  if (solution.packed && solution.peBound)
    return absl::InvalidArgumentError(
        "a split packed to fit overlaps its groups");
  if (solution.alternativeChains &&
      (solution.alternativeChains < 2 ||
       problem.batch % solution.alternativeChains || solution.alternative ||
       std::any_of(problem.layers.begin(), problem.layers.end(),
                   [](const BatchLayer &l) { return !l.splittable; })))
    return absl::InvalidArgumentError(
        absl::StrCat("a second candidate of ", solution.alternativeChains,
                     " chains beside groups, not dividing the batch of ",
                     problem.batch, " or over a layer that cannot be split"));
  if (solution.alternative == 1 && solution.layers == 0 &&
      solution.windows.empty())
    return absl::InvalidArgumentError(
        "the batch unsplit as a second candidate with nothing split");
  if (solution.alternative > 1 &&
      (problem.batch % solution.alternative || solution.layers > 0 ||
       !solution.windows.empty()))
    return absl::InvalidArgumentError(
        absl::StrCat("a second candidate of ", solution.alternative,
                     " groups beside a split or windows, or not dividing the "
                     "batch of ",
                     problem.batch));
  if (solution.alternative < 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "a second candidate of ", solution.alternative, " groups"));
  if (absl::Status s = checkSplit(problem, 0, solution.layers, solution.groups,
                                  solution.packed);
      !s.ok())
    return s;
  for (int64_t i = 0; i < solution.layers; ++i)
    if (problem.layers[i].partial &&
        problem.layers[i].lastReader >= solution.layers)
      return absl::InvalidArgumentError(
          absl::StrCat("partial tensor '", problem.layers[i].name,
                       "' is completed after the layers split"));
  int64_t after = solution.layers;
  for (const BatchWindow &w : solution.windows) {
    if (w.begin < after || w.end <= w.begin ||
        w.end > int64_t(problem.layers.size()))
      return absl::InvalidArgumentError(
          absl::StrCat("window [", w.begin, ", ", w.end,
                       ") overlaps the split before it or is out of range"));
    if (w.groups < 2 || problem.batch % w.groups)
      return absl::InvalidArgumentError(
          absl::StrCat("window [", w.begin, ", ", w.end, ") has ", w.groups,
                       " groups for a batch of ", problem.batch));
    for (int64_t i = 0; i < w.begin; ++i)
      if (problem.layers[i].view && problem.layers[i].lastReader >= w.begin)
        return absl::InvalidArgumentError(absl::StrCat(
            "layer '", problem.layers[i].name, "' is read in the window [",
            w.begin, ", ", w.end, ") but is not in it"));
    if (absl::Status s =
            checkSplit(problem, w.begin, w.end, w.groups, false, &w);
        !s.ok())
      return s;
    for (int64_t i = w.begin; i < w.end; ++i) {
      const BatchLayer &l = problem.layers[i];
      if ((l.bytes > problem.windowCapacity || l.view) &&
          l.lastReader >= w.end && !escapesWindow(problem, w, i))
        return absl::InvalidArgumentError(
            absl::StrCat("layer '", l.name, "' is read after its window [",
                         w.begin, ", ", w.end, ")"));
    }
    for (int64_t i = w.end; i < int64_t(problem.layers.size()); ++i)
      if (problem.layers[i].through >= w.begin &&
          problem.layers[i].through < w.end)
        return absl::InvalidArgumentError(
            absl::StrCat("layer '", problem.layers[i].name,
                         "' reads a result of the window [", w.begin, ", ",
                         w.end, ") through but is not in it"));
    after = w.end;
  }
  return absl::OkStatus();
}
