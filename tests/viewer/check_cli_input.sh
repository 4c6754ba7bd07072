#!/bin/sh
# check_cli_input.sh VIEW FIXTURES DIR — scalana-view refuses nonsense with
# exit status 1 and a message naming the file (schema_version, top-level
# types), and a re-rendering removes the rootcause-N files of an earlier one
# that it does not write again (but no other file).
set -u
view=$1; fix=$2; dir=$3
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/err" 2>/dev/null; exit 1; }
bad() { # name json expected-words...
    name=$1; shift; printf '%s\n' "$1" > "$dir/$name"; shift
    "$view" -q -o "$dir/out-$name" "$dir/$name" > /dev/null 2> "$dir/err"
    rc=$?
    [ $rc -eq 1 ] || fail "$name: exit status $rc"
    grep -q "$dir/$name" "$dir/err" || fail "$name: file not named"
    for w in "$@"; do grep -q "$w" "$dir/err" || fail "$name: no '$w'"; done
}
bad user.json '{"schema_version":"9.9","runs":"x","vertices":{}}' 'schema_version "9.9"' 'runs is not an array' \
    'vertices is not an array' 'root_causes is missing'
bad array.json '[1,2]' 'not a JSON object'
bad nover.json '{"runs":[],"root_causes":[],"vertices":[],"program":{},"data_quality":{}}' 'schema_version is missing'
bad types.json '{"schema_version":"1.0","runs":[],"root_causes":{},"vertices":[],"program":[],"data_quality":{},"scaling":"fast"}' \
    'root_causes is not an array' 'program is not an object' 'scaling'
# stale cause graphs: planted.json has causes 1-3
out="$dir/stale"; mkdir -p "$out"
for f in rootcause-1.dot rootcause-7.dot rootcause-7.svg rootcause-12.svg rootcause-notes.txt rootcause-x.dot; do
    echo old > "$out/$f"
done
touch "$out/.scalana-report"  # an earlier rendering of ours (a directory without the marker is refused)
"$view" -q -o "$out" "$fix/planted.json" > /dev/null 2> "$dir/err" || fail "planted.json: exit status"
for f in rootcause-7.dot rootcause-7.svg rootcause-12.svg; do [ -e "$out/$f" ] && fail "stale $f kept"; done
for f in rootcause-notes.txt rootcause-x.dot; do [ -e "$out/$f" ] || fail "$f is not ours but was removed"; done
grep -qx old "$out/rootcause-1.dot" && fail "rootcause-1.dot not rewritten"
[ -s "$out/rootcause-3.dot" ] || fail "rootcause-3.dot missing"
# without SVG output, earlier SVGs of the causes go too
"$view" -q --no-svg -o "$out" "$fix/planted.json" > /dev/null 2> "$dir/err" || fail "--no-svg: exit status"
[ -e "$out/rootcause-1.svg" ] && fail "stale rootcause-1.svg kept with --no-svg"
# a report directory means its report.json; a missing file is "no such file", never line -1
rdir="$dir/rdir"; mkdir -p "$rdir"; cp "$fix/planted.json" "$rdir/report.json"
"$view" -s "$rdir/" > "$dir/out" 2> "$dir/err" || fail "directory argument: exit status"
grep -q "late sender" "$dir/out" || fail "directory argument: no summary of its report.json"
"$view" -s "$dir/none.json" > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "missing file: exit status $rc"
grep -qx "scalana-view: $dir/none.json: no such file" "$dir/err" || fail "missing file: message"
"$view" -s "$dir/empty-dir-$$" > /dev/null 2> "$dir/err"; grep -q -- ':-1:' "$dir/err" && fail "line -1 printed"
mkdir -p "$dir/nodir"
"$view" -s "$dir/nodir" > /dev/null 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "directory without report.json: exit status $rc"
grep -qx "scalana-view: $dir/nodir/report.json: no such file" "$dir/err" || fail "directory without report.json: message"
# an output directory of the user's is refused before the summary is printed or anything written
user="$dir/userdir"; mkdir -p "$user"; echo mine > "$user/notes.txt"
"$view" -o "$user" "$fix/planted.json" > "$dir/out" 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "user's directory: exit status $rc"
grep -q "notes.txt" "$dir/err" || fail "user's directory: file not named"
[ -s "$dir/out" ] && fail "user's directory: the summary was printed before the refusal"
[ "$(ls -A "$user")" = notes.txt ] || fail "user's directory: something was written"
echo ok
