//===- Conv.cpp - ONNX Conv, ConvTranspose and pooling --------------------===//
//
// Convolutions become linalg's NC-first named convolutions (grouped ones the
// ngchw_gfchw form, 1-D grouped ones lifted to 2-D) on an input padded with
// tensor.pad (grouped 3-D ones one convolution per group); the compiler
// turns them into an im2col gather and one matmul.
// ConvTranspose is stride^d sub-pixel convolutions of the input with taps
// of the flipped, channel-swapped kernel, each written into a strided slice
// of the result (with dilations, the convolution of the zero-inserted
// input). Pooling is linalg's max/sum pooling on a
// padded input (-inf for max, 0 for average, whose divisor, the number of
// counted window elements at each output position, is a constant); 3-D
// pooling is two 2-D poolings, since max and sum are separable.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "mlir/IR/Matchers.h"

#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace nki::onnx_import;

namespace {

int64_t product(ArrayRef<int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// Static offsets, sizes or strides of a slice.
SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> v) {
  return llvm::map_to_vector(
      v, [&](int64_t i) -> OpFoldResult { return b.getIndexAttr(i); });
}

/// The unit-stride slice [offsets, offsets + sizes) of `v`, or `v` itself
/// when that is all of it.
Value sliceOf(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> offsets,
              ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == sizes)
    return v;
  SmallVector<int64_t> ones(sizes.size(), 1);
  return tensor::ExtractSliceOp::create(
             b, loc, RankedTensorType::get(sizes, type.getElementType()), v,
             indexAttrs(b, offsets), indexAttrs(b, sizes), indexAttrs(b, ones))
      .getResult();
}

/// Window geometry of one node, per spatial dim.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
  /// Input positions the windows reach past the padded end (ceil_mode):
  /// padded too, but never counted.
  SmallVector<int64_t> extraEnd;
  int64_t effective(size_t d) const {
    return dilations[d] * (kernel[d] - 1) + 1;
  }
};

/// Reads kernel_shape, strides, dilations, pads and auto_pad of a Conv or
/// pooling node over spatial input sizes `in`; `kernel` is the filter's
/// spatial shape for convolutions (empty for pooling: kernel_shape is then
/// required).
FailureOr<Window> readWindow(Importer &imp, const onnx::NodeProto &node,
                             ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                             bool ceilMode) {
  Location loc = imp.nodeLoc(node);
  size_t s = in.size();
  Window w;
  std::optional<SmallVector<int64_t>> ks = intsAttr(node, "kernel_shape");
  if (ks && !kernel.empty() && ArrayRef<int64_t>(*ks) != kernel)
    return emitError(loc) << node.op_type()
                          << " kernel_shape does not match the weight's "
                             "spatial shape";
  if (!ks && kernel.empty())
    return emitError(loc) << node.op_type() << " needs kernel_shape";
  w.kernel = ks ? *ks : SmallVector<int64_t>(kernel);
  auto ints = [&](StringRef name, size_t n,
                  int64_t dflt) -> FailureOr<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = intsAttr(node, name);
    if (!v)
      return SmallVector<int64_t>(n, dflt);
    if (v->size() != n)
      return emitError(loc) << node.op_type() << " " << name << " has "
                            << v->size() << " values; expected " << n;
    return *v;
  };
  FailureOr<SmallVector<int64_t>> strides = ints("strides", s, 1);
  FailureOr<SmallVector<int64_t>> dilations = ints("dilations", s, 1);
  FailureOr<SmallVector<int64_t>> pads = ints("pads", 2 * s, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  if (w.kernel.size() != s)
    return emitError(loc) << node.op_type() << " kernel_shape has "
                          << w.kernel.size() << " values; expected " << s;
  w.strides = *strides;
  w.dilations = *dilations;
  for (size_t d = 0; d < s; ++d) {
    if (w.kernel[d] < 1 || w.strides[d] < 1 || w.dilations[d] < 1)
      return emitError(loc) << node.op_type()
                            << " kernel_shape, strides and dilations must "
                               "be positive";
    if ((*pads)[d] < 0 || (*pads)[d + s] < 0)
      return emitError(loc) << node.op_type() << " pads must be >= 0";
  }
  std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
  for (size_t d = 0; d < s; ++d) {
    int64_t eff = w.effective(d), pb = (*pads)[d], pe = (*pads)[d + s], out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (in[d] + w.strides[d] - 1) / w.strides[d];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + eff - in[d]);
      pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (autoPad == "VALID" || autoPad == "NOTSET") {
      if (autoPad == "VALID")
        pb = pe = 0;
      int64_t span = in[d] + pb + pe - eff;
      if (span < 0)
        return emitError(loc)
               << node.op_type() << " window (" << eff
               << " with dilation) is larger than the padded input ("
               << in[d] + pb + pe << ") along spatial dim " << d;
      out = (ceilMode ? (span + w.strides[d] - 1) / w.strides[d]
                      : span / w.strides[d]) +
            1;
      // The last window must start inside the input or the leading pad.
      if (ceilMode && (out - 1) * w.strides[d] >= in[d] + pb)
        --out;
    } else {
      return emitError(loc) << node.op_type() << " auto_pad '" << autoPad
                            << "' is not one of NOTSET, SAME_UPPER, "
                               "SAME_LOWER, VALID";
    }
    w.padBegin.push_back(pb);
    w.padEnd.push_back(pe);
    w.out.push_back(out);
    w.extraEnd.push_back(std::max<int64_t>(0, (out - 1) * w.strides[d] + eff -
                                                  (in[d] + pb + pe)));
  }
  return w;
}

