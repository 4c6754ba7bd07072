#!/bin/sh
# check_summary_file.sh VIEW FIXTURES DIR — the summary.txt export
# (include/scalana/outputs.def): scalana-view writes it into the report
# directory, the same text as its terminal summary without colours
# (scalana-view -s --color never), and --no-summary leaves it out while the
# other exports are still written.
set -u
view=$1; fix=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$view" -q -o "$dir/on" "$fix/planted.json" 2> "$dir/err" || fail "scalana-view: $(cat "$dir/err")"
[ -s "$dir/on/summary.txt" ] || fail "no summary.txt written"
"$view" -s --color never "$fix/planted.json" > "$dir/terminal.txt" || fail "scalana-view -s"
cmp -s "$dir/on/summary.txt" "$dir/terminal.txt" || fail "summary.txt is not the terminal summary"
grep -q '#1 late sender' "$dir/on/summary.txt" || fail "summary.txt does not name root cause #1"
if grep -q "$(printf '\033')" "$dir/on/summary.txt"; then fail "summary.txt has colour codes"; fi
"$view" -q --no-summary -o "$dir/off" "$fix/planted.json" 2> "$dir/err" || fail "--no-summary: $(cat "$dir/err")"
[ ! -e "$dir/off/summary.txt" ] || fail "--no-summary wrote summary.txt"
[ -s "$dir/off/index.html" ] || fail "--no-summary left out index.html too"
# a report directory with summary.txt is still ours: rendering again needs no --force
"$view" -q -o "$dir/on" "$fix/planted.json" 2> "$dir/err" || fail "re-rendering: $(cat "$dir/err")"
echo "ok: summary.txt written ($(wc -l < "$dir/on/summary.txt") lines, as the terminal summary), not with --no-summary"
