//===- Resize.cpp - ONNX Resize and Upsample ------------------------------===//
//
// Resizing is separable: every output element along a resized axis is a
// fixed combination of input elements along that axis, whatever the other
// coordinates. So for each axis whose size or mapping changes, the weights
// are computed here at import into a constant matrix W [out, in] that
// follows ONNX's coordinate transformation and interpolation formulas, and
// the axis is resized by one matmul (Importer::matmulAlong), the last axis
// first as ONNX's reference does. tf_crop_and_resize gives output positions
// that map outside the input `extrapolation_value`: their row of W is zero
// and a constant bias adds the value (out = W x + b).
//
// One case is not a matmul: an integer-factor upsample of H and W of an
// [N, C, H, W] tensor in which every output element copies input element
// (h / fh, w / fw) (nearest, with any transformation that maps so) is one
// linalg.generic whose input map is (n, c, h floordiv fh, w floordiv fw):
// nki-tile runs it as copies on chip (Tiling/Upsample.cpp) instead of two
// matmuls by 0/1 matrices with transposes between them.
//
// Scales, sizes and (for tf_crop_and_resize) roi must therefore be
// compile-time constants. The formulas are the spec's; like ONNX's
// reference, the transformations divide by the unrounded in * scale, and
// output dims are floor(in * scale) (times the roi's extent for
// tf_crop_and_resize, as the spec says). Resize-10 and Upsample (7-9) use
// the asymmetric transformation and floor for nearest. `axes` and
// keep_aspect_ratio_policy (opset 18) are read when present; `antialias`
// is an error.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace nki::onnx_import;

