//===- compile.cpp - Fuzz the whole compiler on generated programs
//---------===//
//
// The input drives a generator of small valid tensor programs: 1 to 3 f32
// inputs of random shapes (ranks 1 to 3, dims from 1 to 256, sizes around
// the 128-partition and 512-element tile boundaries), then 1 to 6 ops among
// elementwise binaries (add, sub, mul, max, min), unaries (tanh, abs,
// negf, exp on bounded values), a bias broadcast along the last dim,
// matmul, transpose, sum/max reductions, softmax and 2-D convolutions
// (stride 1 or 2, kernels 1 or 3), written as linalg on tensors.
// Each program is compiled for trn2 (nki::compileModule, as nki-compile),
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
      : in_(in), seed_(in.ConsumeIntegral<uint32_t>()) {}

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
    switch (in_.ConsumeIntegralInRange(0, 8)) {
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
    Value v{r, {m, n}, std::vector<double>(size_t(m * n))};
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l)
          s += a.data[size_t(i * k + l)] * b.data[size_t(l * n + j)];
        v.data[size_t(i * n + j)] = s;
      }
    push(std::move(v));
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
    size_t n = size_t(a.shape.back());
    for (size_t row = 0; row < v.data.size(); row += n) {
      double m = -INFINITY, sum = 0;
      for (size_t i = 0; i < n; ++i)
        m = std::max(m, a.data[row + i]);
      for (size_t i = 0; i < n; ++i)
        sum += v.data[row + i] = std::exp(a.data[row + i] - m);
      for (size_t i = 0; i < n; ++i)
        v.data[row + i] /= sum;
    }
    push(std::move(v));
  }

  /// A convolution (NCHW x FCHW, stride 1 or 2, no padding) of a new
  /// image input and a new filter input.
  void conv() {
    static const int64_t channels[] = {1, 3, 8, 16, 32};
    auto pickOf = [&](auto &arr) {
      return arr[in_.ConsumeIntegralInRange<size_t>(0, std::size(arr) - 1)];
    };
    int64_t c = pickOf(channels), f = pickOf(channels);
    int64_t k = in_.ConsumeBool() ? 3 : 1, stride = in_.ConsumeBool() ? 2 : 1;
    int64_t h = in_.ConsumeIntegralInRange<int64_t>(k, 20);
    int64_t w = in_.ConsumeIntegralInRange<int64_t>(k, 20);
    int64_t oh = (h - k) / stride + 1, ow = (w - k) / stride + 1;
    size_t xi = addInput({1, c, h, w}), wi = addInput({f, c, k, k});
    const Value &x = values_[xi], &wt = values_[wi];
    Shape out{1, f, oh, ow};
    std::string z = init(out, "0.0"), r = fresh();
    body_ << "  " << r << " = linalg.conv_2d_nchw_fchw {strides = dense<"
          << stride
          << "> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins("
          << x.ssa << ", " << wt.ssa << " : " << typeOf(x.shape) << ", "
          << typeOf(wt.shape) << ") outs(" << z << " : " << typeOf(out)
          << ") -> " << typeOf(out) << "\n";
    Value v{r, out, std::vector<double>(size_t(numElements(out)))};
    for (int64_t o = 0; o < f; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double sum = 0;
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t di = 0; di < k; ++di)
              for (int64_t dj = 0; dj < k; ++dj)
                sum += x.data[size_t((ci * h + i * stride + di) * w +
                                     j * stride + dj)] *
                       wt.data[size_t(((o * c + ci) * k + di) * k + dj)];
          v.data[size_t((o * oh + i) * ow + j)] = sum;
        }
    push(std::move(v));
  }

  FuzzedDataProvider &in_;
  uint32_t seed_;
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
  CompileReport report;
  mlir::FailureOr<std::string> binary = compileModule(*module, options, report);
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
  for (size_t i = 0; i < got.size(); ++i) {
    double diff = std::fabs(double(got[i]) - ref.data[i]);
    if (!(diff <= 1e-3 * scale)) // NaN fails too
      mismatch("out0[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
                   ", the reference is " + std::to_string(ref.data[i]) +
                   " (tolerance " + std::to_string(1e-3 * scale) + ")",
               text);
  }
  ++stats.compared;
  return 0;
}
