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
# ---- the user trial's bad input (issue: messages, exe hash, partial runs) ----
pre="$dir/trial"; mkdir -p "$pre"
for p in 4 8; do "$SYNTH" "$pre/run-$p" imbalance $p 1 || fail "synth"; done
# a profile of another binary copied in: its exe_hash (bytes 40-47) is not the run's build-id's
cp -r "$pre/run-4" "$pre/foreign"
ff=$(ls "$pre"/foreign/profile-*.sclp)
printf '\021\042\063\104\125\146\167\210' | dd of="$ff" bs=1 seek=40 conv=notrunc 2>/dev/null
# the fuzz path: one corrupted byte 40
cp -r "$pre/run-8" "$pre/byte40"
fb=$(ls "$pre"/byte40/profile-*.sclp)
printf '\377' | dd of="$fb" bs=1 seek=40 conv=notrunc 2>/dev/null
# truncated at 70 %: some ranks read, the run is partial
cp -r "$pre/run-8" "$pre/trunc"
ft=$(ls "$pre"/trunc/profile-*.sclp)
head -c $(( $(wc -c < "$ft") * 7 / 10 )) "$ft" > "$pre/t" && mv "$pre/t" "$ft"
# a header whose file size (bytes 32-39) is wrong: said, and the ranks inside still read
cp -r "$pre/run-4" "$pre/fbytes"
fz=$(ls "$pre"/fbytes/profile-*.sclp)
printf '\377\377\377\377\377\377\377\377' | dd of="$fz" bs=1 seek=32 conv=notrunc 2>/dev/null
# a header whose world size is absurd: a corrupt header, not 4 billion processes
cp -r "$pre/run-4" "$pre/wsize"
fw=$(ls "$pre"/wsize/profile-*.sclp)
printf '\000\050\153\356' | dd of="$fw" bs=1 seek=24 conv=notrunc 2>/dev/null
"$ANALYZE" -q --no-viewer -o "$pre/r0" "$pre/fbytes" "$pre/wsize" 2> "$dir/err" || fail "fbytes: exit status"
grep -q "$fz: [0-9]* bytes, its header says 18446744073709551615: truncated, or a corrupt header" "$dir/err" ||
    fail "wrong file size in the header not reported"
grep -q "$fw: world size 4000000000 in the header is implausible" "$dir/err" || fail "absurd world size"
# run.json says 5 processes, the profile was written by 4
cp -r "$pre/run-4" "$pre/wrongp"
sed -i 's/"processes": *4/"processes": 5/' "$pre/wrongp/run.json"
"$ANALYZE" -q --no-viewer -o "$pre/r1" "$pre/run-4" "$pre/foreign" "$pre/byte40" "$pre/trunc" 2> "$dir/err"
[ $? -eq 0 ] || fail "trial: exit status"
grep -q "$ff: refused: written by another binary" "$dir/err" || fail "foreign profile not refused by name"
grep -q "$fb: refused: written by another binary or corrupt" "$dir/err" || fail "byte 40 not refused by name"
grep -q "truncated" "$dir/err" || fail "truncation not called truncated"
grep -q "$pre/trunc): partial run: [1-9][0-9]* ranks* unreadable" "$pre/r1/report.json" || fail "truncated run not partial"
grep -q "did not write" "$dir/err" "$pre/r1/report.json" && fail "truncated ranks said not to have written"
"$PYTHON" - "$pre/r1/report.json" <<'PY' || fail "report: partial run"
import json, sys
r = json.load(open(sys.argv[1]))
runs = {x["processes"]: x for x in r["runs"]}
assert runs[8]["partial"] is True and runs[8]["unreadable_ranks"] > 0, runs[8]
assert runs[4]["partial"] is False, runs[4]
m = r["data_quality"]["missing_ranks"]
assert m and all(x["reason"] == "unreadable" for x in m), m
PY
"$ANALYZE" -q --no-viewer -o "$pre/r2" "$pre/wrongp" 2> "$dir/err" || fail "wrong processes: exit status"
grep -q "run.json says 5 processes but .* was written by a run of 4 (its world size); using 4" "$dir/err" ||
    fail "wrong processes in run.json not reported"
