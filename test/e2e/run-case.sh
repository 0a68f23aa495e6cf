#!/usr/bin/env bash
# run-case.sh DIR CASE DIMS [gen/compile options] [-- nki-run options]
#
# One end-to-end check: gen.py writes the program, its inputs and numpy's
# reference; nki-compile compiles it; nki-run simulates it and compares
# (nki-run exits non-zero naming the worst element on a mismatch).
# Options before `--`: --dtype T, --auto-cast M (both to gen.py; the latter
# also to nki-compile), --target T (nki-compile; else $NKI_E2E_TARGET, which
# `lit -D nki_target=T` sets, else the default). After `--`: nki-run's.
set -euo pipefail
dir="$1" case="$2" dims="$3"
shift 3
gen=() compile=()
target="${NKI_E2E_TARGET:-}"
while (($#)); do
  case "$1" in
    --dtype) gen+=(--dtype "$2"); shift 2 ;;
    --auto-cast) gen+=(--auto-cast "$2"); compile+=(--auto-cast="$2"); shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run-case.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -n "$target" ]]; then compile+=(--target="$target"); fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$dir"
read -r -a io < <(/usr/bin/python3 "$here/gen.py" "$case" --dims "$dims" \
                   --dir "$dir" "${gen[@]}")
nki-compile "$dir/prog.mlir" -o "$dir/prog.nkb" "${compile[@]}"
nki-run "$dir/prog.nkb" "${io[@]}" "$@"
