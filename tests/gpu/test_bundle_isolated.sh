#!/bin/bash
# test_bundle_isolated.sh — the device bundle works without this machine's Open
# MPI: prepares a bundle, hides the system's copies of everything it carries
# (a private mount namespace: bind mounts over them), and runs
# run-on-device.sh, which must start the carried mpirun at 1, 2 and 4
# processes and bring back one run directory each (CUDA itself fails here).
# Skipped (77) where mount namespaces are not allowed.
# usage: test_bundle_isolated.sh WORKDIR BUILD_DIR...
set -u
work=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/empty" || exit 1
unshare -m --propagation private true 2>/dev/null || { echo "SKIP: no mount namespaces"; exit 77; }
BUNDLE=$work/bundle sh "$here/prepare-device-bundle.sh" "$@" >"$work/prepare.log" 2>&1 ||
    { echo "FAIL: prepare: $(tail -3 "$work/prepare.log")"; exit 1; }
unshare -m --propagation private bash -c '
    B=$1; work=$2; here=$3
    for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi /etc/openmpi; do
        [ -d "$d" ] && mount --bind "$work/empty" "$d"
    done
    for f in $(cd "$B/root" && find . -type f \( -name "*.so*" -o -path "./usr/bin/*" \)); do
        for c in "${f#.}" "/lib${f#./usr/lib}"; do
            [ -f "$c" ] && [ ! -L "$c" ] && mount --bind /dev/null "$c"
        done
    done
    OUT=$work/out bash "$here/run-on-device.sh" "$B" >"$work/device.log" 2>&1' _ "$work/bundle" "$work" "$here"
s=$work/out/summary.txt
[ -f "$s" ] || { echo "FAIL: no summary: $(tail -5 "$work/device.log")"; exit 1; }
cat "$s"
grep -q 'mpirun is not the carried one' "$s" && { echo "FAIL: system mpirun used"; exit 1; }
for p in 1 2 4; do
    ls "$work/out/runs/np$p"/scalana-*/run.json >/dev/null 2>&1 || ls "$work/out/np$p.log.rt" >/dev/null 2>&1 ||
        grep -q "gpu_imbalance: .*, $p ranks" "$work/out/np$p.log" ||
        { echo "FAIL: nothing ran at $p processes"; exit 1; }
done
echo PASS
