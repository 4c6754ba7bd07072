#!/bin/bash
# test_install.sh — `cmake --install` of the already-built tree gives a working,
# relocatable installation (docs/install.md):
#   1. install into a temporary prefix; the pkg-config files name that prefix;
#   2. no installed file refers to the build or the source tree;
#   3. move the installation elsewhere, then from there only:
#   4. build a small MPI program that uses the phase API with pkg-config, with
#      CMake's find_package(ScalAna) (linked and weak targets), and with the
#      installed scalana-cc;
#   5. run each under mpirun (2 processes) with the installed scalana-run and
#      runtime, analyze with the installed scalana-analyze: the phase is in
#      report.json, the MPI call in the profile;
#   6. every installed man page renders (man -l, and man through MANPATH);
#   7. the package's version file accepts and rejects the right versions.
#   test_install.sh BUILD_DIR SOURCE_DIR VERSION [LIBDIR]   (LIBDIR: CMAKE_INSTALL_LIBDIR, default lib)
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) version=$3 L=${4:-lib}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/scalana-install-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Nothing from the build tree on the way: only the installation's own files.
unset SCALANA_PLUGIN SCALANA_OUTPUT LD_PRELOAD PKG_CONFIG_PATH CMAKE_PREFIX_PATH || true

# ---- 1. install, pkg-config names the prefix installed to
step "install into $work/first"
cmake --install "$build" --prefix "$work/first" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
p=$work/first
for f in bin/scalana-cc bin/scalana-cxx bin/scalana-fc bin/scalana-run bin/scalana-analyze \
         bin/scalana-view bin/scalana-dump $L/libscalana-openmpi.so $L/ScalanaPSG.so \
         $L/scalana-fp-note.o include/scalana/phase.h $L/pkgconfig/scalana-openmpi.pc \
         $L/cmake/ScalAna/ScalAnaConfig.cmake $L/cmake/ScalAna/ScalAnaConfigVersion.cmake \
         $L/cmake/ScalAna/ScalanaConfig.cmake share/man/man1/scalana-cc.1 \
         share/man/man1/scalana-cxx.1 share/doc/scalana/runtime.md share/doc/scalana/install.md \
         share/doc/scalana/LICENSE; do
  [ -e "$p/$f" ] || fail "not installed: $f"
done
# Each path pkg-config gives must exist (-I, -L, -Wl,-rpath), for every runtime built.
check_pc() {  # PREFIX MODULE
  local out w d
  out=$(PKG_CONFIG_PATH=$1/$L/pkgconfig pkg-config --cflags --libs "$2") || fail "pkg-config $2"
  for w in $out; do
    case $w in
      -I*) d=${w#-I} ;; -L*) d=${w#-L} ;; -Wl,-rpath,*) d=${w#-Wl,-rpath,} ;; *) continue ;;
    esac
    [ -d "$d" ] || fail "pkg-config $2 gives $w: no such directory"
  done
  d=$(PKG_CONFIG_PATH=$1/$L/pkgconfig pkg-config --variable=libdir "$2")
  [ "$(cd "$d" && pwd -P)" = "$(cd "$1/$L" && pwd -P)" ] || fail "$2: libdir $d is not $1/$L"
  [ -f "$d/lib$2.so" ] || fail "$2: no lib$2.so in its libdir $d"
  [ "$(PKG_CONFIG_PATH=$1/$L/pkgconfig pkg-config --modversion "$2")" = "$version" ] ||
    fail "$2: version is not $version"
}
for pc in "$p"/$L/pkgconfig/scalana-*.pc; do check_pc "$p" "$(basename "$pc" .pc)"; done

# ---- 2. nothing installed names the build or the source tree.  Binaries are
# read without their debug information (DWARF names the sources it was built from,
# which is what a debugger needs, not a reference the installation depends on).
step "no installed file refers to $src or $build"
# A path counts when it is whole: not preceded by a path character (so that a
# source tree at /src does not match /usr/src), followed by / or its end.
esc() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }
tree_re="(^|[^[:alnum:]_./~+-])($(esc "$src")|$(esc "$build"))(/|[^[:alnum:]_.~+-]|\$)"
refs=""
while IFS= read -r -d '' f; do
  if [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = 177ELF ]; then
    objcopy --strip-debug "$f" "$work/stripped" 2>/dev/null || cp "$f" "$work/stripped"
    g=$work/stripped
    readelf -d "$f" 2>/dev/null | grep -E 'RPATH|RUNPATH' | grep -qE "$tree_re" &&
      refs="$refs $f(rpath)"
  else
    g=$f
  fi
  grep -qaE "$tree_re" "$g" && refs="$refs ${f#"$p"/}"
