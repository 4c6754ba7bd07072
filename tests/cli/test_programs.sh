#!/bin/bash
# test_programs.sh — the command line every installed program shares
# (docs/equivalents.md, "One command line"): `--version` prints
# "NAME (ScalAna) X.Y.Z" and exits 0; `--help` exits 0 with the usage on
# stdout; an unknown option and a bad value exit 2 with ONE line on stderr
# that names it.  The compiler wrappers pass the compiler's own options
# through and validate only their --scalana-* ones: an option the compiler
# does not know is the compiler's to reject (its message, its exit status).
#   test_programs.sh BINDIR VERSION
set -u
bin=$1 version=$2
work=$(mktemp -d /tmp/scalana-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_usage_error WHAT NEEDLE PROGRAM ARGS...: exit 2, exactly one stderr
# line, containing NEEDLE (the option or value at fault), nothing on stdout.
expect_usage_error() {
  local what=$1 needle=$2; shift 2
  "$@" >"$work/out" 2>"$work/err" </dev/null
  local rc=$? n
  n=$(wc -l <"$work/err")
  [ $rc = 2 ] || fail "$what: exit $rc, want 2 ($(head -3 "$work/err"))"
  [ "$n" = 1 ] || fail "$what: $n lines on stderr, want 1: $(cat "$work/err")"
  grep -qF -- "$needle" "$work/err" || fail "$what: the line does not name '$needle': $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "$what: output on stdout: $(head -3 "$work/out")"
}

for p in scalana-cc scalana-cxx scalana-fc scalana-run scalana-analyze scalana-view scalana-dump; do
  exe=$bin/$p
  if [ ! -x "$exe" ]; then fail "$p: not built in $bin"; continue; fi
  out=$("$exe" --version 2>"$work/err"); rc=$?
  [ $rc = 0 ] || fail "$p --version: exit $rc"
  first=$(printf '%s\n' "$out" | head -1)
  [ "$first" = "$p (ScalAna) $version" ] || fail "$p --version: first line '$first', want '$p (ScalAna) $version'"
  [ ! -s "$work/err" ] || fail "$p --version: stderr $(cat "$work/err")"
  "$exe" --help >"$work/help" 2>"$work/err"; rc=$?
  [ $rc = 0 ] || fail "$p --help: exit $rc"
  grep -q "$p" "$work/help" || fail "$p --help: stdout does not name $p"
  [ ! -s "$work/err" ] || fail "$p --help: stderr $(cat "$work/err")"
done

# The wrappers: our --version, then the compiler's first line (one line, not its whole text).
for p in cc cxx fc; do
  n=$("$bin/scalana-$p" --version | wc -l)
  [ "$n" = 2 ] || fail "scalana-$p --version: $n lines, want ours and the compiler's"
done
"$bin/scalana-cc" --version | sed -n 2p | grep -q 'clang version' || fail "scalana-cc --version: no clang line"
# The compiler's own options pass through untouched.
v=$("$bin/scalana-cc" -dumpversion 2>&1) || fail "scalana-cc -dumpversion: exit $?"
case $v in [0-9]*) ;; *) fail "scalana-cc -dumpversion: '$v'" ;; esac
printf 'int main(void){return 0;}\n' >"$work/t.c"
"$bin/scalana-cc" --scalana-no-runtime -fsyntax-only -Wno-unused-command-line-argument "$work/t.c" 2>"$work/err" ||
  fail "scalana-cc -fsyntax-only: $(cat "$work/err")"

# Unknown options and bad values: one line, exit 2.
for p in cc cxx fc; do
  expect_usage_error "scalana-$p --scalana-bogus" --scalana-bogus "$bin/scalana-$p" --scalana-bogus -c "$work/t.c"
  expect_usage_error "scalana-$p --scalana-loop-depth=x" --scalana-loop-depth=x "$bin/scalana-$p" --scalana-loop-depth=x -c "$work/t.c"
  expect_usage_error "scalana-$p --scalana-mpi=lam" --scalana-mpi=lam "$bin/scalana-$p" --scalana-mpi=lam -c "$work/t.c"
done
expect_usage_error "SCALANA_MPI=lam scalana-cc" SCALANA_MPI=lam env SCALANA_MPI=lam "$bin/scalana-cc" -c "$work/t.c"
# A plugin named by SCALANA_PLUGIN that does not exist: one line, exit 2, when
# compiling and when only linking.
expect_usage_error "SCALANA_PLUGIN=/nonexist.so scalana-cc -c" "pass plugin /nonexist.so not found (SCALANA_PLUGIN" \
  env SCALANA_PLUGIN=/nonexist.so "$bin/scalana-cc" -c "$work/t.c" -o "$work/t.o"
