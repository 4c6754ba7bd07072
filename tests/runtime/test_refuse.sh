#!/bin/bash
# test_refuse.sh — a runtime built for one MPI library, preloaded into a
# program of the other, says so in one line, measures nothing, and the
# program runs unchanged.  Also: a process that never calls MPI stays inert.
#   test_refuse.sh BUILD_DIR WRONG_MPI PROGRAM
set -eu
build=$1 wrong=$2 prog=$3
work=$(mktemp -d /tmp/scalana-refuse-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
expected=$("$prog" 2>/dev/null)
out=$(LD_PRELOAD="$build/lib/libscalana-$wrong.so" "$prog" 2>err.txt)
[ "$out" = "$expected" ] || { echo "output changed: '$out' vs '$expected'"; exit 1; }
[ "$(grep -c 'scalana:' err.txt)" = 1 ] || { echo "expected one line:"; cat err.txt; exit 1; }
grep -q 'measuring nothing' err.txt || { cat err.txt; exit 1; }
[ -z "$(ls -d scalana-* 2>/dev/null)" ] || { echo "a run directory was written"; exit 1; }
# Inert: a non-MPI process with the runtime preloaded prints nothing, writes nothing.
out=$(LD_PRELOAD="$build/lib/libscalana-$wrong.so" /bin/echo hello 2>err2.txt)
[ "$out" = hello ] && [ ! -s err2.txt ] || { echo "non-MPI process affected"; cat err2.txt; exit 1; }
echo "refuse ok"