done < <(find "$p" -type f -print0)
[ -z "$refs" ] || fail "installed files that name the build or source tree:$refs"

# ---- 3. relocate: everything below runs from the moved installation
mv "$p" "$work/moved"
p=$work/moved
grep -rlaF "$work/first" "$p" >/dev/null && fail "installed files name the install-time prefix: $(grep -rlaF "$work/first" "$p" | tr '\n' ' ')"
for pc in "$p"/$L/pkgconfig/scalana-*.pc; do check_pc "$p" "$(basename "$pc" .pc)"; done
cd "$work"

# ---- 4. build against the installation
step "build with pkg-config"
# shellcheck disable=SC2046
gcc -O1 -g -Wall -Wextra -Werror -o phase_pc "$here/phase_demo.c" \
  $(PKG_CONFIG_PATH=$p/$L/pkgconfig pkg-config --cflags --libs scalana-openmpi) ||
  fail "gcc with pkg-config scalana-openmpi"
ldd phase_pc | grep -q "libscalana-openmpi.so => $p/$L/" || { ldd phase_pc; fail "phase_pc: runtime not from $p/$L"; }
# The header as C with every warning, and as C++ with C linkage.
echo '#include <scalana/phase.h>' | gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$p/include" -x c - ||
  fail "phase.h does not compile as C11 with -Wpedantic -Werror"
printf '#include <scalana/phase.h>\nvoid f() { scalana_phase_begin("x"); scalana_phase_end("x"); }\n' |
  g++ -Wall -Wextra -Werror -c -I"$p/include" -x c++ - -o cxx.o || fail "phase.h does not compile as C++"
nm -u cxx.o | grep -qw scalana_phase_begin || fail "phase.h: C++ calls are not to the C symbol scalana_phase_begin"

step "build with CMake find_package(ScalAna)"
cmake -S "$here/consumer" -B consumer -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_COMPILER=gcc \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >cmake.log 2>&1 || { cat cmake.log; fail "consumer configure"; }
grep -q "consumer: ScalAna $version at $p/$L/cmake/ScalAna" cmake.log || { cat cmake.log; fail "consumer did not find ScalAna $version in $p"; }
cmake --build consumer >cmake-build.log 2>&1 || { cat cmake-build.log; fail "consumer build"; }
ldd consumer/phase_cmake | grep -q "libscalana-openmpi.so => $p/$L/" ||
  { ldd consumer/phase_cmake; fail "phase_cmake: runtime not from $p/$L"; }
ldd consumer/phase_weak | grep -q libscalana && fail "phase_weak links the runtime"

step "build with the installed scalana-cc, scalana-cxx, scalana-fc"
"$p/bin/scalana-cc" -O1 -o phase_cc "$here/phase_demo.c" 2>cc.err || { cat cc.err; fail "scalana-cc"; }
"$p/bin/scalana-cxx" -O1 -o phase_cxx "$here/phase_demo.cpp" 2>cxx.err || { cat cxx.err; fail "scalana-cxx"; }
"$p/bin/scalana-fc" -O1 -o phase_fc "$here/phase_demo.f90" 2>fc.err || { cat fc.err; fail "scalana-fc"; }
for app in phase_cc phase_cxx phase_fc; do
  readelf -S "$app" | grep -q scalana_psg || fail "$app has no embedded structure graph"
  ldd "$app" | grep -q "libscalana-openmpi.so => $p/$L/" || { ldd "$app"; fail "$app: runtime not from $p/$L"; }
done

# Without ScalAna the weak build runs and writes nothing.
mkdir plain && (cd plain && mpirun.openmpi -n 2 ../consumer/phase_weak >out.txt 2>&1) ||
  { cat plain/out.txt; fail "phase_weak without the runtime"; }
[ "$(ls plain)" = out.txt ] || fail "phase_weak without the runtime wrote $(ls plain)"

# The MPICH runtime through its own pkg-config file, when built.
apps="phase_pc:openmpi consumer/phase_cmake:openmpi consumer/phase_weak:openmpi phase_cc:openmpi phase_cxx:openmpi phase_fc:openmpi"
if [ -f "$p/$L/pkgconfig/scalana-mpich.pc" ]; then
  # shellcheck disable=SC2046
  gcc -O1 -g -o phase_pc_mpich "$here/phase_demo.c" \
    $(PKG_CONFIG_PATH=$p/$L/pkgconfig pkg-config --cflags --libs scalana-mpich) || fail "gcc with pkg-config scalana-mpich"
  apps="$apps phase_pc_mpich:mpich"
