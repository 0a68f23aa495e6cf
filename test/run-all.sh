#!/usr/bin/env bash
# run-all.sh LIT LIT_DIR CTEST: runs lit, then CTest, even when lit fails, and
# fails if either did. The output ends with both runners' own summaries.
lit="$1" litdir="$2" ctest="$3"
"$lit" -sv "$litdir"; l=$?
"$ctest" --output-on-failure; c=$?
exit $((l | c))
