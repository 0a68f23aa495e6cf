//===- Recurrent.cpp - ONNX RNN, GRU and LSTM -----------------------------===//
//
// Sequence length, batch and hidden size are static, so the recurrence is
// unrolled over time at import. Per direction, the input projection of all
// steps is one matmul ([T * B, I] by W^T, plus the biases that do not sit
// behind GRU's reset gate); each step then adds H_{t-1} R^T (one matmul)
// and applies the gate activations elementwise. Directions are unrolled
// one after the other and their outputs concatenated.
//
// sequence_lens: a compile-time vector of all seq_length needs nothing;
// any other (or a runtime input) masks each step: past a batch entry's
// length its state is held and its Y rows are 0, as the ONNX runtimes do.
// A reverse direction then starts at each entry's own last step: X is
// permuted per batch entry by a 0/1 [T, T] matrix (x'[t] = x[len - 1 - t]
// for t < len, else 0) as a batch matmul, run forward with the mask, and
// Y permuted back the same way. (As a matmul, an inf or NaN in X spreads
// over that entry's steps.) Lengths outside [0, seq_length] are not
// checked at run time.
//
// activation_alpha / activation_beta are consumed in order by the
// activations that take them (alpha: Affine, LeakyRelu, ThresholdedRelu,
// ScaledTanh, HardSigmoid, Elu; beta: Affine, ScaledTanh, HardSigmoid);
// when a list runs out, the ONNX operator's default applies (Affine 1, 0;
// ThresholdedRelu 1; ScaledTanh 1, 1; onnxruntime uses 0 for these). The
// formulas are the ones the RNN spec lists (ThresholdedRelu: x >= alpha,
// where the standalone op has x > alpha). `clip` bounds the input of every
// activation, LSTM's h too (the cell state carried on is not clipped), as
// onnxruntime does.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace nki::onnx_import;

namespace {
enum class Kind { RNN, GRU, LSTM };

/// One activation function of the recurrent ops' list with its parameters.
struct Activation {
  enum Fn {
    Relu,
    Tanh,
    Sigmoid,
    Affine,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus
  } fn;
  double alpha = 0, beta = 0;
};

struct ActivationInfo {
  const char *name;
  Activation::Fn fn;
  bool hasAlpha, hasBeta;
  double alpha, beta; // the ONNX operator's defaults
};

const ActivationInfo kActivations[] = {
    {"Relu", Activation::Relu, false, false, 0, 0},
    {"Tanh", Activation::Tanh, false, false, 0, 0},
    {"Sigmoid", Activation::Sigmoid, false, false, 0, 0},
    {"Affine", Activation::Affine, true, true, 1.0, 0.0},
    {"LeakyRelu", Activation::LeakyRelu, true, false, 0.01, 0},
    {"ThresholdedRelu", Activation::ThresholdedRelu, true, false, 1.0, 0},
    {"ScaledTanh", Activation::ScaledTanh, true, true, 1.0, 1.0},
    {"HardSigmoid", Activation::HardSigmoid, true, true, 0.2, 0.5},
    {"Elu", Activation::Elu, true, false, 1.0, 0},
    {"Softsign", Activation::Softsign, false, false, 0, 0},
    {"Softplus", Activation::Softplus, false, false, 0, 0},
};

Value applyActivation(OpBuilder &b, Location l, const Activation &a, Value x) {
  auto c = [&](double v) { return constLike(b, l, x, v); };
  auto mul = [&](Value u, Value v) -> Value {
    return arith::MulFOp::create(b, l, u, v);
  };
  auto add = [&](Value u, Value v) -> Value {
    return arith::AddFOp::create(b, l, u, v);
  };
  auto select = [&](arith::CmpFPredicate p, Value u, Value v, Value t,
                    Value f) -> Value {
    return arith::SelectOp::create(b, l, arith::CmpFOp::create(b, l, p, u, v),
                                   t, f);
  };
  using P = arith::CmpFPredicate;
  switch (a.fn) {
  case Activation::Relu:
    return arith::MaximumFOp::create(b, l, x, c(0.0));
  case Activation::Tanh:
    return math::TanhOp::create(b, l, x);
  case Activation::Sigmoid: {
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    return arith::DivFOp::create(b, l, c(1.0), add(c(1.0), e));
  }
  case Activation::Affine:
    return add(mul(c(a.alpha), x), c(a.beta));
  case Activation::LeakyRelu:
    return select(P::OLT, x, c(0.0), mul(c(a.alpha), x), x);
  case Activation::ThresholdedRelu:
    return select(P::OGE, x, c(a.alpha), x, c(0.0));
  case Activation::ScaledTanh:
    return mul(c(a.alpha), math::TanhOp::create(b, l, mul(c(a.beta), x)));
  case Activation::HardSigmoid: {
    Value y = add(mul(c(a.alpha), x), c(a.beta));
    return arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, y, c(0.0)), c(1.0));
  }
  case Activation::Elu: {
    Value em1 =
        arith::SubFOp::create(b, l, math::ExpOp::create(b, l, x), c(1.0));
    return select(P::OLT, x, c(0.0), mul(c(a.alpha), em1), x);
  }
  case Activation::Softsign:
    return arith::DivFOp::create(b, l, x,
                                 add(c(1.0), math::AbsFOp::create(b, l, x)));
  case Activation::Softplus:
    return math::LogOp::create(b, l, add(c(1.0), math::ExpOp::create(b, l, x)));
  }
  llvm_unreachable("unknown activation");
}

