//===- nki-run.cpp - Run a .nkb program on the simulator ------------------===//
//
// A thin main over NKISimulator: reads the binary and the input tensors,
// simulates, writes outputs / report / trace and compares with expected
// outputs. Exit status: 0 success, 1 failed run or mismatch, 2 bad command
// line. docs/simulator.md documents the options.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Binary.h"
#include "nki/ISA/Verify.h"
#include "nki/Simulator/Simulator.h"
#include "nki/Simulator/TensorFile.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace nki;

namespace {

const char *kUsage =
    "usage: nki-run PROG.nkb [options]\n"
    "  --input [NAME=]FILE      input tensor from .npy or ONNX TensorProto "
    ".pb\n"
    "                           (without NAME: the next input in table order)\n"
    "  --random-inputs=SEED     fill inputs not given with seeded random "
    "values\n"
    "  --output-dir DIR         write every output tensor as DIR/NAME.npy\n"
    "  --expected [NAME=]FILE   compare an output: |got-exp| <= atol + "
    "rtol*|exp|\n"
    "  --rtol R, --atol A       tolerances (default 1e-4 and 1e-5)\n"
    "  --report[=table|json[=FILE]]  print the timing report: streams, the\n"
    "                           source ops taking the most time and the\n"
    "                           critical path\n"
    "  --trace=FILE.json        write a Chrome/Perfetto trace (a track per\n"
    "                           stream, and the critical path's)\n"
    "  --target-check           only check the program against its target\n"
    "  --no-race-check, --no-uninit-check   disable those checks\n";

struct NamedFile {
  std::string name; // empty: positional
  std::string path;
};

struct Options {
  std::string program;
  std::vector<NamedFile> inputs, expected;
  std::optional<uint64_t> randomSeed;
  std::string outputDir;
  double rtol = 1e-4, atol = 1e-5;
  enum class Report { None, Table, Json } report = Report::None;
  std::string reportFile, traceFile;
  bool targetCheck = false, races = true, uninit = true;
};

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "nki-run: " << msg << "\n" << kUsage;
  std::exit(2);
}

[[noreturn]] void fail(const std::string &msg) {
  std::cerr << "nki-run: error: " << msg << "\n";
  std::exit(1);
}

double parseNumber(const std::string &flag, const std::string &s) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= 0))
    usageError(flag + " needs a non-negative number, got '" + s + "'");
  return v;
}

