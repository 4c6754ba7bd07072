#!/bin/sh
# run_scenario.sh DIR SCENARIO CATEGORY FUNCTION PROCESSES [FLAGS] — synthetic runs at
# 4, 8, 16 and 32 processes (two repetitions at 8), then scalana-analyze and
# check_report.py on the planted answer (EXPECT_COST, EXPECT_EVIDENCE: see there).
set -e
dir=$1; name=$2; cat=$3; fn=$4; procs=$5; flags=${6:-}
[ "$flags" = "-" ] && flags=
rm -rf "$dir"; mkdir -p "$dir"
for p in 4 8 16 32; do "$SYNTH" "$dir/run-$p" "$name" $p 1; done
"$SYNTH" "$dir/run-8b" "$name" 8 2
"$ANALYZE" -q --no-viewer $flags -o "$dir/report" "$dir"/run-32 "$dir"/run-4 "$dir"/run-8 "$dir"/run-8b "$dir"/run-16
exec "${PYTHON:-/usr/bin/python3}" "$(dirname "$0")/check_report.py" "$dir/report/report.json" "$cat" "$fn" "$procs"