/// The node's activations, `perDirection` for each of `dirs` directions.
FailureOr<SmallVector<Activation>> activations(Importer &imp,
                                               const onnx::NodeProto &node,
                                               Kind kind, int64_t dirs) {
  Location loc = imp.nodeLoc(node);
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = findAttr(node, "activations")) {
    for (const std::string &s : a->strings())
      names.push_back(s);
  } else {
    SmallVector<std::string> dflt =
        kind == Kind::RNN ? SmallVector<std::string>{"Tanh"}
        : kind == Kind::GRU
            ? SmallVector<std::string>{"Sigmoid", "Tanh"}
            : SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < dirs; ++d)
      names.append(dflt);
  }
  size_t perDirection = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 2 : 3;
  if (names.size() != perDirection * dirs)
    return emitError(loc) << node.op_type() << " needs " << perDirection * dirs
                          << " activations (" << perDirection << " for each of "
                          << dirs << " direction(s)), got " << names.size();
  SmallVector<float> alphas, betas;
  if (const onnx::AttributeProto *a = findAttr(node, "activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const onnx::AttributeProto *a = findAttr(node, "activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> out;
  for (const std::string &name : names) {
    const ActivationInfo *info = nullptr;
    for (const ActivationInfo &i : kActivations)
      if (StringRef(name).equals_insensitive(i.name))
        info = &i;
    if (!info) {
      std::string known;
      for (const ActivationInfo &i : kActivations)
        known += (known.empty() ? "" : ", ") + std::string(i.name);
      return emitError(loc)
             << node.op_type() << " activation '" << name
             << "' is not supported (supported: " << known << ")";
    }
    Activation act{info->fn, info->alpha, info->beta};
    if (info->hasAlpha && nextAlpha < alphas.size())
      act.alpha = alphas[nextAlpha++];
    if (info->hasBeta && nextBeta < betas.size())
      act.beta = betas[nextBeta++];
    out.push_back(act);
  }
  return out;
}

/// The recurrent ops' shared lowering.
struct Recurrence {
  Recurrence(Importer &imp, Kind kind, Location loc, Type elt)
      : imp(imp), kind(kind), loc(loc), elt(elt) {}
  Importer &imp;
  Kind kind;
  Location loc;
  Type elt;
  int64_t T = 0, B = 0, I = 0, H = 0, D = 1, G = 1;
  std::optional<double> clip;
  bool linearBeforeReset = false, inputForget = false;
  SmallVector<Activation> acts;
  /// Per batch entry, its length as a float [B, 1] (only when masking).
  Value lens;

  OpBuilder &b() { return imp.b; }

  Value slice(Value x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    if (tensorType(x).getShape() == sizes)
      return x;
    SmallVector<int64_t> strides(sizes.size(), 1);
    MLIRContext *ctx = imp.ctx;
    return tensor::ExtractSliceOp::create(b(), loc, x,
                                          getAsIndexOpFoldResult(ctx, offsets),
                                          getAsIndexOpFoldResult(ctx, sizes),
                                          getAsIndexOpFoldResult(ctx, strides))
        .getResult();
  }
  /// x[.., start : start + size] along the last dim.
  Value cols(Value x, int64_t start, int64_t size) {
    SmallVector<int64_t> offsets(tensorType(x).getRank(), 0);
    SmallVector<int64_t> sizes = shapeOf(x);
    offsets.back() = start;
    sizes.back() = size;
    return slice(x, offsets, sizes);
  }
  /// Index `i` of dim 0, with that dim dropped.
  Value row(Value x, int64_t i) {
    SmallVector<int64_t> offsets(tensorType(x).getRank(), 0);
    SmallVector<int64_t> sizes = shapeOf(x);
    offsets[0] = i;
    sizes[0] = 1;
    SmallVector<int64_t> rest(sizes.begin() + 1, sizes.end());
    return imp.reshape(loc, slice(x, offsets, sizes), rest);
  }
  Value concat(ArrayRef<Value> parts, int64_t axis) {
    if (parts.size() == 1)
      return parts.front();
    return tensor::ConcatOp::create(b(), loc, axis, parts).getResult();
  }
  /// The operand shapes are checked up front, so these matmuls cannot fail.
  Value mm(Value a, Value bm) { return *imp.matmul(loc, a, bm); }
  Value add(Value u, Value v) {
    return imp.elementwise(
        loc, {u, v}, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::AddFOp::create(nb, l, a[0], a[1]).getResult();
        });
  }
  /// Activation `k` of direction `d` applied to `x`, after the clip.
  Value act(OpBuilder &nb, Location l, int64_t d, int64_t k, Value x) {
    if (clip) {
      x = arith::MaximumFOp::create(nb, l, x, constLike(nb, l, x, -*clip));
      x = arith::MinimumFOp::create(nb, l, x, constLike(nb, l, x, *clip));
    }
    size_t perDirection = acts.size() / D;
    return applyActivation(nb, l, acts[d * perDirection + k], x);
  }
  /// Where step `t` is past a batch entry's length: `keep`, else `next`.
  Value masked(int64_t t, Value next, Value keep) {
    if (!lens)
      return next;
    return imp.elementwise(
        loc, {next, keep, lens}, [t](OpBuilder &nb, Location l, ValueRange a) {
          Value live = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                             a[2], constLike(nb, l, a[2], t));
          return arith::SelectOp::create(nb, l, live, a[0], a[1]).getResult();
        });
  }
  /// The per-entry reversal of the first len steps of a [T, B, N] tensor:
  /// y[t, b] = x[len_b - 1 - t, b] for t < len_b, else 0.
  Value reverseValid(Value x) {
    std::vector<double> ts;
    for (int64_t i = 0; i < T; ++i)
      ts.push_back(i);
    Value iotaT = denseFloatConstant(imp, loc, {1, T, 1}, elt, ts);
    Value iotaS = denseFloatConstant(imp, loc, {1, 1, T}, elt, ts);
    Value lens3 = imp.reshape(loc, lens, {B, 1, 1});
    Value perm = imp.elementwise(
        loc, {lens3, iotaT, iotaS},
        [](OpBuilder &nb, Location l, ValueRange a) {
          Value src = arith::SubFOp::create(
              nb, l, arith::SubFOp::create(nb, l, a[0], a[1]),
              constLike(nb, l, a[0], 1.0));
          Value hit = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            a[2], src);
          return arith::SelectOp::create(nb, l, hit, constLike(nb, l, a[0], 1),
                                         constLike(nb, l, a[0], 0))
              .getResult();
        });
    Value xb = imp.transpose(loc, x, {1, 0, 2}); // [B, T, N]
    Value yb = mm(perm, xb);
    return imp.transpose(loc, yb, {1, 0, 2});
  }

  struct DirResult {
    Value y;    // [T, B, H]
    Value h, c; // [B, H]
  };

  /// One direction: weights w [G*H, I], r [G*H, H], bias [2*G*H] or null,
  /// peepholes p [3*H] or null, initial state h0 / c0 [B, H].
  DirResult direction(int64_t d, bool reverse, Value x, Value w, Value r,
                      Value bias, Value p, Value h0, Value c0) {
    int64_t GH = G * H;
    Value wT = imp.transpose(loc, w, {1, 0}); // [I, GH]
    Value rT = imp.transpose(loc, r, {1, 0}); // [H, GH]
    // The biases added to the input projection, and GRU's R_bh behind the
    // reset gate with linear_before_reset.
    Value xBias, rbh;
    if (bias) {
      Value wb = cols(bias, 0, GH), rb = cols(bias, GH, GH);
      if (kind == Kind::GRU && linearBeforeReset) {
        xBias = concat(
            {add(cols(wb, 0, 2 * H), cols(rb, 0, 2 * H)), cols(wb, 2 * H, H)},
            0);
        rbh = cols(rb, 2 * H, H);
      } else {
        xBias = add(wb, rb);
      }
    }
    // A reverse direction with lengths: reversed per entry, run forward.
    bool permuted = reverse && lens;
    Value xd = permuted ? reverseValid(x) : x;
    Value xw = mm(imp.reshape(loc, xd, {T * B, I}), wT);
    if (xBias)
      xw = add(xw, xBias);
    xw = imp.reshape(loc, xw, {T, B, GH});

    Value h = h0, c = c0;
    SmallVector<Value> ys(T);
    for (int64_t s = 0; s < T; ++s) {
      int64_t t = reverse && !permuted ? T - 1 - s : s;
      Value xt = row(xw, t); // [B, GH]
      Value hn, cn;
      switch (kind) {
      case Kind::RNN: {
        hn = imp.elementwise(
            loc, {xt, mm(h, rT)}, [&](OpBuilder &nb, Location l, ValueRange a) {
              return act(nb, l, d, 0, arith::AddFOp::create(nb, l, a[0], a[1]));
            });
        break;
      }
      case Kind::GRU: {
        Value hr = mm(h, linearBeforeReset ? rT : cols(rT, 0, 2 * H));
        Value zr = imp.elementwise(
            loc, {cols(xt, 0, 2 * H), cols(hr, 0, 2 * H)},
            [&](OpBuilder &nb, Location l, ValueRange a) {
              return act(nb, l, d, 0, arith::AddFOp::create(nb, l, a[0], a[1]));
            });
        Value z = cols(zr, 0, H), rg = cols(zr, H, H);
        Value xh = cols(xt, 2 * H, H);
        // The candidate's recurrent term: (r . H) R_h^T, or with
        // linear_before_reset r . (H R_h^T + R_bh).
        Value recur;
        if (linearBeforeReset) {
          SmallVector<Value> ops = {rg, cols(hr, 2 * H, H)};
          if (rbh)
            ops.push_back(rbh);
          recur = imp.elementwise(
              loc, ops, [](OpBuilder &nb, Location l, ValueRange a) {
                Value s = a[1];
                if (a.size() > 2)
                  s = arith::AddFOp::create(nb, l, s, a[2]);
                return arith::MulFOp::create(nb, l, a[0], s).getResult();
              });
        } else {
          Value rh = imp.elementwise(
              loc, {rg, h}, [](OpBuilder &nb, Location l, ValueRange a) {
                return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
              });
          recur = mm(rh, cols(rT, 2 * H, H));
        }
        hn = imp.elementwise(
            loc, {xh, recur, z, h},
            [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
              Value cand =
                  act(nb, l, d, 1, arith::AddFOp::create(nb, l, a[0], a[1]));
              // (1 - z) * cand + z * h
              Value one = constLike(nb, l, a[2], 1.0);
              Value keep = arith::MulFOp::create(nb, l, a[2], a[3]);
              Value take = arith::MulFOp::create(
                  nb, l, arith::SubFOp::create(nb, l, one, a[2]), cand);
              return arith::AddFOp::create(nb, l, take, keep);
            });
        break;
      }
      case Kind::LSTM: {
        // Gate order i, o, f, c; peepholes i, o, f.
        Value g = add(xt, mm(h, rT));
        SmallVector<Value> ops = {cols(g, 0, H), cols(g, 2 * H, H),
                                  cols(g, 3 * H, H), c};
        if (p) {
          ops.push_back(cols(p, 0, H));
          ops.push_back(cols(p, 2 * H, H));
        }
        cn = imp.elementwise(
            loc, ops, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
              Value gi = a[0], gf = a[1], gc = a[2], cp = a[3];
              if (a.size() > 4) {
                gi = arith::AddFOp::create(
                    nb, l, gi, arith::MulFOp::create(nb, l, a[4], cp));
                gf = arith::AddFOp::create(
                    nb, l, gf, arith::MulFOp::create(nb, l, a[5], cp));
              }
              Value i = act(nb, l, d, 0, gi);
              Value f = inputForget ? arith::SubFOp::create(
                                          nb, l, constLike(nb, l, i, 1.0), i)
                                          .getResult()
                                    : act(nb, l, d, 0, gf);
              Value cc = act(nb, l, d, 1, gc);
              return arith::AddFOp::create(nb, l,
                                           arith::MulFOp::create(nb, l, f, cp),
                                           arith::MulFOp::create(nb, l, i, cc));
            });
        SmallVector<Value> ops2 = {cols(g, H, H), cn};
        if (p)
          ops2.push_back(cols(p, H, H));
        hn = imp.elementwise(
            loc, ops2, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
              Value go = a[0];
              if (a.size() > 2)
                go = arith::AddFOp::create(
                    nb, l, go, arith::MulFOp::create(nb, l, a[2], a[1]));
              Value o = act(nb, l, d, 0, go);
              // h of the clipped cell state; the state itself stays
              // unclipped.
              Value hc = act(nb, l, d, 2, a[1]);
              return arith::MulFOp::create(nb, l, o, hc);
            });
        break;
      }
      }
      Value yt = lens ? masked(t, hn, imp.filled(loc, {B, H}, elt, 0.0)) : hn;
      ys[t] = imp.reshape(loc, yt, {1, B, H});
      h = masked(t, hn, h);
      if (cn)
        c = masked(t, cn, c);
    }
    Value y = concat(ys, 0);
    if (permuted)
      y = reverseValid(y);
    return {y, h, c};
  }
};

