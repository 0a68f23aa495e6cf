//===- Conv.cpp - 2-D convolutions as implicit GEMM on the PE -------------===//
//
// The generic of Conv/ConvGeneric.h, y[n, f, oh, ow] += x[n, c, oh * sh +
// kh * dh, ow * sw + kw * dw] * w[c, kh, kw, f], with channels on the
// partitions:
//
//   filter: per 128-channel block one SBUF tile [c, KH * KW * F], loaded
//           once (one contiguous run per partition)
//   for image n, for band of output rows (its input rows fit SBUF):
//     input: per channel block one tile [c, band rows, W] (one run per
//            partition: a band of whole rows is contiguous in NCHW)
//     for F block (<= 128 filters), for a group of <= 4 chunks (each <= 512
//     output pixels, one PSUM bank):
//       for channel block, for tap (kh, kw), for chunk:
//         matmul(stationary = filter[c, tap, F block],
//                moving = input[c, r * sh + kh * dh, q * sw + kw * dw]
//                         (a strided window: the tap's shift),
//                acc[chunk])                  all taps accumulate in PSUM
//       evacuate each chunk (copy, the old output added, or the fused
//       epilogue: bias, activation, residual) and DMA it out
//
// Few channels and filters leave most of the PE idle (16 of its 128 rows
// and columns for a 16-channel layer): then up to 128 / max(C, F) bands of
// output rows go side by side on the partitions, band j's input on
// partitions j * C.. and its filters at columns j * F.. of a block-diagonal
// filter, so that each matmul computes every band; operands move onto and
// off those partitions by DMA (chooseBands weighs the PE time saved
// against the DMA time added).
//
// No im2col: the input is read from HBM once per band, the filter once. A
// zero-padded input (tensor.pad before bufferization: a filled buffer with
// the source copied into its middle) is read from the source, and the
// band's border is set on chip. A
// stationary tile serves the group's chunks before the next, so the PE's
// LoadStationary is paid once per group.
//
//===----------------------------------------------------------------------===//

#include "ConvKernel.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

