#!/usr/bin/env bash
# Installs, builds and runs the main job: compile the shipped TOSA example
# (a two-layer perceptron) for trn2 and run it on the bundled simulator,
# with the tools and then from Python.
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

# The same from Python (docs/python.md), checked against numpy.
echo "--- from Python: PYTHONPATH=$build/python /usr/bin/python3"
PYTHONPATH="$build/python" /usr/bin/python3 - "$root/examples/tosa-mlp.mlir" <<'PY'
import sys
import numpy as np
import nki

program = nki.compile(sys.argv[1], target="trn2")
rng = np.random.default_rng(0)
x, w1, w2 = (rng.standard_normal(t.shape, np.float32) for t in program.inputs)
outputs, report = program.run([x, w1, w2])
(y,) = outputs.values()
ok = np.allclose(y, np.maximum(x @ w1, 0) @ w2, rtol=1e-4, atol=1e-4)
print(program)
print(f"matches numpy: {ok}; simulated {report.total_us:.2f} us, "
      f"PE utilisation {100 * report.pe_utilisation:.1f} %")
sys.exit(0 if ok else 1)
PY
echo "a torchvision ResNet-18 in one call: examples/resnet18.py"