template <Kind kind>
LogicalResult recurrent(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  StringRef op = node.op_type();
  if (imp.opset < 7)
    return emitError(loc) << op << " before opset 7 is not supported (opset "
                          << imp.opset << ")";
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, 3);
  if (failed(ins))
    return failure();
  Value x = (*ins)[0], w = (*ins)[1], r = (*ins)[2];
  Type elt = tensorType(x).getElementType();
  if (!isa<FloatType>(elt))
    return emitError(loc) << op << " of " << x.getType()
                          << " is not supported (floating-point tensors only)";
  for (Value v : {x, w, r})
    if (tensorType(v).getRank() != 3 || tensorType(v).getElementType() != elt)
      return emitError(loc) << op << " X, W and R must be 3-D tensors of one "
                            << "element type, got " << x.getType() << ", "
                            << w.getType() << ", " << r.getType();

  Recurrence rec(imp, kind, loc, elt);
  rec.G = kind == Kind::RNN ? 1 : kind == Kind::GRU ? 3 : 4;
  std::string dir = stringAttr(node, "direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return emitError(loc) << op << " direction must be forward, reverse or "
                          << "bidirectional, got '" << dir << "'";
  rec.D = dir == "bidirectional" ? 2 : 1;
  int64_t layout = intAttr(node, "layout", 0);
  if (layout != 0 && layout != 1)
    return emitError(loc) << op << " layout must be 0 or 1, got " << layout;
  if (layout == 1)
    x = imp.transpose(loc, x, {1, 0, 2});
  rec.T = tensorType(x).getDimSize(0);
  rec.B = tensorType(x).getDimSize(1);
  rec.I = tensorType(x).getDimSize(2);
  rec.H = tensorType(r).getDimSize(2);
  int64_t T = rec.T, B = rec.B, H = rec.H, D = rec.D, G = rec.G;
  if (const onnx::AttributeProto *hs = findAttr(node, "hidden_size"))
    if (hs->i() != H)
      return emitError(loc) << op << " hidden_size " << hs->i()
                            << " does not match R " << r.getType();
  auto expect = [&](Value v, StringRef name,
                    ArrayRef<int64_t> shape) -> LogicalResult {
    if (tensorType(v).getShape() == shape &&
        tensorType(v).getElementType() == elt)
      return success();
    std::string s;
    for (int64_t n : shape)
      s += std::to_string(n) + "x";
    return emitError(loc) << op << " " << name << " must be tensor<" << s << elt
                          << ">, got " << v.getType();
  };
  if (T == 0 || B == 0 || H == 0)
    return emitError(loc) << op << " with an empty X " << x.getType()
                          << " or hidden size " << H << " is not supported";
  if (failed(expect(w, "W", {D, G * H, rec.I})) ||
      failed(expect(r, "R", {D, G * H, H})))
    return failure();
  // Optional inputs: B, sequence_lens, initial_h, initial_c (LSTM), P (LSTM).
  auto opt = [&](int i) -> Value {
    return i < int(ins->size()) ? (*ins)[i] : Value();
  };
  Value bias = opt(3), h0 = opt(5), c0, p;
  if (kind == Kind::LSTM) {
    c0 = opt(6);
    p = opt(7);
  } else if (ins->size() > 6) {
    return emitError(loc) << op << " takes at most 6 inputs, got "
                          << ins->size();
  }
  if (bias && failed(expect(bias, "B", {D, 2 * G * H})))
    return failure();
  if (p && failed(expect(p, "P", {D, 3 * H})))
    return failure();
  SmallVector<int64_t> stateShape =
      layout ? SmallVector<int64_t>{B, D, H} : SmallVector<int64_t>{D, B, H};
  for (Value *s : {&h0, &c0}) {
    if (!*s)
      continue;
    if (failed(expect(*s, s == &h0 ? "initial_h" : "initial_c", stateShape)))
      return failure();
    if (layout)
      *s = imp.transpose(loc, *s, {1, 0, 2});
  }

  if (imp.hasInput(node, 4)) {
    const IntConstant *k = imp.intInput(node, 4);
    bool full = k && llvm::all_of(k->values, [&](int64_t v) { return v == T; });
    if (k)
      for (int64_t v : k->values)
        if (v < 0 || v > T)
          return emitError(loc) << op << " sequence_lens value " << v
                                << " is outside [0, " << T << "]";
    if (!full) {
      Value lens = (*ins)[4];
      RankedTensorType lt = tensorType(lens);
      if (lt.getShape() != ArrayRef<int64_t>{B} ||
          !isa<IntegerType>(lt.getElementType()))
        return emitError(loc)
               << op << " sequence_lens must be an integer "
               << "tensor of " << B << " values, got " << lens.getType();
      lens = imp.elementwise(
          loc, {lens},
          [&](OpBuilder &nb, Location l, ValueRange a) {
            return castScalar(nb, l, a[0], elt);
          },
          elt);
      rec.lens = imp.reshape(loc, lens, {B, 1});
    }
  }
  if (const onnx::AttributeProto *cl = findAttr(node, "clip"))
    rec.clip = cl->f();
  rec.linearBeforeReset = intAttr(node, "linear_before_reset", 0) != 0;
  rec.inputForget = intAttr(node, "input_forget", 0) != 0;
  FailureOr<SmallVector<Activation>> acts = activations(imp, node, kind, D);
  if (failed(acts))
    return failure();
  rec.acts = std::move(*acts);

  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < D; ++d) {
    // Direction d's slice of a [D, ...] input.
    auto ofDir = [&](Value v) { return v ? rec.row(v, d) : v; };
    Value hInit = h0 ? ofDir(h0) : imp.filled(loc, {B, H}, elt, 0.0);
    Value cInit = kind != Kind::LSTM ? Value()
                  : c0               ? ofDir(c0)
                                     : imp.filled(loc, {B, H}, elt, 0.0);
    bool reverse = dir == "reverse" || d == 1;
    Recurrence::DirResult res = rec.direction(
        d, reverse, x, ofDir(w), ofDir(r), ofDir(bias), ofDir(p), hInit, cInit);
    ys.push_back(imp.reshape(loc, res.y, {T, 1, B, H}));
    hs.push_back(imp.reshape(loc, res.h, {1, B, H}));
    if (res.c)
      cs.push_back(imp.reshape(loc, res.c, {1, B, H}));
  }
  auto wanted = [&](int i) {
    return i < node.output_size() && !node.output(i).empty();
  };
  if (wanted(0)) {
    Value y = rec.concat(ys, 1); // [T, D, B, H]
    if (layout)
      y = imp.transpose(loc, y, {2, 0, 1, 3});
    if (failed(imp.define(node, y, 0)))
      return failure();
  }
  for (auto [i, parts] : {std::pair<int, SmallVector<Value> *>{1, &hs},
                          std::pair<int, SmallVector<Value> *>{2, &cs}}) {
    if (!wanted(i))
      continue;
    if (parts->empty())
      return emitError(loc) << op << " has no output " << i;
    Value s = rec.concat(*parts, 0); // [D, B, H]
    if (layout)
      s = imp.transpose(loc, s, {1, 0, 2});
    if (failed(imp.define(node, s, i)))
      return failure();
  }
  return success();
}
} // namespace

void nki::onnx_import::registerRecurrentOps(OpTable &t) {
  t["RNN"] = recurrent<Kind::RNN>;
  t["GRU"] = recurrent<Kind::GRU>;
  t["LSTM"] = recurrent<Kind::LSTM>;
}