LogicalResult ConvKernel::analyze() {
  FailureOr<Layout> lx = hbmLayoutOf(op, scale ? scale->source
                                               : op.getDpsInputs()[0]),
                    lw = hbmLayoutOf(op, op.getDpsInputs()[1]),
                    ly = hbmLayoutOf(op, op.getDpsInits()[0]);
  if (failed(lx) || failed(lw) || failed(ly))
    return failure();
  x = *lx;
  w = *lw;
  y = *ly;
  // The narrowed buffer of a view is viewed the same way: a group of
  // nki-split-batch's window reads its images of the whole batch, at an
  // offset that WindowInput::init reads from the value's type.
  if (Value narrow = narrowedBuffer(x.buffer); narrow != x.buffer)
    x.buffer =
        viewRoot(x.buffer) == x.buffer
            ? narrow
            : stridedView(b, loc, narrow,
                          cast<MemRefType>(x.buffer.getType()).getShape(),
                          x.strides, x.offset);
  if (failed(input.init(op, x.buffer, pad, g.w, options.residents)))
    return failure();
  if (partner) {
    linalg::GenericOp p = partner->op;
    FailureOr<Layout> px = hbmLayoutOf(p, p.getDpsInputs()[0]),
                      pw = hbmLayoutOf(p, p.getDpsInputs()[1]);
    if (failed(px) || failed(pw))
      return failure();
    partnerW = *pw;
    if (pw->strides[3] != 1 || pw->strides[0] != partner->g.f ||
        px->strides[3] != 1 || px->strides[2] != partner->g.w)
      return p->emitOpError("convolution operands must be row-major");
    Value in = narrowedBuffer(px->buffer);
    if (in != px->buffer && viewRoot(px->buffer) != px->buffer)
      in = stridedView(b, loc, in,
                       cast<MemRefType>(px->buffer.getType()).getShape(),
                       px->strides, px->offset);
    if (failed(
            partnerInput.init(p, in, nullptr, partner->g.w, options.residents)))
      return failure();
  }
  if (phases) {
    phasePad = ConvPadding{phases->x, phases->top, phases->left,
                           phases->h, phases->w,   0.0};
    if (failed(phaseInput.init(op, phases->x, &phasePad, phaseWidth(),
                               options.residents)))
      return failure();
    if (phaseInput.resident && phaseInput.resident->tensor->packed)
      return op->emitOpError("the upsampled phases' input is kept packed");
    for (const PhasePartner::Phase &ph : phases->phases) {
      FailureOr<Layout> l =
          hbmLayoutOf(ph.op, linalg::GenericOp(ph.op).getDpsInputs()[1]);
      if (failed(l))
        return failure();
      if (l->strides[3] != 1 || l->strides[2] != ph.g.f ||
          l->strides[1] != ph.g.kw * ph.g.f)
        return ph.op->emitOpError("convolution operands must be row-major");
    }
  }
  if (scatter) {
    // findPhaseScatter's result: zero-filled, read by the copies only.
    assert(zeroInit && !epilogue && !pool && !globalPool && !chained &&
           g.f <= P() && "a phase scatter's result only copies read");
    for (const PhaseScatter::Piece &p : scatter->pieces) {
      FailureOr<Layout> l = hbmLayoutOf(p.copy, p.target);
      if (failed(l))
        return failure();
      scatterOut.push_back(*l);
    }
  }
  elt = cast<MemRefType>(y.buffer.getType()).getElementType();
  // The filter rows and the input rows must be contiguous (the output may
  // be strided: a transposed convolution's phase writes every stride-th
  // pixel of its result).
  if (w.strides[3] != 1 || w.strides[2] != g.f || w.strides[1] != g.kw * g.f ||
      (!pad && (x.strides[3] != 1 || x.strides[2] != g.w)))
    return op->emitOpError("convolution operands must be row-major");
  cBlocks = (g.c + P() - 1) / P();
  fBlocks = (g.f + P() - 1) / P();
  int64_t bytes = tile::storageBytes(g.inputType);
  int64_t filterBytes =
      cBlocks * g.kh * g.kw * g.f * tile::storageBytes(g.filterType);
  // Two bands in flight beside the filter, with half of SBUF left for the
  // evacuated chunks and the epilogue's operands.
  int64_t budget = options.sbufBytesPerPartition / 2 - filterBytes;
  // A resident input is read in place (one band of every row), unless the
  // rows are folded: a DMA within SBUF then copies them onto the KH
  // partition groups of a band tile, which pays off when the PE multiplies
  // fp32 (4 cycles a column; MobileNetV2 b1: 831 -> 684 us) but not bf16
  // (319 -> 343 us).
  foldRows = convFoldsRows(g, P()) && !scale && !partner && !phases &&
             (!input.resident || g.inputType.isF32());
  if (!partner)
    chooseBands();
  if (!partner && input.resident && input.resident->tensor->packed &&
      input.resident->tensor->packed->reader == op) {
    packedInput = &*input.resident->tensor->packed;
    foldRows = packedInput->foldRows;
    foldCols = 1;
    bands = packedInput->bands;
    stack = packedInput->stack;
    stackWindows = 1; // (packedLayout declines two windows)
  }
  if (pad && !input.resident && foldCols == 1 && pad->value == 0.0 &&
      g.w > pad->width) {
    fullColumn = findFullColumn();
    if (fullColumn >= 0) {
      trimmed = true;
      input.trimColumns();
    }
  }
  if (!partner && !phases && bands == 1 && !foldRows && !packedInput)
    chooseOutBands();
  // The phases need stacked rows of their row factor (chooseBands takes
  // those only; a packed input's layout was chosen so too).
  if (phases) {
    windows = phaseWindows(*phases, stack, phaseBlocks());
    if (stack % phases->fh || bands != 1 || foldCols != 1 || windows.empty())
      return op->emitOpError("cannot stack rows for the upsampled phases it "
                             "accumulates");
  }
  bool newBands = !input.resident || foldRows || (bands > 1 && !outBands);
  bandH = g.oh / bands / stack;
  lastRows = g.oh % stack;
  bandRows = bandH;
  // Packed bands go in groups of chunks, so that the next group's input
  // (which moves by DMA) loads while this one multiplies.
  if (bands > 1 || stack > 1)
    bandRows = std::min(bandRows,
                        kChunksPerGroup *
                            std::max<int64_t>(1, options.bankColumns / g.ow));
  // A partner's input bands come beside the kernel's (and its filter).
  auto bandBytes = [&](int64_t rows) {
    int64_t total = newBands ? 2 * cBlocks * tileRows(rows) * g.w * bytes *
                                   (outBands ? bands : 1)
                             : 0;
    if (partner && !partnerInput.resident)
      total += 2 * partnerBlocks() * ((rows - 1) * partner->g.strideH + 1) *
               partner->g.w * tile::storageBytes(partner->g.inputType);
    if (phases)
      total += 2 * phaseRows(rows) * phaseWidth() *
               tile::storageBytes(phases->inputType);
    return total;
  };
  if (partner)
    budget -= partnerBlocks() * partner->g.f *
              tile::storageBytes(partner->g.filterType);
  if (phases)
    budget -=
        phaseMatmuls() * stack * g.f * tile::storageBytes(phases->filterType);
  while (bandRows > 1 && bandBytes(bandRows) > budget)
    bandRows = (bandRows + 1) / 2;
  if (bandBytes(bandRows) > budget)
    return op->emitOpError("convolution input rows do not fit in SBUF");

  if (epilogue && failed(epi.analyze(epilogue, op.getDpsInits()[0])))
    return failure();
  if (chained) {
    linalg::GenericOp one = chained->op, oneEpilogue = chained->epilogue;
    chainG = conv::matchConvGeneric(one);
    Value product = one.getDpsInits()[0];
    FailureOr<Layout> lw2 = hbmLayoutOf(one, one.getDpsInputs()[1]),
                      ly2 = oneEpilogue
                                ? hbmLayoutOf(oneEpilogue,
                                              oneEpilogue.getDpsInits()[0])
                                : hbmLayoutOf(one, product);
    if (!chainG || failed(lw2) || failed(ly2) ||
        (oneEpilogue && failed(chainEpi.analyze(oneEpilogue, product))))
      return failure();
    chainW = *lw2;
    chainY = *ly2;
    // Its epilogue's operands are per channel (findChainedConv checked
    // their maps), read as [P, 1] columns.
    for (size_t i = 0; i + 1 < chainEpi.operands.size(); ++i)
      assert((chainEpi.readsProduct[i] || !chainEpi.operands[i].buffer ||
              perChannel(chainEpi.operands[i], g.oh, g.ow)) &&
             "a chained 1x1's epilogue reads per-channel operands only");
  }
  if (epilogue)
    epilogue.getBody()->walk(
        [&](Operation *o) { actEpilogue |= isActivationOp(o); });
  // A chunk of whole output rows is one free dim of every operand in HBM
  // when the rows are consecutive in memory (a resident operand's chunk is
  // a [rows, columns] view of its tile, which may step over both);
  // otherwise a chunk is part of one row.
  auto merges = [&](Value buffer, ArrayRef<int64_t> strides) {
    return (options.residents && options.residents->lookup(buffer)) ||
           strides[2] == g.ow * strides[3];
  };
  bool rowsMerge = merges(y.buffer, y.strides);
  for (const Access &e : epi.operands)
    if (e.buffer && !merges(e.buffer, e.strides))
      rowsMerge = false;
  if (g.ow <= options.bankColumns && rowsMerge) {
    chunkCols = g.ow;
    chunkRows = std::min(bandRows, options.bankColumns / g.ow);
  } else {
    chunkCols = std::min(g.ow, options.bankColumns);
    chunkRows = 1;
  }
  // The pooling's 2x2 windows lie within a chunk when every band and chunk
  // is an even number of whole rows from an even row (3x3 windows reach
  // one row before it). A chunk of one row (a row wider than half a PSUM
  // bank) leaves its pair's other row to the next chunk: its column maxes
  // wait in a tile of the band's rows (poolChunk).
  if (pool) {
    linalg::PoolingNchwMaxOp p = pool->op;
    FailureOr<Layout> lp = hbmLayoutOf(p, p.getOutputs()[0]);
    bool pairsAcross = pool->window == 2 && chunkRows == 1;
    // Stacked rows pair blocks, not rows of a chunk.
    poolInKernel =
        succeeded(lp) && chunkCols == g.ow &&
        (stack > 1 || ((chunkRows >= 2 || pairsAcross) && bandRows >= 2 &&
                       (bands == 1 || bandH % 2 == 0)));
    // 3x3, or pairs across chunks: the column maxes of a band's rows in
    // SBUF (fp32 at most).
    if ((pool->window == 3 || (pairsAcross && stack == 1)) &&
        4 * bandH * (g.ow / 2) > options.sbufBytesPerPartition / 8)
      poolInKernel = false;
    if (poolInKernel) {
      pooled = *lp;
      if (stack == 1 && chunkRows >= 2) {
        chunkRows -= chunkRows % 2;
        bandRows -= bandRows % 2;
      }
    }
  }
  // Small images: whole images in one band and fewer chunks than a group
  // share each tap's stationary operand with the next images' chunks (not
  // with packed or folded bands, whose tiles are per image, nor a channel
  // scale, whose filter is). Their input bands are in SBUF at once.
  int64_t chunksPerImage = ((g.oh + chunkRows - 1) / chunkRows) *
                           ((g.ow + chunkCols - 1) / chunkCols);
  if (phases && chunkCols % phases->fw)
    return op->emitOpError("a chunk's columns are not whole column phases");
  if (bands == 1 && !foldRows && !scale && !phases && bandRows == g.oh &&
      chunksPerImage < kChunksPerGroup) {
    if (chunksPerImage == 1)
      chunkImages =
          std::clamp<int64_t>(options.bankColumns / (g.oh * g.ow), 1, g.n);
    imageGroup = std::min(g.n, kChunksPerGroup * chunkImages / chunksPerImage);
    while (newBands && imageGroup > 1 &&
           (imageGroup + 1) * cBlocks * tileRows(bandRows) * g.w * bytes >
               budget)
      --imageGroup;
    chunkImages = std::min(chunkImages, imageGroup);
  }
  for (int64_t oh0 = 0; oh0 < bandH; oh0 += bandRows) {
    int64_t rows = std::min(bandRows, bandH - oh0);
    evacuationsPerImage += (rows + chunkRows - 1) / chunkRows *
                           ((g.ow + chunkCols - 1) / chunkCols);
  }
  return success();
}

