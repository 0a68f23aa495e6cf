#!/usr/bin/env bash
# scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# Runs the libFuzzer target fuzz-TARGET (test/fuzz/TARGET.cpp: onnx-import,
# nkb-decode, nisa-parse, simulate, compile) for SECONDS on one core, from
# the sanitizer build (built first as scripts/sanitize.sh configures it).
# It starts from the committed seeds (test/fuzz/corpus/TARGET) plus what
# earlier runs kept (BUILD/fuzz/TARGET/corpus, where new entries go). A
# crash, sanitizer report or finding is minimised into
# test/fuzz/crashes/TARGET/: commit it with its fix, and CTest's
# fuzz.replay.TARGET replays it in every CI run. Each run appends its
# figures to BUILD/fuzz/runs.tsv (docs/reliability.md). Exit status 1 when
# the run found something.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${NKI_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
if (($# < 2)); then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
target="$1" seconds="$2"
shift 2
[[ -f "$root/test/fuzz/$target.cpp" ]] || {
  echo "fuzz.sh: no fuzz target '$target' (test/fuzz/*.cpp)" >&2
  exit 2
}
"$root/scripts/sanitize.sh" --target "fuzz-$target"

work="$build/fuzz/$target"
crashes="$root/test/fuzz/crashes/$target"
mkdir -p "$work/corpus" "$crashes"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_container_overflow=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log="$work/last-run.log"
status=0
started=$SECONDS
touch "$work/started"
"$build/bin/fuzz-$target" "$work/corpus" "$root/test/fuzz/corpus/$target" \
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
  -artifact_prefix="$crashes/" -print_final_stats=1 "$@" 2>&1 |
  tee "$log" | grep -E "^#[0-9]+.*(pulse|DONE|NEW)|ERROR|finding|rejected" |
  tail -n 40 || true
# A slow input (libFuzzer's slow-unit-*) is written too, but is no finding.
grep -E "^==[0-9]+==ERROR|nki fuzz finding|runtime error|deadly signal|Test unit written" "$log" |
  grep -qv "Test unit written to .*/slow-unit-" && status=1

# Slow inputs are not findings; keep them out of the reproducers.
for f in "$crashes"/slow-unit-*; do
  [[ -f "$f" ]] && mv "$f" "$work/"
done
# Minimise what this run found (not the reproducers of fixed bugs), in
# place.
for f in "$crashes"/crash-* "$crashes"/timeout-* "$crashes"/oom-* \
  "$crashes"/leak-*; do
  [[ -f "$f" && "$f" -nt "$work/started" ]] || continue
  "$build/bin/fuzz-$target" -minimize_crash=1 -runs=20000 \
    -exact_artifact_path="$f.min" "$f" >/dev/null 2>&1 || true
  [[ -s "$f.min" ]] && mv "$f.min" "$f"
  echo "fuzz.sh: reproducer $f"
done

# The figures: executions, coverage (edges) and features at the end.
execs=$(grep -Eo "stat::number_of_executed_units: [0-9]+" "$log" | awk '{print $2}' | tail -1)
cov=$(grep -Eo "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1)
# Columns: end time, target, seconds it ran, executions, coverage, result.
printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$((SECONDS - started))" \
  "${execs:-?}" "${cov:-?}" "$([[ $status == 0 ]] && echo clean || echo FOUND)" |
  tee -a "$build/fuzz/runs.tsv"
exit $status