/// x[N, C, S...] padded along the spatial dims with `value`.
Value padSpatial(Importer &imp, Location loc, Value x, ArrayRef<int64_t> lo,
                 ArrayRef<int64_t> hi, double value) {
  if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(hi, [](int64_t v) { return v == 0; }))
    return x;
  OpBuilder &b = imp.b;
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = low;
  for (size_t d = 0; d < lo.size(); ++d) {
    shape[d + 2] += lo[d] + hi[d];
    low.push_back(b.getIndexAttr(lo[d]));
    high.push_back(b.getIndexAttr(hi[d]));
  }
  Value pad = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(t.getElementType(), value));
  return tensor::PadOp::create(b, loc,
                               RankedTensorType::get(shape, t.getElementType()),
                               x, low, high, pad);
}

DenseIntElementsAttr i64s(OpBuilder &b, ArrayRef<int64_t> v) {
  return b.getI64TensorAttr(v);
}

/// y = conv(x, w) of already padded x[N, C, S...] and w[F, C/group, K...],
/// for 1 to 3 spatial dims.
FailureOr<Value> convolve(Importer &imp, Location loc, Value x, Value w,
                          int64_t group, ArrayRef<int64_t> out,
                          ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations) {
  OpBuilder &b = imp.b;
  SmallVector<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  Type elt = tensorType(x).getElementType();
  size_t s = out.size();
  int64_t n = xs[0], c = xs[1], f = ws[0];
  SmallVector<int64_t> yShape = {n, f};
  llvm::append_range(yShape, out);
  if (group > 1 && s == 1) {
    // linalg has no grouped 1-D form: lift to 2-D with a unit height.
    FailureOr<Value> y =
        convolve(imp, loc, imp.reshape(loc, x, {n, c, 1, xs[2]}),
                 imp.reshape(loc, w, {f, ws[1], 1, ws[2]}), group, {1, out[0]},
                 {1, strides[0]}, {1, dilations[0]});
    if (failed(y))
      return failure();
    return imp.reshape(loc, *y, yShape);
  }
  auto make = [&](auto tag, Value in, Value filter,
                  ArrayRef<int64_t> shape) -> Value {
    using OpTy = typename decltype(tag)::type;
    Value init = imp.filled(loc, shape, elt, 0.0);
    return OpTy::create(b, loc, TypeRange{init.getType()},
                        ValueRange{in, filter}, ValueRange{init},
                        i64s(b, strides), i64s(b, dilations))
        .getResult(0);
  };
  if (group == 1) {
    if (s == 1)
      return make(llvm::type_identity<linalg::Conv1DNcwFcwOp>(), x, w, yShape);
    if (s == 2)
      return make(llvm::type_identity<linalg::Conv2DNchwFchwOp>(), x, w,
                  yShape);
    return make(llvm::type_identity<linalg::Conv3DNcdhwFcdhwOp>(), x, w,
                yShape);
  }
  if (s == 3) {
    // linalg has no grouped 3-D form: one convolution per group.
    int64_t cg = c / group, fg = f / group;
    Value y = imp.emptyLike(loc, yShape, elt);
    SmallVector<int64_t> ones(5, 1);
    for (int64_t g = 0; g < group; ++g) {
      SmallVector<int64_t> xSize = {n, cg, xs[2], xs[3], xs[4]};
      SmallVector<int64_t> wSize = {fg, cg, ws[2], ws[3], ws[4]};
      SmallVector<int64_t> ySize = {n, fg, out[0], out[1], out[2]};
      Value xg = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(xSize, elt), x,
          indexAttrs(b, {0, g * cg, 0, 0, 0}), indexAttrs(b, xSize),
          indexAttrs(b, ones));
      Value wg = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(wSize, elt), w,
          indexAttrs(b, {g * fg, 0, 0, 0, 0}), indexAttrs(b, wSize),
          indexAttrs(b, ones));
      Value part = make(llvm::type_identity<linalg::Conv3DNcdhwFcdhwOp>(), xg,
                        wg, ySize);
      y = tensor::InsertSliceOp::create(
          b, loc, part, y, indexAttrs(b, {0, g * fg, 0, 0, 0}),
          indexAttrs(b, ySize), indexAttrs(b, ones));
    }
    return y;
  }
  SmallVector<int64_t> xg = {n, group, c / group, xs[2], xs[3]};
  SmallVector<int64_t> wg = {group, f / group, ws[1], ws[2], ws[3]};
  SmallVector<int64_t> yg = {n, group, f / group, out[0], out[1]};
  Value y = make(llvm::type_identity<linalg::Conv2DNgchwGfchwOp>(),
                 imp.reshape(loc, x, xg), imp.reshape(loc, w, wg), yg);
  return imp.reshape(loc, y, yShape);
}

