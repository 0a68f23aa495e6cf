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
//   for image n, block of 128 channels, band of input rows:
//     band = view of the resident input, or a DMA
//     for phase (i, j): copy band into the output's phase (i, j) view
//     (the output band's tile stored by DMA when it is in HBM)
//
//===----------------------------------------------------------------------===//

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
  if (!op.getIndexingMapsArray()[1].isIdentity() || inMap.getNumResults() != 4)
    return std::nullopt;
  Upsample u;
  u.in = in;
  u.out = out;
  SmallVector<int64_t> f;
  for (unsigned d = 0; d < 4; ++d) {
    std::optional<int64_t> fd = factorOf(inMap.getResult(d), d);
    if (!fd || (d < 2 && *fd != 1) ||
        inType.getDimSize(d) * *fd != outType.getDimSize(d))
      return std::nullopt;
    f.push_back(*fd);
  }
  u.fh = f[2];
  u.fw = f[3];
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
  ArrayRef<int64_t> s = inType.getShape();
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  int64_t OW = W * u.fw;
  Type elt = inType.getElementType();
  WindowInput input;
  if (failed(input.init(op, u.in, nullptr, W, options.residents)))
    return failure();
  const Residents *residents = options.residents;
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
  // kOutputBandBytes when the output is in HBM.
  int64_t bandRows = std::min(options.freeChunk, kBandElements) / W;
  if (!outRes)
    bandRows = std::min(bandRows, kOutputBandBytes / (u.fh * u.fw * W * bytes));
  bandRows = std::clamp<int64_t>(bandRows, 1, H);
  int64_t P = options.partitions;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c0 = 0; c0 < C; c0 += P) {
      int64_t cs = std::min(P, C - c0);
      for (int64_t r0 = 0; r0 < H; r0 += bandRows) {
        int64_t rc = std::min(bandRows, H - r0);
        // A resident input is read in its own type (copies commute with
        // the rounding of a narrower one; each copy converts as it stores).
        Value band =
            input.resident
                ? input.residentRows(b, loc, n, c0, cs, r0, rc, 1)
                : input.band(b, loc, n, c0, cs, r0, rc, elt);
        Value outBand =
            outRes ? Value() : allocTile(b, loc, {cs, rc * u.fh, OW}, elt);
        for (int64_t i = 0; i < u.fh; ++i)
          for (int64_t j = 0; j < u.fw; ++j) {
            Value dst =
                outRes ? residents->view(b, loc, *outRes, n, c0, cs,
                                         r0 * u.fh + i, rc, u.fh, j, W, u.fw)
                       : windowOf(b, loc, outBand, cs, i, rc, u.fh, j, W, u.fw);
            tile::CopyOp::create(b, loc, band, dst);
          }
        if (outRes)
          continue;
        // Stored in a few DMAs: one spreads over at most four queues.
        int64_t outRows = rc * u.fh;
        int64_t pieces = loadPieces(outRows * OW * bytes);
        int64_t step = (outRows + pieces - 1) / pieces;
        for (int64_t r = 0; r < outRows; r += step) {
          int64_t m = std::min(step, outRows - r);
          int64_t offset = y->offset + n * y->strides[0] + c0 * y->strides[1] +
                           (r0 * u.fh + r) * y->strides[2];
          Value rows = hbmView(b, loc, y->buffer, indexConst(b, loc, offset),
                               {cs, m, OW}, {y->strides[1], y->strides[2], 1});
          tile::DmaOp::create(
              b, loc, windowOf(b, loc, outBand, cs, r, m, 1, 0, OW, 1), rows);
        }
      }
    }
  return success();
}