bool ConvKernel::oneImageInFlight() const {
  // Several images: the batch, or nki-split-batch's groups.
  auto func = op->getParentOfType<func::FuncOp>();
  auto groups =
      func ? func->getAttrOfType<DictionaryAttr>(tile::kBatchGroupsAttr)
           : DictionaryAttr();
  auto count = groups ? groups.getAs<IntegerAttr>("groups") : IntegerAttr();
  return g.n == 1 && !(count && count.getInt() > 1);
}

/// A 1x1 convolution of one pixel is a GEMV: each channel block costs the
/// PE a LoadStationary and a minimum matmul (512 cycles with fp32 inputs)
/// for one column. EfficientNet-B0's squeeze-and-excitation reduces 1,152
/// channels to 48 with nine of them, 1.9 us on the PE between the squeeze
/// and the excitation, which every later layer waits for; the vector
/// engines scale and sum a block of 48 filters in about 0.1 us each
/// (Matmul.cpp's GEMV split, gemvVectorBlocks). Only dense, unpacked,
/// unpadded fp32 kernels of one image.
int64_t ConvKernel::pixelGemvBlocks(int64_t fb) const {
  const TileOptions::Rates &t = options.rates;
  if (diagonal || scale || chained || pad || taps() != 1 || blocks() != 1 ||
      foldRows || g.n != 1 || cBlocks < 3 || !g.inputType.isF32() ||
      !g.filterType.isF32() || !t.peClockMHz || !t.actClockMHz ||
      !t.dveClockMHz)
    return 0;
  double pe = peChunkNs(1, 1, 1);
  return gemvVectorBlocks(pe, vectorNs(fb, t.actClockMHz),
                          vectorNs(fb, t.dveClockMHz), cBlocks);
}

Value ConvKernel::pixelGemvSum(OpBuilder &b, ArrayRef<Value> inputs,
                               ArrayRef<Value> filters, const Chunk &ch,
                               int64_t f0, int64_t fb, int64_t vk) {
  SmallVector<Value> rows, pixels;
  TapCols t = tapCols(ch, 0);
  for (int64_t cb = 0; cb < vk; ++cb) {
    Value pixel = chunkWindow(b, inputs[cb], P(), ch, ch.r0 * g.strideH,
                              g.strideH, t.col, g.strideW, t.qb - t.qa);
    // The pixel's [P, 1, 1] window as the [P, 1] scalar operand.
    if (cast<MemRefType>(pixel.getType()).getRank() == 3)
      pixel = memref::CollapseShapeOp::create(
          b, loc, pixel, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
    pixels.push_back(pixel);
    rows.push_back(tileSlice(b, loc, filters[cb], 0, P(), f0, fb));
  }
  return gemvVectorSum(b, loc, rows, pixels);
}

/// The [cs, len] run of a tile's elements (its partitions first, then
/// any dims) from element `offset` of partitions [p0, p0 + cs), across its
/// rows.
static Value flatRun(OpBuilder &b, Location loc, Value tile, int64_t p0,
                     int64_t offset, int64_t cs, int64_t len) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t pitch = 1;
  for (int64_t d : type.getShape().drop_front())
    pitch *= d;
  auto layout =
      StridedLayoutAttr::get(b.getContext(), p0 * pitch + offset, {pitch, 1});
  auto viewType = MemRefType::get({cs, len}, type.getElementType(), layout,
                                  type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, tile, b.getIndexAttr(p0 * pitch + offset),
      {b.getIndexAttr(cs), b.getIndexAttr(len)},
      {b.getIndexAttr(pitch), b.getIndexAttr(1)});
}

void ConvKernel::copyShiftedRows(OpBuilder &b, const ResidentRef &ref,
                                 int64_t n, int64_t h, int64_t rows,
                                 int64_t shift, Value tile, int64_t p0,
                                 int64_t r) {
  const ResidentTensor &rt = *ref.tensor;
  auto type = cast<MemRefType>(rt.tile.getType());
  ArrayRef<int64_t> shape = type.getShape(); // [P, blocks, N, Hp, Wp]
  int64_t planeRows = shape[3], width = shape[4];
  int64_t c = ref.c, row = rt.top + ref.h + h;
  int64_t plane = ((c / P()) * shape[2] + ref.n + n) * planeRows;
  // Within the image's plane: the tensor's last row takes no element of
  // the next image's.
  assert(row + rows <= planeRows && "a band's rows past the resident plane");
  int64_t len = rows * width - (row + rows == planeRows ? shift : 0);
  int64_t tileWidth = cast<MemRefType>(tile.getType()).getShape()[2];
  tile::DmaOp::create(b, loc,
                      flatRun(b, loc, rt.tile, c % P(),
                              (plane + row) * width + shift, g.c, len),
                      flatRun(b, loc, tile, p0, r * tileWidth, g.c, len));
}