/// Adds a per-channel bias b[F] to y[N, F, S...].
FailureOr<Value> addBias(Importer &imp, const onnx::NodeProto &node, Value y,
                         Value bias) {
  if (!bias)
    return y;
  SmallVector<int64_t> ys = shapeOf(y);
  if (shapeOf(bias) != SmallVector<int64_t>{ys[1]})
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " bias " << bias.getType()
           << " is not one value per output channel (" << ys[1] << ")";
  SmallVector<int64_t> bs(ys.size() - 1, 1);
  bs[0] = ys[1];
  return imp.elementwise(imp.nodeLoc(node),
                         {y, imp.reshape(imp.nodeLoc(node), bias, bs)},
                         [](OpBuilder &nb, Location l, ValueRange v) -> Value {
                           return arith::AddFOp::create(nb, l, v[0], v[1]);
                         });
}

/// Checks x[N, C, S...] with 1 to 3 spatial dims.
LogicalResult checkImage(Importer &imp, const onnx::NodeProto &node, Value x,
                         StringRef what) {
  int64_t rank = tensorType(x).getRank();
  if (rank < 3 || rank > 5)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " " << what << " must be N x C x D1 [x D2 "
           << "[x D3]] (rank 3 to 5), got " << x.getType();
  return success();
}

} // namespace

FailureOr<Value> nki::onnx_import::convolution(Importer &imp,
                                               const onnx::NodeProto &node,
                                               Value x, Value w) {
  Location loc = imp.nodeLoc(node);
  if (failed(checkImage(imp, node, x, "input")))
    return failure();
  SmallVector<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  int64_t group = intAttr(node, "group", 1);
  if (ws.size() != xs.size())
    return emitError(loc) << node.op_type() << " weight " << w.getType()
                          << " must have the input's rank (" << xs.size()
                          << ")";
  if (group < 1 || xs[1] % group || ws[0] % group || ws[1] * group != xs[1])
    return emitError(loc) << node.op_type() << " group " << group
                          << " does not fit " << xs[1]
                          << " input channels and weight " << w.getType();
  FailureOr<Window> win =
      readWindow(imp, node, ArrayRef<int64_t>(xs).drop_front(2),
                 ArrayRef<int64_t>(ws).drop_front(2), /*ceilMode=*/false);
  if (failed(win))
    return failure();
  Value padded = padSpatial(imp, loc, x, win->padBegin, win->padEnd, 0.0);
  return convolve(imp, loc, padded, w, group, win->out, win->strides,
                  win->dilations);
}

