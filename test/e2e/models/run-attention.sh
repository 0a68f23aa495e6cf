#!/usr/bin/env bash
# run-attention.sh DIR MODEL: exports MODEL of the zoo (bench/models) into
# DIR/MODEL, compiles it in f32 and with --auto-cast=matmul and simulates
# both against torch's output, printing "f32: ..." and "bf16: ..." lines.
set -euo pipefail
dir="$1/$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
/usr/bin/python3 "$root/bench/models/models.py" export "$2" --dir "$dir" \
  > /dev/null
run() { # tag auto-cast tolerance
  nki-compile "$dir/model.onnx" --auto-cast="$2" -o "$dir/$1.nkb"
  nki-run "$dir/$1.nkb" --input "input=$dir/input.npy" \
    --expected "output=$dir/expected.npy" --rtol "$3" --atol "$3" |
    sed "s/^/$1: /"
}
run f32 none 1e-4
run bf16 matmul 2e-2
