//===- BodyLowering.cpp - A linalg body as tile instructions --------------===//

#include "BodyLowering.h"
#include "TileUtils.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace nki;
using namespace nki::tiling;

StringRef tiling::aluNameOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "add"; })
      .Case<arith::SubFOp, arith::SubIOp>([](auto) { return "sub"; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "mul"; })
      .Case<arith::DivFOp>([](auto) { return "div"; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [](auto) { return "max"; })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [](auto) { return "min"; })
      .Case<math::PowFOp>([](auto) { return "pow"; })
      .Case<arith::AndIOp>([](auto) { return "and"; })
      .Case<arith::OrIOp>([](auto) { return "or"; })
      .Case<arith::XOrIOp>([](auto) { return "xor"; })
      .Case<arith::CmpFOp>([](arith::CmpFOp c) -> StringRef {
        // The ALU's comparisons: ordered, except is_ne (true for NaN);
        // nki-prepare-graph writes the other predicates with these.
        switch (c.getPredicate()) {
        case arith::CmpFPredicate::OEQ:
          return "eq";
        case arith::CmpFPredicate::UNE:
          return "ne";
        case arith::CmpFPredicate::OLT:
          return "lt";
        case arith::CmpFPredicate::OLE:
          return "le";
        case arith::CmpFPredicate::OGT:
          return "gt";
        case arith::CmpFPredicate::OGE:
          return "ge";
        default:
          return "";
        }
      })
      .Case<arith::CmpIOp>([](arith::CmpIOp c) -> StringRef {
        switch (c.getPredicate()) {
        case arith::CmpIPredicate::eq:
          return "eq";
        case arith::CmpIPredicate::ne:
          return "ne";
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          return "lt";
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          return "le";
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          return "gt";
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          return "ge";
        }
        return "";
      })
      .Default([](Operation *) { return ""; });
}

/// The ACT function of a unary math op, or "".
static StringRef activationOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case<math::ExpOp>([](auto) { return "exp"; })
      .Case<math::LogOp>([](auto) { return "log"; })
      .Case<math::TanhOp>([](auto) { return "tanh"; })
      .Case<math::SqrtOp>([](auto) { return "sqrt"; })
      .Case<math::RsqrtOp>([](auto) { return "rsqrt"; })
      .Case<math::ErfOp>([](auto) { return "erf"; })
      .Case<math::AbsFOp>([](auto) { return "abs"; })
      .Case<math::SinOp>([](auto) { return "sin"; })
      .Case<math::CosOp>([](auto) { return "cos"; })
      .Default([](Operation *) { return ""; });
}

bool tiling::isActivationOp(Operation *op) { return !activationOf(op).empty(); }

/// Whether `user` is max(v, 0) (a ReLU, which BodyLowering::binary makes
/// one activation of v's pending scale and bias).
static bool isReluOf(Operation *user, Value v) {
  if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(user))
    return false;
  Value other =
      user->getOperand(0) == v ? user->getOperand(1) : user->getOperand(0);
  FloatAttr zero;
  return matchPattern(other, m_Constant(&zero)) &&
         zero.getValueAsDouble() == 0.0;
}

/// `y` if `v` is 1 / (1 + exp(-y)) in f32 (either order of the sum).
static Value matchSigmoid(Value v) {
  auto div = v.getDefiningOp<arith::DivFOp>();
  FloatAttr one;
  if (!div || !div.getType().isF32() ||
      !matchPattern(div.getLhs(), m_Constant(&one)) ||
      !one.getValue().isExactlyValue(1.0))
    return {};
  auto sum = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!sum)
    return {};
  for (auto [e, c] : {std::pair(sum.getLhs(), sum.getRhs()),
                      std::pair(sum.getRhs(), sum.getLhs())}) {
    FloatAttr k;
    auto exp = e.getDefiningOp<math::ExpOp>();
    auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>()
                   : arith::NegFOp();
    if (neg && matchPattern(c, m_Constant(&k)) &&
        k.getValue().isExactlyValue(1.0))
      return neg.getOperand();
  }
  return {};
}

/// ("sigmoid", y) for 1 / (1 + exp(-y)), ("silu", y) for y * sigmoid(y),
/// else ("", null). Only in f32: the ACT computes these functions with the
/// same fp32 steps (docs/machine-model.md, the simulator's Math.cpp), so
/// the result is bit-identical; a bf16 body rounds after every op.
static std::pair<StringRef, Value> matchSigmoidFamily(Operation *op) {
  if (Value y = matchSigmoid(op->getNumResults() ? op->getResult(0) : Value()))
    return {"sigmoid", y};
  auto mul = dyn_cast<arith::MulFOp>(op);
  if (!mul || !mul.getType().isF32())
    return {"", Value()};
  for (auto [a, s] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())})
    if (Value y = matchSigmoid(s); y && y == a)
      return {"silu", y};
  return {"", Value()};
}