void ConvKernel::emitBand(OpBuilder &b, ArrayRef<int64_t> images, int64_t oh0,
                          int64_t rows, ArrayRef<Value> filters) {
  // Per channel block, the band tile of every image.
  SmallVector<Value> inputs;
  bool packed = foldRows || (bands > 1 && !outBands); // one tile of bands *
                                                      // C * KH' rows
  assert((!packed || images.size() == 1) && "packed bands are per image");
  int64_t n = images.front();
  if (packedInput) {
    // The input is kept in this layout: the band tile is its rows.
    bandColOffset = 0;
    inputs.push_back(options.residents->packedRows(
        b, loc, *input.resident->tensor, n, foldRows ? oh0 : oh0 * g.strideH,
        tileRows(rows)));
  } else if (packed) {
    // Partition ((j * KWf + kwi) * KH' + kh) * C + c, row r, column q:
    // padded input row (oh0 + j * bandH + r) * sh + kh * dh of channel c
    // when folded (KH' = KH), row (oh0 + j * bandH) * sh + r otherwise
    // (KH' = 1, kh = 0), column q + kwi * dw (KWf = foldCols, else 1), in
    // one DMA per band, kernel column and kernel row: from the resident
    // tensor (within SBUF; its border is the padding), else from HBM with
    // the padding set for the whole tile first (a memset may not start at
    // any partition) and the loads overwriting the rest.
    int64_t fold = foldRows ? foldGroups() : 1,
            step = foldRows ? tileRowStep() : 1;
    int64_t shiftMax = (foldCols - 1) * g.dilationW;
    int64_t tr = tileRows(rows);
    int64_t parts = bands * bandParts();
    // From a resident input with consecutive rows, the band tile takes the
    // resident rows whole (border included), so that each copy is one
    // contiguous run a partition: a DMA pays a descriptor of at least 512
    // bytes per run, and a U-Net phase's rows of 65 bf16 (130 bytes) cost
    // four times their bytes. The kernel's windows then start bandColOffset
    // columns in. A folded kernel column's copy, shifted by `shift`
    // columns, is the same run `shift` elements later: each row's last
    // columns come from the next row's first (its border or data, columns
    // no window of that kernel column reads but for a zero filter row, so
    // not under an infinite border: inf x 0 is NaN), the tensor's last
    // row's from a memset.
    std::optional<ResidentRef> ref = input.resident;
    int64_t width = input.width; // the source's when trimmed, else g.w
    bandColOffset = 0;
    bool fullRows = ref && step == 1 && takesWholeRows(*ref) &&
                    (!shiftMax || std::isfinite(ref->tensor->padValue));
    if (fullRows) {
      const ResidentTensor &rt = *ref->tensor;
      width = rt.left + rt.w + rt.right;
      bandColOffset = rt.left - (pad ? pad->left : 0);
      fullRows = bandColOffset + g.w <= width;
    }
    if (!fullRows) {
      width = input.width;
      bandColOffset = 0;
    }
    Value t = allocTile(b, loc, {parts, tr, width}, g.inputType);
    if (pad && !input.resident) {
      // The padding: the tile rows that are a padding row in some band or
      // kernel-row group (all partitions: a memset may not start at any
      // partition; the loads then overwrite the groups where they are
      // input rows), and the border columns of the others. Not the whole
      // tile: ResNet-50's stem band is 3,680 elements a partition, a
      // memset of 3 to 4 us before the first load could start.
      auto padRow = [&](int64_t r) {
        for (int64_t j = 0; j < bands; ++j)
          for (int64_t kh = 0; kh < fold; ++kh) {
            int64_t h = bandInputRow(oh0, j, kh) + r * step;
            if (h < pad->top || h >= pad->top + pad->height)
              return true;
          }
        return false;
      };
      auto fill = [&](Value view) {
        tile::MemsetOp::create(b, loc, view,
                               b.getF32FloatAttr(float(pad->value)));
      };
      // Trimmed, the tile has no border columns.
      int64_t left = trimmed ? 0 : pad->left;
      int64_t right = trimmed ? 0 : g.w - pad->left - pad->width;
      for (int64_t r = 0; r < tr;) {
        int64_t e = r;
        bool isPad = padRow(r);
        while (e < tr && padRow(e) == isPad)
          ++e;
        if (isPad) {
          fill(windowOf(b, loc, t, parts, r, e - r, 1, 0, width, 1));
        } else {
          if (left)
            fill(windowOf(b, loc, t, parts, r, e - r, 1, 0, pad->left, 1));
          if (right)
            fill(windowOf(b, loc, t, parts, r, e - r, 1, pad->left + pad->width,
                          right, 1));
        }
        r = e;
      }
    }
    // Shifted copies leave their last columns unloaded (and past the
    // source's, padding): set, on every partition, since the matmuls of a
    // last group of fewer kernel columns read them (times a zero filter).
    if (shiftMax && fullRows) {
      tile::MemsetOp::create(b, loc,
                             windowOf(b, loc, t, parts, tr - 1, 1, 1,
                                      width - shiftMax, shiftMax, 1),
                             b.getF32FloatAttr(0.0f));
    } else if (shiftMax) {
      int64_t from = g.w - shiftMax;
      if (pad && !input.resident)
        from = std::max<int64_t>(0, pad->left + pad->width - shiftMax);
      tile::MemsetOp::create(
          b, loc, windowOf(b, loc, t, parts, 0, tr, 1, from, g.w - from, 1),
          b.getF32FloatAttr(pad ? float(pad->value) : 0.0f));
    }
    // A last group of fewer stacked rows reads input rows past the padded
    // input in its last partition groups: from HBM with padding they are
    // padding rows (set above); else they are set to zero here and not
    // loaded (they feed only the blocks the group does not store).
    if (partialGroup && !(pad && !input.resident))
      tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
    // Stacked in windows, a group's last tile row may hold rows past the
    // padded input in the last partition groups: rows that only zero
    // filter rows read (kernel rows past KH), set to zero (on every
    // partition, the loads then overwrite the others) and not loaded; from
    // HBM with padding they are padding rows, set above.
    auto validRows = [&](int64_t h0) {
      int64_t v = tr;
      while (stackWindows > 1 && v > 0 && h0 + (v - 1) * step >= g.h)
        --v;
      return v;
    };
    if (stackWindows > 1 && !(pad && !input.resident)) {
      int64_t least = tr;
      for (int64_t j = 0; j < bands; ++j)
        for (int64_t kh = 0; kh < fold; ++kh)
          least = std::min(least, validRows(bandInputRow(oh0, j, kh)));
      if (least < tr)
        tile::MemsetOp::create(
            b, loc,
            windowOf(b, loc, t, parts, least, tr - least, 1, 0, width, 1),
            b.getF32FloatAttr(0.0f));
    }
    // From HBM, a kernel row's block holds the rows of the block `step`
    // padded rows above it, one row on: it copies them from there (SBUF to
    // SBUF, one run a partition) and loads only its last rows, and a
    // kernel column's block copies its kernel row's, shifted (whole rows,
    // as copyShiftedRows: so not under an infinite padding). Each padded
    // row then comes from HBM once where it came up to KH x KW times
    // (ResNet-50's stem: 7 x 6). Only where the load narrows (an f32 input
    // of a bf16 convolution), so that the copies take half the DMA bytes
    // of the loads they replace: in f32 they take as many and add a DMA's
    // latency before the band's matmuls (EfficientNet-B0 at batch 8 on
    // trn3 ran 1.5 % slower). Nor in a kernel of one band tile, whose
    // latency no other band hides (the U-Net at batch 1 ran 1.6 us longer).
    struct Base {
      int64_t kh, rows;
    };
    int64_t bandTiles =
        (g.n + imageGroup - 1) / imageGroup *
        ((bandH + bandRows - 1) / bandRows + (lastRows ? 1 : 0));
    bool copies = !input.resident && bandTiles > 1 && foldCols * fold > 1 &&
                  (!pad || std::isfinite(pad->value)) &&
                  tile::storageBytes(g.inputType) <
                      tile::storageBytes(input.hbmElementType());
    for (int64_t j = 0; j < bands; ++j) {
      // Per kernel row: the first block loaded from HBM whose rows continue
      // into its own, and the rows it copies from there.
      SmallVector<std::optional<Base>> base(fold);
      auto loaded = [&](int64_t h) { return pad ? tr : validRows(h); };
      int64_t blocks = 0, loads = 0;
      for (int64_t kh = 0; kh < fold && copies; ++kh) {
        int64_t h0 = bandInputRow(oh0, j, kh);
        if ((partialGroup && h0 >= g.h) || !loaded(h0))
          continue;
        blocks += foldCols;
        for (int64_t kb = 0; kb < kh && !base[kh]; ++kb) {
          int64_t hb = bandInputRow(oh0, j, kb);
          int64_t rows = std::min(loaded(h0), loaded(hb) - (h0 - hb) / step);
          if (!base[kb] && (h0 - hb) % step == 0 && rows > 0)
            base[kh] = Base{kb, rows};
        }
        loads += !base[kh];
      }
      // A copy waits for the load it copies: worth it where it replaces
      // most of a band's loads. MobileNetV2's stem (stride 2, three kernel
      // rows, one copied) ran 1 % slower under auto-cast with its copies;
      // ResNet-50's (42 blocks, 2 loaded) and the U-Net's (3, 1) faster.
      bool copyBand = copies && 2 * loads <= blocks;
      if (!copyBand)
        base.assign(fold, std::nullopt);
      auto blockOf = [&](int64_t kwi, int64_t kh) {
        return ((j * foldCols + kwi) * fold + kh) * g.c;
      };
      // Rows [from, from + rows) of the block at partition `src` into rows
      // [to, to + rows) of the one at `dst`, `by` columns on: one run a
      // partition and piece (a row's last `by` elements the next row's
      // first; the columns fold only where the band keeps the border).
      auto copyRows = [&](int64_t src, int64_t from, int64_t dst, int64_t to,
                          int64_t rows, int64_t by) {
        assert((!by || !input.trimCols) && "shifted rows need their border");
        int64_t pieces =
            loadPieces(rows * width * tile::storageBytes(g.inputType));
        int64_t rs = (rows + pieces - 1) / pieces;
        for (int64_t r = 0; r < rows; r += rs) {
          int64_t k = std::min(rs, rows - r);
          int64_t len = k * width - (r + k == rows ? by : 0);
          tile::DmaOp::create(
              b, loc,
              flatRun(b, loc, t, src, (from + r) * width + by, g.c, len),
              flatRun(b, loc, t, dst, (to + r) * width, g.c, len));
        }
      };
      for (int64_t kwi = 0; kwi < foldCols; ++kwi)
        for (int64_t kh = 0; kh < fold; ++kh) {
          int64_t h0 = bandInputRow(oh0, j, kh);
          if (partialGroup && h0 >= g.h)
            continue;
          int64_t p0 = blockOf(kwi, kh);
          int64_t shift = kwi * g.dilationW;
          int64_t valid = validRows(h0);
          int64_t m = pad ? tr : valid;
          if (copyBand && kwi > 0) {
            // From the blocks loaded from HBM, so that no copy waits for
            // another.
            int64_t from = 0;
            if (base[kh]) {
              int64_t kb = base[kh]->kh;
              from = base[kh]->rows;
              copyRows(blockOf(0, kb), (h0 - bandInputRow(oh0, j, kb)) / step,
                       p0, 0, from, shift);
            }
            copyRows(blockOf(0, kh), from, p0, from, m - from, shift);
            continue;
          }
          if (copyBand && m > 0) {
            if (base[kh]) {
              int64_t kb = base[kh]->kh;
              int64_t q = (h0 - bandInputRow(oh0, j, kb)) / step;
              int64_t rows = base[kh]->rows;
              copyRows(blockOf(0, kb), q, p0, 0, rows, 0);
              if (rows < m)
                input.loadBand(
                    b, loc, n, 0, g.c, h0 + rows * step, m - rows,
                    windowOf(b, loc, t, parts, rows, m - rows, 1, 0, width, 1),
                    p0, step, /*fillBorder=*/false);
              continue;
            }
          }
          if (input.resident) {
            // In row pieces: a DMA spreads over at most four queues.
            int64_t pieces =
                loadPieces(valid * g.w * tile::storageBytes(g.inputType));
            int64_t rs = (valid + pieces - 1) / pieces;
            for (int64_t r = 0; r < valid; r += rs) {
              int64_t m = std::min(rs, valid - r);
              if (fullRows && shift) {
                copyShiftedRows(b, *ref, n, h0 + r - (pad ? pad->top : 0), m,
                                shift, t, p0, r);
                continue;
              }
              if (fullRows) {
                const ResidentTensor &rt = *ref->tensor;
                int64_t top = pad ? pad->top : 0;
                tile::DmaOp::create(
                    b, loc,
                    input.residents->view(b, loc, *ref, n, 0, g.c, h0 + r - top,
                                          m, 1, -rt.left, width, 1),
                    windowOf(b, loc, t, g.c, r, m, 1, 0, width, 1, p0));
                continue;
              }
              tile::DmaOp::create(
                  b, loc,
                  input.residentRows(b, loc, n, 0, g.c, h0 + r * step, m, step,
                                     shift),
                  windowOf(b, loc, t, g.c, r, m, 1, 0, g.w - shift, 1, p0));
            }
          } else if (valid) {
            input.loadBand(b, loc, n, 0, g.c, h0, pad ? tr : valid, t, p0, step,
                           /*fillBorder=*/false, shift);
          }
        }
    }
    inputs.push_back(t);
  }
  if (!packed)
    bandColOffset = 0;
  for (int64_t cb = 0; cb < cBlocks && !packed && !outBands; ++cb)
    inputs.push_back(input.band(b, loc, n, cb * P(), cbAt(cb), oh0 * g.strideH,
                                inRows(rows), g.inputType,
                                int64_t(images.size())));
  // Result bands only: band j's stationary operand holds the filter at
  // columns [j * F, (j + 1) * F), zeros elsewhere; its tiles are zeroed
  // once and take each new filter (an image's scaled one) by an engine copy
  // a band.
  for (int64_t cb = 0; cb < cBlocks && outBands; ++cb) {
    if (int64_t(bandFilters.size()) <= cb) {
      bandFilters.emplace_back();
      bandSources.push_back(Value());
      for (int64_t j = 0; j < bands; ++j) {
        Value t = allocTile(b, loc, {cbAt(cb), bands * g.f}, g.filterType);
        tile::MemsetOp::create(b, loc, t, b.getF32FloatAttr(0.0f));
        bandFilters.back().push_back(t);
      }
    }
    if (bandSources[cb] == filters[cb])
      continue;
    bandSources[cb] = filters[cb];
    for (int64_t j = 0; j < bands; ++j)
      tile::CopyOp::create(
          b, loc, filters[cb],
          tileSlice(b, loc, bandFilters[cb][j], 0, cbAt(cb), j * g.f, g.f));
  }
  // Result bands only: each band's rows of each channel block, in place.
  SmallVector<SmallVector<Value>> bandInputs;
  for (int64_t cb = 0; cb < cBlocks && outBands; ++cb) {
    bandInputs.emplace_back();
    for (int64_t j = 0; j < bands; ++j)
      bandInputs.back().push_back(
          input.band(b, loc, n, cb * P(), cbAt(cb), bandInputRow(oh0, j, 0),
                     inRows(rows), g.inputType, int64_t(images.size())));
  }
  // The partner's bands: its input rows at the band's output rows.
  SmallVector<Value> partnerBands;
  for (int64_t cb = 0; cb < partnerBlocks(); ++cb) {
    const conv::ConvGeneric &pg = partner->g;
    partnerBands.push_back(partnerInput.band(
        b, loc, n, cb * P(), partnerBlockAt(cb), oh0 * pg.strideH,
        (rows - 1) * pg.strideH + 1, pg.inputType, int64_t(images.size())));
  }
  assert((!phases || images.size() == 1) && "phases take one image a band");
  Value phaseTile = phases ? loadPhaseRows(b, n, oh0, rows) : Value();
  SmallVector<Chunk> chunks = chunksOf(int64_t(images.size()), rows);
  // Folded, a tap is a kernel column: its stationary operand is rows
  // [kh * C + c] of column kw, its window starts at row r (already strided).
  // Packed, the operands span every band's partitions.
  int64_t taps = this->taps();
  int64_t parts = packed ? bands * bandParts() : 0;
  int64_t filterCols = blocks() * g.f;
  for (int64_t fbk = 0; fbk < fBlocks; ++fbk) {
    int64_t f0 = fbk * P(), fb = blocks() * fbAt(fbk);
    // The kernel's last group may go a chunk at a time (splitLastGroup),
    // its chunks then done one after another rather than all at its end.
    SmallVector<size_t> groupEnds;
    for (size_t c0 = 0; c0 < chunks.size(); c0 += kChunksPerGroup)
      groupEnds.push_back(std::min(c0 + kChunksPerGroup, chunks.size()));
    bool lastOfKernel = lastBand && fbk + 1 == fBlocks && !chunks.empty();
    size_t tailStart =
        lastOfKernel ? (groupEnds.size() - 1) * kChunksPerGroup : chunks.size();
    if (lastOfKernel && splitLastGroup()) {
      groupEnds.pop_back();
      for (size_t c = tailStart + 1; c <= chunks.size(); ++c)
        groupEnds.push_back(c);
    }
    for (size_t gi = 0, c0 = 0; gi < groupEnds.size(); c0 = groupEnds[gi++]) {
      ArrayRef<Chunk> group =
          ArrayRef<Chunk>(chunks).slice(c0, groupEnds[gi] - c0);
      tailGroup = c0 >= tailStart;
      SmallVector<Value> accs;
      SmallVector<bool> vec;
      SmallVector<ChunkPath> paths;
      for (const Chunk &ch : group) {
        ChunkPath path = nextChunk < chunkPaths.size() ? chunkPaths[nextChunk]
                                                       : ChunkPath::PE;
        accs.push_back(allocTile(b, loc, {fb, ch.pixels()}, b.getF32Type(),
                                 path == ChunkPath::SbufSums
                                     ? tile::MemorySpace::SBUF
                                     : tile::MemorySpace::PSUM));
        vec.push_back(onVector(path));
        paths.push_back(path);
        ++nextChunk;
      }
      for (auto [ch, acc, path] : llvm::zip_equal(group, accs, paths)) {
        // chooseVectorChunks moved an image's vector chunks first, so a
        // path may land on a larger chunk than it was chosen for.
        bool reduced = path == ChunkPath::ReduceSums ||
                       path == ChunkPath::DveTaps ||
                       path == ChunkPath::PoolTaps;
        if (reduced && !reducesTaps(ch.pixels(), path == ChunkPath::DveTaps)) {
          path = ChunkPath::PsumSums;
          reduced = false;
        }
        if (reduced)
          reduceChunk(b, inputs[0], ch, acc, path);
        else if (onVector(path))
          vectorChunk(b, inputs[0], ch, acc);
      }
      // A one-pixel chunk's first channel blocks on the vector engines.
      int64_t vk =
          group.size() == 1 && !vec.front() && group.front().pixels() == 1
              ? pixelGemvBlocks(fb)
              : 0;
      Value vectorSum =
          vk ? pixelGemvSum(b, inputs, filters, group.front(), f0, fb, vk)
             : Value();
      for (int64_t cb = 0; cb < cBlocks && outBands; ++cb)
        for (int64_t j = 0; j < bands; ++j)
          for (auto [ch, acc] : llvm::zip_equal(group, accs))
            tile::MatmulOp::create(
                b, loc, bandFilters[cb][j],
                chunkWindow(b, bandInputs[cb][j], cbAt(cb), ch, ch.r0, 1, ch.q0,
                            1),
                acc, cb == 0 && j == 0 ? UnitAttr() : b.getUnitAttr());
      for (int64_t cb = vk; cb < cBlocks && !outBands; ++cb) {
        int64_t cs = parts ? parts : cbAt(cb);
        for (int64_t i = 0; i < taps; ++i) {
          if (llvm::all_of(vec, [](bool v) { return v; }))
            break;
          int64_t tap = tapAt(i);
          int64_t kh = foldRows ? 0 : tap / g.kw;
          int64_t kw = foldRows ? tap % windowTaps() * foldCols : tap % g.kw;
          // A stacked window's rows start a group (movingRowStep() tile
          // rows) further on.
          int64_t window = foldRows ? tap / windowTaps() : 0;
          Value stationary =
              tileSlice(b, loc, filters[cb], 0, cs, tap * filterCols + f0, fb);
          bool first = cb == vk && i == 0;
          for (auto [ch, acc, v] : llvm::zip_equal(group, accs, vec)) {
            if (v)
              continue;
            int64_t r0 = foldRows
                             ? ch.r0 * movingRowStep() + window * windowStep()
                             : ch.r0 * g.strideH + kh * g.dilationH;
            TapCols t = tapCols(ch, kw);
            if (t.qa >= t.qb)
              continue;
            Value moving = chunkWindow(b, inputs[cb], cs, ch, r0,
                                       foldRows ? movingRowStep() : g.strideH,
                                       t.col, g.strideW, t.qb - t.qa);
            tile::MatmulOp::create(b, loc, stationary, moving,
                                   accWindow(b, acc, fb, ch, t.qa, t.qb),
                                   first ? UnitAttr() : b.getUnitAttr());
          }
        }
      }
      // The partner's matmuls, into the accumulators the kernel's started.
      for (int64_t cb = 0; cb < partnerBlocks(); ++cb) {
        // (No bands with a partner: bandColOffset is 0.)
        const conv::ConvGeneric &pg = partner->g;
        int64_t cs = partnerBlockAt(cb);
        Value stationary = tileSlice(b, loc, partnerFilters[cb], 0, cs, f0, fb);
        for (auto [ch, acc, v] : llvm::zip_equal(group, accs, vec)) {
          if (v)
            continue;
          Value moving =
              chunkWindow(b, partnerBands[cb], cs, ch, ch.r0 * pg.strideH,
                          pg.strideH, ch.q0 * pg.strideW, pg.strideW);
          tile::MatmulOp::create(b, loc, stationary, moving, acc,
                                 b.getUnitAttr());
        }
      }
      if (phases)
        phaseMatmuls(b, phaseTile, group, accs, fb);
      if (vectorSum) {
        // Their sum's partitions added up: S^T x ones.
        Value ones = allocTile(b, loc, {P(), 1}, b.getF32Type());
        tile::MemsetOp::create(b, loc, ones, b.getF32FloatAttr(1.0f));
        tile::MatmulOp::create(b, loc, vectorSum, ones, accs.front(),
                               b.getUnitAttr());
      }
      for (auto [ch, v] : llvm::zip_equal(group, vec))
        if (!v)
          evacuationLoads.pe +=
              peChunkNs(ch.pixels(), int64_t(group.size()),
                        (cBlocks - vk + (vk ? 1 : 0)) * taps *
                                (outBands ? bands : 1) +
                            partnerBlocks()) +
              (phases ? peChunkNs(ch.pixels() / phases->fw,
                                  int64_t(group.size()), phaseMatmuls())
                      : 0.0);
      // A chunk of several images is whole images (consecutive ones),
      // evacuated a few small images at a time: enough for the engine's
      // fixed cost to be a small part, few enough that the evacuating
      // engines share the chunk.
      for (auto [ch, acc] : llvm::zip_equal(group, accs)) {
        int64_t pixels = ch.rc * ch.wc;
        int64_t step = evacuatesImages(pixels)
                           ? std::max<int64_t>(1, kEvacuationColumns / pixels)
                           : 1;
        for (int64_t i = 0; i < ch.imgs; i += step) {
          int64_t m = std::min(step, ch.imgs - i);
          evacuate(b, images[ch.img + i], f0, fb, oh0 + ch.r0, ch.q0, ch.rc,
                   ch.wc,
                   ch.imgs == 1
                       ? acc
                       : tileSlice(b, loc, acc, 0, fb, i * pixels, m * pixels),
                   m);
        }
      }
      joinClamps();
    }
    if (lastBand && fbk == 0 && firstBlockPe < 0)
      firstBlockPe = evacuationLoads.pe;
  }
}

