#!/usr/bin/env bash
# Installs the Debian dependencies, configures (once) and builds nki into
# ${NKI_BUILD_DIR:-build}. Extra arguments go to `cmake --build`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NKI_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" "$@"