namespace {
struct ResizeAttrs {
  std::string mode = "nearest";
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
};

/// The weights of one resized axis: row-major [m, n], and the value added
/// to each output row (tf_crop_and_resize extrapolation).
struct AxisWeights {
  std::vector<double> w, bias;
  bool identity() const {
    int64_t m = bias.size(), n = m ? w.size() / m : 0;
    if (m != n)
      return false;
    for (int64_t o = 0; o < m; ++o) {
      if (bias[o] != 0.0)
        return false;
      for (int64_t i = 0; i < n; ++i)
        if (w[o * n + i] != (o == i ? 1.0 : 0.0))
          return false;
    }
    return true;
  }
  /// f when output o copies input o / f (m = f * n), else 0.
  int64_t replication() const {
    int64_t m = bias.size(), n = m ? w.size() / m : 0;
    if (!n || m % n)
      return 0;
    int64_t f = m / n;
    for (int64_t o = 0; o < m; ++o) {
      if (bias[o] != 0.0)
        return 0;
      for (int64_t i = 0; i < n; ++i)
        if (w[o * n + i] != (i == o / f ? 1.0 : 0.0))
          return 0;
    }
    return f;
  }
};

/// ONNX's cubic convolution coefficients for the taps at distances
/// 1 + r, r, 1 - r and 2 - r from the sample point (onnx cubic_coeffs).
std::array<double, 4> cubicCoeffs(double r, double a) {
  double s = 1 - r;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

/// The weights for an axis of `n` elements resized to `m` by `scale` (the
/// given scale, or m / n when sizes were given); `roiStart`/`roiEnd` only
/// for tf_crop_and_resize.
AxisWeights axisWeights(const ResizeAttrs &a, int64_t n, int64_t m,
                        double scale, double roiStart, double roiEnd) {
  AxisWeights r;
  r.w.assign(m * n, 0.0);
  r.bias.assign(m, 0.0);
  // ONNX's formulas divide by the unrounded resized length.
  double lengthResized = scale * n;
  for (int64_t o = 0; o < m; ++o) {
    double x;
    const std::string &c = a.coord;
    if (c == "half_pixel") {
      x = (o + 0.5) / scale - 0.5;
    } else if (c == "half_pixel_symmetric") {
      double adjustment = m / lengthResized;
      double offset = n / 2.0 * (1 - adjustment);
      x = offset + (o + 0.5) / scale - 0.5;
    } else if (c == "pytorch_half_pixel") {
      x = lengthResized > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    } else if (c == "align_corners") {
      x = lengthResized == 1 ? 0.0 : o * (n - 1) / (lengthResized - 1);
    } else if (c == "asymmetric") {
      x = o / scale;
    } else if (c == "tf_half_pixel_for_nn") {
      x = (o + 0.5) / scale;
    } else {
      assert(c == "tf_crop_and_resize" && "unchecked transformation mode");
      x = lengthResized > 1
              ? roiStart * (n - 1) +
                    o * (roiEnd - roiStart) * (n - 1) / (lengthResized - 1)
              : 0.5 * (roiStart + roiEnd) * (n - 1);
      if (x < 0 || x > n - 1) {
        r.bias[o] = a.extrapolation;
        continue;
      }
    }
    auto clampIdx = [n](int64_t i) {
      return std::min<int64_t>(std::max<int64_t>(i, 0), n - 1);
    };
    double *row = &r.w[o * n];
    double x0 = std::floor(x), ratio = x - x0;
    if (a.mode == "nearest") {
      double pick;
      if (a.nearest == "floor")
        pick = x0;
      else if (a.nearest == "ceil")
        pick = std::ceil(x);
      else if (ratio == 0.5)
        pick = a.nearest == "round_prefer_ceil" ? x0 + 1 : x0;
      else
        pick = std::floor(x + 0.5);
      row[clampIdx(int64_t(pick))] = 1.0;
    } else if (a.mode == "linear") {
      row[clampIdx(int64_t(x0))] += 1 - ratio;
      row[clampIdx(int64_t(x0) + 1)] += ratio;
    } else {
      std::array<double, 4> k = cubicCoeffs(ratio, a.cubicA);
      int64_t first = int64_t(x0) - 1;
      if (a.excludeOutside) {
        double sum = 0;
        for (int t = 0; t < 4; ++t) {
          if (first + t < 0 || first + t >= n)
            k[t] = 0;
          sum += k[t];
        }
        for (double &v : k)
          v /= sum;
      }
      for (int t = 0; t < 4; ++t)
        row[clampIdx(first + t)] += k[t];
    }
  }
  return r;
}

/// Resizes `x` (float or integer with nearest) to `outShape`, axis d with
/// `scales[d]`; `roi` is [starts..., ends...] over all axes or empty.
LogicalResult lowerResize(Importer &imp, const onnx::NodeProto &node, Value x,
                          const ResizeAttrs &a, ArrayRef<double> scales,
                          ArrayRef<int64_t> outShape, ArrayRef<double> roi) {
  Location loc = imp.nodeLoc(node);
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  Type elt = t.getElementType();
  auto intElt = dyn_cast<IntegerType>(elt);
  if (intElt && (a.mode != "nearest" || intElt.getWidth() < 8))
    return emitError(loc) << node.op_type() << " mode '" << a.mode << "' of "
                          << t << " is not supported (integers: nearest only)";
  for (int64_t d = 0; d < rank; ++d) {
    if (outShape[d] <= 0)
      return emitError(loc)
             << node.op_type() << " output dim " << d << " would be "
             << outShape[d] << "; empty tensors are not supported";
  }
  if (t.getNumElements() == 0)
    return emitError(loc) << node.op_type() << " of an empty tensor " << t;
  // An integer-factor upsample of H and W: one generic that copies.
  SmallVector<AxisWeights> weights;
  for (int64_t d = 0; d < rank; ++d) {
    double start = roi.empty() ? 0.0 : roi[d];
    double end = roi.empty() ? 1.0 : roi[rank + d];
    weights.push_back(
        axisWeights(a, t.getDimSize(d), outShape[d], scales[d], start, end));
  }
  if (rank == 4 && weights[0].identity() && weights[1].identity() &&
      weights[2].replication() && weights[3].replication() &&
      !(weights[2].identity() && weights[3].identity())) {
    MLIRContext *ctx = imp.b.getContext();
    AffineExpr h = getAffineDimExpr(2, ctx), w = getAffineDimExpr(3, ctx);
    AffineMap in =
        AffineMap::get(4, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
                        h.floorDiv(weights[2].replication()),
                        w.floorDiv(weights[3].replication())},
                       ctx);
    Value init = imp.emptyLike(loc, outShape, elt);
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    auto op = linalg::GenericOp::create(
        imp.b, loc, init.getType(), ValueRange{x}, ValueRange{init},
        ArrayRef<AffineMap>{in, imp.b.getMultiDimIdentityMap(4)}, iters,
        [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, args[0]);
        });
    return imp.define(node, op.getResult(0));
  }
  Type f32 = imp.b.getF32Type();
  Value y = x;
  if (intElt)
    y = imp.elementwise(
        loc, {y},
        [&](OpBuilder &nb, Location l, ValueRange v) {
          return castScalar(nb, l, v[0], f32);
        },
        f32);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t m = outShape[d];
    const AxisWeights &aw = weights[d];
    if (aw.identity())
      continue;
    bool hasBias = llvm::any_of(aw.bias, [](double v) { return v != 0.0; });
    y = imp.matmulAlong(loc, y, d, m, aw.w,
                        hasBias ? ArrayRef<double>(aw.bias)
                                : ArrayRef<double>());
  }
  if (intElt)
    y = imp.elementwise(
        loc, {y},
        [&](OpBuilder &nb, Location l, ValueRange v) {
          return castScalar(nb, l, v[0], elt);
        },
        elt);
  return imp.define(node, y);
}

