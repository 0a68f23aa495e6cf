//===- Upsample.cpp - Integer-factor upsampling on chip -------------------===//
//
// out[n, c, h, w] = in[n, c, h / fh, w / fw] (the ONNX importer's nearest
// Resize by integer factors) with the channels on the partitions: each
// band of input rows is copied fh x fw times into the output rows and
// columns of one phase (i, j), the rows h * fh + i and columns w * fw + j,
// as strided views. An input or output kept in SBUF (Residents.h) is read
// or written in place; otherwise bands are loaded and output rows stored
// by DMA. The copies go to whichever of DVE, POOL and ACT is free.
//
// The same kernel interleaves phases (nki-interleave-phases): phase (i, j)
// of the output comes from its own tensor, in[i * fw + j], so the output
// rows leave in whole-row DMAs instead of an element at a time.
//
//   for image n (a group of them when both sides are in HBM and the
//   channels few), block of 128 channels, band of input rows (a group of
//   bands side by side when the images' channels still leave partitions
//   free):
//     band = view of the resident input, or a DMA (per phase: interleave)
//     for phase (i, j): copy band into the output's phase (i, j) view
//     (the output band's tile stored by DMA when it is in HBM)
//
//===----------------------------------------------------------------------===//

#include "../Graph/InterleavePhases.h"
#include "Kernels.h"
#include "Residents.h"
#include "TileUtils.h"
#include "WindowInput.h"

#include <algorithm>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

namespace {
// Output rows of a band tile stored to HBM: at most this many bytes per
// partition.
constexpr int64_t kOutputBandBytes = 16 * 1024;
// Input elements per partition of a band.
constexpr int64_t kBandElements = 256;

/// The factor `e` divides its dim by: 1 for the dim itself, f for
/// `dim floordiv f`, nothing otherwise.
std::optional<int64_t> factorOf(AffineExpr e, unsigned dim) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() == dim ? std::optional<int64_t>(1) : std::nullopt;
  auto div = dyn_cast<AffineBinaryOpExpr>(e);
  if (!div || div.getKind() != AffineExprKind::FloorDiv)
    return std::nullopt;
  auto d = dyn_cast<AffineDimExpr>(div.getLHS());
  auto f = dyn_cast<AffineConstantExpr>(div.getRHS());
  if (!d || d.getPosition() != dim || !f || f.getValue() < 1)
    return std::nullopt;
  return f.getValue();
}

/// Copies `band` [P, rows, W] into every phase of `out` [P, rows * fh, W *
/// fw] in one instruction, the band read with a stride of 0 across the
/// phases (four free dims: rows, fh, W, fw); false for views of another
/// rank.
bool copyToAllPhases(OpBuilder &b, Location loc, Value band, Value out,
                     int64_t fh, int64_t fw) {
  auto bandType = cast<MemRefType>(band.getType());
  auto outType = cast<MemRefType>(out.getType());
  if (bandType.getRank() != 3 || outType.getRank() != 3)
    return false;
  auto [from, fromOffset] = bandType.getStridesAndOffset();
  auto [to, toOffset] = outType.getStridesAndOffset();
  ArrayRef<int64_t> s = bandType.getShape();
  SmallVector<int64_t> sizes = {s[0], s[1], fh, s[2], fw};
  tile::CopyOp::create(
      b, loc,
      stridedView(b, loc, band, sizes, {from[0], from[1], 0, from[2], 0},
                  fromOffset),
      stridedView(b, loc, out, sizes,
                  {to[0], to[1] * fh, to[1], to[2] * fw, to[2]}, toOffset));
  return true;
}
} // namespace