/// The factors of a product of f32 multiplies, `v` itself if it is none.
static void factorsOf(Value v, SmallVectorImpl<Value> &out, int depth = 0) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul || depth > 1) {
    out.push_back(v);
    return;
  }
  factorsOf(mul.getLhs(), out, depth + 1);
  factorsOf(mul.getRhs(), out, depth + 1);
}

/// `x` if `op` is 0.5 x (1 + erf(x / sqrt(2))) in f32, in any association
/// of its products (the erf form exporters write for GELU: Div, Erf, Add,
/// Mul, Mul), else null.
static Value matchGeluErf(Operation *op) {
  auto mul = dyn_cast<arith::MulFOp>(op);
  if (!mul || !mul.getType().isF32())
    return {};
  SmallVector<Value> factors;
  factorsOf(mul.getResult(), factors);
  if (factors.size() != 3)
    return {};
  auto half = llvm::find_if(factors, [](Value f) {
    std::optional<double> k = constantFloat(f);
    return k && *k == 0.5;
  });
  if (half == factors.end())
    return {};
  factors.erase(half);
  for (auto [x, s] :
       {std::pair(factors[0], factors[1]), std::pair(factors[1], factors[0])}) {
    auto sum = s.getDefiningOp<arith::AddFOp>();
    if (!sum)
      continue;
    for (auto [e, one] : {std::pair(sum.getLhs(), sum.getRhs()),
                          std::pair(sum.getRhs(), sum.getLhs())}) {
      auto erf = e.getDefiningOp<math::ErfOp>();
      std::optional<double> k1 = constantFloat(one);
      if (!erf || !k1 || *k1 != 1.0)
        continue;
      Value t = erf.getOperand();
      std::optional<double> k;
      if (auto div = t.getDefiningOp<arith::DivFOp>();
          div && div.getLhs() == x && (k = constantFloat(div.getRhs())) &&
          std::fabs(*k - M_SQRT2) < 1e-6)
        return x;
      if (auto m = t.getDefiningOp<arith::MulFOp>())
        for (auto [a, c] : {std::pair(m.getLhs(), m.getRhs()),
                            std::pair(m.getRhs(), m.getLhs())})
          if (a == x && (k = constantFloat(c)) &&
              std::fabs(*k - M_SQRT1_2) < 1e-6)
            return x;
    }
  }
  return {};
}

static double foldActivation(StringRef f, double x) {
  if (f == "exp")
    return std::exp(x);
  if (f == "log")
    return std::log(x);
  if (f == "tanh")
    return std::tanh(x);
  if (f == "sqrt")
    return std::sqrt(x);
  if (f == "rsqrt")
    return 1.0 / std::sqrt(x);
  if (f == "erf")
    return std::erf(x);
  if (f == "abs")
    return std::fabs(x);
  if (f == "sin")
    return std::sin(x);
  if (f == "square")
    return x * x;
  if (f == "relu")
    return x > 0 ? x : 0.0;
  if (f == "sigmoid")
    return 1.0 / (1.0 + std::exp(-x));
  if (f == "silu")
    return x / (1.0 + std::exp(-x));
  if (f == "gelu")
    return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2));
  assert(f == "cos" && "unhandled activation function");
  return std::cos(x);
}

static double foldBinary(StringRef op, double a, double b) {
  if (op == "add")
    return a + b;
  if (op == "sub")
    return a - b;
  if (op == "mul")
    return a * b;
  if (op == "div")
    return a / b;
  if (op == "max")
    return std::max(a, b);
  if (op == "min")
    return std::min(a, b);
  if (op == "pow")
    return std::pow(a, b);
  if (op == "eq")
    return a == b;
  if (op == "ne")
    return a != b;
  if (op == "lt")
    return a < b;
  if (op == "le")
    return a <= b;
  if (op == "gt")
    return a > b;
  if (op == "ge")
    return a >= b;
  int64_t x = int64_t(a), y = int64_t(b);
  if (op == "and")
    return double(x & y);
  if (op == "or")
    return double(x | y);
  return double(x ^ y);
}

