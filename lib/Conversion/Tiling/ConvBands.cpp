//===- ConvBands.cpp - bands, stacked and folded rows ---------------------===//
//
// ConvKernel's choice of how its output rows meet the PE (ConvKernel.h):
// bands side by side on the partitions, input rows stacked or kernel rows
// and columns folded into the contraction, and bands of a stepped output.
//
//===----------------------------------------------------------------------===//

#include "ConvKernel.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

/// Few input channels: the kernel rows go on the partitions too.
bool tiling::convFoldsRows(const conv::ConvGeneric &g, int64_t partitions) {
  return conv::foldsKernelRows(g.c, g.kh, g.inputType.isF32(), partitions);
}

/// Bands of output rows side by side when a band's contraction takes
/// `parts` partitions: as many as those and the filters fit on the
/// partitions, dividing OH.
static int64_t mostBands(const conv::ConvGeneric &g, int64_t parts,
                         int64_t partitions) {
  int64_t limit = std::min(partitions / parts, partitions / g.f);
  while (limit > 1 && g.oh % limit)
    --limit;
  return std::max<int64_t>(limit, 1);
}

/// The numbers of stacked output rows a kernel may take (besides a fused
/// pooling's pairs, which would span two partition blocks, and a stepped
/// output): a stride-1 convolution's rows, a whole number of groups
/// unless `ragged` (a last group of fewer rows), with a plain filter; and
/// only when the PE multiplies fp32 (four cycles a column) or the input is
/// resident in SBUF. At one cycle a column, copies of rows loaded from HBM
/// contend with the other kernels' loads in ways chooseBands' model misses:
/// with such bf16 inputs stacked too, the U-Net at batch 8 (its 128 x 128
/// tensors in HBM) ran 594.9 -> 617.3 us; from resident inputs its batch-1
/// run went 102.5 -> 94.3 us.
static SmallVector<int64_t> stackCounts(const conv::ConvGeneric &g,
                                        bool diagonal, bool scale,
                                        const TileOptions &options,
                                        bool residentInput, bool ragged = false,
                                        int64_t windows = 1) {
  SmallVector<int64_t> counts;
  int64_t P = options.partitions;
  if (g.strideH != 1 || g.dilationH != 1 || g.kh == 1 || diagonal || scale ||
      !options.stackRows || !options.packBands ||
      !(g.inputType.isF32() || residentInput) || !options.rates.peClockMHz)
    return counts;
  // One window: KH + q - 1 input rows on the partitions. Two (the kernel's
  // stackWindows): q rows, when no stack of one window fits (with fewer
  // channels one window does as few matmuls, and copies fewer rows) and
  // the two hold the KH + q - 1 rows a group reads.
  for (int64_t q = 2; q * g.f <= P && q <= g.oh; ++q) {
    bool fits = windows == 1 ? g.c * (g.kh + q - 1) <= P
                             : g.c * q <= P && g.c * (g.kh + 1) > P &&
                                   windows * q >= g.kh + q - 1;
    if (fits && (ragged || g.oh % q == 0))
      counts.push_back(q);
  }
  return counts;
}

/// Whether a row of `g`'s input is shorter than a DMA descriptor's minimum,
/// which stacked rows' copies pay a row at a time.
static bool shortRows(const conv::ConvGeneric &g, const TileOptions &options) {
  return g.w * tile::storageBytes(g.inputType) <
         options.rates.dmaMinDescriptorBytes;
}