/// A float input that must be a compile-time constant: its values, nothing
/// when the input is absent or empty, or an error.
FailureOr<std::optional<std::vector<double>>>
constFloats(Importer &imp, const onnx::NodeProto &node, int i, StringRef what) {
  if (!imp.hasInput(node, i))
    return std::optional<std::vector<double>>();
  FailureOr<Value> v = imp.input(node, i);
  if (failed(v))
    return failure();
  std::optional<std::vector<double>> vals = floatConstantValues(*v);
  if (!vals)
    return emitError(imp.nodeLoc(node))
           << node.op_type() << " " << what << " '" << node.input(i)
           << "' must be a compile-time constant (an initializer or a "
              "Constant), not a runtime tensor: it decides the output shape "
              "or the weights";
  if (vals->empty())
    return std::optional<std::vector<double>>();
  return vals;
}

/// Output dims floor(in * scale) for scales that must be positive.
FailureOr<SmallVector<int64_t>> sizesFromScales(Importer &imp,
                                                const onnx::NodeProto &node,
                                                ArrayRef<int64_t> in,
                                                ArrayRef<double> scales) {
  SmallVector<int64_t> out;
  for (auto [n, s] : llvm::zip_equal(in, scales)) {
    if (!(s > 0))
      return emitError(imp.nodeLoc(node))
             << node.op_type() << " scale " << s << " must be positive";
    out.push_back(int64_t(std::floor(double(n) * s)));
  }
  return out;
}

LogicalResult upsample(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  int64_t rank = tensorType(*x).getRank();
  ResizeAttrs a;
  a.mode = stringAttr(node, "mode", "nearest");
  a.coord = "asymmetric";
  a.nearest = "floor";
  if (a.mode != "nearest" && a.mode != "linear")
    return emitError(loc) << "Upsample mode '" << a.mode
                          << "' is not one of nearest, linear";
  std::vector<double> scales;
  if (imp.opset < 9) {
    const onnx::AttributeProto *attr = findAttr(node, "scales");
    if (!attr)
      return emitError(loc) << "Upsample needs the scales attribute";
    scales.assign(attr->floats().begin(), attr->floats().end());
  } else {
    FailureOr<std::optional<std::vector<double>>> s =
        constFloats(imp, node, 1, "scales");
    if (failed(s))
      return failure();
    if (!*s)
      return emitError(loc) << "Upsample needs scales";
    scales = **s;
  }
  if (int64_t(scales.size()) != rank)
    return emitError(loc) << "Upsample has " << scales.size()
                          << " scales for a rank-" << rank << " input";
  FailureOr<SmallVector<int64_t>> out =
      sizesFromScales(imp, node, shapeOf(*x), scales);
  if (failed(out))
    return failure();
  return lowerResize(imp, node, *x, a, scales, *out, {});
}

