#!/bin/sh
# run_repeat.sh DIR SCENARIO — two sets of synthetic runs of one scenario that
# differ only in their sampling noise (other seeds), each analysed: both must
# rank the same top root cause (category, function, line) with costs within
# each other's noise.
set -e
dir=$1; name=$2
rm -rf "$dir"; mkdir -p "$dir"
for set in 1 2; do
  for p in 4 8 16 32; do "$SYNTH" "$dir/s$set-$p" "$name" $p $((set * 10 + 1)); done
  "$SYNTH" "$dir/s$set-8b" "$name" 8 $((set * 10 + 2))
  "$ANALYZE" -q --no-viewer -o "$dir/report$set" "$dir"/s$set-4 "$dir"/s$set-8 "$dir"/s$set-8b "$dir"/s$set-16 "$dir"/s$set-32
done
exec "${PYTHON:-/usr/bin/python3}" - "$dir/report1/report.json" "$dir/report2/report.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["root_causes"] and b["root_causes"], "no root cause"
key = lambda c: (c["category"], c["function"], c["line"])
ta, tb = a["root_causes"][0], b["root_causes"][0]
assert key(ta) == key(tb), "top causes differ: %s vs %s" % (key(ta), key(tb))
assert [key(c) for c in a["root_causes"]] == [key(c) for c in b["root_causes"]], "rankings differ"
noise = 3 * max(ta["cost_noise_seconds"], tb["cost_noise_seconds"])
assert abs(ta["cost_seconds"] - tb["cost_seconds"]) <= noise, "costs %g and %g differ by more than 3x their noise %g" % (
    ta["cost_seconds"], tb["cost_seconds"], noise / 3)
print("ok: both rank", key(ta), "first: %.3g s and %.3g s" % (ta["cost_seconds"], tb["cost_seconds"]))
PY
