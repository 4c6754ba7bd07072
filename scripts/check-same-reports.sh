#!/bin/sh
# check-same-reports.sh — a refactoring's guard: re-analyzes stored runs of the
# planted examples with two scalana-analyze builds, serially and with the
# parallel analyzer (mpirun -n 2), and compares each report directory:
# report.json byte for byte, but for tool.analyzer_peak_rss_bytes (the
# analyzer's own memory, different from one run to the next); the viewer's
# files (DOT, SVG, index.html, extrap.jsonl, caliper/) line for line in sorted
# order, since Graphviz writes a graph's clusters in an order that changes
# from run to run of one binary; the exit status and what the run printed.
#
# Usage: sh scripts/check-same-reports.sh RUNS BASE_BIN NEW_BIN [WORK]
#   RUNS      one directory per example, each holding its run directories
#             (e.g. the run-<p>p directories `make demo` leaves in build/demo/<example>/)
#   BASE_BIN  the bin/ directory of the reference build (its ../lib holds the
#             parallel analyzer's MPI module), NEW_BIN the one under test
#   WORK      where the reports go (default: a temporary directory, removed on success)
# Environment: SCALANA_CHECK_MPIRUN (default mpirun.openmpi), SCALANA_CHECK_EXAMPLES
# (names, default every directory of RUNS), SCALANA_CHECK_MODES (default "serial parallel").
# Exit status: 0 every report identical, 1 a difference or a failed analysis, 2 usage.
set -u

[ $# -ge 3 ] || { echo "usage: $0 RUNS BASE_BIN NEW_BIN [WORK]" >&2; exit 2; }
RUNS=$1 BASE=$2 NEW=$3
WORK=${4:-$(mktemp -d)}
MPIRUN=${SCALANA_CHECK_MPIRUN:-mpirun.openmpi}
MODES=${SCALANA_CHECK_MODES:-serial parallel}
for b in "$BASE" "$NEW"; do
    [ -x "$b/scalana-analyze" ] || { echo "$0: no $b/scalana-analyze" >&2; exit 2; }
done

# analyze BIN MODE OUT RUN_DIR...: one report directory; the log beside it
analyze() {
    bin=$1 mode=$2 out=$3
    shift 3
    rm -rf "$out"
    mkdir -p "${out%/*}"
    if [ "$mode" = parallel ]; then
        "$MPIRUN" --allow-run-as-root --oversubscribe -n 2 "$bin/scalana-analyze" -q --color never \
            "$@" -o "$out" < /dev/null > "$out.log" 2>&1
    else
        "$bin/scalana-analyze" -q --color never "$@" -o "$out" < /dev/null > "$out.log" 2>&1
    fi
}

# report.json without the lines of the analyzer's peak memory
report_json() {
    sed '/"analyzer_peak_rss_bytes": \[/,/\]/d' "$1/report.json"
}

# same_report A B: the two report directories agree (differences on stdout)
same_report() {
    (cd "$1" && find . -type f | sort) > "$WORK/files.a"
    (cd "$2" && find . -type f | sort) > "$WORK/files.b"
    diff "$WORK/files.a" "$WORK/files.b" || return 1
    report_json "$1" > "$WORK/report.a"
    report_json "$2" > "$WORK/report.b"
    diff "$WORK/report.a" "$WORK/report.b" || return 1
    same=0
    while read -r f; do
        [ "$f" = ./report.json ] && continue
        sort "$1/$f" > "$WORK/lines.a"
        sort "$2/$f" > "$WORK/lines.b"
        cmp -s "$WORK/lines.a" "$WORK/lines.b" || { echo "$f differs"; same=1; }
    done < "$WORK/files.a"
    return $same
}

fail=0 n=0
for ex in "$RUNS"/*/; do
    ex=${ex%/}
    name=${ex##*/}
    if [ -n "${SCALANA_CHECK_EXAMPLES:-}" ]; then
        case " $SCALANA_CHECK_EXAMPLES " in *" $name "*) ;; *) continue ;; esac
    fi
    runs=$(ls -d "$ex"/run-*p 2>/dev/null)
    [ -n "$runs" ] || continue
    for mode in $MODES; do
        n=$((n + 1))
        # shellcheck disable=SC2086  # runs is a list of directories
        analyze "$BASE" "$mode" "$WORK/base/$mode/$name" $runs
        rb=$?
        # shellcheck disable=SC2086
        analyze "$NEW" "$mode" "$WORK/new/$mode/$name" $runs
        rn=$?
        if [ $rb != $rn ]; then
            echo "DIFFER $name $mode: exit status $rb before, $rn now"
            fail=1
            continue
        fi
        if [ ! -f "$WORK/base/$mode/$name/report.json" ]; then
            echo "FAILED $name $mode: no report.json (exit $rb, see $WORK/base/$mode/$name.log)"
            fail=1
            continue
        fi
        if same_report "$WORK/base/$mode/$name" "$WORK/new/$mode/$name" > "$WORK/$name.$mode.diff" 2>&1 &&
           cmp -s "$WORK/base/$mode/$name.log" "$WORK/new/$mode/$name.log"; then
            echo "same   $name $mode ($(ls "$WORK/new/$mode/$name" | wc -l) files)"
        else
            echo "DIFFER $name $mode: see $WORK/$name.$mode.diff and the .log files"
            fail=1
        fi
    done
done
[ $n -gt 0 ] || { echo "$0: no run directories under $RUNS" >&2; exit 2; }
if [ $fail = 0 ]; then
    echo "all $n reports identical"
    [ $# -ge 4 ] || rm -rf "$WORK"
else
    echo "reports differ: $WORK"
fi
exit $fail
