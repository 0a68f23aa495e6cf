#!/usr/bin/env bash
# Installs, builds and runs the main job: compile the shipped TOSA example
# (a two-layer perceptron) for trn2 and run it on the bundled simulator.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NKI_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
out="$build/demo"
mkdir -p "$out"
"$build/bin/nki-compile" "$root/examples/tosa-mlp.mlir" -o "$out/tosa-mlp.nkb" \
  --report
"$build/bin/nki-run" "$out/tosa-mlp.nkb" --random-inputs=0 \
  --output-dir "$out" --report --trace="$out/trace.json"
echo "outputs: $out/*.npy; timeline: $out/trace.json (open in ui.perfetto.dev)"
