//===- compile.cpp - Fuzz the whole compiler on generated programs
//---------===//
//
// The input drives a generator of small valid tensor programs: 1 to 3 f32
// inputs of random shapes (ranks 1 to 3, dims from 1 to 256, sizes around
// the 128-partition and 512-element tile boundaries), then 1 to 6 ops among
// elementwise binaries (add, sub, mul, max, min), unaries (tanh, abs,
// negf, exp on bounded values), generics with constants (ReLU, scales,
// sigmoid), broadcasts (a bias along the last dim, a scale or shift along
// any one), matmul and batch_matmul, transpose, reshapes (collapse and
// expand), sum/max reductions, softmax, layer normalisation, one head of
// attention (softmax(q k^T / sqrt(d)) v), and NCHW convolutions (stride 1 or
// 2, kernels 1 or 3, zero padding, up to 130 channels) and max/sum poolings
// (-inf padding) that chain on each other's results, written as linalg and
// tensor ops on tensors.
// Each program is compiled for trn2 (nki::compileModule, as nki-compile;
// a quarter of them with --auto-cast=matmul, against a reference that
// rounds matmul and convolution operands to bf16 likewise, within 1e-2),
// run on the simulator with every check on, and its outputs are compared
// with a double-precision reference evaluated here, independently of the
// compiler. Findings (abort): a crash anywhere, a simulator error on a
// compiled program (race, uninitialised read, deadlock), or an output
// outside |got - ref| <= 1e-3 * max(1, max |ref|), and a diagnostic: every
// generated program is valid, so the compiler must take it. (A limitation
// the compiler documents would be listed in kKnownLimitations, counted and
// its first message printed once; the list is empty.) NKI_FUZZ_PRINT=1
// prints each program.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "nki/ISA/Binary.h"
#include "nki/ISA/Types.h"
#include "nki/Pipeline/Driver.h"
#include "nki/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

using namespace nki;

namespace {

using Shape = std::vector<int64_t>;

int64_t numElements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Row-major strides of `s`.
Shape stridesOf(const Shape &s) {
  Shape st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;)
    st[d - 1] = st[d] * s[d];
  return st;
}

/// `batch` products of row-major [m, k] and [k, n] matrices (b's [k, n]
/// given as [n, k] when `bTransposed`), in double.
std::vector<double> matmulRef(const std::vector<double> &a,
                              const std::vector<double> &b, int64_t batch,
                              int64_t m, int64_t k, int64_t n,
                              bool bTransposed = false) {
  std::vector<double> c(size_t(batch * m * n));
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += a[size_t((p * m + i) * k + l)] *
                 b[size_t(p * k * n + (bTransposed ? j * k + l : l * n + j))];
        c[size_t((p * m + i) * n + j)] = sum;
      }
  return c;
}

/// Softmax of each row of `n` elements of `x`, in place.
void softmaxRows(std::vector<double> &x, size_t n) {
  for (size_t row = 0; row < x.size(); row += n) {
    double m = -INFINITY, sum = 0;
    for (size_t i = 0; i < n; ++i)
      m = std::max(m, x[row + i]);
    for (size_t i = 0; i < n; ++i)
      sum += x[row + i] = std::exp(x[row + i] - m);
    for (size_t i = 0; i < n; ++i)
      x[row + i] /= sum;
  }
}