grep -q '"processes": 4' "$pre/r2/report.json" || fail "wrong processes: world size not used"
# paths: no such directory, a file, an empty directory, each named; fatal is an error, not a warning
mkdir -p "$pre/empty"; echo x > "$pre/afile"
"$ANALYZE" -q --no-viewer -o "$pre/r3" "$pre/nosuch" 2> "$dir/err" && fail "nonexistent: exit 0"
grep -q "$pre/nosuch: no such directory" "$dir/err" || fail "nonexistent: message"
grep -q "error: nothing to analyse" "$dir/err" || fail "nothing to analyse is not an error"
"$ANALYZE" -q --no-viewer -o "$pre/r3" "$pre/afile" 2> "$dir/err" && fail "file: exit 0"
grep -q "$pre/afile: is a file, not a run directory" "$dir/err" || fail "file as run: message"
"$ANALYZE" -q --no-viewer -o "$pre/r3" "$pre/run-4" "$pre/empty" 2> "$dir/err" || fail "empty: exit status"
grep -q "$pre/empty: empty directory" "$dir/err" || fail "empty directory not named"
# -o an existing file: why it cannot write, before reading anything
"$ANALYZE" -q --no-viewer -o "$pre/afile" "$pre/run-4" 2> "$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "-o file: exit status $rc"
grep -q "error: cannot write the report to $pre/afile: it is a file" "$dir/err" || fail "-o file: message"
# --exe that does not exist or is no ELF file: errors (usage, 2)
"$ANALYZE" -q --no-viewer --exe "$pre/nosuch-exe" -o "$pre/r3" "$pre/run-4" 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "error: --exe $pre/nosuch-exe: no such file" "$dir/err" || fail "--exe missing: $rc"
"$ANALYZE" -q --no-viewer --exe "$pre/afile" -o "$pre/r3" "$pre/run-4" 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not an ELF executable" "$dir/err" || fail "--exe not ELF: $rc"
# nonsensical option values and --weak --strong
for bad in "--min-cost -5" "--imbalance 0" "--alpha 1.5" "--min-samples -1" "-t scaling_ratio=0.5" "--weak --strong"; do
    "$ANALYZE" -q --no-viewer $bad -o "$pre/r3" "$pre/run-4" 2> "$dir/err"; rc=$?
    [ $rc -eq 2 ] || fail "'$bad' accepted (exit $rc)"
    [ -s "$dir/err" ] || fail "'$bad': no message"
done
# stale rootcause-N files of an earlier analysis are removed; others kept; the path is normalised
mkdir -p "$pre/r4"
for f in rootcause-9.dot rootcause-9.svg rootcause-notes.txt; do echo old > "$pre/r4/$f"; done
touch "$pre/r4/.scalana-report"  # an earlier report of ours (a directory without the marker is refused)
"$ANALYZE" --no-viewer -o "$pre/r4//" "$pre/run-4" "$pre/run-8" > /dev/null 2> "$dir/err" || fail "r4"
[ -e "$pre/r4/rootcause-9.dot" ] || [ -e "$pre/r4/rootcause-9.svg" ] && fail "stale rootcause-9 kept"
[ -e "$pre/r4/rootcause-notes.txt" ] || fail "a file the tool did not write was removed"
grep -q "wrote $pre/r4/report.json" "$dir/err" || fail "output path not normalised"
# --exe of another binary: says the given binary is not the one that ran, both build-ids, no "pass --exe"
"$ANALYZE" -q --no-viewer --exe /bin/ls -o "$pre/r5" "$pre/run-4" 2> "$dir/err" && fail "--exe /bin/ls: exit 0"
bid=$(sed -n 's/.*"build_id": *"\([0-9a-f]*\)".*/\1/p' "$pre/run-4/run.json")
grep -q "refused: --exe /bin/ls is not the binary that ran: it has build-id [0-9a-f]*, the run was made with build-id $bid" \
    "$dir/err" || fail "--exe of another binary: message"