std::optional<Upsample> tiling::matchUpsample(linalg::GenericOp op) {
  if (op.getNumLoops() != 4 || op.getNumParallelLoops() != 4 ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return std::nullopt;
  Value in = op.getDpsInputs()[0], out = op.getDpsInits()[0];
  auto inType = dyn_cast<MemRefType>(in.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!inType || !outType || !inType.hasStaticShape() ||
      !outType.hasStaticShape() ||
      inType.getElementType() != outType.getElementType())
    return std::nullopt;
  AffineMap inMap = op.getIndexingMapsArray()[0];
  // An interleave's input has the phases as its leading dim.
  unsigned lead = inType.getRank() == 5 ? 1 : 0;
  if (!op.getIndexingMapsArray()[1].isIdentity() ||
      inType.getRank() != 4 + lead || inMap.getNumResults() != 4 + lead)
    return std::nullopt;
  Upsample u;
  u.in = in;
  u.out = out;
  u.interleave = lead == 1;
  SmallVector<int64_t> f;
  for (unsigned d = 0; d < 4; ++d) {
    std::optional<int64_t> fd = factorOf(inMap.getResult(d + lead), d);
    if (!fd || (d < 2 && *fd != 1) ||
        inType.getDimSize(d + lead) * *fd != outType.getDimSize(d))
      return std::nullopt;
    f.push_back(*fd);
  }
  u.fh = f[2];
  u.fw = f[3];
  if (u.interleave && (inType.getDimSize(0) != u.fh * u.fw ||
                       inMap.getResult(0) !=
                           nki::interleavedPhase(op.getContext(), u.fh, u.fw)))
    return std::nullopt;
  // The body copies; a plain copy (both factors 1) is not an upsample.
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getOperand(0) != body.getArgument(0) || (u.fh == 1 && u.fw == 1))
    return std::nullopt;
  return u;
}