LogicalResult resize(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  FailureOr<Value> x = imp.input(node, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> in = shapeOf(*x);
  int64_t rank = in.size();
  ResizeAttrs a;
  a.mode = stringAttr(node, "mode", "nearest");
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    return emitError(loc) << "Resize mode '" << a.mode
                          << "' is not one of nearest, linear, cubic";
  if (imp.opset < 11) {
    // Resize-10: X, scales; the transformation of Upsample.
    if (a.mode == "cubic")
      return emitError(loc) << "Resize mode 'cubic' needs opset 11";
    a.coord = "asymmetric";
    a.nearest = "floor";
    FailureOr<std::optional<std::vector<double>>> s =
        constFloats(imp, node, 1, "scales");
    if (failed(s))
      return failure();
    if (!*s || int64_t((*s)->size()) != rank)
      return emitError(loc)
             << "Resize needs one scale per input dim (" << rank << ")";
    FailureOr<SmallVector<int64_t>> out = sizesFromScales(imp, node, in, **s);
    if (failed(out))
      return failure();
    return lowerResize(imp, node, *x, a, **s, *out, {});
  }

  a.coord = stringAttr(node, "coordinate_transformation_mode", "half_pixel");
  a.nearest = stringAttr(node, "nearest_mode", "round_prefer_floor");
  a.cubicA = floatAttr(node, "cubic_coeff_a", -0.75f);
  a.excludeOutside = intAttr(node, "exclude_outside", 0) != 0;
  a.extrapolation = floatAttr(node, "extrapolation_value", 0.0f);
  static const char *coords[] = {"half_pixel",         "half_pixel_symmetric",
                                 "pytorch_half_pixel", "align_corners",
                                 "asymmetric",         "tf_half_pixel_for_nn",
                                 "tf_crop_and_resize"};
  if (!llvm::is_contained(coords, a.coord))
    return emitError(loc) << "Resize coordinate_transformation_mode '"
                          << a.coord << "' is not supported";
  static const char *nearests[] = {"round_prefer_floor", "round_prefer_ceil",
                                   "floor", "ceil"};
  if (!llvm::is_contained(nearests, a.nearest))
    return emitError(loc) << "Resize nearest_mode '" << a.nearest
                          << "' is not supported";
  if (intAttr(node, "antialias", 0) != 0)
    return emitError(loc) << "Resize with antialias is not supported";

  // The resized axes: `axes` (opset 18), else all.
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = intsAttr(node, "axes")) {
    SmallVector<bool> seen(rank, false);
    for (int64_t ax : *attr) {
      FailureOr<int64_t> d = normalizeAxis(imp, node, ax, rank);
      if (failed(d))
        return failure();
      if (seen[*d])
        return emitError(loc) << "Resize axis " << ax << " is repeated";
      seen[*d] = true;
      axes.push_back(*d);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t na = axes.size();

  FailureOr<std::optional<std::vector<double>>> scalesIn =
      constFloats(imp, node, 2, "scales");
  if (failed(scalesIn))
    return failure();
  std::optional<IntConstant> sizesIn;
  if (imp.hasInput(node, 3)) {
    const IntConstant *c = imp.intInput(node, 3);
    if (!c)
      return emitError(loc)
             << "Resize sizes '" << node.input(3)
             << "' must be a compile-time constant (an initializer, a "
                "Constant or a folded shape computation), not a runtime "
                "tensor: it decides the output shape";
    if (!c->values.empty())
      sizesIn = *c;
  }
  if (bool(*scalesIn) == bool(sizesIn))
    return emitError(loc) << "Resize needs exactly one of scales and sizes";

  SmallVector<double> scales(rank, 1.0);
  SmallVector<int64_t> out(in);
  if (*scalesIn) {
    if (int64_t((*scalesIn)->size()) != na)
      return emitError(loc) << "Resize has " << (*scalesIn)->size()
                            << " scales for " << na << " axes";
    for (int64_t i = 0; i < na; ++i)
      scales[axes[i]] = (**scalesIn)[i];
    FailureOr<SmallVector<int64_t>> o = sizesFromScales(imp, node, in, scales);
    if (failed(o))
      return failure();
    out = *o;
  } else {
    if (int64_t(sizesIn->values.size()) != na)
      return emitError(loc) << "Resize has " << sizesIn->values.size()
                            << " sizes for " << na << " axes";
    std::string policy =
        stringAttr(node, "keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller")
      return emitError(loc) << "Resize keep_aspect_ratio_policy '" << policy
                            << "' is not supported";
    for (int64_t i = 0; i < na; ++i)
      if (sizesIn->values[i] <= 0)
        return emitError(loc)
               << "Resize size " << sizesIn->values[i] << " must be positive";
    if (policy == "stretch") {
      for (int64_t i = 0; i < na; ++i) {
        out[axes[i]] = sizesIn->values[i];
        scales[axes[i]] = double(sizesIn->values[i]) / in[axes[i]];
      }
    } else {
      // One scale for all the axes, the largest that fits (not_larger) or
      // the smallest that covers (not_smaller); sizes rounded from it.
      double s = policy == "not_larger" ? INFINITY : 0.0;
      for (int64_t i = 0; i < na; ++i) {
        double si = double(sizesIn->values[i]) / in[axes[i]];
        s = policy == "not_larger" ? std::min(s, si) : std::max(s, si);
      }
      for (int64_t i = 0; i < na; ++i) {
        scales[axes[i]] = s;
        out[axes[i]] = int64_t(std::nearbyint(s * in[axes[i]]));
      }
    }
  }

  std::vector<double> roi;
  if (a.coord == "tf_crop_and_resize") {
    FailureOr<std::optional<std::vector<double>>> r =
        constFloats(imp, node, 1, "roi");
    if (failed(r))
      return failure();
    if (!*r || int64_t((*r)->size()) != 2 * na)
      return emitError(loc) << "Resize tf_crop_and_resize needs a roi of "
                            << 2 * na << " values (starts, then ends)";
    roi.assign(2 * rank, 0.0);
    for (int64_t d = 0; d < rank; ++d)
      roi[rank + d] = 1.0;
    for (int64_t i = 0; i < na; ++i) {
      roi[axes[i]] = (**r)[i];
      roi[rank + axes[i]] = (**r)[na + i];
    }
    // Spec: the output dims scale the roi's extent when scales are given.
    if (*scalesIn)
      for (int64_t d = 0; d < rank; ++d)
        out[d] = int64_t(
            std::floor(double(in[d]) * (roi[rank + d] - roi[d]) * scales[d]));
  }
  return lowerResize(imp, node, *x, a, scales, out, roi);
}
} // namespace

void nki::onnx_import::registerResizeOps(OpTable &t) {
  t["Resize"] = resize;
  t["Upsample"] = upsample;
}
