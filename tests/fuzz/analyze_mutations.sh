#!/bin/sh
# analyze_mutations.sh — robustness of scalana-analyze against semantically
# corrupt runs: a clean 16-rank run and a 32-rank run mutated by mutate_run
# (seeds 1..N) are analysed by an AddressSanitizer/UBSan build of the
# analyzer; it must exit 0 or 1 (never crash, never report a memory error).
# Usage: analyze_mutations.sh GEN SYNTH_APP MUTATE_RUN ANALYZE_ASAN WORK_DIR N
set -u
gen=$1 app=$2 mutate=$3 analyze=$4 work=$5 n=$6
mkdir -p "$work" || exit 2
"$gen" runs "$app" "$work/runs" 16 32 >/dev/null 2>&1 || { echo "scalana-bench-gen failed"; exit 2; }
export ASAN_OPTIONS=detect_leaks=0:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:exitcode=98
fail=0
s=1
while [ "$s" -le "$n" ]; do
    rm -rf "$work/mut" "$work/out"
    "$mutate" "$work/runs/p00032" "$work/mut" "$s" 3 || { echo "seed $s: mutate_run failed"; exit 2; }
    "$analyze" -q --no-viewer -o "$work/out" "$work/runs/p00016" "$work/mut" >"$work/log" 2>&1
    rc=$?
    if [ "$rc" -gt 1 ] || grep -q -E 'AddressSanitizer|runtime error' "$work/log"; then
        echo "seed $s: scalana-analyze exit $rc; reproduce: $mutate $work/runs/p00032 DIR $s 3"
        grep -m 3 -E 'ERROR|runtime error|SUMMARY|#[0-3] ' "$work/log"
        cp "$work/log" "$work/failed-seed-$s.log"
        fail=1
    fi
    s=$((s + 1))
done
[ "$fail" -eq 0 ] && echo "analyze_mutations: $n mutated runs analysed cleanly"
exit "$fail"