grep -q "pass the original binary with --exe" "$dir/err" && fail "--exe of another binary: suggests --exe again"
# a run whose program is gone, analysed with its own copy: the report names the program, the
# warning the copy; a run directory given with trailing slashes gives no "//" in the paths
cp -r "$pre/run-4" "$pre/kept"; mkdir -p "$pre/kept/exe"; cp "$SYNTH" "$pre/kept/exe/prog"
sed -i 's|"executable": *"[^"]*"|"executable": "/nonexistent/bin/jacobi2"|; s|"executable_copy": *null|"executable_copy": "exe/prog"|' \
    "$pre/kept/run.json"
"$ANALYZE" --no-viewer -o "$pre/r6" "$pre/kept//" > "$dir/out" 2> "$dir/err" || fail "kept copy: exit status"
grep -q "using the run's own copy $pre/kept/exe/prog" "$dir/err" || fail "kept copy: no warning naming it"
grep -q "ScalAna report: /nonexistent/bin/jacobi2 " "$dir/out" || fail "kept copy: the header does not name the program"
grep -q '//' "$dir/err" "$pre/r6/report.json" && fail "'//' in the paths of a run given as DIR//"
"$PYTHON" - "$pre/r6/report.json" "$pre/kept" <<'PY' || fail "kept copy: report.json program"
import json, sys
r = json.load(open(sys.argv[1]))
p = r["program"]
assert p["path"] == "/nonexistent/bin/jacobi2" and p["executable"] == sys.argv[2] + "/exe/prog", p
assert p["executable_source"] == "run copy", p
assert r["runs"][0]["directories"] == [sys.argv[2]], r["runs"][0]
PY
# the same ranks twice (a profile copied under another name): three messages per file, then a count
cp -r "$pre/run-8" "$pre/dup"; f=$(ls "$pre"/dup/profile-*.sclp); cp "$f" "${f%.sclp}-copy.sclp"
"$ANALYZE" -q --no-viewer -o "$pre/r7" "$pre/dup" 2> "$dir/err" || fail "duplicate ranks: exit status"
[ "$(grep -c 'appears twice' "$dir/err")" -eq 3 ] || fail "duplicate ranks: not three messages"
grep -q ": 5 more rank sections ignored (ranks read twice or outside the run)" "$dir/err" || fail "duplicate ranks: no count"
# ---- a skipped rank does not change the scaling mode: a 4-count strong-scaling
# study whose 8-process run has one corrupt rank section (each rank in turn, as
# the first, a middle and the last section) is still analysed as strong scaling,
# its work slope within 0.05 of the complete study's (means over the ranks read)
ss="$dir/strongstudy"; mkdir -p "$ss"
for p in 4 8 16 32; do "$SYNTH" "$ss/run-$p" balanced $p 1 || fail "synth"; done
"$ANALYZE" -q --no-viewer -o "$ss/full" "$ss"/run-4 "$ss"/run-8 "$ss"/run-16 "$ss"/run-32 2> "$dir/err" || fail "strong study"
for seek in 700 3000 5000; do
  rm -rf "$ss/run-8c"; cp -r "$ss/run-8" "$ss/run-8c"
  f=$(ls "$ss"/run-8c/profile-*.sclp)
  printf '\377\377\377\377' | dd of="$f" bs=1 seek=$seek conv=notrunc 2>/dev/null
  "$ANALYZE" -q --no-viewer -o "$ss/r$seek" "$ss"/run-4 "$ss"/run-8c "$ss"/run-16 "$ss"/run-32 2> "$dir/err" ||
    fail "strong study, corrupt rank (byte $seek): exit status"
  grep -q "rank skipped" "$dir/err" || fail "strong study, byte $seek: no rank skipped"
  "$PYTHON" - "$ss/full/report.json" "$ss/r$seek/report.json" <<'PY' || fail "strong study, byte $seek: the mode changed"
import json, sys
full, part = (json.load(open(f)) for f in sys.argv[1:3])
f, p = full["scaling_mode"], part["scaling_mode"]
assert f["mode"] == "strong" and p["mode"] == "strong" and p["source"] == "detected", (f, p)
assert abs(f["work_slope"] - p["work_slope"]) < 0.05, (f, p)
runs = {x["processes"]: x for x in part["runs"]}
assert runs[8]["partial"] is True and runs[8]["unreadable_ranks"] == 1, runs[8]
PY
done
echo ok
