#!/usr/bin/env bash
# Installs, builds and runs the main job on a shipped example.
# Today: lower the TOSA example to linalg with nki-opt; the end-to-end
# compile-and-simulate demo replaces this as the compiler lands.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NKI_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
"$build/bin/nki-opt" --version
"$build/bin/nki-opt" "$root/examples/tosa-mlp.mlir" --tosa-to-linalg-pipeline
