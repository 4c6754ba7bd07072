#!/bin/sh
# test_nodevice.sh — a CUDA program on this GPU-less machine, run under the GPU
# collector in every way it can be loaded, must fail with its own CUDA error
# (exit 3, same output) and never be crashed by the tool.
# usage: test_nodevice.sh PROGRAM COLLECTOR FAKE_RT INJECT_SHIM WORKDIR
set -u
prog=$1 collector=$2 fake_rt=$3 shim=$4 work=$5
mkdir -p "$work" && cd "$work" || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

run() { # name, then env assignments; runs the program, keeps out/err/rc
    name=$1; shift
    env "$@" "$prog" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
}

run plain
ref_rc=$(cat plain.rc)
[ "$ref_rc" = 3 ] || bad "plain run: exit $ref_rc, expected the program's own 3 ($(cat plain.out))"
grep -q '^cuda_nodevice: ' plain.out || bad "plain run printed no CUDA error"
echo "plain: $(cat plain.out)"

same_as_plain() { # name
    [ "$(cat "$1.rc")" = "$ref_rc" ] || bad "$1: exit $(cat "$1.rc"), expected $ref_rc"
    cmp -s plain.out "$1.out" || bad "$1: output differs from the plain run: $(cat "$1.out")"
}

# 1. What scalana-run sets: the driver (absent here) would load the collector.
run inject CUDA_INJECTION64_PATH="$collector"
same_as_plain inject
[ -s inject.err ] && bad "inject: unexpected stderr: $(cat inject.err)"

# 2. The collector actually initialised (the shim plays the driver), with a runtime:
#    CUPTI has no driver to work with, so collection must switch itself off with
#    one stderr line and tell the runtime; the program is untouched.
rm -f rt.log
run started LD_PRELOAD="$fake_rt $shim" CUDA_INJECTION64_PATH="$collector" SCALANA_FAKE_RT_LOG="$PWD/rt.log"
same_as_plain started
grep -q 'InitializeInjection returned 1' started.err || bad "started: InitializeInjection did not return 1: $(cat started.err)"
n=$(grep -c '^scalana: GPU collection disabled: ' started.err)
if [ "$n" = 1 ]; then
    grep -q 'collector_failed part=gpu' rt.log || bad "started: runtime not told of the failure"
    echo "started: $(grep '^scalana:' started.err)"
elif [ "$n" = 0 ]; then
    grep -q 'register_flush' rt.log || bad "started: neither failed nor registered its flush"
else
    bad "started: $n disable lines, expected at most one"
fi
others=$(grep -v -e '^scalana: GPU collection disabled: ' -e '^inject-shim: ' started.err)
[ -z "$others" ] || bad "started: unexpected stderr: $others"

# 3. No runtime in the process: inert, silent.
run inert LD_PRELOAD="$shim" CUDA_INJECTION64_PATH="$collector"
same_as_plain inert
grep -q '^scalana' inert.err && bad "inert: collector spoke without a runtime: $(cat inert.err)"

# 4. Switched off: inert even with the runtime.
rm -f rt.log
run off LD_PRELOAD="$fake_rt $shim" CUDA_INJECTION64_PATH="$collector" SCALANA_FAKE_RT_LOG="$PWD/rt.log" SCALANA_GPU=0
same_as_plain off
grep -q '^scalana' off.err && bad "off: collector spoke with SCALANA_GPU=0: $(cat off.err)"
[ -f rt.log ] && grep -q -e register_flush -e collector_failed rt.log && bad "off: collector used the runtime"

[ "$fails" = 0 ] && echo "PASS" && exit 0
exit 1
