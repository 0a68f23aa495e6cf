#!/usr/bin/env bash
# Builds nki with AddressSanitizer and UndefinedBehaviorSanitizer (plus
# libFuzzer's coverage instrumentation, so that scripts/fuzz.sh shares the
# build) into ${NKI_SANITIZE_BUILD_DIR:-build-sanitize} and runs the whole
# lit and CTest suite there. Any sanitizer report fails its test (no
# recovery). The Python package is off in this build: an instrumented
# extension cannot load into Debian's uninstrumented interpreter.
# Extra arguments go to `cmake --build` (e.g. a target instead of check-nki).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NKI_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
"$root/scripts/install-deps.sh"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DNKI_FUZZ=ON -DNKI_ENABLE_PYTHON=OFF
fi
# Debian's LLVM/MLIR is not instrumented: std containers it fills and ours
# read have no ASan annotations, so container-overflow checks would only
# report false positives.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_container_overflow=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if (($# == 0)); then
  set -- --target check-nki
fi
cmake --build "$build" "$@"