NamedFile parseNamedFile(const std::string &s) {
  size_t eq = s.find('=');
  if (eq == std::string::npos)
    return {"", s};
  if (eq == 0 || eq + 1 == s.size())
    usageError("expected NAME=FILE or FILE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string flag = arg, value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    }
    auto takeValue = [&]() -> std::string {
      if (hasValue)
        return value;
      if (i + 1 >= argc)
        usageError(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (flag == "--input") {
      o.inputs.push_back(parseNamedFile(takeValue()));
    } else if (flag == "--expected") {
      o.expected.push_back(parseNamedFile(takeValue()));
    } else if (flag == "--output-dir") {
      o.outputDir = takeValue();
    } else if (flag == "--random-inputs") {
      std::string v = takeValue();
      char *end = nullptr;
      unsigned long long seed = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end)
        usageError("--random-inputs needs an integer seed, got '" + v + "'");
      o.randomSeed = seed;
    } else if (flag == "--rtol") {
      o.rtol = parseNumber(flag, takeValue());
    } else if (flag == "--atol") {
      o.atol = parseNumber(flag, takeValue());
    } else if (flag == "--report") {
      // --report alone means the table; its value never comes from the next
      // argument, so "--report prog.nkb" stays unambiguous.
      if (!hasValue || value == "table") {
        o.report = Options::Report::Table;
      } else if (value == "json") {
        o.report = Options::Report::Json;
      } else if (value.rfind("json=", 0) == 0 && value.size() > 5) {
        o.report = Options::Report::Json;
        o.reportFile = value.substr(5);
      } else {
        usageError("--report takes table, json or json=FILE, got '" + value +
                   "'");
      }
    } else if (flag == "--trace") {
      o.traceFile = takeValue();
    } else if (flag == "--target-check" && !hasValue) {
      o.targetCheck = true;
    } else if (flag == "--no-race-check" && !hasValue) {
      o.races = false;
    } else if (flag == "--no-uninit-check" && !hasValue) {
      o.uninit = false;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      usageError("unknown option '" + arg + "'");
    } else if (o.program.empty()) {
      o.program = arg;
    } else {
      usageError("unexpected argument '" + arg + "' (one program only)");
    }
  }
  if (o.program.empty())
    usageError("no program given");
  return o;
}

/// Assigns each NAME=FILE to its tensor of `kind` and each positional FILE
/// to the next tensor of `kind` (in table order) that no NAME= claimed.
std::vector<std::pair<const isa::TensorDecl *, std::string>>
bindFiles(const isa::Program &prog, const std::vector<NamedFile> &files,
          isa::TensorKind kind, const char *what) {
  std::vector<const isa::TensorDecl *> free;
  for (const isa::TensorDecl &t : prog.tensors) {
    bool named = false;
    for (const NamedFile &f : files)
      named |= f.name == t.name;
    if (t.kind == kind && !named)
      free.push_back(&t);
  }
  std::vector<std::pair<const isa::TensorDecl *, std::string>> out;
  size_t positional = 0;
  for (const NamedFile &f : files) {
    const isa::TensorDecl *t = nullptr;
    if (f.name.empty()) {
      if (positional >= free.size())
        fail(std::string("more ") + what + " files than " + what +
             " tensors left to bind");
      t = free[positional++];
    } else {
      t = prog.findTensor(f.name);
      if (!t || t->kind != kind)
        fail(std::string("the program has no ") + what + " tensor named '" +
             f.name + "'");
    }
    out.emplace_back(t, f.path);
  }
  return out;
}

std::string randomTensor(const isa::TensorDecl &t, std::mt19937_64 &rng) {
  int64_t n = t.numElements(), eb = isa::dtypeBytes(t.dtype);
  std::string bytes(size_t(n * eb), '\0');
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(-8, 7);
  for (int64_t i = 0; i < n; ++i) {
    float v = t.dtype == isa::DType::E8M0 // scales near 1
                  ? std::ldexp(1.0f, integer(rng))
                  : isa::isFloatDType(t.dtype) ? real(rng)
                    : t.dtype == isa::DType::FP4E2M1X2
                        ? float(uint8_t(rng())) // any two e2m1 values
                    : t.dtype == isa::DType::U8 ? float(integer(rng) + 8)
                                                : float(integer(rng));
    isa::storeElement(t.dtype, v, bytes.data() + i * eb);
  }
  return bytes;
}

std::string indexString(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

/// Compares one output; prints a line and returns whether it matched.
bool compare(const isa::TensorDecl &t, const sim::HostTensor &got,
             const sim::HostTensor &exp, const Options &o) {
  if (exp.numElements() != got.numElements()) {
    std::cerr << "nki-run: error: expected '" << t.name << "' has "
              << exp.numElements() << " elements, the output has "
              << got.numElements() << "\n";
    return false;
  }
  auto value = [](const sim::HostTensor &h, int64_t i) {
    return h.isInteger ? double(h.ints[i]) : double(h.values[i]);
  };
  int64_t bad = 0, worst = -1;
  double worstExcess = -1, maxDiff = 0;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    double g = value(got, i), e = value(exp, i);
    double diff = std::fabs(g - e);
    bool ok = (std::isnan(g) && std::isnan(e)) || g == e ||
              diff <= o.atol + o.rtol * std::fabs(e);
    double excess =
        std::isnan(diff) ? INFINITY : diff - (o.atol + o.rtol * std::fabs(e));
    if (!std::isnan(diff) && diff > maxDiff)
      maxDiff = diff;
    if (!ok) {
      ++bad;
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  if (bad == 0) {
    std::cout << "output '" << t.name << "' matches (max |diff| " << maxDiff
              << ")\n";
    return true;
  }
  std::cerr << "nki-run: error: output '" << t.name << "' differs: " << bad
            << " of " << got.numElements()
            << " elements out of tolerance; worst at "
            << indexString(t.shape, worst) << ": got " << value(got, worst)
            << ", expected " << value(exp, worst) << " (atol " << o.atol
            << ", rtol " << o.rtol << ")\n";
  return false;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseArgs(argc, argv);
  auto prog = isa::readProgramFile(o.program);
  if (!prog.ok()) // the message names the file
    fail(std::string(prog.status().message()));
  if (o.targetCheck) {
    absl::Status st = isa::verifyProgram(*prog);
    if (!st.ok())
      fail(o.program + ": " + std::string(st.message()));
    std::cout << o.program << ": ok for " << prog->target << "\n";
    return 0;
  }

  std::string hbm = sim::makeHbmImage(*prog);
  std::vector<bool> given(prog->tensors.size());
  for (auto &[t, path] :
       bindFiles(*prog, o.inputs, isa::TensorKind::Input, "input")) {
    auto host = sim::readTensorFile(path);
    if (!host.ok())
      fail(std::string(host.status().message()));
    auto bytes = sim::toTensorBytes(*host, t->dtype, t->shape);
    if (!bytes.ok())
      fail("input '" + t->name + "' from '" + path +
           "': " + std::string(bytes.status().message()) +
           (t->host == isa::HostType::Device
                ? std::string()
                : "; its host type " + std::string(isa::hostTypeName(t->host)) +
                      " is carried as " +
                      std::string(isa::dtypeName(t->dtype)) +
                      " on the device"));
    absl::Status st = sim::setTensorBytes(*prog, hbm, t->name, *bytes);
    if (!st.ok())
      fail(std::string(st.message()));
    given[t - prog->tensors.data()] = true;
  }
  std::mt19937_64 rng(o.randomSeed.value_or(0));
  for (size_t i = 0; i < prog->tensors.size(); ++i) {
    const isa::TensorDecl &t = prog->tensors[i];
    if (t.kind != isa::TensorKind::Input || given[i])
      continue;
    if (!o.randomSeed)
      fail("input '" + t.name + "' has no value (use --input " + t.name +
           "=FILE or --random-inputs=SEED)");
    absl::Status st =
        sim::setTensorBytes(*prog, hbm, t.name, randomTensor(t, rng));
    if (!st.ok())
      fail(std::string(st.message()));
  }

  sim::SimOptions opts;
  opts.verifyInstructions = false; // readProgramFile ran isa::verifyProgram
  opts.checkRaces = o.races;
  opts.checkUninitialized = o.uninit;
  opts.collectTrace = !o.traceFile.empty();
  // The trace's critical-path track comes from the profile's records.
  opts.collectProfile =
      o.report != Options::Report::None || !o.traceFile.empty();
  opts.progressIntervalSeconds = 2.0;
  opts.progress = [](const sim::SimProgress &p) {
    if (p.hostSeconds < 2.0 || p.instructionsDone == p.instructionsTotal)
      return;
    std::fprintf(stderr,
                 "nki-run: %lld/%lld instructions (%.0f%%), %.3f us "
                 "simulated, %.1f s\n",
                 static_cast<long long>(p.instructionsDone),
                 static_cast<long long>(p.instructionsTotal),
                 100.0 * double(p.instructionsDone) /
                     double(p.instructionsTotal ? p.instructionsTotal : 1),
                 double(p.simulatedPs) * 1e-6, p.hostSeconds);
  };
  auto result = sim::simulate(*prog, std::move(hbm), opts);
  if (!result.ok())
    fail(std::string(result.status().message()));

  if (!o.outputDir.empty()) {
    // Like mkdir -p: the directory is created when it does not exist.
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec)
      fail("cannot create output directory '" + o.outputDir +
           "': " + ec.message());
    for (const isa::TensorDecl &t : prog->tensors) {
      if (t.kind != isa::TensorKind::Output)
        continue;
      auto bytes = sim::getTensorBytes(*prog, result->hbm, t.name);
      if (!bytes.ok())
        fail(std::string(bytes.status().message()));
      std::string path = o.outputDir + "/" + t.name + ".npy";
      sim::HostTensor host =
          sim::fromTensorBytes(*bytes, t.dtype, t.shape, t.host);
      absl::Status st =
          sim::writeFile(path, sim::formatNpy(host, t.dtype, t.host));
      if (!st.ok())
        fail(std::string(st.message()));
    }
  }
  if (!o.traceFile.empty()) {
    absl::Status st = sim::writeFile(
        o.traceFile, sim::formatChromeTrace(*prog, result->trace,
                                            &result->report.criticalPath));
    if (!st.ok())
      fail(std::string(st.message()));
  }
  if (o.report == Options::Report::Table) {
    std::cout << sim::formatReportTable(result->report);
  } else if (o.report == Options::Report::Json) {
    std::string json = sim::formatReportJson(result->report);
    if (o.reportFile.empty()) {
      std::cout << json;
    } else if (absl::Status st = sim::writeFile(o.reportFile, json); !st.ok()) {
      fail(std::string(st.message()));
    }
  }

  bool ok = true;
  for (auto &[t, path] :
       bindFiles(*prog, o.expected, isa::TensorKind::Output, "output")) {
    auto exp = sim::readTensorFile(path);
    if (!exp.ok())
      fail(std::string(exp.status().message()));
    auto bytes = sim::getTensorBytes(*prog, result->hbm, t->name);
    if (!bytes.ok())
      fail(std::string(bytes.status().message()));
    ok &= compare(*t, sim::fromTensorBytes(*bytes, t->dtype, t->shape, t->host),
                  *exp, o);
  }
  return ok ? 0 : 1;
}
