#!/bin/bash
# test_scalana_run_env.sh — scalana-run passes its variables to the ranks the
# way the LAUNCHER takes them (hydra: -genv VAR VALUE, Open MPI: -x), whatever
# the program's MPI library, and sets CUDA_INJECTION64_PATH to the GPU
# collector beside the runtime library (not when there is none, not with
# SCALANA_GPU=0, never over the user's own: one line instead).
#   test_scalana_run_env.sh BUILD_DIR MPI... [linked:MPI:PROGRAM...]
set -eu
build=$(cd "$1" && pwd); shift
mpis=() linked=()
for a in "$@"; do case "$a" in linked:*) linked+=("${a#linked:}") ;; *) mpis+=("$a") ;; esac; done
work=$(mktemp -d /tmp/scalana-run-env-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; echo "--- stdout"; cat out.txt 2>/dev/null; echo "--- stderr"; cat err.txt 2>/dev/null; exit 1; }

# Trees laid out like an installation: bin/scalana-run and lib/libscalana-<mpi>.so,
# one with a stand-in lib/libscalana-cupti.so (only its path matters here: the
# ranks run env(1), no CUDA driver reads it), one without.
for t in with without; do
  mkdir -p "$t/bin" "$t/lib"
  cp "$build/bin/scalana-run" "$t/bin/"
  for m in "${mpis[@]}"; do ln -s "$build/lib/libscalana-$m.so" "$t/lib/"; done
done
: > with/lib/libscalana-cupti.so
cupti=$work/with/lib/libscalana-cupti.so

launchers_of() { # the launchers of an MPI present here
  case "$1" in
    openmpi) for l in mpirun.openmpi mpiexec.openmpi; do command -v $l >/dev/null && echo $l; done ;;
    mpich) for l in mpirun.mpich mpiexec.hydra mpiexec.mpich; do command -v $l >/dev/null && echo $l; done ;;
  esac
}
opts_of() { case "$1" in *openmpi*|orterun) echo "--allow-run-as-root --oversubscribe" ;; esac; }
count() { grep -c -x -F -- "$1" out.txt || true; }

# Every launcher with every runtime (the program, env(1), has no MPI: --mpi).
for lm in "${mpis[@]}"; do
  for l in $(launchers_of "$lm"); do
    for m in "${mpis[@]}"; do
      what="--mpi $m $l"
      # shellcheck disable=SC2046
      with/bin/scalana-run --mpi "$m" --freq 123 "$l" $(opts_of "$l") -n 2 /usr/bin/env >out.txt 2>err.txt \
        || fail "$what: exit $?"
      [ "$(count SCALANA_FREQ=123)" = 2 ] || fail "$what: SCALANA_FREQ did not reach both ranks"
      [ "$(grep -c "^LD_PRELOAD=$work/with/lib/libscalana-$m.so" out.txt)" = 2 ] || fail "$what: LD_PRELOAD"
      [ "$(count "CUDA_INJECTION64_PATH=$cupti")" = 2 ] || fail "$what: CUDA_INJECTION64_PATH did not reach both ranks"
      ! grep -q CUDA_INJECTION64_PATH err.txt || fail "$what: unexpected line about CUDA_INJECTION64_PATH"
    done
  done
done

m=${mpis[0]}
l=$(launchers_of "$m" | head -1)
# No collector beside the runtime: not set.
# shellcheck disable=SC2046
without/bin/scalana-run --mpi "$m" "$l" $(opts_of "$l") -n 2 /usr/bin/env >out.txt 2>err.txt || fail "without: exit"
! grep -q '^CUDA_INJECTION64_PATH=' out.txt || fail "without a collector: CUDA_INJECTION64_PATH set"
# SCALANA_GPU=0: not set (and SCALANA_GPU reaches the ranks).
# shellcheck disable=SC2046
SCALANA_GPU=0 with/bin/scalana-run --mpi "$m" "$l" $(opts_of "$l") -n 2 /usr/bin/env >out.txt 2>err.txt || fail "GPU=0: exit"
! grep -q '^CUDA_INJECTION64_PATH=' out.txt || fail "SCALANA_GPU=0: CUDA_INJECTION64_PATH set"
[ "$(count SCALANA_GPU=0)" = 2 ] || fail "SCALANA_GPU=0 did not reach both ranks"
# The user's own: kept, one line.
# shellcheck disable=SC2046
CUDA_INJECTION64_PATH=/opt/other/libinject.so with/bin/scalana-run --mpi "$m" "$l" $(opts_of "$l") -n 2 /usr/bin/env \
  >out.txt 2>err.txt || fail "user's own: exit"
! grep -q "^CUDA_INJECTION64_PATH=$cupti" out.txt || fail "the user's CUDA_INJECTION64_PATH was replaced"
[ "$(grep -c 'CUDA_INJECTION64_PATH is already set' err.txt)" = 1 ] || fail "expected one line about the user's CUDA_INJECTION64_PATH"
# Without a launcher: the one process gets it.
with/bin/scalana-run --mpi "$m" /usr/bin/env >out.txt 2>err.txt || fail "no launcher: exit"
[ "$(count "CUDA_INJECTION64_PATH=$cupti")" = 1 ] || fail "no launcher: CUDA_INJECTION64_PATH"

# Programs linked with the runtime (nothing to preload) under their MPI's
# launchers: hydra must get -genv (it rejects -x).
for x in "${linked[@]}"; do
  m=${x%%:*} prog=${x#*:}
  for l in $(launchers_of "$m"); do
    rm -rf run
    # shellcheck disable=SC2046
    SCALANA_OUTPUT=$work/run "$build/bin/scalana-run" --freq 250 "$l" $(opts_of "$l") -n 2 "$prog" >out.txt 2>err.txt \
      || fail "linked $m program under $l: exit $?"
    grep -q '"sample_period_ns": 4000000' run/run.json || fail "linked $m program under $l: --freq 250 did not reach the ranks"
  done
done
echo "scalana-run environment ok (${mpis[*]})"