Value ConvKernel::loadPhaseRows(OpBuilder &b, int64_t n, int64_t oh0,
                                int64_t rows) {
  int64_t c = phases->c, nb = phaseBlocks(), width = phaseWidth();
  int64_t tr = phaseRows(rows);
  // Block i's row r is x row row0 + i + r.
  int64_t row0 = stack / phases->fh * oh0 + phaseLo();
  Value t = allocTile(b, loc, {nb * c, tr, width}, phases->inputType);
  // Rows before or past x in some block are zero (set on every block from
  // partition 0, where an engine may start; the blocks that hold x there
  // take its rows after), and so are the border columns of rows loaded
  // from HBM (a resident x's rows come with its border).
  auto zero = [&](int64_t r0, int64_t rn, int64_t q0, int64_t qn) {
    if (rn > 0 && qn > 0)
      tile::MemsetOp::create(b, loc,
                             windowOf(b, loc, t, nb * c, r0, rn, 1, q0, qn, 1),
                             b.getF32FloatAttr(0.0f));
  };
  int64_t before = std::clamp<int64_t>(-row0, 0, tr);
  int64_t past = std::clamp<int64_t>(phases->h - row0 - (nb - 1), 0, tr);
  zero(0, before, 0, width);
  zero(past, tr - past, 0, width);
  if (!phaseInput.resident) {
    zero(before, past - before, 0, phases->left);
    zero(before, past - before, phases->left + phases->w, phases->right);
  }
  for (int64_t i = 0; i < nb; ++i) {
    int64_t ra = std::clamp<int64_t>(-(row0 + i), 0, tr);
    int64_t rb = std::clamp<int64_t>(phases->h - (row0 + i), 0, tr);
    if (ra >= rb)
      continue;
    int64_t h0 = row0 + i + ra + phases->top; // a padded row
    if (!phaseInput.resident) {
      phaseInput.loadBand(
          b, loc, n, 0, c, h0, rb - ra,
          windowOf(b, loc, t, nb * c, ra, rb - ra, 1, 0, width, 1), i * c,
          /*rowStep=*/1, /*fillBorder=*/false);
      continue;
    }
    // Whole rows, border included: one run a partition, in pieces over the
    // queues.
    int64_t pieces =
        loadPieces((rb - ra) * width * tile::storageBytes(phases->inputType));
    int64_t step = (rb - ra + pieces - 1) / pieces;
    for (int64_t r = ra; r < rb; r += step) {
      int64_t m = std::min(step, rb - r);
      tile::DmaOp::create(
          b, loc, phaseInput.residentRows(b, loc, n, 0, c, h0 + r - ra, m, 1),
          windowOf(b, loc, t, c, r, m, 1, 0, width, 1, i * c));
    }
  }
  return t;
}