namespace {

LogicalResult conv(Importer &imp, const onnx::NodeProto &node) {
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  Value bias = ins->size() > 2 ? (*ins)[2] : Value();
  FailureOr<Value> y = convolution(imp, node, (*ins)[0], (*ins)[1]);
  if (failed(y))
    return failure();
  FailureOr<Value> r = addBias(imp, node, *y, bias);
  return failed(r) ? failure() : imp.define(node, *r);
}

/// One dim of a transposed convolution's phase r (its outputs j = r +
/// stride * q): the kernel taps k = (r + pad) mod stride, + stride, ...
/// read x[q + m0], x[q + m0 - 1], ...; in the flipped kernel they are the
/// stride-strided run from `wOff` in increasing order of the input
/// position, so the phase is a stride-1 convolution of x[xOff, xOff +
/// xLen) padded by lo and hi zeros.
struct Phase {
  int64_t q = 0, taps = 0, wOff = 0, xOff = 0, xLen = 0, lo = 0, hi = 0;
  /// The convolution's outputs, of which the phase keeps [skip, skip + q).
  int64_t convOut = 0, skip = 0;
  Phase(int64_t r, int64_t stride, int64_t pad, int64_t kernel, int64_t in,
        int64_t out) {
    q = out > r ? (out - r + stride - 1) / stride : 0;
    int64_t k0 = (r + pad) - stride * llvm::divideFloorSigned(r + pad, stride);
    int64_t m0 = llvm::divideFloorSigned(r + pad - k0, stride);
    taps = k0 < kernel ? (kernel - k0 + stride - 1) / stride : 0;
    wOff = kernel - 1 - k0 - (taps - 1) * stride;
    first = m0 - (taps - 1);
    end = m0 + q;
    xOff = std::max<int64_t>(first, 0);
    xLen = std::min(in, end) - xOff;
    lo = std::max<int64_t>(-first, 0);
    hi = std::max<int64_t>(end - in, 0);
    convOut = q;
    this->in = in;
  }
  /// Some tap reaches the input.
  bool reads() const { return taps > 0 && xLen > 0; }
  /// Reads every column of x (the convolution kernels read whole rows) and
  /// computes the outputs around the phase's too, to be cut away.
  void widen() {
    if (!reads() || (xOff == 0 && xLen == in))
      return;
    lo = std::max<int64_t>(-first, 0);
    hi = std::max<int64_t>(end - in, 0);
    xOff = 0;
    xLen = in;
    convOut = lo + in + hi - (taps - 1);
    skip = first + lo;
  }

private:
  int64_t first = 0, end = 0, in = 0;
};

/// The slice of the flipped filter wf (see convTranspose) at `offsets`,
/// `sizes` and `steps` ([F, C/group, taps...]), read straight from the
/// constant ONNX weight w[C, F/group, K...]: wf[g*fg + o, ci, k'...] is
/// w[g*cg + ci, o, K-1-k'...].
DenseElementsAttr phaseFilter(DenseElementsAttr w, int64_t group,
                              ArrayRef<int64_t> offsets,
                              ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps,
                              Type elt) {
  auto type = RankedTensorType::get(sizes, elt);
  if (w.isSplat())
    return DenseElementsAttr::get(type, w.getSplatValue<Attribute>());
  ArrayRef<int64_t> ws = w.getType().getShape();
  size_t rank = ws.size();
  int64_t fg = ws[1], cg = ws[0] / group;
  SmallVector<int64_t> wStrides(rank, 1);
  for (int64_t d = int64_t(rank) - 2; d >= 0; --d)
    wStrides[d] = wStrides[d + 1] * ws[d + 1];
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = w.getRawData();
  std::vector<char> data(product(sizes) * bytes);
  SmallVector<int64_t> i(rank, 0); // index into the slice
  for (int64_t e = 0, n = product(sizes); e < n; ++e) {
    int64_t fo = offsets[0] + i[0], ci = offsets[1] + i[1];
    int64_t src = ((fo / fg) * cg + ci) * wStrides[0] + (fo % fg) * wStrides[1];
    for (size_t d = 2; d < rank; ++d)
      src += (ws[d] - 1 - (offsets[d] + i[d] * steps[d])) * wStrides[d];
    std::memcpy(&data[e * bytes], &raw[src * bytes], bytes);
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      if (++i[d] < sizes[d])
        break;
      i[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(type, data);
}

/// ConvTranspose with unit dilations as stride^d sub-pixel convolutions:
/// phase r (per dim) is a stride-1 convolution of x itself with its taps
/// of the flipped filter `wf` [F, C/group, K...], written into the result's
/// strided slice. No zero-inserted input is built and nothing is
/// multiplied by an inserted zero; each phase's bias add fuses into its
/// convolution, and one-shot bufferization writes each phase straight into
/// the result's slice.
FailureOr<Value> subPixel(Importer &imp, const onnx::NodeProto &node, Value x,
                          Value w, llvm::function_ref<Value()> flipped,
                          Value bias, int64_t group, ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> pads, ArrayRef<int64_t> out) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  SmallVector<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  // ws as wf's shape: [F, C/group, K...].
  std::swap(ws[0], ws[1]);
  ws[0] *= group;
  ws[1] /= group;
  Type elt = tensorType(x).getElementType();
  size_t s = out.size();
  // A constant filter's phases are constants (no flip at run time).
  DenseElementsAttr constant;
  if (!matchPattern(w, m_Constant(&constant)) ||
      constant.getElementType() != elt)
    constant = {};
  Value wf = constant ? Value() : flipped();
  SmallVector<int64_t> yShape = {xs[0], ws[0]};
  llvm::append_range(yShape, out);
  Value y = imp.emptyLike(loc, yShape, elt);
  int64_t phases = 1;
  for (int64_t st : strides)
    phases *= st;
  for (int64_t p = 0; p < phases; ++p) {
    // Phase r per dim (the last dim varies fastest).
    SmallVector<int64_t> r(s);
    for (int64_t d = int64_t(s) - 1, rest = p; d >= 0; --d) {
      r[d] = rest % strides[d];
      rest /= strides[d];
    }
    SmallVector<Phase> dims;
    for (size_t d = 0; d < s; ++d)
      dims.emplace_back(r[d], strides[d], pads[d], ws[d + 2], xs[d + 2],
                        out[d]);
    dims.back().widen();
    if (llvm::any_of(dims, [](const Phase &ph) { return ph.q == 0; }))
      continue;
    SmallVector<int64_t> partShape = {xs[0], ws[0]}, xo = {0, 0},
                         xl = {xs[0], xs[1]}, wo = {0, 0}, wl = {ws[0], ws[1]},
                         lo, hi, q, skip = {0, 0};
    for (const Phase &ph : dims) {
      partShape.push_back(ph.q);
      q.push_back(ph.convOut);
      skip.push_back(ph.skip);
      xo.push_back(ph.xOff);
      xl.push_back(ph.xLen);
      wo.push_back(ph.wOff);
      wl.push_back(ph.taps);
      lo.push_back(ph.lo);
      hi.push_back(ph.hi);
    }
    Value part;
    if (llvm::all_of(dims, [](const Phase &ph) { return ph.reads(); })) {
      SmallVector<int64_t> wSteps = {1, 1};
      llvm::append_range(wSteps, strides);
      Value xp = sliceOf(b, loc, x, xo, xl);
      Value wp =
          constant
              ? arith::ConstantOp::create(
                    b, loc, phaseFilter(constant, group, wo, wl, wSteps, elt))
                    .getResult()
              : tensor::ExtractSliceOp::create(
                    b, loc, RankedTensorType::get(wl, elt), wf,
                    indexAttrs(b, wo), indexAttrs(b, wl), indexAttrs(b, wSteps))
                    .getResult();
      FailureOr<Value> c =
          convolve(imp, loc, padSpatial(imp, loc, xp, lo, hi, 0.0), wp, group,
                   q, SmallVector<int64_t>(s, 1), SmallVector<int64_t>(s, 1));
      if (failed(c))
        return failure();
      part = *c;
    } else {
      // No tap of this phase reaches the input: the bias alone.
      part = imp.filled(loc, partShape, elt, 0.0);
    }
    FailureOr<Value> withBias = addBias(imp, node, part, bias);
    if (failed(withBias))
      return failure();
    withBias = sliceOf(b, loc, *withBias, skip, partShape);
    SmallVector<int64_t> yo = {0, 0}, ySteps = {1, 1};
    llvm::append_range(yo, r);
    llvm::append_range(ySteps, strides);
    y = tensor::InsertSliceOp::create(b, loc, *withBias, y, indexAttrs(b, yo),
                                      indexAttrs(b, partShape),
                                      indexAttrs(b, ySteps));
  }
  return y;
}

/// ConvTranspose: the convolution of the input with stride-1 holes
/// inserted and the kernel flipped and its channel dims swapped, over the
/// window of the full result that pads and output_padding select.
LogicalResult convTranspose(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  OpBuilder &b = imp.b;
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 2);
  if (failed(ins))
    return failure();
  Value x = (*ins)[0], w = (*ins)[1];
  Value bias = ins->size() > 2 ? (*ins)[2] : Value();
  if (failed(checkImage(imp, node, x, "input")))
    return failure();
  SmallVector<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  size_t s = xs.size() - 2;
  int64_t group = intAttr(node, "group", 1);
  if (ws.size() != xs.size() || group < 1 || ws[0] != xs[1] || xs[1] % group)
    return emitError(loc) << "ConvTranspose weight " << w.getType()
                          << " does not fit input " << x.getType()
                          << " with group " << group;
  int64_t cg = xs[1] / group, fg = ws[1], f = fg * group;
  SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (std::optional<SmallVector<int64_t>> ks = intsAttr(node, "kernel_shape"))
    if (*ks != kernel)
      return emitError(loc) << "ConvTranspose kernel_shape does not match "
                               "the weight's spatial shape";
  auto ints = [&](StringRef name, size_t n,
                  int64_t dflt) -> FailureOr<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> v = intsAttr(node, name);
    if (!v)
      return SmallVector<int64_t>(n, dflt);
    if (v->size() != n)
      return emitError(loc) << "ConvTranspose " << name << " has " << v->size()
                            << " values; expected " << n;
    return *v;
  };
  FailureOr<SmallVector<int64_t>> strides = ints("strides", s, 1);
  FailureOr<SmallVector<int64_t>> dilations = ints("dilations", s, 1);
  FailureOr<SmallVector<int64_t>> pads = ints("pads", 2 * s, 0);
  FailureOr<SmallVector<int64_t>> outPad = ints("output_padding", s, 0);
  if (failed(strides) || failed(dilations) || failed(pads) || failed(outPad))
    return failure();
  std::optional<SmallVector<int64_t>> outShape = intsAttr(node, "output_shape");
  if (outShape && outShape->size() == s + 2)
    outShape->erase(outShape->begin(), outShape->begin() + 2);
  if (outShape && outShape->size() != s)
    return emitError(loc) << "ConvTranspose output_shape has "
                          << outShape->size() << " values; expected " << s;
  std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return emitError(loc) << "ConvTranspose auto_pad '" << autoPad
                          << "' is not one of NOTSET, SAME_UPPER, "
                             "SAME_LOWER, VALID";
  SmallVector<int64_t> pb(s), out(s), eff(s);
  for (size_t d = 0; d < s; ++d) {
    int64_t st = (*strides)[d], dl = (*dilations)[d];
    if (st < 1 || dl < 1 || kernel[d] < 1)
      return emitError(loc) << "ConvTranspose strides, dilations and kernel "
                               "sizes must be positive";
    eff[d] = dl * (kernel[d] - 1) + 1;
    // The full result: every input element scattered through the kernel.
    int64_t full = st * (xs[d + 2] - 1) + (*outPad)[d] + eff[d];
    int64_t begin = (*pads)[d], end = (*pads)[d + s];
    if (outShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t target = outShape ? (*outShape)[d] : xs[d + 2] * st;
      int64_t total = full - target;
      // Floor division: a negative total (output_shape beyond the full
      // result) adds its zeros at the end, as ONNX's reference does.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      begin = autoPad == "SAME_UPPER" ? half : total - half;
      end = total - begin;
    } else if (autoPad == "VALID") {
      begin = end = 0;
    }
    pb[d] = begin;
    out[d] = full - begin - end;
    if (out[d] < 1)
      return emitError(loc) << "ConvTranspose pads leave no output along "
                               "spatial dim "
                            << d;
  }
  Type elt = tensorType(x).getElementType();
  // Filter: w[g*cg, fg, K...] -> wf[g*fg, cg, K...] with K reversed. A
  // flip of every spatial dim reverses the flattened kernel index.
  auto flipped = [&]() -> Value {
    int64_t kk = product(kernel);
    Value wt = imp.transpose(loc, imp.reshape(loc, w, {group, cg, fg, kk}),
                             {0, 2, 1, 3});
    Value wf = imp.emptyLike(loc, {group, fg, cg, kk}, elt);
    auto sliceType = RankedTensorType::get({group, fg, cg}, elt);
    for (int64_t k = 0; k < kk; ++k) {
      Value piece = tensor::ExtractSliceOp::create(
          b, loc, sliceType, wt, indexAttrs(b, {0, 0, 0, k}),
          indexAttrs(b, {group, fg, cg, 1}), indexAttrs(b, {1, 1, 1, 1}));
      wf = tensor::InsertSliceOp::create(
          b, loc, piece, wf, indexAttrs(b, {0, 0, 0, kk - 1 - k}),
          indexAttrs(b, {group, fg, cg, 1}), indexAttrs(b, {1, 1, 1, 1}));
    }
    SmallVector<int64_t> wfShape = {f, cg};
    llvm::append_range(wfShape, kernel);
    return imp.reshape(loc, wf, wfShape);
  };
  SmallVector<int64_t> unit(s, 1);
  if (llvm::all_of(*dilations, [](int64_t d) { return d == 1; })) {
    FailureOr<Value> y =
        subPixel(imp, node, x, w, flipped, bias, group, *strides, pb, out);
    return failed(y) ? failure() : imp.define(node, *y);
  }
  Value wf = flipped();
  // z: the out + eff - 1 positions of the zero-inserted input the kept
  // outputs read, x[i] at position eff - 1 - pads[begin] + stride * i; the
  // elements of x that fall outside are not copied (z is never cut: the
  // convolution reads whole rows). Negative padding (output_shape beyond
  // the full result) reads more zeros.
  SmallVector<int64_t> zShape = {xs[0], xs[1]}, zOff = {0, 0}, zSteps = {1, 1},
                       xOff = {0, 0}, xLen = {xs[0], xs[1]};
  bool any = true;
  for (size_t d = 0; d < s; ++d) {
    int64_t st = (*strides)[d], lead = eff[d] - 1 - pb[d];
    int64_t need = out[d] + eff[d] - 1;
    int64_t i0 = std::max<int64_t>(0, -llvm::divideFloorSigned(lead, st));
    int64_t i1 =
        std::min(xs[d + 2], llvm::divideFloorSigned(need - 1 - lead, st) + 1);
    any &= i1 > i0;
    zShape.push_back(need);
    zOff.push_back(lead + st * i0);
    zSteps.push_back(st);
    xOff.push_back(i0);
    xLen.push_back(i1 - i0);
  }
  Value z = imp.filled(loc, zShape, elt, 0.0);
  if (any) {
    Value part = sliceOf(b, loc, x, xOff, xLen);
    z = tensor::InsertSliceOp::create(b, loc, part, z, indexAttrs(b, zOff),
                                      indexAttrs(b, xLen),
                                      indexAttrs(b, zSteps));
  }
  FailureOr<Value> y = convolve(imp, loc, z, wf, group, out, unit, *dilations);
  if (failed(y))
    return failure();
  FailureOr<Value> r = addBias(imp, node, *y, bias);
  return failed(r) ? failure() : imp.define(node, *r);
}

