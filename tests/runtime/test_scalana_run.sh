#!/bin/bash
# test_scalana_run.sh — scalana-run picks the runtime for the program's MPI
# library, writes scalana-<exe>-<p>p in the working directory, and leaves an
# earlier one alone: the next run writes scalana-<exe>-<p>p.2, one line on stderr.
#   test_scalana_run.sh BUILD_DIR MPI PROGRAM
set -eu
build=$1 mpi=$2 prog=$3
work=$(mktemp -d /tmp/scalana-run-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
# Launcher options with values (two for --mca / -genv) must not be taken for the program.
if [ "$mpi" = openmpi ]; then launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl self,vader -n 2)
else launcher=(mpirun.mpich -genv SCALANA_TEST_DUMMY 1 -n 2); fi
name=scalana-$(basename "$prog")-2p
"$build/bin/scalana-run" "${launcher[@]}" "$prog" >out1.txt 2>err1.txt
[ -f "$name/run.json" ] || { echo "no $name/run.json"; cat err1.txt; exit 1; }
ls "$name"/profile-*.sclp >/dev/null || { echo "no profile in $name"; exit 1; }
grep -q "\"mpi_library\": \"$mpi\"" "$name/run.json" || { echo "wrong runtime"; cat "$name/run.json"; exit 1; }
grep -q '"launcher": "' "$name/run.json" || { echo "launcher not recorded"; cat "$name/run.json"; exit 1; }
"$build/bin/scalana-run" "${launcher[@]}" "$prog" >out2.txt 2>err2.txt
[ "$(grep -c "holds an earlier run: writing to $work/$name.2" err2.txt)" = 1 ] || { echo "expected one line naming $name.2:"; cat err2.txt; exit 1; }
[ "$(ls -d "$name"* | wc -l)" = 2 ] && [ -f "$name.2/run.json" ] || { echo "expected the new run in $name.2"; ls; exit 1; }
"$build/bin/scalana-dump" "$name" >/dev/null || { echo "scalana-dump failed"; exit 1; }
cmp -s out1.txt out2.txt || { echo "program output changed between runs"; exit 1; }
echo "scalana-run ok ($mpi)"