bool tiling::poolingCostsStackedRows(const conv::ConvGeneric &g, bool diagonal,
                                     bool scale, bool inputIsArgument,
                                     const TileOptions &options) {
  // With one image the pooling's own kernel is on the path to the next
  // layer: it pays when the convolution's PE time is what the stacked rows
  // cut (the U-Net's 128 x 128 level at batch 1, its input in SBUF: 7.3 us
  // faster), not when the convolution waits for its input from HBM (e2e
  // conv.test's 8-channel 128 x 128 program input: 10.2 us slower) or when
  // its rows are shorter than a DMA descriptor's minimum, which the stacked
  // rows' copies pay a row at a time (chooseBands then packs bands anyway).
  // With several images the pooling overlaps the next images' convolutions
  // (the U-Nets at batch 8: -110 us each).
  // Whether the input will be resident is not known yet: the fp32 rule.
  SmallVector<int64_t> counts =
      stackCounts(g, diagonal, scale, options, /*residentInput=*/false);
  if (counts.empty() ||
      (g.n == 1 && (inputIsArgument || shortRows(g, options))))
    return false;
  int64_t P = options.partitions;
  // Matmul columns per output pixel, stacked and with the pooling fused
  // (bands, kernel rows and columns folded, or an even number of stacked
  // rows: poolChunk pairs their blocks).
  double stacked = double(g.kw) / double(counts.back());
  double fused = double(g.kh * g.kw) / double(mostBands(g, g.c, P));
  for (int64_t q : counts)
    if (q % 2 == 0 && g.oh % 2 == 0)
      fused = std::min(fused, double(g.kw) / double(q));
  if (convFoldsRows(g, P) && !scale)
    for (int64_t cols = 1;
         cols <= (options.foldColumns && !diagonal ? g.kw : 1) &&
         g.c * g.kh * cols <= P;
         ++cols)
      fused = std::min(fused, double((g.kw + cols - 1) / cols) /
                                  double(mostBands(g, g.c * g.kh * cols, P)));
  return stacked < fused;
}

