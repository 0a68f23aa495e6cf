#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (lit, then CTest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
cmake --build "${NKI_BUILD_DIR:-$root/build}" --target check-nki
