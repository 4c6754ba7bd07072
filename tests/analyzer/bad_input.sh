#!/bin/sh
# bad_input.sh DIR — scalana-analyze on bad input: a truncated profile, a
# corrupt rank section, a foreign file, a run without run.json, a run of
# another binary, a missing directory.  Each gets a message naming the file
# or directory, and the analysis goes on with what is valid.
set -u
dir=$1
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }
for p in 4 8 16; do "$SYNTH" "$dir/run-$p" imbalance $p 1 || fail "synth"; done
# truncated: run-16's only file loses its tail
f16=$(ls "$dir"/run-16/profile-*.sclp)
head -c 3000 "$f16" > "$dir/t" && mv "$dir/t" "$f16"
# corrupt: one byte of a rank section in run-8
f8=$(ls "$dir"/run-8/profile-*.sclp)
printf '\377\377\377\377' | dd of="$f8" bs=1 seek=700 conv=notrunc 2>/dev/null
# foreign file in run-4
echo "not a profile" > "$dir/run-4/profile-000100-000100.sclp"
# no run.json
mkdir -p "$dir/norun" && cp "$dir"/run-4/profile-000000-000003.sclp "$dir/norun/"
# another binary
cp -r "$dir/run-4" "$dir/other"
sed -i 's/"build_id": *"[0-9a-f]*"/"build_id": "00112233"/' "$dir/other/run.json"
"$ANALYZE" -q --no-viewer -o "$dir/report" "$dir/run-4" "$dir/run-8" "$dir/run-16" "$dir/norun" "$dir/other" \
    "$dir/does-not-exist" 2> "$dir/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q "$f16" "$dir/err" || fail "truncated file not named"
grep -q "$f8" "$dir/err" || fail "corrupt file not named"
grep -q "profile-000100-000100.sclp" "$dir/err" || fail "foreign file not named"
grep -q "norun" "$dir/err" || fail "run without run.json not reported"
grep -q "refused" "$dir/err" || fail "other binary not refused"
grep -q "does-not-exist" "$dir/err" || fail "missing directory not named"
[ -s "$dir/report/report.json" ] || fail "no report"
# a single run: imbalance and waits only, still a root cause
"$ANALYZE" -q --no-viewer -o "$dir/single" "$dir/run-4" 2> "$dir/err" || fail "single run"
grep -q '"load_imbalance"' "$dir/single/report.json" || fail "single run: no load imbalance"
# nothing valid: exit 1
"$ANALYZE" -q --no-viewer -o "$dir/none" "$dir/does-not-exist" 2> "$dir/err" && fail "nothing valid but exit 0"
# usage errors: exit 2
"$ANALYZE" 2> /dev/null; [ $? -eq 2 ] || fail "no argument: exit status"
"$ANALYZE" --help | grep -q "Usage" || fail "--help"
echo ok