/// Max or sum pooling of padded x[N, C, S...] (1 to 3 spatial dims).
Value pool(Importer &imp, Location loc, Value x, ArrayRef<int64_t> kernel,
           ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
           ArrayRef<int64_t> out, bool isMax) {
  OpBuilder &b = imp.b;
  SmallVector<int64_t> xs = shapeOf(x);
  Type elt = tensorType(x).getElementType();
  if (kernel.size() == 3) {
    // Separable: pool (H, W) over [N, C*D, H, W], then D over
    // [N, C, D, OH*OW] with a (KD, 1) window.
    Value hw = pool(imp, loc,
                    imp.reshape(loc, x, {xs[0], xs[1] * xs[2], xs[3], xs[4]}),
                    kernel.drop_front(), strides.drop_front(),
                    dilations.drop_front(), out.drop_front(), isMax);
    Value d = pool(imp, loc,
                   imp.reshape(loc, hw, {xs[0], xs[1], xs[2], out[1] * out[2]}),
                   {kernel[0], 1}, {strides[0], 1}, {dilations[0], 1},
                   {out[0], out[1] * out[2]}, isMax);
    return imp.reshape(loc, d, {xs[0], xs[1], out[0], out[1], out[2]});
  }
  SmallVector<int64_t> yShape = {xs[0], xs[1]};
  llvm::append_range(yShape, out);
  Value init = imp.filled(
      loc, yShape, elt, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  Value window = imp.emptyLike(loc, kernel, elt);
  Type types[] = {init.getType()};
  Value inputs[] = {x, window}, outputs[] = {init};
  DenseIntElementsAttr st = i64s(b, strides), dl = i64s(b, dilations);
  Operation *op;
  if (kernel.size() == 1)
    op = isMax ? linalg::PoolingNcwMaxOp::create(b, loc, types, inputs, outputs,
                                                 st, dl)
                     .getOperation()
               : linalg::PoolingNcwSumOp::create(b, loc, types, inputs, outputs,
                                                 st, dl)
                     .getOperation();
  else
    op = isMax ? linalg::PoolingNchwMaxOp::create(b, loc, types, inputs,
                                                  outputs, st, dl)
                     .getOperation()
               : linalg::PoolingNchwSumOp::create(b, loc, types, inputs,
                                                  outputs, st, dl)
                     .getOperation();
  return op->getResult(0);
}

/// Shared by MaxPool and AveragePool: the input, its window and the padded
/// input (`padValue` in the pads and the ceil_mode overhang).
struct PoolSetup {
  Value x, padded;
  Window win;
};

FailureOr<PoolSetup> setupPool(Importer &imp, const onnx::NodeProto &node,
                               double padValue) {
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x) || failed(checkImage(imp, node, *x, "input")))
    return failure();
  if (!isa<FloatType>(tensorType(*x).getElementType()))
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " on " << x->getType()
           << " is not supported: pooling needs a float tensor";
  int64_t ceilMode = intAttr(node, "ceil_mode", 0);
  if (ceilMode != 0 && ceilMode != 1)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " ceil_mode must be 0 or 1";
  FailureOr<Window> win =
      readWindow(imp, node, ArrayRef<int64_t>(shapeOf(*x)).drop_front(2), {},
                 ceilMode == 1);
  if (failed(win))
    return failure();
  SmallVector<int64_t> hi;
  for (size_t d = 0; d < win->padEnd.size(); ++d)
    hi.push_back(win->padEnd[d] + win->extraEnd[d]);
  Value padded =
      padSpatial(imp, imp.nodeLoc(node), *x, win->padBegin, hi, padValue);
  return PoolSetup{*x, padded, *win};
}

