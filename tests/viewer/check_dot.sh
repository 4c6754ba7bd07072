#!/bin/sh
# check_dot.sh — every DOT file the viewer tests wrote must parse with the
# `dot` program too (libcgraph's agread is checked in test_viewer).
# Usage: check_dot.sh DOT_PROGRAM OUT_DIR
set -u
dot=$1
out=$2
n=0
fail=0
for f in "$out"/*/*.dot; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    if ! "$dot" -Tsvg -o /dev/null "$f" 2>"$out/dot-stderr.txt"; then
        echo "dot cannot lay out $f:"; cat "$out/dot-stderr.txt"; fail=1
    elif grep -qi 'error' "$out/dot-stderr.txt"; then
        echo "dot reports errors for $f:"; cat "$out/dot-stderr.txt"; fail=1
    fi
done
rm -f "$out/dot-stderr.txt"
echo "$n DOT files checked with $dot"
[ "$n" -gt 0 ] || { echo "no DOT files under $out"; exit 1; }
exit $fail