/// Rounds a folded constant to `type` as a store of that type would.
static double roundTo(double v, Type type) {
  auto ft = dyn_cast<FloatType>(type);
  if (!ft)
    return std::nearbyint(v);
  APFloat f(v);
  bool lost;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

Type BodyLowering::storageType(Type t) {
  // i1 tiles hold 0/1 bytes (u8 on the machine), so and/or/xor, which the
  // engines apply to integer dtypes only, work on them.
  return t;
}

Value BodyLowering::newTile(int64_t free, Type type) {
  return allocTile(b, loc, {partitions, free}, storageType(type));
}

Value BodyLowering::materializeColumn(const TileValue &t, Type type) {
  if (t.kind == TileValue::Column)
    return t.tile;
  assert(t.kind == TileValue::Scalar && "full tiles are not columns");
  Value col = newTile(1, type);
  tile::MemsetOp::create(b, loc, col, b.getF32FloatAttr(float(t.scalar)));
  return col;
}

TileValue BodyLowering::resolve(const TileValue &t, StringRef engine) {
  if (t.pending.empty())
    return t;
  TileValue r{TileValue::Full, 0.0, {}, t.elementType, {}};
  for (auto &[key, tile] : resolved)
    if (key.tile == t.tile && key.pending == t.pending &&
        key.elementType == t.elementType) {
      r.tile = tile;
      return r;
    }
  r.tile = newTile(freeSize, t.elementType);
  ScalarStep s0 = t.pending[0];
  ScalarStep s1 = t.pending.size() > 1 ? t.pending[1] : ScalarStep{"bypass"};
  auto flag = [&](bool set) { return set ? b.getUnitAttr() : UnitAttr(); };
  auto op = tile::TensorScalarOp::create(
      b, loc, t.tile, r.tile, s0.column, s1.column, b.getStringAttr(s0.op),
      b.getF32FloatAttr(float(s0.imm)), b.getStringAttr(s1.op),
      b.getF32FloatAttr(float(s1.imm)), flag(s0.reversed), flag(s1.reversed));
  if (!engine.empty())
    op->setAttr(tile::kEngineAttr, b.getStringAttr(engine));
  resolved.push_back({t, r.tile});
  return r;
}

FailureOr<std::pair<TileValue, TileValue>>
BodyLowering::scaleAndBias(const TileValue &t) {
  for (const ScalarStep &s : t.pending)
    if (!(s.op == "add" || s.op == "mul" || (s.op == "sub" && !s.reversed)))
      return failure();
  Type f32 = b.getF32Type();
  TileValue scale{TileValue::Scalar, 1.0, {}, f32, {}};
  TileValue bias{TileValue::Scalar, 0.0, {}, f32, {}};
  auto isConst = [](const TileValue &v, double c) {
    return v.kind == TileValue::Scalar && v.scalar == c;
  };
  // (x * scale + bias) op c, keeping the [P,1] arithmetic to what is needed.
  for (const ScalarStep &s : t.pending) {
    TileValue c{TileValue::Scalar, s.imm, {}, f32, {}};
    if (s.column)
      c = {TileValue::Column,
           0.0,
           s.column,
           getElementTypeOrSelf(s.column.getType()),
           {}};
    if (s.op == "mul") {
      for (TileValue *v : {&scale, &bias}) {
        if (isConst(*v, 0.0))
          continue;
        if (isConst(*v, 1.0)) {
          *v = c;
          continue;
        }
        FailureOr<TileValue> m = binary("mul", *v, c, f32);
        if (failed(m))
          return failure();
        *v = *m;
      }
      continue;
    }
    if (s.op == "add" && isConst(bias, 0.0)) {
      bias = c;
      continue;
    }
    FailureOr<TileValue> sum = binary(s.op, bias, c, f32);
    if (failed(sum))
      return failure();
    bias = *sum;
  }
  return std::make_pair(scale, bias);
}

Value BodyLowering::materializeFull(const TileValue &value, Type type) {
  type = storageType(type);
  TileValue t = resolve(value);
  if (t.kind == TileValue::Full) {
    if (storageType(t.elementType) == type)
      return t.tile;
    Value cast = newTile(freeSize, type);
    tile::CopyOp::create(b, loc, t.tile, cast);
    return cast;
  }
  Value full = newTile(freeSize, type);
  if (t.kind == TileValue::Scalar) {
    tile::MemsetOp::create(b, loc, full, b.getF32FloatAttr(float(t.scalar)));
    return full;
  }
  // A column broadcast along the free axis: zeros + column.
  Value zeros = newTile(freeSize, type);
  tile::MemsetOp::create(b, loc, zeros, b.getF32FloatAttr(0.0f));
  tile::TensorScalarOp::create(b, loc, zeros, full, t.tile, Value(),
                               b.getStringAttr("add"), b.getF32FloatAttr(0),
                               b.getStringAttr("bypass"), b.getF32FloatAttr(0),
                               UnitAttr(), UnitAttr());
  return full;
}

/// (a + c) + (t + d), with per-partition or constant c and d still pending
/// (either may be none), as (a + t) + c + d: the tensor add reads a and t
/// where they are (a matmul's PSUM tile: one cycle an element on the DVE,
/// where two SBUF inputs take two) and c, d stay pending for the op that
/// reads the sum to absorb (a ReLU's bias). fp32 only; only the order of
/// the additions changes. A convolution's batch norm shift, residual and
/// ReLU: a DVE add and an ACT ReLU instead of an ACT pass, an SBUF add and
/// the ReLU.
std::optional<TileValue> BodyLowering::addBeforePending(const TileValue &x,
                                                        const TileValue &y,
                                                        Type resultType) {
  using K = TileValue::Kind;
  auto f32Tile = [](const TileValue &v) {
    return v.elementType.isF32() &&
           cast<MemRefType>(v.tile.getType()).getElementType().isF32();
  };
  auto additive = [](const TileValue &v) {
    return llvm::all_of(v.pending, [](const ScalarStep &s) {
      return s.op == "add" || (s.op == "sub" && !s.reversed);
    });
  };
  if (x.kind != K::Full || y.kind != K::Full || !resultType.isF32() ||
      (x.pending.empty() && y.pending.empty()) ||
      x.pending.size() + y.pending.size() > 2 || !additive(x) || !additive(y) ||
      !f32Tile(x) || !f32Tile(y) ||
      (tile::isPsum(x.tile.getType()) && tile::isPsum(y.tile.getType())) ||
      (chooseAddBeforePending && !chooseAddBeforePending()))
    return std::nullopt;
  // Both sides' deferred adds carry over (a ResNet block's projection
  // shortcut: the two batch norms' shifts).
  TileValue sum{K::Full, 0.0, newTile(freeSize, resultType), resultType,
                x.pending};
  sum.pending.append(y.pending.begin(), y.pending.end());
  // The accumulator first: its PSUM tile is the DVE's one PSUM input.
  bool swap = tile::isPsum(y.tile.getType());
  tile::TensorTensorOp::create(b, loc, b.getStringAttr("add"),
                               swap ? y.tile : x.tile, swap ? x.tile : y.tile,
                               sum.tile);
  return sum;
}

FailureOr<TileValue> BodyLowering::binary(StringRef op, const TileValue &x,
                                          const TileValue &y,
                                          Type resultType) {
  using K = TileValue::Kind;
  TileValue r;
  r.elementType = resultType;
  if (x.kind == K::Scalar && y.kind == K::Scalar) {
    r.kind = K::Scalar;
    r.scalar = roundTo(foldBinary(op, x.scalar, y.scalar), resultType);
    return r;
  }
  r.kind = std::max(x.kind, y.kind);
  // max(x * scale + bias, 0) with a per-partition scale and bias (a
  // convolution's batch norm and ReLU): one ACT relu, not two DVE passes.
  if (op == "max" && isa<FloatType>(resultType)) {
    auto isZero = [](const TileValue &v) {
      return v.kind == K::Scalar && v.scalar == 0.0;
    };
    const TileValue &t = isZero(y) ? x : y;
    if ((isZero(x) || isZero(y)) && t.kind == K::Full && !t.pending.empty() &&
        llvm::all_of(t.pending, [](const ScalarStep &s) {
          return s.op == "add" || s.op == "mul" ||
                 (s.op == "sub" && !s.reversed);
        }))
      return activation("relu", t, resultType);
  }
  // A full tile with a column or constant: deferred (see TileValue).
  bool deferrable = op == "add" || op == "sub" || op == "mul" || op == "div" ||
                    op == "max" || op == "min";
  if (deferrable && isa<FloatType>(resultType) &&
      (x.kind == K::Full) != (y.kind == K::Full)) {
    bool reversed = y.kind == K::Full;
    const TileValue &scalar = reversed ? x : y;
    TileValue src = reversed ? y : x;
    if (src.pending.size() == 2 || !isa<FloatType>(src.elementType))
      src = resolve(src);
    src.pending.push_back(
        ScalarStep{op, scalar.kind == K::Column ? scalar.tile : Value(),
                   scalar.kind == K::Scalar ? scalar.scalar : 0.0, reversed});
    src.elementType = resultType;
    return src;
  }
  TileValue xv = resolve(x), yv = resolve(y);
  int64_t free = r.kind == K::Full ? freeSize : 1;
  r.tile = newTile(free, resultType);
  if (x.kind == y.kind) {
    Value rhs = yv.tile;
    if (tile::isPsum(xv.tile.getType()) && tile::isPsum(rhs.getType())) {
      // Engines take at most one PSUM input (x + x on a matmul result).
      rhs = newTile(free, storageType(y.elementType));
      tile::CopyOp::create(b, loc, y.tile, rhs);
    }
    tile::TensorTensorOp::create(b, loc, b.getStringAttr(op), xv.tile, rhs,
                                 r.tile);
    return r;
  }
  // One side is wider: it is the tensor, the other the scalar operand.
  bool reversed = x.kind < y.kind;
  const TileValue &src = reversed ? yv : xv;
  const TileValue &scalar = reversed ? xv : yv;
  Value s0 = scalar.kind == K::Column ? scalar.tile : Value();
  float imm = scalar.kind == K::Scalar ? float(scalar.scalar) : 0.0f;
  tile::TensorScalarOp::create(
      b, loc, src.tile, r.tile, s0, Value(), b.getStringAttr(op),
      b.getF32FloatAttr(imm), b.getStringAttr("bypass"), b.getF32FloatAttr(0),
      reversed ? b.getUnitAttr() : UnitAttr(), UnitAttr());
  return r;
}

FailureOr<TileValue> BodyLowering::activation(StringRef func,
                                              const TileValue &x,
                                              Type resultType, Value bias,
                                              float biasImm) {
  TileValue r = x;
  r.elementType = resultType;
  if (x.kind == TileValue::Scalar) {
    r.scalar = roundTo(foldActivation(func, x.scalar + biasImm), resultType);
    return r;
  }
  if (func == "silu" && x.kind == TileValue::Full && !bias && biasImm == 0.0f &&
      chooseSilu && chooseSilu())
    return siluOnVectorEngines(x, resultType);
  int64_t free = x.kind == TileValue::Full ? freeSize : 1;
  // Pending ops of the form x * scale + bias become the ACT's own.
  Value scaleTile;
  float scaleImm = 1.0f;
  if (!x.pending.empty() && !bias && biasImm == 0.0f) {
    FailureOr<std::pair<TileValue, TileValue>> sb = scaleAndBias(x);
    if (succeeded(sb)) {
      auto [scale, shift] = *sb;
      scaleTile = scale.kind == TileValue::Column ? scale.tile : Value();
      scaleImm = scale.kind == TileValue::Scalar ? float(scale.scalar) : 1.0f;
      bias = shift.kind == TileValue::Column ? shift.tile : Value();
      biasImm = shift.kind == TileValue::Scalar ? float(shift.scalar) : 0.0f;
      r.pending.clear();
    }
  }
  Value src = r.pending.empty() ? x.tile : resolve(x).tile;
  r.pending.clear();
  r.tile = newTile(free, resultType);
  auto op = tile::ActivationOp::create(
      b, loc, b.getStringAttr(func), src, r.tile, scaleTile, bias, Value(),
      b.getF32FloatAttr(scaleImm), b.getF32FloatAttr(biasImm));
  activations[r.tile] = op;
  return r;
}

/// silu(x) = x * 1 / (1 + e^-x) in fp32 on the DVE and the POOL, for an
/// evacuation whose layer the ACT bounds (its SiLU is a function only the
/// ACT computes): x (the pending scale and shift applied) by the DVE, which
/// alone of the two reads PSUM; e^-x as the power of e (DVE or POOL, like
/// the rest); 1 / (1 + u); the product. Within a few fp32 ulps of the
/// ACT's x * sigmoid(x) (e rounded to fp32 scales the exponent by 1 -
/// 2e-8); a large -x gives e^-x = inf and the product -0.
TileValue BodyLowering::siluOnVectorEngines(const TileValue &x,
                                            Type resultType) {
  Type f32 = b.getF32Type();
  // x out of PSUM on the DVE (a copy, x + 0, when nothing is pending).
  TileValue pending = x;
  if (pending.pending.empty() && tile::isPsum(x.tile.getType()))
    pending.pending.push_back(ScalarStep{"add"});
  Value y = resolve(pending, "dve").tile;
  auto scalarOps = [&](Value src, StringRef op0, float imm0, StringRef op1,
                       float imm1) {
    Value dst = newTile(freeSize, f32);
    // `imm1 op1 (src op0 imm0)`.
    tile::TensorScalarOp::create(b, loc, src, dst, Value(), Value(),
                                 b.getStringAttr(op0), b.getF32FloatAttr(imm0),
                                 b.getStringAttr(op1), b.getF32FloatAttr(imm1),
                                 UnitAttr(), b.getUnitAttr());
    return dst;
  };
  Value u = scalarOps(y, "mul", -1.0f, "pow", 2.718281828459045f);
  Value v = scalarOps(u, "add", 1.0f, "div", 1.0f);
  TileValue r{TileValue::Full, 0.0, newTile(freeSize, resultType), resultType};
  tile::TensorTensorOp::create(b, loc, b.getStringAttr("mul"), y, v, r.tile);
  return r;
}

FailureOr<TileValue> BodyLowering::lowerBiasedActivation(Operation *op,
                                                         StringRef func) {
  Operation *def = op->getOperand(0).getDefiningOp();
  if (!def || !isa<arith::AddFOp, arith::SubFOp>(def) ||
      !def->getResult(0).hasOneUse() || values.count(def->getResult(0)))
    return TileValue();
  FailureOr<TileValue> a = lower(def->getOperand(0));
  FailureOr<TileValue> c = lower(def->getOperand(1));
  if (failed(a) || failed(c))
    return failure();
  bool sub = isa<arith::SubFOp>(def);
  if (a->kind != TileValue::Full || !a->pending.empty() ||
      c->kind == TileValue::Full ||
      storageType(def->getResult(0).getType()) != storageType(a->elementType))
    return TileValue();
  if (c->kind == TileValue::Scalar)
    return activation(func, *a, op->getResult(0).getType(), Value(),
                      float(sub ? -c->scalar : c->scalar));
  Value bias = c->tile;
  if (sub) {
    bias = newTile(1, b.getF32Type());
    tile::TensorScalarOp::create(b, loc, c->tile, bias, Value(), Value(),
                                 b.getStringAttr("mul"),
                                 b.getF32FloatAttr(-1.0f),
                                 b.getStringAttr("bypass"),
                                 b.getF32FloatAttr(0), UnitAttr(), UnitAttr());
  }
  return activation(func, *a, op->getResult(0).getType(), bias);
}

FailureOr<Value> BodyLowering::reduceRows(StringRef combine, const TileValue &v,
                                          Value scratch, bool valueDies,
                                          bool eitherEngine) {
  Type f32 = b.getF32Type();
  Value partial = newTile(1, f32);
  if (combine == "add" && v.kind == TileValue::Full) {
    tile::ActivationOp act =
        v.pending.empty() ? activations.lookup(v.tile) : tile::ActivationOp();
    Operation *alloc = partial.getDefiningOp();
    if (act && !act.getAccum() && act->getBlock() == alloc->getBlock()) {
      // The activation that computed the row sums it as well; its
      // accumulator tile must exist before it.
      alloc->moveBefore(act);
      act.getAccumMutable().assign(partial);
      Operation *dst = v.tile.getDefiningOp();
      if (scratch && valueDies && !bound.contains(v.tile) &&
          isa_and_nonnull<tile::AllocOp>(dst) && v.tile.hasOneUse()) {
        // Only the sum is wanted: the elementwise result needs no tile.
        if (Operation *s = scratch.getDefiningOp();
            s && s->getBlock() == act->getBlock() && act->isBeforeInBlock(s))
          s->moveBefore(act);
        act.getDstMutable().assign(scratch);
        activations.erase(v.tile);
        dst->erase();
      }
      return partial;
    }
    if (scratch && !eitherEngine) {
      // An ACT identity pass: the DVE is the busier engine of row kernels.
      FailureOr<TileValue> pass = activation("identity", v, v.elementType);
      if (failed(pass))
        return failure();
      tile::ActivationOp op = activations.lookup(pass->tile);
      op.getAccumMutable().assign(partial);
      Operation *dst = pass->tile.getDefiningOp();
      op.getDstMutable().assign(scratch);
      activations.erase(pass->tile);
      dst->erase();
      return partial;
    }
  }
  Value full = materializeFull(v, v.elementType);
  // Every free dim: a tile kept in SBUF is a [P, rows, cols] view. With a
  // scratch tile (of the source's shape) a sum may run as an ACT identity
  // pass instead.
  auto fullType = cast<MemRefType>(full.getType());
  bool scratchFits =
      scratch &&
      cast<MemRefType>(scratch.getType()).getShape() == fullType.getShape();
  tile::ReduceOp::create(
      b, loc, b.getStringAttr(combine), full, partial,
      b.getI64IntegerAttr(fullType.getRank() - 1),
      scratchFits && eitherEngine && combine == "add" ? scratch : Value());
  return partial;
}

FailureOr<ReductionBody> tiling::matchReductionBody(Operation *op, Block &body,
                                                   unsigned outputArg) {
  Value result = body.getTerminator()->getOperand(0);
  Operation *combine = result.getDefiningOp();
  StringRef name = combine ? aluNameOf(combine) : "";
  if (!combine || !(name == "add" || name == "max" || name == "min") ||
      combine->getNumOperands() != 2)
    return op->emitOpError(
        "reduction body must end in add/max/min of the output");
  BlockArgument out = body.getArgument(outputArg);
  if (combine->getOperand(0) == out)
    return ReductionBody{name, combine->getOperand(1)};
  if (combine->getOperand(1) == out)
    return ReductionBody{name, combine->getOperand(0)};
  return op->emitOpError("reduction must combine into the output value");
}

std::optional<SumFactor> tiling::sumFactor(const ReductionBody &reduction) {
  Value summand = reduction.expr;
  Operation *op = summand.getDefiningOp();
  if (reduction.combine != "add" || !op || !summand.hasOneUse() ||
      !isa<FloatType>(summand.getType()) ||
      !isa<arith::DivFOp, arith::MulFOp>(op))
    return std::nullopt;
  bool divide = isa<arith::DivFOp>(op);
  for (unsigned i = 0; i < (divide ? 1u : 2u); ++i) {
    FloatAttr c;
    if (matchPattern(op->getOperand(1 - i), m_Constant(&c)) &&
        c.getValueAsDouble() != 0.0 && std::isfinite(c.getValueAsDouble()))
      return SumFactor{op->getOperand(i), divide, c.getValueAsDouble()};
  }
  return std::nullopt;
}

Value tiling::scaleBySumFactor(OpBuilder &b, Location loc, Value column,
                               const SumFactor &factor, Value into) {
  auto type = cast<MemRefType>(column.getType());
  Value scaled =
      into ? into : allocTile(b, loc, type.getShape(), b.getF32Type());
  tile::TensorScalarOp::create(b, loc, column, scaled, Value(), Value(),
                               b.getStringAttr(factor.divide ? "div" : "mul"),
                               b.getF32FloatAttr(float(factor.c)),
                               b.getStringAttr("bypass"), b.getF32FloatAttr(0),
                               UnitAttr(), UnitAttr());
  return scaled;
}

/// Whether `v`'s pending steps on a PSUM tile (an evacuation's bias or
/// scale) are better applied once, when it is lowered: several ops read
/// `v` and none takes pending steps into an activation's scale and bias
/// or is the sigmoid family (which make them free). Otherwise every reader
/// applies them again from PSUM: hardswish's x * clamp(x / 6 + 0.5, 0, 1)
/// took a DVE pass from PSUM for x / 6 besides the pass that made x, and
/// only the DVE reads PSUM (the POOL cannot), which ran MobileNetV3 on it.
static bool appliesPendingOnce(Value v, const TileValue &t) {
  if (t.kind != TileValue::Full || t.pending.empty() || !t.tile ||
      !tile::isPsum(t.tile.getType()))
    return false;
  SmallPtrSet<Operation *, 4> users(v.getUsers().begin(), v.getUsers().end());
  if (users.size() < 2)
    return false;
  return llvm::none_of(users, [&](Operation *user) {
    return !activationOf(user).empty() || isReluOf(user, v) ||
           matchSigmoidFamily(user).second;
  });
}

FailureOr<TileValue> BodyLowering::lower(Value v) {
  auto it = values.find(v);
  if (it != values.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def) {
    // A block argument nobody bound: the kernel does not support it here.
    emitError(loc) << "nki-tile: unsupported use of a linalg block argument";
    return failure();
  }
  FailureOr<TileValue> r = lowerOp(def);
  if (succeeded(r) && appliesPendingOnce(v, *r))
    r = resolve(*r);
  if (succeeded(r))
    values[v] = *r;
  return r;
}

FailureOr<TileValue> BodyLowering::lowerOp(Operation *op) {
  Type resultType = op->getNumResults() == 1 ? op->getResult(0).getType()
                                             : Type();
  auto unsupported = [&]() -> FailureOr<TileValue> {
    return op->emitOpError()
           << "is not supported inside a linalg body by the nki compiler";
  };
  if (!resultType || !(isa<FloatType>(resultType) || resultType.isInteger(1) ||
                       resultType.isInteger(8) || resultType.isInteger(32)))
    return unsupported();

  // Constants.
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    TileValue r;
    r.elementType = resultType;
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      r.scalar = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      r.scalar = resultType.isInteger(1)
                     ? double(i.getValue().getZExtValue()) // true is 1
                     : double(i.getValue().getSExtValue());
    else
      return unsupported();
    return r;
  }

  // sigmoid(y) and silu(y) as the importer writes them: one ACT instruction
  // (scale and bias taken from y's pending ops), not four or five passes.
  if (auto [func, y] = matchSigmoidFamily(op); y) {
    FailureOr<TileValue> in = lower(y);
    if (failed(in))
      return failure();
    return activation(func, *in, resultType);
  }
  // GELU's erf form likewise: the ACT's gelu, 0.5 x (1 + erf(x / sqrt 2)),
  // for five passes (docs/compiler.md, "Numerical behaviour": x / sqrt 2
  // becomes x times 1 / sqrt 2).
  if (Value x = matchGeluErf(op)) {
    FailureOr<TileValue> in = lower(x);
    if (failed(in))
      return failure();
    return activation("gelu", *in, resultType);
  }

  // f(a + c) and f(a - c) with a per-partition or constant c fold into the
  // activation's bias: one ACT instruction instead of a DVE op and an ACT op.
  StringRef act = activationOf(op);
  if (!act.empty())
    if (FailureOr<TileValue> fused = lowerBiasedActivation(op, act);
        succeeded(fused) && fused->tile)
      return fused;

  SmallVector<TileValue> in;
  for (Value operand : op->getOperands()) {
    FailureOr<TileValue> t = lower(operand);
    if (failed(t))
      return failure();
    in.push_back(*t);
  }

  StringRef alu = aluNameOf(op);
  // x * x on the ACT (square), which also leaves the DVE free.
  if (alu == "mul" && in[0].kind == TileValue::Full &&
      in[1].kind == TileValue::Full &&
      (op->getOperand(0) == op->getOperand(1) ||
       (in[0].tile == in[1].tile && in[0].pending.empty() &&
        in[1].pending.empty())))
    return activation("square", in[0], resultType);
  // A sum whose only reader takes per-partition ops as its scale and bias
  // (an activation, or a max with 0: a ReLU) keeps them pending past the
  // add.
  if (alu == "add" && in.size() == 2 && op->getResult(0).hasOneUse()) {
    Operation *user = *op->getResult(0).getUsers().begin();
    bool absorbs =
        !activationOf(user).empty() || isReluOf(user, op->getResult(0));
    if (absorbs)
      if (std::optional<TileValue> sum =
              addBeforePending(in[0], in[1], resultType))
        return *sum;
  }
  if (!alu.empty() && in.size() == 2)
    return binary(alu, in[0], in[1], resultType);

  if (isa<arith::NegFOp>(op))
    return binary("mul", in[0], TileValue{TileValue::Scalar, -1.0, {}, resultType},
                  resultType);

  if (!act.empty())
    return activation(act, in[0], resultType);
  for (TileValue &t : in)
    t = resolve(t);

  // Casts: a copy into a tile of the new type (the store rounds).
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
          arith::FPToSIOp, arith::FPToUIOp, arith::ExtUIOp, arith::ExtSIOp,
          arith::TruncIOp>(op)) {
    TileValue r = in[0];
    r.elementType = resultType;
    if (in[0].kind == TileValue::Scalar) {
      r.scalar = roundTo(in[0].scalar, resultType);
      return r;
    }
    if (storageType(in[0].elementType) == storageType(resultType))
      return r;
    // A float narrowing of an f32 value of this body that only the cast
    // reads, in a tile one instruction writes and nobody else may read:
    // that instruction stores in the new type (its store rounds once, as
    // the copy would), no copy. Not a widening (an earlier rounding would
    // be lost) nor an integer conversion.
    Value from = op->getOperand(0);
    if (isa<arith::TruncFOp>(op) && from.getDefiningOp() && from.hasOneUse() &&
        !bound.contains(in[0].tile) &&
        cast<MemRefType>(in[0].tile.getType()).getElementType().isF32())
      if (Value narrow = retypeWrittenTile(b, in[0].tile, resultType)) {
        r.tile = narrow;
        return r;
      }
    int64_t free = in[0].kind == TileValue::Full ? freeSize : 1;
    r.tile = newTile(free, resultType);
    tile::CopyOp::create(b, loc, in[0].tile, r.tile);
    return r;
  }

  // roundeven: a store into an int32 tile rounds to nearest even. Floats of
  // magnitude >= 2^23 are integral already (and may not fit an int32), so
  // they keep their value.
  if (isa<math::RoundEvenOp>(op)) {
    if (in[0].kind == TileValue::Scalar) {
      TileValue r = in[0];
      r.scalar = std::nearbyint(in[0].scalar);
      return r;
    }
    int64_t free = in[0].kind == TileValue::Full ? freeSize : 1;
    Value asInt = newTile(free, b.getI32Type());
    tile::CopyOp::create(b, loc, in[0].tile, asInt);
    Value rounded = newTile(free, resultType);
    tile::CopyOp::create(b, loc, asInt, rounded);
    FailureOr<TileValue> mag = activation("abs", in[0], resultType);
    if (failed(mag))
      return failure();
    FailureOr<TileValue> small = binary(
        "lt", *mag, TileValue{TileValue::Scalar, 8388608.0, {}, resultType},
        resultType);
    if (failed(small))
      return failure();
    TileValue r = in[0];
    r.elementType = resultType;
    r.tile = newTile(free, resultType);
    tile::SelectOp::create(b, loc, small->tile, rounded, in[0].tile, r.tile);
    return r;
  }

  if (isa<arith::SelectOp>(op)) {
    TileValue r;
    r.kind = TileValue::Full;
    r.elementType = resultType;
    Value pred = materializeFull(in[0], in[0].elementType);
    Value t = materializeFull(in[1], resultType);
    Value f = materializeFull(in[2], resultType);
    r.tile = newTile(freeSize, resultType);
    tile::SelectOp::create(b, loc, pred, t, f, r.tile);
    return r;
  }
  return unsupported();
}

std::optional<double> tiling::constantFloat(Value v) {
  FloatAttr k;
  if (matchPattern(v, m_Constant(&k)))
    return k.getValueAsDouble();
  return std::nullopt;
}
