//===- Math.cpp - fp32 arithmetic of the ACT/DVE/POOL engines -------------===//

#include "Math.h"

#include <cmath>

namespace nki::sim {

namespace {

int32_t toInt(float v) {
  if (std::isnan(v))
    return 0;
  if (v >= 2147483647.0f)
    return INT32_MAX;
  if (v <= -2147483648.0f)
    return INT32_MIN;
  return int32_t(std::nearbyint(v));
}

template <typename F>
void binary(const float *a, const float *b, int64_t bStride, float *out,
            int64_t n, F f) {
  // In place (out == a) gets its own loops: the vectoriser's overlap check
  // would otherwise send exact aliasing down the scalar path.
  if (out == a && bStride == 0) {
    float s = b[0];
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(out[i], s);
    return;
  }
  if (out == a) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(out[i], b[i]);
    return;
  }
  if (bStride == 0) {
    float s = b[0];
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(a[i], s);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out[i] = f(a[i], b[i]);
  }
}

template <typename F> void unary(float *x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    x[i] = f(x[i]);
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

} // namespace

float aluScalar(isa::AluOp op, float a, float b) {
  using isa::AluOp;
  switch (op) {
  case AluOp::Bypass:
    return a;
  case AluOp::Add:
    return a + b;
  case AluOp::Sub:
    return a - b;
  case AluOp::Mul:
    return a * b;
  case AluOp::Div:
    return a / b;
  case AluOp::Max:
    return std::fmax(a, b);
  case AluOp::Min:
    return std::fmin(a, b);
  case AluOp::Pow:
    return std::pow(a, b);
  case AluOp::IsEq:
    return a == b ? 1.0f : 0.0f;
  case AluOp::IsNe:
    return a != b ? 1.0f : 0.0f;
  case AluOp::IsLt:
    return a < b ? 1.0f : 0.0f;
  case AluOp::IsLe:
    return a <= b ? 1.0f : 0.0f;
  case AluOp::IsGt:
    return a > b ? 1.0f : 0.0f;
  case AluOp::IsGe:
    return a >= b ? 1.0f : 0.0f;
  case AluOp::And:
    return float(toInt(a) & toInt(b));
  case AluOp::Or:
    return float(toInt(a) | toInt(b));
  case AluOp::Xor:
    return float(toInt(a) ^ toInt(b));
  }
  return a;
}

bool isComparison(isa::AluOp op) {
  using isa::AluOp;
  return op == AluOp::IsEq || op == AluOp::IsNe || op == AluOp::IsLt ||
         op == AluOp::IsLe || op == AluOp::IsGt || op == AluOp::IsGe;
}

void applyAlu(isa::AluOp op, const float *a, const float *b, int64_t bStride,
              float *out, int64_t n) {
  using isa::AluOp;
  // The common ops get their own loops so they vectorise.
  switch (op) {
  case AluOp::Bypass:
    if (out != a)
      for (int64_t i = 0; i < n; ++i)
        out[i] = a[i];
    return;
  case AluOp::Add:
    return binary(a, b, bStride, out, n,
                  [](float x, float y) { return x + y; });
  case AluOp::Sub:
    return binary(a, b, bStride, out, n,
                  [](float x, float y) { return x - y; });
  case AluOp::Mul:
    return binary(a, b, bStride, out, n,
                  [](float x, float y) { return x * y; });
  case AluOp::Max:
    return binary(a, b, bStride, out, n,
                  [](float x, float y) { return std::fmax(x, y); });
  case AluOp::Min:
    return binary(a, b, bStride, out, n,
                  [](float x, float y) { return std::fmin(x, y); });
  default:
    return binary(a, b, bStride, out, n,
                  [op](float x, float y) { return aluScalar(op, x, y); });
  }
}

void applyAluScalarFirst(isa::AluOp op, float a, const float *b, float *out,
                         int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = aluScalar(op, a, b[i]);
}

float activationScalar(isa::ActFunc f, float x) {
  using isa::ActFunc;
  switch (f) {
  case ActFunc::Identity:
    return x;
  case ActFunc::Relu:
    return x > 0.0f ? x : 0.0f;
  case ActFunc::Square:
    return x * x;
  case ActFunc::Abs:
    return std::fabs(x);
  case ActFunc::Sign:
    return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; // keeps +-0 and NaN
  case ActFunc::Exp:
    return std::exp(x);
  case ActFunc::Log:
    return std::log(x);
  case ActFunc::Sigmoid:
    return sigmoid(x);
  case ActFunc::Tanh:
    return std::tanh(x);
  case ActFunc::GeluErf:
    return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  case ActFunc::GeluTanh: {
    float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(inner));
  }
  case ActFunc::Silu:
    return x * sigmoid(x);
  case ActFunc::Softplus:
    // log(1 + e^x) without overflow for large x.
    return std::fmax(x, 0.0f) + std::log1p(std::exp(-std::fabs(x)));
  case ActFunc::Erf:
    return std::erf(x);
  case ActFunc::Sqrt:
    return std::sqrt(x);
  case ActFunc::Rsqrt:
    return 1.0f / std::sqrt(x);
  case ActFunc::Reciprocal:
    return 1.0f / x;
  case ActFunc::Sin:
    return std::sin(x);
  case ActFunc::Cos:
    return std::cos(x);
  }
  return x;
}

void applyActivation(isa::ActFunc f, float *x, int64_t n) {
  using isa::ActFunc;
  switch (f) {
  case ActFunc::Identity:
    return;
  case ActFunc::Relu:
    return unary(x, n, [](float v) { return v > 0.0f ? v : 0.0f; });
  case ActFunc::Square:
    return unary(x, n, [](float v) { return v * v; });
  default:
    return unary(x, n, [f](float v) { return activationScalar(f, v); });
  }
}

} // namespace nki::sim
