//===- FuzzCommon.h - What the fuzz targets share --------------*- C++ -*-===//
//
// A fresh MLIR context per input (so nothing one input interns leaks into
// the next, and memory stays flat over millions of runs), diagnostics
// swallowed (a diagnostic is the right answer to bad input; only crashes,
// sanitizer reports and the targets' own abort()s are findings), and a
// fatal-finding helper that says what broke before aborting.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_TEST_FUZZ_FUZZCOMMON_H
#define NKI_TEST_FUZZ_FUZZCOMMON_H

#include "nki/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace nki::fuzz {

/// A single-threaded context with every dialect nki-opt knows.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->printOpOnDiagnostic(false);
  return context;
}

/// Swallows diagnostics (collecting the first error's text) for its scope.
struct QuietDiagnostics {
  explicit QuietDiagnostics(mlir::MLIRContext *context)
      : handler(context, [this](mlir::Diagnostic &d) {
          if (first.empty() &&
              d.getSeverity() == mlir::DiagnosticSeverity::Error)
            first = d.str();
          return mlir::success();
        }) {}
  std::string first;
  mlir::ScopedDiagnosticHandler handler;
};

/// A finding that is not a crash (a wrong result, a broken round trip):
/// print it and abort, so libFuzzer keeps the input as a reproducer.
[[noreturn]] inline void finding(const std::string &what) {
  std::fprintf(stderr, "nki fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace nki::fuzz

#endif // NKI_TEST_FUZZ_FUZZCOMMON_H