/// Packs bands when that makes the kernel faster by a simple model: PE
/// time (matmul columns: taps / bands per output pixel, x4 for fp32) plus
/// the PSUM evacuation's time (bands times fewer instructions) plus the
/// DMA time packing adds (a resident input copied into the band tile, a
/// resident output of one image or of a 1x1 kernel or a residual written
/// or read per band by DMA, rows of at least a descriptor's minimum). The
/// candidates: the kernel as decided so far, and with the kernel rows
/// folded or not as many bands as the contraction and the filters fit on
/// the partitions and as divide OH.
void ConvKernel::chooseBands() {
  const TileOptions::Rates &t = options.rates;
  // A channel scale (squeeze-and-excitation) scales each image's filter
  // before it is packed; the rows do not fold with it, nor does a diagonal
  // filter take it.
  if (cBlocks != 1 || fBlocks != 1 || !options.packBands || !t.peClockMHz ||
      (scale && diagonal))
    return;
  // A stepped output (a phase of a transposed convolution) is written in
  // place by the evacuating engines; bands would move it by DMA element by
  // element, so it keeps one band (kernel columns may still fold).
  bool oneBand = false;
  auto most = [&](int64_t parts) {
    return oneBand ? int64_t(1) : mostBands(g, parts, P());
  };
  const Residents *residents = options.residents;
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  std::optional<ResidentRef> outRef =
      residents ? residents->lookup(out) : std::nullopt;
  oneBand = scatter || steppedResult();
  // Tensors read or written per band by DMA once bands are packed, and
  // whether each one's rows continue one another (a resident tensor
  // without border columns, or a result staged with them, evacuate's
  // stageRows: a chunk of whole rows is one run a partition).
  int64_t perBand = 0;
  bool rowsContinue = !oneBand;
  auto countPerBand = [&](const ResidentRef &r, bool staged = false) {
    ++perBand;
    rowsContinue &=
        staged || (r.tensor->left == 0 && r.tensor->right == 0 && r.w == 0);
  };
  // With several images and several taps a resident output's blocks move
  // by DMA within SBUF while the next image's matmuls run, so they are not
  // charged (the U-Net at batch 8 under auto-cast then packs its 32- and
  // 64-channel 3x3 layers with resident results: 576.4 -> 563.6 us, in
  // f32 1,413.5 -> 1,393.1). A 1x1 layer's matmuls are too short to hide
  // them (ResNet-50's first 1x1 layer at batch 8 under auto-cast, packed,
  // waited on them: 1,278.3 -> 1,300.7 us), and with one image the layer
  // waits on them.
  if (outRef && (g.n == 1 || g.kh * g.kw == 1))
    countPerBand(*outRef, stagesRowsInto(*outRef, g.ow));
  if (epilogue)
    for (Value v : epilogue.getDpsInputs())
      if (v != y.buffer && llvm::isa<MemRefType>(v.getType()) &&
          cast<MemRefType>(v.getType()).getShape() ==
              cast<MemRefType>(out.getType()).getShape())
        if (std::optional<ResidentRef> r =
                residents ? residents->lookup(v) : std::nullopt)
          countPerBand(*r);
  int64_t inBytes = tile::storageBytes(g.inputType);
  int64_t outBytes = tile::storageBytes(elt);
  int64_t pixels = g.n * g.oh * g.ow;
  // In two windows a partition group's rows are consecutive input rows:
  // one run a partition from a resident input whose rows are stored with
  // the padding's border (emitBand's fullRows), or from HBM without
  // padding or with the zero padding the band then leaves out (trimmed);
  // else a descriptor a row.
  bool groupRunsContinue = input.resident ? takesWholeRows(*input.resident)
                                          : !pad || pad->value == 0.0;
  double peCycleNs = 1000.0 / double(t.peClockMHz) *
                     double(g.inputType.isF32() ? t.peFp32Factor : 1);
  double dmaNsPerByte = 1.0 / double(t.dmaQueues * t.dmaBytesPerNs);
  struct Choice {
    bool fold;
    int64_t cols, bands, stack = 1, windows = 1, rows = 0;
  };
  auto cost = [&](Choice c) {
    int64_t taps =
        c.fold ? c.windows * ((g.kw + c.cols - 1) / c.cols) : g.kh * g.kw;
    // Stacked, a last group of fewer rows costs a whole group.
    int64_t groups = (g.oh + c.stack - 1) / c.stack;
    double columns = c.stack > 1 ? double(taps) * double(g.n * g.ow * groups)
                                 : double(taps) * pixels / c.bands;
    // The upsampled phases' matmuls: per group a window, column phase and
    // kernel column each, over the group's columns of one column phase.
    if (phases && c.stack > 1) {
      int64_t kws = 0;
      for (int64_t px = 0; px < phases->fw; ++px)
        kws += phases->kwOf(px);
      columns +=
          double(phaseWindows(*phases, c.stack, P() / phases->c).size() * kws) *
          double(g.n * groups * (g.ow / phases->fw));
    }
    double dma = 0;
    // (In two windows each partition group loads every row from its own
    // on, in one run a partition.)
    int64_t rowsLoaded = c.rows ? c.rows * (g.oh + (c.windows - 1) * c.rows)
                         : c.windows > 1 ? c.stack * (g.oh + 1)
                         : c.stack > 1   ? (g.kh + c.stack - 1) * groups
                         : c.fold        ? g.kh * g.oh
                                  : inRows(g.oh) + (c.bands - 1) * (g.kh - 1);
    // Stacked rows are copied a row at a time (every stack-th row of the
    // input for each partition group): a DMA descriptor each, paid at
    // least its minimum (a 10-pixel row of an 8x upsample's phase is 40
    // bytes).
    double rowBytes = double(input.width * inBytes);
    if ((c.stack > 1 || c.rows) && !(c.windows > 1 && groupRunsContinue))
      rowBytes = std::max<double>(rowBytes, t.dmaMinDescriptorBytes);
    double inputBytes = double(g.n * g.c) * rowBytes * double(rowsLoaded);
    // A resident input is copied into packed band tiles; every shifted
    // copy of folded columns is one more load of the folded rows, counted
    // one and a half times: those loads contend with the next kernels' on
    // the queues (a U-Net's 3-channel 3x3 stem saved 3.6 us of PE time for
    // 1.2 MB of copies and the net ran 7.6 us slower; ResNet-50's stem
    // saves 44 us for 8.7 MB and the net runs 43 us faster).
    double shifted = 1.5 * double(c.cols - 1);
    if (input.resident && (c.fold || c.bands > 1))
      dma += inputBytes * (1 + shifted);
    else
      dma += inputBytes * shifted;
    if (c.bands > 1 || c.stack > 1) {
      // A DMA descriptor per row, or, with several images, per chunk of
      // whole rows when those rows continue one another (packed bands;
      // stacked rows step over the other blocks' rows). With one image the
      // row's charge stays: the layer then waits on these transfers, and on
      // its first chunk needing every band's rows, which this model does
      // not count (charged by their runs, MobileNetV2 and unet_convt at
      // batch 1 under auto-cast packed four more layers each and ran 8 %
      // slower); with several, one image's transfers overlap the next
      // image's matmuls.
      int64_t run = g.ow * outBytes;
      if (c.stack == 1 && rowsContinue && g.n > 1)
        run *=
            std::clamp<int64_t>(options.bankColumns / g.ow, 1, g.oh / c.bands);
      dma += double(perBand * g.n * g.f * g.oh * g.ow * outBytes) *
             double(std::max(run, t.dmaMinDescriptorBytes)) / double(run);
    }
    // The PSUM evacuation, a pass a bank shared by the ACT and the DVE: an
    // instruction reads every partition of a bank at once, so bands or
    // stacked rows side by side take that many times fewer (a last group
    // of fewer stacked rows a whole group).
    double evacNs = 0;
    if (t.actClockMHz && t.dveClockMHz && options.bankColumns) {
      double banks = (c.stack > 1 ? double(g.n * g.ow * groups)
                                  : double(pixels) / double(c.bands)) /
                     double(options.bankColumns);
      double act = vectorNs(options.bankColumns, t.actClockMHz);
      double dve = vectorNs(options.bankColumns, t.dveClockMHz);
      evacNs = banks * act * dve / (act + dve);
    }
    return columns * peCycleNs + dma * dmaNsPerByte + evacNs;
  };
  Choice best{foldRows, 1, 1};
  SmallVector<Choice> candidates = {Choice{false, 1, most(g.c)}};
  // Kernel columns fold with the rows of a dense filter only (a depthwise
  // block's diagonal is built in the rows-folded layout), when the PE
  // multiplies fp32 or the input comes from HBM: at one cycle a column,
  // shifted copies of a resident input (DMAs within SBUF on top of the
  // kernel's loads) cost more than the matmuls saved (the U-Net under
  // auto-cast at batch 8 ran 594.9 -> 613.0 us folding its 16-channel
  // 64 x 64 layer), where the loads of an input in HBM just become shifted
  // ones (ResNet-50's 7 x 7 stem under auto-cast: 246.5 -> 241.6 us at
  // batch 1, 1,337.2 -> 1,278.3 at batch 8).
  // A last group of fewer columns multiplies the shifted copies' unloaded
  // columns, set to the padding value, by zero: that value must be finite.
  bool finitePad = !pad || std::isfinite(pad->value);
  int64_t maxCols = diagonal || (!g.inputType.isF32() && input.resident) ||
                            !options.foldColumns || !finitePad
                        ? 1
                        : g.kw;
  for (int64_t cols = 1; cols <= maxCols; ++cols)
    if (g.c * g.kh * cols <= P())
      candidates.push_back(Choice{true, cols, most(g.c * g.kh * cols)});
  // Stacked output rows (stackCounts), not with a stepped output; with a
  // last group of fewer rows unless the kernel sums its result for a global
  // pooling (the sums would count the missing rows). With a fused 2x2
  // pooling an even number of them (poolChunk pairs their blocks; an
  // even OH leaves an even last group), whose pairs move by DMA once more
  // per chunk: not for one image whose input the kernel loads from HBM
  // (a function argument) in rows shorter than a descriptor's minimum, each
  // partition group's rows one long DMA before the first matmul (a
  // 16-channel 64 x 64 f32 layer and its pooling ran 26.4 -> 28.3 us
  // stacked, a 32 x 32 one 17.5 -> 24.9; the U-Net's 64 x 64 layers, their
  // input in SBUF, ran faster).
  bool ragged = !globalPool;
  bool loadsShortRows =
      g.n == 1 && shortRows(g, options) &&
      llvm::isa<BlockArgument>(viewRoot(pad ? pad->source : x.buffer));
  if (!oneBand &&
      (!pool || (pool->window == 2 && g.oh % 2 == 0 && !loadsShortRows)))
    for (int64_t q : stackCounts(g, bool(diagonal), scale, options,
                                 input.resident.has_value(), ragged))
      if (!pool || q % 2 == 0)
        candidates.push_back(Choice{true, 1, 1, q});
  // Stacked rows in two windows where the filter of one is too tall
  // (stackWindows): a whole number of groups, each group's rows at least
  // the kernel's less one (two windows then hold every row it reads). With
  // one image in flight the layer waits on the copies into the stacked
  // tile (from SBUF too: the layout is not one the input's writer keeps),
  // so there they must save more than a DMA's latency (below: a 33-channel
  // 10 x 12 layer from HBM, 120 pixels, saves a few evacuations and ran
  // 9.4 -> 13.0 us stacked so; the U-Net's 64-channel 32 x 32 layers at
  // batch 1 in fp32 save 2.6 us of PE each). At one PE cycle a column
  // (bf16 inputs) only where the result's blocks of interleaved rows need
  // no DMA, which would move them a descriptor a row: a fused 2x2 pooling
  // first takes each group's pair of rows into one block (the U-Net at
  // batch 8 under auto-cast ran 398.5 -> 390.6 us stacking its pooled
  // 64-channel layer so), or the result stays in SBUF (unpacked) and each
  // block may be copied by an engine from its partitions to the result's
  // (evacuate; by DMA, the U-Net's unpooled 64-channel 32 x 32 layer, its
  // rows of 64 bytes each a descriptor into busy queues, made it run
  // 405.7 us).
  auto enginesMoveBlocks = [&](int64_t q) {
    if (!outRef || outRef->tensor->packed)
      return false;
    for (int64_t j = 0; j < q; ++j)
      if (!engineMovesBlock(*outRef, j, 0, g.f))
        return false;
    return true;
  };
  if (!oneBand && !phases && (!pool || pool->window == 2))
    for (int64_t q : stackCounts(g, bool(diagonal), scale, options,
                                 input.resident.has_value(), false,
                                 /*windows=*/2))
      if ((!pool || q % 2 == 0) &&
          (g.inputType.isF32() || pool || enginesMoveBlocks(q)))
        candidates.push_back(Choice{true, 1, 1, q, 2});
  // With the upsampled phases (PhasePartner.h), stacked rows of their row
  // factor only, from any input: the stack they no longer write to HBM
  // and read back outweighs the copies of the rows. In two windows too,
  // where one would not fit, from an input in SBUF: a stack of more rows
  // fills the phases' windows of x rows (the U-Net's 96-channel 64 x 64
  // decoder layer, 32 skip channels and 64 upsampled ones: with 2 rows,
  // its two windows of two x rows held three rows' taps, the stationary 64
  // of 128 columns; with 4, the skip's rows in two windows, the phases'
  // matmuls a pixel halve). Each partition group of a two-window
  // tile loads every row from its own on: from HBM, twice the bytes of a
  // one-window stack of two, and a layer that waits on its loads (that
  // decoder alone at batch 8, its skip a function input: e2e
  // upsampled-conv.test's `windows_hbm`) ran 121.6 -> 132.0 us so. Nor when
  // the input could be kept in this kernel's packed tile instead
  // (analyzeConvPacking: its writer's rows go there once, which a
  // two-window layout does not allow): with the skip computed by a 1x1
  // convolution that only this kernel reads (`windows_packed`), packed for
  // one window of two rows, it runs 103.3 us, copied from a channel-major
  // tile into two windows 130.0.
  // Kernel rows folded in windows (windowRows) where the rows of C
  // channels do not fit together, as many rows a window as fit (>= 2):
  // - one output row a group where a stack of two rows would not leave the
  //   filters room (F > P / 2; with fewer, two windows of two stacked rows
  //   take as many matmuls and evacuate half as often), from an input in
  //   SBUF or at fp32, as stacked rows;
  // - with few filters, q stacked output rows of F over ceil((KH + q - 1) /
  //   rows) windows (64 channels, 16 filters, 3x3: 8 rows in 5 windows, 15
  //   matmuls where two rows in two windows took 6 for 2; two windows of
  //   stacked rows, above, are rows == q). Unlike those, also from bf16 in
  //   HBM (each group loads its rows in one run a partition) and with
  //   result blocks an engine may not move (they leave by DMA a row at a
  //   time): the DB detector under auto-cast, its 64 -> 16 3x3s stacking 8
  //   rows, ran 417.2 -> 409.0 us at batch 1.
  int64_t rows = P() / g.c; // >= 1: one channel block
  if (!oneBand && !phases && !diagonal && !scale && options.stackRows &&
      options.packBands && g.strideH == 1 && g.dilationH == 1 &&
      g.c * g.kh > P() && rows >= 2) {
    if (2 * g.f > P() && (g.inputType.isF32() || input.resident.has_value()))
      candidates.push_back(
          Choice{true, 1, 1, 1, (g.kh + rows - 1) / rows, rows});
    for (int64_t q = 2; q * g.f <= P() && q <= g.oh; ++q) {
      int64_t w = (g.kh + q - 1 + rows - 1) / rows;
      if (q != rows && g.oh % q == 0 && !(pool && q % 2))
        candidates.push_back(Choice{true, 1, 1, q, w, rows});
    }
  }
  if (phases) {
    candidates.clear();
    for (int64_t q : phaseStackCounts(*phases, g, P()))
      candidates.push_back(Choice{true, 1, 1, q});
    if (candidates.empty() || oneBand)
      return;
    best = candidates.front();
    if (input.resident && !forPacking)
      for (int64_t q : phaseStackCounts(*phases, g, P(), /*windows=*/2))
        candidates.push_back(Choice{true, 1, 1, q, 2});
  }
  double windowLatency =
      oneImageInFlight() ? double(t.dmaLatencyNs) : 0.0; // (above)
  for (Choice c : candidates)
    if ((!c.fold || c.stack > 1 || c.rows ||
         (convFoldsRows(g, P()) && !scale)) &&
        cost(c) + (c.windows > 1 ? windowLatency : 0.0) < cost(best))
      best = c;
  foldRows = best.fold;
  foldCols = best.fold ? best.cols : 1;
  bands = best.bands;
  stack = best.stack;
  stackWindows = best.windows;
  windowRows = best.rows;
}

