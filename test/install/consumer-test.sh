#!/usr/bin/env bash
# consumer-test.sh BUILD_DIR CONSUMER_SRC WORK_DIR CXX [PYTHON PYTHON_DIR]
#
# Installs the build tree into a scratch prefix, then (1) runs the installed
# nki-compile and nki-run on a program with no LD_LIBRARY_PATH (their run
# paths must find Debian's LLVM/MLIR libraries) and checks its result,
# (2) with PYTHON, imports the installed package from PREFIX/PYTHON_DIR and
# compiles and runs the same program through it, and (3) builds and runs a
# downstream project against the prefix with find_package(NKI).
set -euo pipefail
build="$1" src="$2" work="$3" cxx="$4" python="${5:-}" pydir="${6:-}"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

bin="$work/prefix/bin"
env -u LD_LIBRARY_PATH "$bin/nki-compile" --version | grep -q "nki version"
env -u LD_LIBRARY_PATH "$bin/nki-compile" "$here/Inputs/add.mlir" -o "$work/add.nkb"
# x = 0..7 and x + [1..8] as .npy files (the standard library only).
python3 - "$work" <<'PY'
import struct, sys
def save(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }"
    header += " " * (117 - len(header)) + "\n"  # 10 + 118 bytes: 64-aligned
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode() + struct.pack("<8f", *values))
save(sys.argv[1] + "/x.npy", range(8))
save(sys.argv[1] + "/expected.npy", [2 * i + 1 for i in range(8)])
PY
env -u LD_LIBRARY_PATH "$bin/nki-run" "$work/add.nkb" --input "x=$work/x.npy" \
  --expected "out0=$work/expected.npy" --rtol 0 --atol 0 |
  grep -q "output 'out0' matches"

if [[ -n "$python" ]]; then
  (cd "$work" && env -u LD_LIBRARY_PATH PYTHONPATH="$work/prefix/$pydir" \
    "$python" - "$work/prefix" "$here/Inputs/add.mlir" <<'PY'
import sys
import numpy as np
import nki
prefix, source = sys.argv[1], sys.argv[2]
assert nki.__file__.startswith(prefix), nki.__file__
program = nki.compile(source)
x = np.arange(8, dtype=np.float32).reshape(2, 4)
outputs, report = program.run({"x": x})
assert (outputs["out0"] == 2 * x + 1).all(), outputs
assert report.total_us > 0
PY
  )
fi

cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build"
"$work/build/nki-consumer"