LogicalResult maxPool(Importer &imp, const onnx::NodeProto &node) {
  if (node.output_size() > 1 && !node.output(1).empty())
    return emitError(imp.nodeLoc(node))
           << "MaxPool's Indices output (int64) is not supported";
  int64_t order = intAttr(node, "storage_order", 0);
  if (order != 0 && order != 1)
    return emitError(imp.nodeLoc(node)) << "MaxPool storage_order must be 0 "
                                           "or 1";
  // storage_order only orders the Indices output.
  FailureOr<PoolSetup> p =
      setupPool(imp, node, -std::numeric_limits<double>::infinity());
  if (failed(p))
    return failure();
  return imp.define(node,
                    pool(imp, imp.nodeLoc(node), p->padded, p->win.kernel,
                         p->win.strides, p->win.dilations, p->win.out, true));
}

/// How many elements of each window are counted along one dim: those in
/// [lo, hi) of the unpadded input's coordinates.
SmallVector<int64_t> windowCounts(const Window &w, size_t d, int64_t lo,
                                  int64_t hi) {
  SmallVector<int64_t> counts;
  for (int64_t o = 0; o < w.out[d]; ++o) {
    int64_t c = 0;
    for (int64_t k = 0; k < w.kernel[d]; ++k) {
      int64_t pos = o * w.strides[d] + k * w.dilations[d] - w.padBegin[d];
      c += pos >= lo && pos < hi;
    }
    counts.push_back(c);
  }
  return counts;
}

