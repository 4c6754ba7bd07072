#!/bin/sh
# check_dump.sh DUMP SYNTH DIR — scalana-dump asked for nothing that exists
# exits 3 with one line on stderr (docs/formats.md, scalana-dump(1)): --rank N
# outside the run, --psg on a binary without the section; a corrupt or
# missing file stays 1, and a bad file among --psg binaries outranks 3.
# A binary given where a run directory is expected is a usage error (2) whose
# one line says what it is (the --psg suggestion for a binary with a PSG is
# tested by tests/plugin/wrapper.test, which builds one).
set -u
dump=$1; synth=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }
"$synth" "$dir/run-2" imbalance 2 1 || fail "synth"
"$dump" --rank 5 "$dir/run-2" > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 3 ] || fail "--rank 5 of a 2-process run: exit status $rc"
[ "$(wc -l < "$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ] || fail "--rank 5: not one line on stderr alone"
grep -qx "scalana-dump: $dir/run-2: no world rank 5 in the 2-process run (ranks 0-1)" "$dir/err" || fail "--rank 5: message"
"$dump" --rank 1 "$dir/run-2" > "$dir/out" 2> "$dir/err" || fail "--rank 1: exit status $?"
grep -q "^rank 1/2 " "$dir/out" && ! grep -q "^rank 0/2 " "$dir/out" || fail "--rank 1: not rank 1 alone"
"$dump" --psg /bin/sh > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 3 ] || fail "--psg of a binary without PSG: exit status $rc"
[ "$(wc -l < "$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ] || fail "--psg without PSG: not one line on stderr"
grep -q "/bin/sh: no .scalana_psg section (not built with scalana-cc)" "$dir/err" || fail "--psg without PSG: message"
"$dump" --psg /bin/sh "$dir/nosuch" > /dev/null 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "--psg with a missing file: exit status $rc"
"$dump" /bin/sh > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "a binary without --psg: exit status $rc"
[ "$(wc -l < "$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ] || fail "a binary without --psg: not one line on stderr"
grep -qx "scalana-dump: /bin/sh is an executable, not a run directory (and it has no structure graph: not built with scalana-cc)" "$dir/err" ||
  fail "a binary without --psg: message"
"$dump" --json /bin/sh > /dev/null 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "is an executable, not a run directory" "$dir/err" || fail "--json of a binary: exit status $rc"
# A profile of another run copied into the directory (another world size),
# and one world rank in two files: each named, left out, exit status 1.
"$synth" "$dir/run-4" imbalance 4 1 || fail "synth 4"
mkdir -p "$dir/mixed" && cp "$dir/run-2/run.json" "$dir/run-2"/profile-*.sclp "$dir/mixed/" || fail "copy"
cp "$dir/run-4"/profile-*.sclp "$dir/mixed/profile-000002-000005.sclp"
"$dump" "$dir/mixed" > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "a 4-process profile in a 2-process run: exit status $rc"
grep -q "profile-000002-000005.sclp: a profile of a 4-process run in a run of 2 processes" "$dir/err" ||
  fail "the foreign profile is not named"
! grep -q "^rank [0-9]*/4 " "$dir/out" || fail "the foreign profile's ranks were printed"
rm "$dir/mixed/profile-000002-000005.sclp"
cp "$dir/run-2"/profile-*.sclp "$dir/mixed/profile-000001-000001.sclp"
"$dump" "$dir/mixed" > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q "world rank 0 again" "$dir/err" || fail "one rank in two files: exit status $rc"
[ "$(grep -c '^rank 0/2 ' "$dir/out")" -eq 1 ] || fail "rank 0 printed more than once"
"$dump" --help | grep -q "3 nothing to show" || fail "--help does not document exit status 3"
echo ok