expect_usage_error "SCALANA_PLUGIN=/nonexist.so scalana-cc (link)" "pass plugin /nonexist.so not found (SCALANA_PLUGIN" \
  env SCALANA_PLUGIN=/nonexist.so "$bin/scalana-cc" "$work/t.o" -o "$work/t"

# No input file: the compiler's one line and its exit status (clang-19 alone:
# "no input files", 1), not a link of our own objects ("undefined reference to main").
for args in "" "-O2" "-c -Wall"; do
  # shellcheck disable=SC2086
  "$bin/scalana-cc" $args >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  [ $rc = 1 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "^scalana-cc: error: no input files$" "$work/err" &&
    [ ! -s "$work/out" ] || fail "scalana-cc $args (no input): exit $rc, $(cat "$work/err")"
done
# An option neither the compiler nor gcc knows: the compiler's own message
# naming it and its exit status (clang-19 and mpicc/gcc: 1), not ours, with and
# without an input file; nothing on stdout, nothing compiled.
for p in cc cxx fc; do
  src=$work/t.c; [ $p = fc ] && { printf 'end\n' >"$work/t.f90"; src=$work/t.f90; }
  for input in "" "$src"; do
    # shellcheck disable=SC2086
    "$bin/scalana-$p" --no-such-option ${input:+-c "$input" -o "$work/typo.o"} >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    [ $rc = 1 ] && grep -q "error: unknown argument: '--no-such-option'" "$work/err" &&
      ! grep -q "^scalana-$p:" "$work/err" && [ ! -s "$work/out" ] && [ ! -e "$work/typo.o" ] ||
      fail "scalana-$p --no-such-option ${input:+-c FILE}: exit $rc, want the compiler's 'unknown argument' and 1: $(cat "$work/err")"
  done
done
# An option that only prints needs no input file, and links nothing.
"$bin/scalana-cc" -v >/dev/null 2>"$work/err" || fail "scalana-cc -v: exit $?, $(tail -3 "$work/err")"
grep -q "clang version" "$work/err" || fail "scalana-cc -v: no clang version: $(tail -3 "$work/err")"

# The compile-time SCALANA_* variables, checked like the runtime's: ONE warning
# naming the variable, the value and the value used; the build goes on.
# expect_env_warning VAR=VALUE USED: scalana-cc -c with it exits 0, one stderr line.
expect_env_warning() {
  env "$1" "$bin/scalana-cc" -c "$work/t.c" -o "$work/t.o" >"$work/out" 2>"$work/err" </dev/null
  local rc=$?
  [ $rc = 0 ] || fail "$1 scalana-cc: exit $rc, $(cat "$work/err")"
  [ "$(wc -l <"$work/err")" = 1 ] && grep -qF "scalana-cc: warning: $1 " "$work/err" && grep -qF "using $2" "$work/err" ||
    fail "$1 scalana-cc: want one warning naming it and 'using $2': $(cat "$work/err")"
}
expect_env_warning SCALANA_PSG_ALL_FUNCTIONS=maybe "0 (off)"
expect_env_warning SCALANA_VERBOSE=loud "0 (off)"
expect_env_warning SCALANA_PSG_LOOP_DEPTH=abc "10 (the default)"
expect_env_warning SCALANA_PSG_LOOP_DEPTH=5000 "999"
grep -q "not on or off (want 1, on, yes, true or 0, off, no, false)" <(env SCALANA_PSG_ALL_FUNCTIONS=maybe \
  "$bin/scalana-cc" -c "$work/t.c" -o "$work/t.o" 2>&1) || fail "SCALANA_PSG_ALL_FUNCTIONS=maybe: accepted words not listed"
# the accepted spellings pass silently
for v in SCALANA_PSG_ALL_FUNCTIONS=Yes SCALANA_PSG_ALL_FUNCTIONS=off SCALANA_VERBOSE=0 SCALANA_PSG_LOOP_DEPTH=3; do
  env "$v" "$bin/scalana-cc" -c "$work/t.c" -o "$work/t.o" 2>"$work/err" && [ ! -s "$work/err" ] ||
    fail "$v scalana-cc: $(cat "$work/err")"
done
run=$bin/scalana-run
expect_usage_error "scalana-run --frq" "'--frq'" "$run" --frq 100 mpirun -n 2 /bin/true
expect_usage_error "scalana-run --freq abc" "'abc'" "$run" --freq abc /bin/true
expect_usage_error "scalana-run --freq=0" "'0'" "$run" --freq=0 /bin/true
expect_usage_error "scalana-run --freq 20000" "'20000'" "$run" --freq 20000 /bin/true
expect_usage_error "scalana-run --sampler bogus" "'bogus'" "$run" --sampler bogus /bin/true
expect_usage_error "scalana-run --sampler papi:" "'papi:'" "$run" --sampler papi: /bin/true
expect_usage_error "scalana-run --mpi lam" "'lam'" "$run" --mpi lam /bin/true
expect_usage_error "scalana-run --output (no value)" "--output" "$run" --output
expect_usage_error "scalana-run --freq= " "--freq" "$run" --freq= /bin/true
expect_usage_error "scalana-run (nothing)" "no program" "$run"
expect_usage_error "scalana-run ./missing" "./missing" "$run" ./missing-program-xyz
# Under a launcher too, before any rank starts: a path that does not exist, a
# bare name not on PATH (the launcher's options and their values skipped).
expect_usage_error "scalana-run mpirun ./missing" "'./missing-program-xyz': no such program" \
  "$run" mpirun --allow-run-as-root -n 2 ./missing-program-xyz arg
expect_usage_error "scalana-run mpirun.mpich -genv A B missing" "'missing-program-xyz': no such program" \
  "$run" mpirun.mpich -genv A B -n 2 missing-program-xyz
expect_usage_error "scalana-run mpirun --timeout 60 ./missing" "'./missing-program-xyz': no such program" \
  "$run" mpirun --timeout 60 --bogus-flag 3 -n 2 ./missing-program-xyz
# No program word at all: said in plain words (no '?'); the launcher judges.
# (--app FILE: the program is in the file, the launcher runs it.)
if command -v mpirun.openmpi >/dev/null; then
  echo "-n 1 /bin/true" >"$work/appfile"
  (cd "$work" && "$run" --mpi openmpi mpirun.openmpi --allow-run-as-root --app appfile) >/dev/null 2>"$work/err" ||
    fail "scalana-run mpirun.openmpi --app appfile: exit $?, $(cat "$work/err")"
fi
"$run" --mpi openmpi mpirun.openmpi --version >/dev/null 2>"$work/err" || true
grep -q "'?'" "$work/err" && fail "scalana-run mpirun --version: '?' in $(cat "$work/err")"
"$run" mpirun.openmpi --version >/dev/null 2>"$work/err" || true
grep -q "found no program among the arguments of mpirun.openmpi" "$work/err" ||
  fail "scalana-run mpirun.openmpi --version: want 'found no program': $(cat "$work/err")"
an=$bin/scalana-analyze
expect_usage_error "scalana-analyze --bogus" "'--bogus'" "$an" --bogus "$work"
expect_usage_error "scalana-analyze -Z" "'-Z'" "$an" -Z "$work"
expect_usage_error "scalana-analyze --color purple" "purple" "$an" --color purple "$work"
expect_usage_error "scalana-analyze -t alpha=2" "alpha" "$an" -t alpha=2 "$work"
expect_usage_error "scalana-analyze --min-cost x" "'x'" "$an" --min-cost x "$work"
expect_usage_error "scalana-analyze -o (no value)" "'-o'" "$an" -o
expect_usage_error "scalana-analyze (nothing)" "no run directory" "$an"
vw=$bin/scalana-view
expect_usage_error "scalana-view --bogus" "'--bogus'" "$vw" --bogus r.json
expect_usage_error "scalana-view --color purple" "purple" "$vw" --color purple r.json
expect_usage_error "scalana-view --max-graph-vertices x" "--max-graph-vertices" "$vw" --max-graph-vertices x r.json
expect_usage_error "scalana-view --output (no value)" "'--output'" "$vw" r.json --output
expect_usage_error "scalana-view (nothing)" "no report.json" "$vw"
dp=$bin/scalana-dump
expect_usage_error "scalana-dump --bogus" "'--bogus'" "$dp" --bogus "$work"
expect_usage_error "scalana-dump --rank x" "'x'" "$dp" --rank x "$work"
expect_usage_error "scalana-dump --rank (no value)" "--rank" "$dp" "$work" --rank
expect_usage_error "scalana-dump --dot without --psg" "--dot" "$dp" --dot "$work"
expect_usage_error "scalana-dump (nothing)" "no run directory" "$dp"

[ $fails = 0 ] && echo "cli programs ok" || { echo "$fails failure(s)"; exit 1; }