LogicalResult averagePool(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  int64_t includePad = intAttr(node, "count_include_pad", 0);
  if (includePad != 0 && includePad != 1)
    return emitError(loc) << "AveragePool count_include_pad must be 0 or 1";
  FailureOr<PoolSetup> p = setupPool(imp, node, 0.0);
  if (failed(p))
    return failure();
  const Window &w = p->win;
  Value sum =
      pool(imp, loc, p->padded, w.kernel, w.strides, w.dilations, w.out, false);
  // The divisor at each output position is a product of per-dim counts.
  SmallVector<int64_t> in = shapeOf(p->x);
  size_t s = w.out.size();
  SmallVector<double> div = {1.0};
  for (size_t d = 0; d < s; ++d) {
    int64_t lo = includePad ? -w.padBegin[d] : 0;
    int64_t hi = includePad ? in[d + 2] + w.padEnd[d] : in[d + 2];
    SmallVector<int64_t> c = windowCounts(w, d, lo, hi);
    SmallVector<double> next;
    for (double a : div)
      for (int64_t v : c)
        next.push_back(a * double(v));
    div = std::move(next);
  }
  Type elt = tensorType(sum).getElementType();
  auto divide = [](OpBuilder &nb, Location l, ValueRange v) -> Value {
    return arith::DivFOp::create(nb, l, v[0], v[1]);
  };
  if (llvm::all_equal(div)) {
    double c = div.front();
    return imp.define(
        node, imp.elementwise(
                  loc, {sum}, [c](OpBuilder &nb, Location l, ValueRange v) {
                    return arith::DivFOp::create(nb, l, v[0],
                                                 constLike(nb, l, v[0], c))
                        .getResult();
                  }));
  }
  const llvm::fltSemantics &sem = cast<FloatType>(elt).getFloatSemantics();
  SmallVector<APFloat> values;
  for (double v : div) {
    APFloat a(v);
    bool lost;
    a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    values.push_back(a);
  }
  auto type = RankedTensorType::get(w.out, elt);
  Value counts = arith::ConstantOp::create(
      imp.b, loc, DenseElementsAttr::get(type, values));
  return imp.define(node, imp.elementwise(loc, {sum, counts}, divide));
}

} // namespace

void nki::onnx_import::registerConvOps(OpTable &t) {
  t["Conv"] = conv;
  t["ConvTranspose"] = convTranspose;
  t["MaxPool"] = maxPool;
  t["AveragePool"] = averagePool;
}
