#!/usr/bin/env bash
# consumer-test.sh BUILD_DIR CONSUMER_SRC WORK_DIR CXX
set -euo pipefail
build="$1" src="$2" work="$3" cxx="$4"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build"
"$work/build/nki-consumer"