void ConvKernel::phaseMatmuls(OpBuilder &b, Value rowsTile,
                              ArrayRef<Chunk> group, ArrayRef<Value> accs,
                              int64_t fb) {
  int64_t fw = phases->fw, step = stack / phases->fh;
  int64_t k = phaseBlocks() * phases->c, filterCols = stack * g.f;
  // Each chunk's accumulator columns of column phase px: [fb, rc, wc / fw]
  // from column px, every fw-th.
  auto phaseColumns = [&](const Chunk &ch, Value acc, int64_t px) -> Value {
    Value grid = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{fb, ch.rc, ch.wc}, acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    return memref::SubViewOp::create(
        b, loc, grid,
        SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                                  b.getIndexAttr(px)},
        SmallVector<OpFoldResult>{b.getIndexAttr(fb), b.getIndexAttr(ch.rc),
                                  b.getIndexAttr(ch.wc / fw)},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                  b.getIndexAttr(fw)});
  };
  size_t next = 0;
  for (const PhaseWindow &win : windows)
    for (int64_t px = 0; px < fw; ++px) {
      Value filter = phaseFilters[next++];
      for (int64_t kw = 0; kw < phases->kwOf(px); ++kw) {
        Value stationary = tileSlice(b, loc, filter, 0, k, kw * filterCols, fb);
        // Output column q0 + fw * p + px reads x column q0 / fw + p + kw -
        // left(px): that plus the tile's left border.
        for (auto [ch, acc] : llvm::zip_equal(group, accs)) {
          Value moving = windowOf(
              b, loc, rowsTile, k, step * ch.r0 + win.lo - phaseLo(), ch.rc,
              step, ch.q0 / fw + kw - phases->leftOf(px) + phases->left,
              ch.wc / fw, 1);
          tile::MatmulOp::create(b, loc, stationary, moving,
                                 phaseColumns(ch, acc, px), b.getUnitAttr());
        }
      }
    }
}