bool ConvKernel::steppedResult() {
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  std::optional<ResidentRef> outRef =
      options.residents ? options.residents->lookup(out) : std::nullopt;
  SmallVector<int64_t> outStrides;
  int64_t outOffset;
  return (outRef && (outRef->rowStep != 1 || outRef->colStep != 1)) ||
         failed(getStaticLayout(cast<MemRefType>(out.getType()), outStrides,
                                outOffset)) ||
         outStrides[3] != 1;
}

void ConvKernel::chooseOutBands() {
  const TileOptions::Rates &t = options.rates;
  if (g.kh != 1 || g.kw != 1 || g.strideH != 1 || g.strideW != 1 || pad ||
      diagonal || pool || globalPool || chained || scatter || steppedResult() ||
      fBlocks != 1 || g.n == 1 || !options.packBands || !t.peClockMHz ||
      !t.actClockMHz || !t.dveClockMHz || !options.bankColumns)
    return;
  // At most eight bands of at least 16 filters: each band's matmul of a
  // chunk loads its own stationary operand, and its DMAs of each operand
  // go per band (a U-Net's 16 -> 2 head in 64 bands ran 3.7 times slower).
  int64_t most = std::min<int64_t>(P() / g.f, 8);
  while (most > 1 && g.oh % most)
    --most;
  if (most < 3 || g.f < 16)
    return;
  // Every resident pixel-by-pixel tensor the evacuation reads or writes (the
  // result, a residual) then moves a band at a time by DMA, in runs of a
  // chunk's whole rows, where it was read or written in place (one in HBM
  // moves by DMA either way); the evacuation's passes take a `most`-th of
  // the instructions.
  Value out = epilogue ? epilogue.getDpsInits()[0] : y.buffer;
  auto shape = cast<MemRefType>(out.getType()).getShape();
  int64_t moved = 0, bytes = 1;
  auto count = [&](Value v) {
    std::optional<ResidentRef> r =
        options.residents ? options.residents->lookup(v) : std::nullopt;
    if (!r)
      return;
    ++moved;
    bytes = std::max<int64_t>(
        bytes,
        tile::storageBytes(cast<MemRefType>(v.getType()).getElementType()));
  };
  count(out);
  if (epilogue)
    for (Value v : epilogue.getDpsInputs())
      if (v != y.buffer && llvm::isa<MemRefType>(v.getType()) &&
          cast<MemRefType>(v.getType()).getShape() == shape)
        count(v);
  int64_t pixels = g.n * g.oh * g.ow;
  int64_t run = g.ow * bytes *
                std::clamp<int64_t>(options.bankColumns / g.ow, 1, g.oh / most);
  double dmaNs = double(moved * pixels * g.f * bytes) *
                 double(std::max(run, t.dmaMinDescriptorBytes)) / double(run) /
                 double(t.dmaQueues * t.dmaBytesPerNs);
  double banks = double(pixels) / double(options.bankColumns);
  double pass = vectorNs(options.bankColumns, t.actClockMHz) +
                vectorNs(options.bankColumns, t.dveClockMHz);
  double savedNs = banks * pass * (1.0 - 1.0 / double(most));
  double loadsNs = banks * double((most - 1) * cBlocks) *
                   double(t.peLoadStationaryCycles) * 1000.0 /
                   double(t.peClockMHz);
  if (savedNs <= dmaNs + loadsNs)
    return;
  outBands = true;
  bands = most;
}