fi

# ---- 5. profile with the installed scalana-run, analyze with the installed scalana-analyze
for entry in $apps; do
  app=${entry%:*} mpi=${entry#*:}
  name=$(basename "$app")
  case $name in phase_cxx) phases=install_cxx ;; phase_fc) phases=install_fortran ;; *) phases="install_solve install_setup" ;; esac
  step "run $name ($mpi) under $p/bin/scalana-run, analyze"
  "$p/bin/scalana-run" --output "run-$name" "mpirun.$mpi" -n 2 "./$app" >"$name.out" 2>"$name.err" ||
    { cat "$name.out" "$name.err"; fail "$name under scalana-run"; }
  grep -q "phase_demo: sum" "$name.out" || { cat "$name.out" "$name.err"; fail "$name: program output missing"; }
  grep -q "\"mpi_library\": \"$mpi\"" "run-$name/run.json" ||
    { cat "run-$name/run.json"; fail "$name: run.json does not name $mpi"; }
  "$p/bin/scalana-dump" "run-$name" >"$name.dump" 2>&1 || { cat "$name.dump"; fail "scalana-dump $name"; }
  grep -q "MPI_Allreduce" "$name.dump" || fail "$name: no MPI_Allreduce in the profile (runtime not in front of MPI)"
  "$p/bin/scalana-analyze" "run-$name" -o "rep-$name" >"$name.analyze" 2>&1 ||
    { cat "$name.analyze"; fail "scalana-analyze $name"; }
  # shellcheck disable=SC2086
  python3 - "rep-$name/report.json" "$name" $phases <<'EOF' || fail "$name: phase not in the report"
import json, sys
rep = json.load(open(sys.argv[1]))
name, wanted = sys.argv[2], sys.argv[3:]
phases = {p["name"]: p for p in rep.get("phases", [])}
for want in wanted:
    if want not in phases:
        sys.exit(f"{name}: no phase {want!r} in report.json phases {sorted(phases)}")
    m = phases[want]["metrics"]
    if not m or m[0]["processes"] != 2 or not m[0]["time_mean_seconds"] > 0:
        sys.exit(f"{name}: {want} metrics {m}")
m = phases[wanted[0]]["metrics"][0]
print(f"{name}: phase {wanted[0]} {m['time_mean_seconds']:.4f} s mean, {m['time_max_seconds']:.4f} s max at 2 processes")
EOF
done

# ---- 6. man pages: each renders without a warning, directly and through MANPATH
step "man pages"
export LC_ALL=C.UTF-8   # an unset or missing locale would be a warning of man's own
n=0
for page in "$p"/share/man/man1/*.1; do
  out=$(man -l --warnings "$page" 2>&1 >/dev/null) || fail "man -l $page failed: $out"
  [ -z "$out" ] || fail "man -l $page: $out"
  [ "$(man -l "$page" 2>/dev/null | wc -l)" -gt 5 ] || fail "man -l $page renders almost nothing"
  name=$(basename "$page" .1)
  (cd / && MANPATH=$p/share/man man -P cat "$name" 2>&1 | grep -q "$(echo "$name" | tr a-z A-Z)") ||
    fail "man $name through MANPATH=$p/share/man"
  [ "$(MANPATH=$p/share/man man -w "$name")" = "$page" ] || fail "man -w $name is not $page"
  # every doc a page points to is installed
  for d in $(MANWIDTH=200 man --nh --nj -l "$page" 2>/dev/null | grep -oE '[a-z_-]+\.md|[a-z_-]+\.schema\.json' | sort -u); do
    [ -f "$p/share/doc/scalana/$d" ] || fail "$name(1) points to $d, not installed in share/doc/scalana"
  done
  n=$((n + 1))
done
[ $n -ge 7 ] || fail "only $n man pages installed"

# ---- 7. the version file
step "version file"
cmake -DPREFIX="$p" -DVERSION="$version" -P "$here/check_version.cmake" >version.log 2>&1 ||
  { cat version.log; fail "version checks"; }
echo "install ok: $p (moved from $work/first), $n man pages, $(grep -c 'found=' version.log) version checks"