LogicalResult tiling::tileUpsample(OpBuilder &b, linalg::GenericOp op,
                                   const Upsample &u,
                                   const TileOptions &options) {
  Location loc = op.getLoc();
  auto inType = cast<MemRefType>(u.in.getType());
  ArrayRef<int64_t> s = inType.getShape().take_back(4);
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  int64_t OW = W * u.fw;
  Type elt = inType.getElementType();
  const Residents *residents = options.residents;
  // The source of each phase: the input itself, or (interleave) its own
  // slice of the stacked phases, which always is in HBM.
  SmallVector<WindowInput> inputs(u.interleave ? u.fh * u.fw : 1);
  if (!u.interleave) {
    if (failed(inputs[0].init(op, u.in, nullptr, W, residents)))
      return failure();
  } else {
    FailureOr<HbmLayout> stacked = hbmLayoutOf(op, u.in);
    if (failed(stacked))
      return failure();
    for (auto [p, input] : llvm::enumerate(inputs)) {
      input.width = W;
      input.padded.buffer = stacked->buffer;
      input.padded.offset = stacked->offset + int64_t(p) * stacked->strides[0];
      input.padded.strides.assign(stacked->strides.begin() + 1,
                                  stacked->strides.end());
      if (input.padded.strides[3] != 1 || input.padded.strides[2] != W)
        return op->emitOpError("interleaved phases must be row-major");
    }
  }
  std::optional<ResidentRef> outRes =
      residents ? residents->lookup(u.out) : std::nullopt;
  FailureOr<HbmLayout> y = hbmLayoutOf(op, u.out);
  if (failed(y))
    return failure();
  if (!outRes && y->strides[3] != 1)
    return op->emitOpError("upsample output rows must be contiguous");
  int64_t bytes = tile::storageBytes(elt);
  // Bands of input rows of at most kBandElements (copies small enough to
  // spread over the engines and to follow the producer's rows closely: a
  // band's fh x fw copies write interleaved views of the same rows, which
  // dependences order one after another), and an output band tile within
  // kOutputBandBytes when the output is in HBM. Interleaved phases come
  // from HBM, written by kernels before this one: longer copies, fewer
  // instructions.
  int64_t bandRows =
      (u.interleave ? options.freeChunk
                    : std::min(options.freeChunk, kBandElements)) /
      W;
  if (!outRes)
    bandRows = std::min(bandRows, kOutputBandBytes / (u.fh * u.fw * W * bytes));
  bandRows = std::clamp<int64_t>(bandRows, 1, H);
  int64_t P = options.partitions;
  // With both sides in HBM, images share the partitions when the channels
  // are few (image g of a group on partitions [g * C, (g + 1) * C)), so
  // that each copy covers all of them.
  bool inHbm = !outRes && llvm::none_of(inputs, [](const WindowInput &in) {
    return in.resident.has_value();
  });
  int64_t group = inHbm && C <= P ? P / C : 1;
  for (int64_t n0 = 0; n0 < N; n0 += group)
    for (int64_t c0 = 0; c0 < C; c0 += P) {
      int64_t cs = std::min(P, C - c0);
      int64_t images = std::min(group, N - n0);
      int64_t parts = images * cs;
      // Still few partitions (one channel of one image: a segmentation
      // map): bands of rows side by side too, band k of a group on
      // partitions [k * parts, (k + 1) * parts), as many as fill them, but
      // none below kBandElements a partition (a small tensor's copies cost
      // their fixed overhead whatever their partitions, and each band is
      // more DMAs).
      int64_t blocks = inHbm ? std::max<int64_t>(1, P / parts) : 1;
      int64_t rows = bandRows;
      if (blocks > 1)
        rows = std::min(rows, std::max((H + blocks - 1) / blocks,
                                       (kBandElements + W - 1) / W));
      SmallVector<int64_t> starts;
      for (int64_t r0 = 0; r0 < H; r0 += rows)
        starts.push_back(r0);
      for (size_t first = 0; first < starts.size();) {
        // Bands of one height go together (a shorter last band alone).
        int64_t rc = std::min(rows, H - starts[first]);
        size_t last = first + 1;
        while (last < starts.size() && int64_t(last - first) < blocks &&
               std::min(rows, H - starts[last]) == rc)
          ++last;
        ArrayRef<int64_t> side =
            ArrayRef<int64_t>(starts).slice(first, last - first);
        first = last;
        int64_t all = int64_t(side.size()) * parts;
        // A resident input is read in its own type (copies commute with
        // the rounding of a narrower one; each copy converts as it stores).
        auto bandOf = [&](const WindowInput &input) -> Value {
          if (input.resident)
            return input.residentRows(b, loc, n0, c0, cs, side.front(), rc, 1);
          Value t = allocTile(b, loc, {all, rc, W}, elt);
          for (auto [k, r0] : llvm::enumerate(side))
            for (int64_t g = 0; g < images; ++g)
              input.loadBand(b, loc, n0 + g, c0, cs, r0, rc, t,
                             (int64_t(k) * images + g) * cs);
          return t;
        };
        Value band = u.interleave ? Value() : bandOf(inputs[0]);
        Value outBand =
            outRes ? Value() : allocTile(b, loc, {all, rc * u.fh, OW}, elt);
        // A band smaller than a copy's fixed cost (DeepLabV3's pooled 1 x 1
        // map resized to the feature map's 28 x 28: 784 copies of one
        // element a partition, 51.6 us on the ACT) goes to all phases in one
        // copy.
        bool copied =
            !u.interleave && rc * W < options.rates.fixedOverheadCycles &&
            copyToAllPhases(b, loc, band,
                            outRes ? residents->view(b, loc, *outRes, n0, c0,
                                                     cs, side.front() * u.fh,
                                                     rc * u.fh, 1, 0, OW, 1)
                                   : windowOf(b, loc, outBand, all, 0,
                                              rc * u.fh, 1, 0, OW, 1),
                            u.fh, u.fw);
        if (!copied)
          for (int64_t i = 0; i < u.fh; ++i)
            for (int64_t j = 0; j < u.fw; ++j) {
              Value dst = outRes ? residents->view(b, loc, *outRes, n0, c0, cs,
                                                   side.front() * u.fh + i, rc,
                                                   u.fh, j, W, u.fw)
                                 : windowOf(b, loc, outBand, all, i, rc, u.fh,
                                            j, W, u.fw);
              tile::CopyOp::create(
                  b, loc, u.interleave ? bandOf(inputs[i * u.fw + j]) : band,
                  dst);
            }
        if (outRes)
          continue;
        // Stored in a few DMAs per band and image: one spreads over at most
        // four queues.
        int64_t outRows = rc * u.fh;
        int64_t pieces = loadPieces(outRows * OW * bytes);
        int64_t step = (outRows + pieces - 1) / pieces;
        for (auto [k, r0] : llvm::enumerate(side))
          for (int64_t g = 0; g < images; ++g)
            for (int64_t r = 0; r < outRows; r += step) {
              int64_t m = std::min(step, outRows - r);
              int64_t offset = y->offset + (n0 + g) * y->strides[0] +
                               c0 * y->strides[1] +
                               (r0 * u.fh + r) * y->strides[2];
              Value dstRows =
                  hbmView(b, loc, y->buffer, indexConst(b, loc, offset),
                          {cs, m, OW}, {y->strides[1], y->strides[2], 1});
              tile::DmaOp::create(b, loc,
                                  windowOf(b, loc, outBand, cs, r, m, 1, 0, OW,
                                           1, (int64_t(k) * images + g) * cs),
                                  dstRows);
            }
      }
    }
  return success();
}