std::string typeOf(const Shape &s) {
  std::string t = "tensor<";
  for (int64_t d : s)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

struct Value {
  std::string ssa; // %v3
  Shape shape;
  std::vector<double> data; // the reference
};

/// Generates the program text and its reference values at once.
class Generator {
public:
  explicit Generator(FuzzedDataProvider &in)
      : in_(in), seed_(in.ConsumeIntegral<uint32_t>()),
        bf16_(in.ConsumeIntegralInRange(0, 3) == 0) {}

  /// Compiled with --auto-cast=matmul: every matmul and convolution
  /// multiplies its operands rounded to bf16 (the reference does too).
  bool autoCast() const { return bf16_; }

  bool build() {
    int inputs = in_.ConsumeIntegralInRange(1, 3);
    for (int i = 0; i < inputs; ++i)
      addInput(randomShape());
    int ops = in_.ConsumeIntegralInRange(1, 6);
    for (int i = 0; i < ops && (i == 0 || in_.remaining_bytes()); ++i)
      addOp(); // at least one, so the result is never an argument
    return numElements(values_.back().shape) > 0;
  }

  std::string text() const {
    std::ostringstream os;
    os << "func.func @main(";
    for (size_t i = 0; i < args_.size(); ++i)
      os << (i ? ", " : "") << values_[args_[i]].ssa << ": "
         << typeOf(values_[args_[i]].shape);
    os << ") -> (" << typeOf(values_.back().shape) << ") {\n"
       << body_.str() << "  return " << values_.back().ssa << " : "
       << typeOf(values_.back().shape) << "\n}\n";
    return os.str();
  }

  const Value &result() const { return values_.back(); }
  std::vector<const Value *> inputs() const {
    std::vector<const Value *> out;
    for (size_t i : args_)
      out.push_back(&values_[i]);
    return out;
  }

private:
  int64_t randomDim() {
    static const int64_t dims[] = {1,  2,  3,   5,   8,   16,
                                   31, 64, 127, 128, 130, 256};
    return dims[in_.ConsumeIntegralInRange<size_t>(0, std::size(dims) - 1)];
  }

  Shape randomShape() {
    Shape s(in_.ConsumeIntegralInRange(1, 3));
    for (int64_t &d : s)
      d = randomDim();
    while (numElements(s) > 16384) { // keep each run to milliseconds
      int64_t &largest = *std::max_element(s.begin(), s.end());
      largest = (largest + 1) / 2;
    }
    return s;
  }

  std::string fresh() { return "%v" + std::to_string(next_++); }

  size_t addInput(Shape shape) {
    Value v{fresh(), std::move(shape), {}};
    v.data.resize(size_t(numElements(v.shape)));
    // Values from a generator seeded by the input, so that the input's
    // bytes go to the program's structure; multiples of 2^-10 in [-1, 1]
    // are exact in f32, as the simulator gets them.
    for (double &x : v.data) {
      seed_ = seed_ * 1664525u + 1013904223u;
      x = double(int32_t(seed_ >> 21) - 1024) / 1024.0;
    }
    args_.push_back(values_.size());
    values_.push_back(std::move(v));
    return values_.size() - 1;
  }

  /// An operand: mostly the latest value, so that ops chain into the result
  /// instead of becoming dead code.
  const Value &pick() {
    if (in_.ConsumeIntegralInRange(0, 3) != 0)
      return values_.back();
    return values_[in_.ConsumeIntegralInRange<size_t>(0, values_.size() - 1)];
  }

  /// `%e = tensor.empty()`, optionally filled with `init`.
  std::string init(const Shape &s, const char *fill) {
    std::string e = fresh();
    body_ << "  " << e << " = tensor.empty() : " << typeOf(s) << "\n";
    if (!fill)
      return e;
    std::string c = fresh(), f = fresh();
    body_ << "  " << c << " = arith.constant " << fill << " : f32\n"
          << "  " << f << " = linalg.fill ins(" << c << " : f32) outs(" << e
          << " : " << typeOf(s) << ") -> " << typeOf(s) << "\n";
    return f;
  }

  void push(Value v) { values_.push_back(std::move(v)); }

  void addOp() {
    switch (in_.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return binary();
    case 1:
      return unary();
    case 2:
      return bias();
    case 3:
      return matmul();
    case 4:
      return transpose();
    case 5:
      return reduce();
    case 6:
      return softmax();
    case 7:
      return conv();
    case 8:
      return pool();
    case 9:
      return reshape();
    case 10:
      return batchMatmul();
    case 11:
      return broadcastAlong();
    case 12:
      return activation();
    case 13:
      return layerNorm();
    case 14:
      return attention();
    default:
      return binary();
    }
  }

  /// A second operand of `a`'s shape: an existing value or a new input.
  size_t sameShape(const Value &a) {
    for (size_t i = 0; i < values_.size(); ++i)
      if (values_[i].shape == a.shape && &values_[i] != &a && in_.ConsumeBool())
        return i;
    return addInput(a.shape);
  }

  void binary() {
    size_t ai = &pick() - values_.data();
    size_t bi = sameShape(values_[ai]);
    const Value &a = values_[ai], &b = values_[bi];
    static const char *names[] = {"add", "sub", "mul", "max", "min"};
    int k = in_.ConsumeIntegralInRange(0, 4);
    std::string e = init(a.shape, nullptr), r = fresh(), t = typeOf(a.shape);
    body_ << "  " << r << " = linalg." << names[k] << " ins(" << a.ssa << ", "
          << b.ssa << " : " << t << ", " << t << ") outs(" << e << " : " << t
          << ") -> " << t << "\n";
    Value v{r, a.shape, a.data};
    for (size_t i = 0; i < v.data.size(); ++i) {
      double x = a.data[i], y = b.data[i];
      v.data[i] = k == 0   ? x + y
                  : k == 1 ? x - y
                  : k == 2 ? x * y
                  : k == 3 ? std::max(x, y)
                           : std::min(x, y);
    }
    push(std::move(v));
  }

  void unary() {
    const Value &a = pick();
    double maxAbs = 0;
    for (double x : a.data)
      maxAbs = std::max(maxAbs, std::fabs(x));
    static const char *names[] = {"tanh", "abs", "negf", "exp"};
    int k = in_.ConsumeIntegralInRange(0, maxAbs <= 8 ? 3 : 2);
    std::string e = init(a.shape, nullptr), r = fresh(), t = typeOf(a.shape);
    body_ << "  " << r << " = linalg." << names[k] << " ins(" << a.ssa << " : "
          << t << ") outs(" << e << " : " << t << ") -> " << t << "\n";
    Value v{r, a.shape, a.data};
    for (double &x : v.data)
      x = k == 0   ? std::tanh(x)
          : k == 1 ? std::fabs(x)
          : k == 2 ? -x
                   : std::exp(x);
    push(std::move(v));
  }

  /// a + broadcast(b) with b a new [last dim] input (a bias).
  void bias() {
    const Value &a0 = pick();
    if (a0.shape.size() < 2)
      return binary();
    size_t ai = &a0 - values_.data();
    Shape bs{a0.shape.back()};
    size_t bi = addInput(bs);
    const Value &a = values_[ai], &b = values_[bi];
    std::string dims;
    for (size_t d = 0; d + 1 < a.shape.size(); ++d)
      dims += (d ? ", " : "") + std::to_string(d);
    std::string eb = init(a.shape, nullptr), bb = fresh();
    std::string t = typeOf(a.shape);
    body_ << "  " << bb << " = linalg.broadcast ins(" << b.ssa << " : "
          << typeOf(bs) << ") outs(" << eb << " : " << t << ") dimensions = ["
          << dims << "]\n";
    std::string e = init(a.shape, nullptr), r = fresh();
    body_ << "  " << r << " = linalg.add ins(" << a.ssa << ", " << bb << " : "
          << t << ", " << t << ") outs(" << e << " : " << t << ") -> " << t
          << "\n";
    Value v{r, a.shape, a.data};
    int64_t n = a.shape.back();
    for (size_t i = 0; i < v.data.size(); ++i)
      v.data[i] += b.data[i % size_t(n)];
    push(std::move(v));
  }

  /// a [M, K] x b [K, N], b a new input.
  void matmul() {
    const Value &a0 = pick();
    if (a0.shape.size() != 2)
      return unary();
    size_t ai = &a0 - values_.data();
    int64_t m = a0.shape[0], k = a0.shape[1], n = randomDim();
    size_t bi = addInput({k, n});
    const Value &a = values_[ai], &b = values_[bi];
    std::string f = init({m, n}, "0.0"), r = fresh();
    body_ << "  " << r << " = linalg.matmul ins(" << a.ssa << ", " << b.ssa
          << " : " << typeOf(a.shape) << ", " << typeOf(b.shape) << ") outs("
          << f << " : " << typeOf({m, n}) << ") -> " << typeOf({m, n}) << "\n";
    push(Value{r, {m, n}, matmulRef(operand(a), operand(b), 1, m, k, n)});
  }

  void transpose() {
    const Value &a = pick();
    size_t r = a.shape.size();
    if (r < 2)
      return unary();
    std::vector<int64_t> perm(r);
    for (size_t d = 0; d < r; ++d)
      perm[d] = int64_t(d);
    for (size_t d = r; d-- > 1;) // Fisher-Yates from the input
      std::swap(perm[d], perm[in_.ConsumeIntegralInRange<size_t>(0, d)]);
    Shape out(r);
    for (size_t d = 0; d < r; ++d)
      out[d] = a.shape[size_t(perm[d])];
    std::string e = init(out, nullptr), res = fresh(), ps;
    for (size_t d = 0; d < r; ++d)
      ps += (d ? ", " : "") + std::to_string(perm[d]);
    body_ << "  " << res << " = linalg.transpose ins(" << a.ssa << " : "
          << typeOf(a.shape) << ") outs(" << e << " : " << typeOf(out)
          << ") permutation = [" << ps << "]\n";
    Value v{res, out, std::vector<double>(a.data.size())};
    Shape inStrides = stridesOf(a.shape), outStrides = stridesOf(out);
    for (int64_t i = 0; i < int64_t(v.data.size()); ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < r; ++d)
        src += (i / outStrides[d] % out[d]) * inStrides[size_t(perm[d])];
      v.data[size_t(i)] = a.data[size_t(src)];
    }
    push(std::move(v));
  }

  void reduce() {
    const Value &a = pick();
    size_t r = a.shape.size();
    if (r < 2)
      return unary();
    size_t dim = in_.ConsumeIntegralInRange<size_t>(0, r - 1);
    bool isMax = in_.ConsumeBool();
    Shape out;
    for (size_t d = 0; d < r; ++d)
      if (d != dim)
        out.push_back(a.shape[d]);
    std::string f = init(out, isMax ? "-3.0e38" : "0.0"), res = fresh();
    std::string x = fresh(), acc = fresh(), y = fresh();
    body_ << "  " << res << " = linalg.reduce ins(" << a.ssa << " : "
          << typeOf(a.shape) << ") outs(" << f << " : " << typeOf(out)
          << ") dimensions = [" << dim << "]\n    (" << x << ": f32, " << acc
          << ": f32) {\n      " << y << " = arith."
          << (isMax ? "maximumf " : "addf ") << x << ", " << acc
          << " : f32\n      linalg.yield " << y << " : f32\n    }\n";
    Value v{
        res, out,
        std::vector<double>(size_t(numElements(out)), isMax ? -3.0e38 : 0.0)};
    Shape inStrides = stridesOf(a.shape), outStrides = stridesOf(out);
    for (int64_t i = 0; i < int64_t(a.data.size()); ++i) {
      int64_t o = 0;
      for (size_t d = 0, od = 0; d < r; ++d) {
        if (d == dim)
          continue;
        o += (i / inStrides[d] % a.shape[d]) * outStrides[od++];
      }
      double &slot = v.data[size_t(o)];
      slot =
          isMax ? std::max(slot, a.data[size_t(i)]) : slot + a.data[size_t(i)];
    }
    push(std::move(v));
  }

  /// softmax along the last dim.
  void softmax() {
    const Value &a = pick();
    std::string e = init(a.shape, nullptr), r = fresh(), t = typeOf(a.shape);
    body_ << "  " << r << " = linalg.softmax dimension(" << a.shape.size() - 1
          << ") ins(" << a.ssa << " : " << t << ") outs(" << e << " : " << t
          << ") -> " << t << "\n";
    Value v{r, a.shape, a.data};
    softmaxRows(v.data, size_t(a.shape.back()));
    push(std::move(v));
  }

  /// An [N, C, H, W] operand for a convolution or pooling with `k`x`k`
  /// windows: the latest value when it is one (so that they chain, and
  /// tensors stay resident in SBUF between them), else a new input.
  size_t image(int64_t k) {
    const Value &a = pick();
    if (a.shape.size() == 4 && a.shape[2] >= k && a.shape[3] >= k &&
        in_.ConsumeIntegralInRange(0, 3) != 0)
      return size_t(&a - values_.data());
    static const int64_t channels[] = {1, 3, 8, 16, 32, 130};
    int64_t n = in_.ConsumeBool() ? 1 : 2;
    int64_t c = channels[in_.ConsumeIntegralInRange<size_t>(
        0, std::size(channels) - 1)];
    int64_t h = in_.ConsumeIntegralInRange<int64_t>(k, 20);
    int64_t w = in_.ConsumeIntegralInRange<int64_t>(k, 20);
    while (n * c * h * w > 16384 && (h > k || w > k))
      (h >= w ? h : w) -= 1;
    return addInput({n, c, h, w});
  }

  /// `values_[xi]` padded by `p` rows and columns on each side with `fill`
  /// (tensor.pad; the value itself for p = 0). Not an operand for later ops:
  /// a -inf border would make NaNs of them.
  Value pad(size_t xi, int64_t p, double fill, const char *literal) {
    const Value &x = values_[xi];
    if (p == 0)
      return x;
    Shape s = x.shape, out{s[0], s[1], s[2] + 2 * p, s[3] + 2 * p};
    std::string c = fresh(), r = fresh();
    body_ << "  " << c << " = arith.constant " << literal << " : f32\n"
          << "  " << r << " = tensor.pad " << x.ssa << " low[0, 0, " << p
          << ", " << p << "] high[0, 0, " << p << ", " << p << "] {\n"
          << "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
          << "    tensor.yield " << c << " : f32\n  } : " << typeOf(s) << " to "
          << typeOf(out) << "\n";
    Value v{r, out, std::vector<double>(size_t(numElements(out)), fill)};
    for (int64_t nc = 0; nc < s[0] * s[1]; ++nc)
      for (int64_t i = 0; i < s[2]; ++i)
        for (int64_t j = 0; j < s[3]; ++j)
          v.data[size_t((nc * out[2] + i + p) * out[3] + j + p)] =
              x.data[size_t((nc * s[2] + i) * s[3] + j)];
    return v;
  }

  /// A convolution (NCHW x FCHW, stride 1 or 2, kernel 1 or 3, zero padding
  /// 0 or 1) of an image (see image()) and a new filter input.
  void conv() {
    static const int64_t filters[] = {1, 3, 8, 16, 32, 130};
    int64_t k = in_.ConsumeBool() ? 3 : 1, stride = in_.ConsumeBool() ? 2 : 1;
    int64_t p = k == 3 ? in_.ConsumeIntegralInRange(0, 1) : 0;
    Value x = pad(image(k), p, 0.0, "0.0");
    Shape xs = x.shape;
    int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
    int64_t oh = (h - k) / stride + 1, ow = (w - k) / stride + 1;
    int64_t f =
        filters[in_.ConsumeIntegralInRange<size_t>(0, std::size(filters) - 1)];
    f = std::max<int64_t>(1, std::min(f, 16384 / (n * oh * ow)));
    const Value &wt = values_[addInput({f, c, k, k})];
    Shape out{n, f, oh, ow};
    std::string z = init(out, "0.0"), r = fresh();
    body_ << "  " << r << " = linalg.conv_2d_nchw_fchw {strides = dense<"
          << stride
          << "> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins("
          << x.ssa << ", " << wt.ssa << " : " << typeOf(x.shape) << ", "
          << typeOf(wt.shape) << ") outs(" << z << " : " << typeOf(out)
          << ") -> " << typeOf(out) << "\n";
    Value v{r, out, std::vector<double>(size_t(numElements(out)))};
    std::vector<double> xd = operand(x), wd = operand(wt);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < f; ++o)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            double sum = 0;
            for (int64_t ci = 0; ci < c; ++ci)
              for (int64_t di = 0; di < k; ++di)
                for (int64_t dj = 0; dj < k; ++dj)
                  sum += xd[size_t(((b * c + ci) * h + i * stride + di) * w +
                                   j * stride + dj)] *
                         wd[size_t(((o * c + ci) * k + di) * k + dj)];
            v.data[size_t(((b * f + o) * oh + i) * ow + j)] = sum;
          }
    push(std::move(v));
  }

  /// A max or sum pooling (kernel 2 or 3, stride 1 or 2; a 3x3 max pooling
  /// may pad by 1 with -inf, as ResNet's stem does).
  void pool() {
    int64_t k = in_.ConsumeBool() ? 3 : 2, stride = in_.ConsumeBool() ? 2 : 1;
    bool isMax = in_.ConsumeBool();
    int64_t p = k == 3 && isMax ? in_.ConsumeIntegralInRange(0, 1) : 0;
    Value x = pad(image(k), p, -INFINITY, "0xFF800000");
    int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
    int64_t oh = (h - k) / stride + 1, ow = (w - k) / stride + 1;
    Shape out{n, c, oh, ow};
    std::string win = fresh();
    body_ << "  " << win << " = tensor.empty() : tensor<" << k << "x" << k
          << "xf32>\n";
    std::string z = init(out, isMax ? "0xFF800000" : "0.0"), r = fresh();
    body_ << "  " << r << " = linalg.pooling_nchw_" << (isMax ? "max" : "sum")
          << " {strides = dense<" << stride
          << "> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins("
          << x.ssa << ", " << win << " : " << typeOf(x.shape) << ", tensor<"
          << k << "x" << k << "xf32>) outs(" << z << " : " << typeOf(out)
          << ") -> " << typeOf(out) << "\n";
    Value v{r, out, std::vector<double>(size_t(numElements(out)))};
    for (int64_t nc = 0; nc < n * c; ++nc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = isMax ? -INFINITY : 0.0;
          for (int64_t di = 0; di < k; ++di)
            for (int64_t dj = 0; dj < k; ++dj) {
              double e = x.data[size_t((nc * h + i * stride + di) * w +
                                       j * stride + dj)];
              acc = isMax ? std::max(acc, e) : acc + e;
            }
          v.data[size_t((nc * oh + i) * ow + j)] = acc;
        }
    push(std::move(v));
  }

  /// tensor.collapse_shape of two adjacent dims, or tensor.expand_shape of
  /// one dim into two (by its smallest factor); the data is unchanged.
  void reshape() {
    const Value &a = pick();
    size_t r = a.shape.size();
    Shape out;
    std::string groups;
    auto group = [&](std::vector<size_t> dims) {
      groups += groups.empty() ? "[" : ", [";
      for (size_t i = 0; i < dims.size(); ++i)
        groups += (i ? ", " : "") + std::to_string(dims[i]);
      groups += "]";
    };
    // Expand the first dim with a factor from a chosen one on, if any.
    size_t d = in_.ConsumeIntegralInRange<size_t>(0, r - 1), split = r;
    int64_t factor = 0;
    for (size_t i = 0; i < r && r < 4 && split == r; ++i) {
      size_t e = (d + i) % r;
      for (int64_t f = 2; f * f <= a.shape[e]; ++f)
        if (a.shape[e] % f == 0) {
          split = e, factor = f;
          break;
        }
    }
    bool expand = split < r && (r == 1 || in_.ConsumeBool());
    if (!expand && r < 2)
      return unary();
    size_t next = 0;
    if (expand) {
      for (size_t i = 0; i < r; ++i) {
        if (i == split) {
          group({next, next + 1});
          out.push_back(factor);
          out.push_back(a.shape[i] / factor);
          next += 2;
        } else {
          group({next++});
          out.push_back(a.shape[i]);
        }
      }
    } else {
      size_t m = std::min(d, r - 2); // merges m and m + 1
      for (size_t i = 0; i < r; ++i) {
        if (i == m) {
          group({i, i + 1});
          out.push_back(a.shape[i] * a.shape[i + 1]);
          ++i;
        } else {
          group({i});
          out.push_back(a.shape[i]);
        }
      }
    }
    std::string res = fresh(), os;
    for (size_t i = 0; i < out.size(); ++i)
      os += (i ? ", " : "") + std::to_string(out[i]);
    body_ << "  " << res << " = tensor."
          << (expand ? "expand_shape " : "collapse_shape ") << a.ssa << " ["
          << groups << "]";
    if (expand)
      body_ << " output_shape [" << os << "]";
    body_ << " : " << typeOf(a.shape) << " into " << typeOf(out) << "\n";
    push(Value{res, out, a.data});
  }

  /// a [B, M, K] x b [B, K, N], b a new input.
  void batchMatmul() {
    const Value &a0 = pick();
    if (a0.shape.size() != 3)
      return matmul();
    size_t ai = &a0 - values_.data();
    int64_t bs = a0.shape[0], m = a0.shape[1], k = a0.shape[2];
    int64_t n =
        std::min<int64_t>(randomDim(), std::max<int64_t>(1, 16384 / (bs * m)));
    size_t bi = addInput({bs, k, n});
    const Value &a = values_[ai], &b = values_[bi];
    Shape out{bs, m, n};
    std::string f = init(out, "0.0"), r = fresh();
    body_ << "  " << r << " = linalg.batch_matmul ins(" << a.ssa << ", "
          << b.ssa << " : " << typeOf(a.shape) << ", " << typeOf(b.shape)
          << ") outs(" << f << " : " << typeOf(out) << ") -> " << typeOf(out)
          << "\n";
    push(Value{r, out, matmulRef(operand(a), operand(b), bs, m, k, n)});
  }

  /// a + or * broadcast(b) along one dim of a (b: a new input of a's shape
  /// without it): a per-row or per-channel scale or shift.
  void broadcastAlong() {
    const Value &a0 = pick();
    size_t r = a0.shape.size();
    if (r < 2)
      return unary();
    size_t ai = &a0 - values_.data();
    size_t d = in_.ConsumeIntegralInRange<size_t>(0, r - 1);
    bool mul = in_.ConsumeBool();
    Shape bs;
    for (size_t i = 0; i < r; ++i)
      if (i != d)
        bs.push_back(a0.shape[i]);
    size_t bi = addInput(bs);
    const Value &a = values_[ai], &b = values_[bi];
    std::string t = typeOf(a.shape), eb = init(a.shape, nullptr), bb = fresh();
    body_ << "  " << bb << " = linalg.broadcast ins(" << b.ssa << " : "
          << typeOf(bs) << ") outs(" << eb << " : " << t << ") dimensions = ["
          << d << "]\n";
    std::string e = init(a.shape, nullptr), res = fresh();
    body_ << "  " << res << " = linalg." << (mul ? "mul" : "add") << " ins("
          << a.ssa << ", " << bb << " : " << t << ", " << t << ") outs(" << e
          << " : " << t << ") -> " << t << "\n";
    Value v{res, a.shape, a.data};
    Shape st = stridesOf(a.shape), bst = stridesOf(bs);
    for (int64_t i = 0; i < int64_t(v.data.size()); ++i) {
      int64_t o = 0;
      for (size_t dd = 0, od = 0; dd < r; ++dd)
        if (dd != d)
          o += (i / st[dd] % a.shape[dd]) * bst[od++];
      v.data[size_t(i)] = mul ? v.data[size_t(i)] * b.data[size_t(o)]
                              : v.data[size_t(i)] + b.data[size_t(o)];
    }
    push(std::move(v));
  }

  /// An identity-map elementwise generic over `shape` reading `ins` (SSA
  /// names; `maps[i]` each one's indexing map, the output's is the identity)
  /// whose body `body` uses %a0, %a1, ... and defines %y.
  std::string generic(const Shape &shape, const std::vector<std::string> &ins,
                      const std::vector<std::string> &inTypes,
                      const std::vector<std::string> &maps,
                      const std::string &body) {
    std::string dims, iters;
    for (size_t d = 0; d < shape.size(); ++d) {
      dims += (d ? ", d" : "d") + std::to_string(d);
      iters += d ? ", \"parallel\"" : "\"parallel\"";
    }
    std::string t = typeOf(shape), e = init(shape, nullptr), r = fresh();
    body_ << "  " << r << " = linalg.generic {indexing_maps = [";
    for (const std::string &m : maps)
      body_ << "affine_map<(" << dims << ") -> (" << m << ")>, ";
    body_ << "affine_map<(" << dims << ") -> (" << dims
          << ")>], iterator_types = [" << iters << "]} ins(";
    for (size_t i = 0; i < ins.size(); ++i)
      body_ << (i ? ", " : "") << ins[i];
    body_ << " : ";
    for (size_t i = 0; i < ins.size(); ++i)
      body_ << (i ? ", " : "") << inTypes[i];
    body_ << ") outs(" << e << " : " << t << ") {\n  ^bb0(";
    for (size_t i = 0; i < ins.size(); ++i)
      body_ << "%a" << i << ": f32, ";
    body_ << "%o: f32):\n"
          << body << "    linalg.yield %y : f32\n  } -> " << t << "\n";
    return r;
  }

  /// A layer normalisation over the last dim, as exporters write it:
  /// mean = sum / n, x - mean, var = sum((x - mean)^2) / n, and
  /// (x - mean) * rsqrt(var + 1e-5), the row statistics broadcast back.
  void layerNorm() {
    const Value &a = pick();
    size_t r = a.shape.size();
    // Not under auto-cast: dividing by a row's deviation amplifies the bf16
    // error of its input as much as the deviation is small (with 2 columns
    // of a matmul's result, out of any fixed tolerance).
    if (r < 2 || bf16_)
      return softmax();
    int64_t n = a.shape.back();
    Shape rows(a.shape.begin(), a.shape.end() - 1);
    std::string dims, rowDims;
    for (size_t d = 0; d < r; ++d) {
      dims += (d ? ", d" : "d") + std::to_string(d);
      if (d + 1 < r)
        rowDims += (d ? ", d" : "d") + std::to_string(d);
    }
    auto rowSum = [&](const std::string &x) {
      std::string f = init(rows, "0.0"), res = fresh();
      body_ << "  " << res << " = linalg.reduce ins(" << x << " : "
            << typeOf(a.shape) << ") outs(" << f << " : " << typeOf(rows)
            << ") dimensions = [" << r - 1 << "]\n    (%x: f32, %acc: f32) {\n"
            << "      %s = arith.addf %x, %acc : f32\n"
            << "      linalg.yield %s : f32\n    }\n";
      return res;
    };
    std::string t = typeOf(a.shape), rt = typeOf(rows);
    std::string inv = "    %c = arith.constant " + std::to_string(n) +
                      ".0 : f32\n    %y = arith.divf %a0, %c : f32\n";
    std::string mean = generic(rows, {rowSum(a.ssa)}, {rt}, {rowDims}, inv);
    std::string centered =
        generic(a.shape, {a.ssa, mean}, {t, rt}, {dims, rowDims},
                "    %y = arith.subf %a0, %a1 : f32\n");
    std::string squared = generic(a.shape, {centered}, {t}, {dims},
                                  "    %y = arith.mulf %a0, %a0 : f32\n");
    std::string var = generic(rows, {rowSum(squared)}, {rt}, {rowDims}, inv);
    std::string res =
        generic(a.shape, {centered, var}, {t, rt}, {dims, rowDims},
                "    %eps = arith.constant 1.0e-5 : f32\n"
                "    %v = arith.addf %a1, %eps : f32\n"
                "    %s = math.rsqrt %v : f32\n"
                "    %y = arith.mulf %a0, %s : f32\n");
    Value v{res, a.shape, a.data};
    for (size_t row = 0; row < v.data.size(); row += size_t(n)) {
      double m = 0, q = 0;
      for (int64_t i = 0; i < n; ++i)
        m += a.data[row + size_t(i)];
      m /= double(n);
      for (int64_t i = 0; i < n; ++i)
        q += (a.data[row + size_t(i)] - m) * (a.data[row + size_t(i)] - m);
      q /= double(n);
      for (int64_t i = 0; i < n; ++i)
        v.data[row + size_t(i)] =
            (a.data[row + size_t(i)] - m) / std::sqrt(q + 1e-5);
    }
    push(std::move(v));
  }

  /// One head of attention: softmax(q k^T / sqrt(d)) v with q [S, d] (a 2-D
  /// value) and new inputs k, v [T, d], written as matmuls of a transposed
  /// k, a scale and a softmax (the form attention exporters write).
  void attention() {
    const Value &q0 = pick();
    if (q0.shape.size() != 2)
      return matmul();
    size_t qi = &q0 - values_.data();
    int64_t s = q0.shape[0], d = q0.shape[1];
    int64_t t = std::min<int64_t>(randomDim(), 16384 / std::max(s, d));
    size_t ki = addInput({t, d}), vi = addInput({t, d});
    const Value &q = values_[qi], &k = values_[ki], &vv = values_[vi];
    std::string kt = init({d, t}, nullptr), ktr = fresh();
    body_ << "  " << ktr << " = linalg.transpose ins(" << k.ssa << " : "
          << typeOf(k.shape) << ") outs(" << kt << " : " << typeOf({d, t})
          << ") permutation = [1, 0]\n";
    std::string z = init({s, t}, "0.0"), sc = fresh();
    body_ << "  " << sc << " = linalg.matmul ins(" << q.ssa << ", " << ktr
          << " : " << typeOf(q.shape) << ", " << typeOf({d, t}) << ") outs("
          << z << " : " << typeOf({s, t}) << ") -> " << typeOf({s, t}) << "\n";
    double scale = 1.0 / std::sqrt(double(d));
    char lit[64];
    std::snprintf(lit, sizeof lit, "%.17e", scale);
    std::string scaled =
        generic({s, t}, {sc}, {typeOf({s, t})}, {"d0, d1"},
                std::string("    %c = arith.constant ") + lit +
                    " : f32\n    %y = arith.mulf %a0, %c : f32\n");
    std::string pe = init({s, t}, nullptr), p = fresh();
    body_ << "  " << p << " = linalg.softmax dimension(1) ins(" << scaled
          << " : " << typeOf({s, t}) << ") outs(" << pe << " : "
          << typeOf({s, t}) << ") -> " << typeOf({s, t}) << "\n";
    std::string z2 = init({s, d}, "0.0"), o = fresh();
    body_ << "  " << o << " = linalg.matmul ins(" << p << ", " << vv.ssa
          << " : " << typeOf({s, t}) << ", " << typeOf(vv.shape) << ") outs("
          << z2 << " : " << typeOf({s, d}) << ") -> " << typeOf({s, d}) << "\n";
    // The reference rounds what the matmuls multiply as the compiler does
    // (under auto-cast: q, k, the probabilities and v).
    // The scores as the compiler has them: f32, scaled in f32.
    Value probs{p, {s, t}, matmulRef(operand(q), operand(k), 1, s, d, t, true)};
    for (double &x : probs.data)
      x = double(float(x)) * double(float(scale));
    softmaxRows(probs.data, size_t(t));
    push(Value{o, {s, d}, matmulRef(operand(probs), operand(vv), 1, s, t, d)});
  }

  /// An elementwise linalg.generic with constants in its body: ReLU, a
  /// scale by 0.5 or -1.5, or a sigmoid (1 / (1 + exp(-x))).
  void activation() {
    const Value &a = pick();
    int k = in_.ConsumeIntegralInRange(0, 3);
    size_t r = a.shape.size();
    std::string dims, iters;
    for (size_t d = 0; d < r; ++d) {
      dims += (d ? ", d" : "d") + std::to_string(d);
      iters += d ? ", \"parallel\"" : "\"parallel\"";
    }
    std::string map = "affine_map<(" + dims + ") -> (" + dims + ")>";
    std::string t = typeOf(a.shape), e = init(a.shape, nullptr), res = fresh();
    body_ << "  " << res << " = linalg.generic {indexing_maps = [" << map
          << ", " << map << "], iterator_types = [" << iters << "]} ins("
          << a.ssa << " : " << t << ") outs(" << e << " : " << t
          << ") {\n  ^bb0(%x: f32, %o: f32):\n";
    static const char *bodies[] = {"    %c = arith.constant 0.0 : f32\n"
                                   "    %y = arith.maximumf %x, %c : f32\n",
                                   "    %c = arith.constant 0.5 : f32\n"
                                   "    %y = arith.mulf %x, %c : f32\n",
                                   "    %c = arith.constant -1.5 : f32\n"
                                   "    %y = arith.mulf %x, %c : f32\n",
                                   "    %one = arith.constant 1.0 : f32\n"
                                   "    %n = arith.negf %x : f32\n"
                                   "    %ex = math.exp %n : f32\n"
                                   "    %d = arith.addf %ex, %one : f32\n"
                                   "    %y = arith.divf %one, %d : f32\n"};
    body_ << bodies[k] << "    linalg.yield %y : f32\n  } -> " << t << "\n";
    Value v{res, a.shape, a.data};
    for (double &x : v.data)
      x = k == 0   ? std::max(x, 0.0)
          : k == 1 ? x * 0.5
          : k == 2 ? x * -1.5
                   : 1.0 / (1.0 + std::exp(-x));
    push(std::move(v));
  }

  /// `v`'s data as a matmul or convolution operand multiplies it: as is,
  /// or under auto-cast rounded to f32 (what the compiler computed) and
  /// then to bf16, to nearest even.
  std::vector<double> operand(const Value &v) const {
    if (!bf16_)
      return v.data;
    std::vector<double> r(v.data.size());
    for (size_t i = 0; i < r.size(); ++i) {
      float f = float(v.data[i]);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
      std::memcpy(&f, &bits, 4);
      r[i] = f;
    }
    return r;
  }

  FuzzedDataProvider &in_;
  uint32_t seed_;
  bool bf16_;
  std::vector<Value> values_;
  std::vector<size_t> args_; // indices of the function's arguments
  std::ostringstream body_;
  int next_ = 0;
};