/// Per-partition multiply-accumulate on the vector engines: each tap's
/// window times the channel's weight (a tensor_scalar multiply by the
/// [P, 1] weight column, x * w rounded to fp32 as the PE's products are,
/// which the scheduler runs on the ACT, the DVE or the POOL), summed into
/// the accumulator (acc + s: in PSUM by the DVE, one PSUM input; in SBUF
/// by the POOL or the DVE), the first tap written there directly. Same
/// products, same order of sums as the PE's diagonal matmuls.
Value ConvKernel::chunkWindow(OpBuilder &b, Value tile, int64_t cs,
                              const Chunk &ch, int64_t r0, int64_t rs,
                              int64_t q0, int64_t qs, int64_t cols) const {
  q0 += bandColOffset;
  if (cols < 0)
    cols = ch.wc;
  if (cast<MemRefType>(tile.getType()).getRank() == 3)
    return windowOf(b, loc, tile, cs, r0, ch.rc, rs, q0, cols, qs);
  return imagesWindowOf(b, loc, tile, cs, ch.img, ch.imgs, r0, ch.rc, rs, q0,
                        cols, qs);
}

int64_t ConvKernel::findFullColumn() const {
  int64_t last = (g.ow - 1) * g.strideW;
  for (int64_t kw = 0; kw < g.kw; ++kw) {
    int64_t off = kw * g.dilationW - pad->left; // input column of output 0
    if (off >= 0 && last + off <= pad->width - 1)
      return kw;
  }
  return -1;
}

ConvKernel::TapCols ConvKernel::tapCols(const Chunk &ch, int64_t kw) const {
  int64_t s = g.strideW, off = kw * g.dilationW - (trimmed ? pad->left : 0);
  int64_t qa = ch.q0, qb = ch.q0 + ch.wc;
  if (trimmed) {
    // Output column q reads input column q * s + off of the source.
    if (off < 0)
      qa = std::max(qa, (-off + s - 1) / s);
    int64_t lastIn = pad->width - 1 - off;
    qb = lastIn < 0 ? qa : std::min(qb, lastIn / s + 1);
  }
  return {qa, qb, qa * s + off};
}