struct Stats {
  int64_t generated = 0, compiled = 0, compared = 0, rejected = 0;
  std::set<std::string> rejections; // first line of each kind, printed once
  ~Stats() {
    std::fprintf(stderr,
                 "nki compile fuzz: %lld programs generated, %lld compiled, "
                 "%lld compared with the reference, %lld rejected with a "
                 "diagnostic (%zu kinds)\n",
                 (long long)generated, (long long)compiled, (long long)compared,
                 (long long)rejected, rejections.size());
  }
} stats;

/// Diagnostics (first lines, prefixes) of documented compiler limitations
/// that a generated program may hit: rejected, not a finding.
const char *const kKnownLimitations[] = {nullptr};

bool isKnownLimitation(const std::string &first) {
  for (const char *known : kKnownLimitations)
    if (known && first.rfind(known, 0) == 0)
      return true;
  return false;
}

[[noreturn]] void mismatch(const std::string &what, const std::string &text) {
  fuzz::finding(what + "\nprogram:\n" + text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  Generator gen(in);
  if (!gen.build())
    return 0;
  ++stats.generated;
  std::string text = gen.text();
  static const bool print = std::getenv("NKI_FUZZ_PRINT") != nullptr;
  if (print) // to see what a seed or reproducer generates
    std::fprintf(stderr, "%s", text.c_str());

  auto context = fuzz::makeContext();
  context->loadAllAvailableDialects();
  fuzz::QuietDiagnostics quiet(context.get());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, context.get(), "gen.mlir");
  if (!module)
    mismatch("the generator wrote a program that does not parse: " +
                 quiet.first,
             text);
  CompileOptions options;
  options.target = "trn2";
  if (gen.autoCast())
    options.autoCast = "matmul";
  CompileReport report;
  // Every phase's IR is verified: a pass that writes invalid IR is a
  // finding even when a later pass happens to cope with it.
  DriverOptions driver;
  driver.verify = VerifyLevel::Phases;
  mlir::FailureOr<std::string> binary =
      compileModule(*module, options, report, driver);
  if (failed(binary)) {
    std::string kind = quiet.first.substr(0, quiet.first.find('\n'));
    if (!isKnownLimitation(kind))
      mismatch("the compiler rejected a valid program: " + quiet.first, text);
    ++stats.rejected;
    if (stats.rejections.insert(kind).second)
      std::fprintf(stderr, "nki compile fuzz: rejected: %s\n", kind.c_str());
    return 0;
  }
  ++stats.compiled;

  absl::StatusOr<isa::Program> program = isa::decodeProgram(*binary);
  if (!program.ok())
    mismatch("the compiler wrote a binary that does not decode: " +
                 std::string(program.status().message()),
             text);
  std::string hbm = sim::makeHbmImage(*program);
  std::vector<const Value *> inputs = gen.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "arg" + std::to_string(i);
    if (!program->findTensor(name))
      continue; // an input the result does not use
    std::vector<float> values(inputs[i]->data.begin(), inputs[i]->data.end());
    absl::Status st = sim::setTensorBytes(
        *program, hbm, name,
        std::string_view(reinterpret_cast<const char *>(values.data()),
                         values.size() * sizeof(float)));
    if (!st.ok())
      mismatch("input arg" + std::to_string(i) + ": " +
                   std::string(st.message()),
               text);
  }
  absl::StatusOr<sim::SimResult> result =
      sim::simulate(*program, std::move(hbm));
  if (!result.ok())
    mismatch("the simulator stopped the compiled program: " +
                 std::string(result.status().message()),
             text);
  absl::StatusOr<std::string> out =
      sim::getTensorBytes(*program, result->hbm, "out0");
  const Value &ref = gen.result();
  if (!out.ok() || out->size() != ref.data.size() * sizeof(float))
    mismatch("output out0 missing or of the wrong size", text);
  std::vector<float> got(ref.data.size());
  std::memcpy(got.data(), out->data(), out->size());
  double scale = 1;
  for (double x : ref.data)
    scale = std::max(scale, std::fabs(x));
  // Under auto-cast an intermediate the compiler computed in f32 may round
  // to the neighbouring bf16 of the reference's: 2^-8 of that element.
  double tolerance = (gen.autoCast() ? 1e-2 : 1e-3) * scale;
  for (size_t i = 0; i < got.size(); ++i) {
    double diff = std::fabs(double(got[i]) - ref.data[i]);
    if (!(diff <= tolerance)) // NaN fails too
      mismatch("out0[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
                   ", the reference is " + std::to_string(ref.data[i]) +
                   " (tolerance " + std::to_string(tolerance) +
                   (gen.autoCast() ? ", --auto-cast=matmul" : "") + ")",
               text);
  }
  ++stats.compared;
  return 0;
}