Value ConvKernel::accWindow(OpBuilder &b, Value acc, int64_t parts,
                            const Chunk &ch, int64_t qa, int64_t qb) const {
  if (qa == ch.q0 && qb == ch.q0 + ch.wc)
    return acc;
  SmallVector<int64_t> shape = {parts, ch.rc, ch.wc};
  SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
  if (ch.imgs > 1) {
    shape.insert(shape.begin() + 1, ch.imgs);
    groups = {{0}, {1, 2, 3}};
  }
  Value v = memref::ExpandShapeOp::create(b, loc, shape, acc, groups);
  if (ch.imgs > 1)
    return imagesWindowOf(b, loc, v, parts, 0, ch.imgs, 0, ch.rc, 1, qa - ch.q0,
                          qb - qa, 1);
  return windowOf(b, loc, v, parts, 0, ch.rc, 1, qa - ch.q0, qb - qa, 1);
}

/// Whether the kernel's last group of chunks goes a chunk at a time: when
/// the result leaves the accumulators by more than an evacuation in place
/// (a DMA to another layout, to HBM, or a pooling first), a group's
/// chunks, all finished at once, leave the next kernel waiting for that
/// chain; one at a time, the chains of all but the last overlap its
/// matmuls. Worth it when the LoadStationary operations the group no
/// longer shares cost less than a DMA's latency (a PE-bound f32 layer
/// evacuated in place only pays them: ResNet-50 b1 734 -> 743 us).
bool ConvKernel::splitLastGroup() const {
  const TileOptions::Rates &t = options.rates;
  bool inPlace = evacuatesInPlace();
  // Several images in flight: the next kernel has others to start on
  // (ResNet-50 at batch 8 in f32, in groups of one image: 4,411 -> 4,422
  // us split).
  if (!t.peClockMHz || !oneImageInFlight() || (inPlace && g.inputType.isF32()))
    return false;
  int64_t factor = g.inputType.isF32() ? t.peFp32Factor : 1;
  double loads = double((kChunksPerGroup - 1) * cBlocks * taps() *
                        t.peLoadStationaryCycles * factor) *
                 1000.0 / double(t.peClockMHz);
  return loads <= double(t.dmaLatencyNs);
}

void ConvKernel::emit() {
  if (diagonal) {
    compact = loadCompact();
    chooseVectorChunks();
  }
  bool anyPe = chunkPaths.empty() || anyOn(ChunkPath::PE);
  SmallVector<Value> filters =
      diagonal ? SmallVector<Value>{anyPe ? buildDiagonal() : Value()}
               : loadFilters();
  // A scaled filter is packed per image, after its scaling.
  if (bands > 1 && !outBands && filters.front() && !scale)
    filters = {packFilter(filters.front())};
  if (chained)
    chainFilter = loadChainFilter();
  if (partner)
    partnerFilters = loadFilterBlocks(partnerW, partner->g.c, 1, partner->g.f,
                                      partner->g.filterType);
  if (phases)
    phaseFilters = loadPhaseFilters();
  // Packed bands on the vector engines: each band's partitions get a copy
  // of the compact weights (a small DMA within SBUF per band).
  bool anyVector =
      llvm::any_of(chunkPaths, [&](ChunkPath p) { return onVector(p); });
  if (bands > 1 && anyVector) {
    int64_t taps = g.kh * g.kw;
    Value packed = allocTile(b, loc, {bands * g.c, taps}, g.filterType);
    for (int64_t j = 0; j < bands; ++j)
      tile::DmaOp::create(b, loc, compact,
                          tileSlice(b, loc, packed, j * g.c, g.c, 0, taps));
    compact = packed;
  }
  if (anyOn(ChunkPath::DveTaps)) {
    tapWeights = allocTile(b, loc, {bands * g.c, g.kh * g.kw}, b.getF32Type(),
                           tile::MemorySpace::PSUM);
    tile::CopyOp::create(b, loc, compact, tapWeights);
  }
  // Static loops: nki-unroll would unroll them anyway, and the padding's
  // border differs from band to band. Packed, rows [oh0, oh0 + rows) of
  // each band go at once.
  for (int64_t n = 0; n < g.n; n += imageGroup) {
    SmallVector<Value> imageFilters = filters;
    if (scale && failed(scaleFilters(n, imageFilters)))
      return;
    if (scale && bands > 1 && !outBands)
      imageFilters = {packFilter(imageFilters.front())};
    SmallVector<int64_t> images =
        llvm::to_vector(llvm::seq(n, std::min(n + imageGroup, g.n)));
    bool lastImages = n + imageGroup >= g.n;
    for (int64_t oh0 = 0; oh0 < bandH; oh0 += bandRows) {
      lastBand = lastImages && !lastRows && oh0 + bandRows >= bandH;
      emitBand(b, images, oh0, std::min(bandRows, bandH - oh0), imageFilters);
    }
    if (lastRows) {
      partialGroup = true;
      lastBand = lastImages;
      emitBand(b, images, bandH, 1, imageFilters);
      partialGroup = false;
    }
    lastBand = tailGroup = false;
  }
}

std::optional<PackedLayout> ConvKernel::packedLayout() const {
  const std::optional<ResidentRef> &ref = input.resident;
  if (!ref || outBands || !(foldRows || bands > 1) || foldCols != 1 ||
      cBlocks != 1 || scale || trimmed || stackWindows > 1)
    return std::nullopt;
  // The whole tensor, which the padding (if any) surrounds.
  const ResidentTensor &t = *ref->tensor;
  int64_t h = pad ? pad->height : g.h, w = pad ? pad->width : g.w;
  if (ref->n || ref->c || ref->h || ref->w || ref->rowStep != 1 ||
      ref->colStep != 1 || t.c != g.c || t.h != h || t.w != w)
    return std::nullopt;
  PackedLayout p;
  p.reader = op;
  p.rows = tileRows(bandH) + (lastRows ? 1 : 0);
  p.width = g.w;
  p.rowStep = foldRows ? foldRowStep() : 1;
  p.top = pad ? pad->top : 0;
  p.left = pad ? pad->left : 0;
  int64_t fold = foldRows ? foldGroups() : 1;
  for (int64_t j = 0; j < bands; ++j)
    for (int64_t kh = 0; kh < fold; ++kh)
      p.rowAt.push_back(bandInputRow(0, j, kh));
  p.bands = bands;
  p.stack = stack;
  p.foldRows = foldRows;
  p.engineCopies = !diagonal;
  return p;
}

std::optional<ConvPacking>
tiling::analyzeConvPacking(OpBuilder &b, linalg::GenericOp op,
                           const conv::ConvGeneric &g, const ConvParts &parts,
                           const TileOptions &options) {
  ConvKernel kernel(b, op, g, parts, options);
  kernel.forPacking = true;
  // A kernel that cannot be analyzed says so when it is tiled.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(kernel.analyze()))
    return std::nullopt;
  return ConvPacking{kernel.blocks(), kernel.poolInKernel ? kernel.blocks() : 0,
                     kernel.packedLayout()};
}

LogicalResult tiling::tileConv(OpBuilder &b, linalg::GenericOp op,
                               const conv::ConvGeneric &g,
                               const ConvParts &parts,
                               const TileOptions &options) {
  ConvKernel kernel(b, op, g, parts, options);
  if (failed(kernel.analyze()))
    return failure();
  kernel.emit();
  kernel.recordResultTail();
  if (failed(kernel.status) || !parts.pool || kernel.poolInKernel)
    return kernel.status;
  // Chunks that are not pairs of whole rows: the pooling's own kernel,
  // right after this one.
  return tilePool(b, parts.pool->op, /*isMax=*/true,
                  parts.pool->padding ? &*parts.pool->padding : nullptr,
                  /*identityInit=*/true, options);
}
