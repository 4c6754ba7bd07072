#!/bin/sh
# prepare-device-bundle.sh — gathers what tests/gpu/run-on-device.sh needs on the
# accelerator machine (CUDA and CMake there, but no MPI, libunwind, Graphviz or
# package registry) into one directory of at most 64 MiB, to be carried there:
#   our libraries and the example, libcupti, and the Debian runtime packages they
#   need (Open MPI and its dependencies), unpacked with dpkg -x.
# usage: prepare-device-bundle.sh BUILD_DIR [MORE_BUILD_DIRS...]
#   writes build-gpu-bundle/ at the repository root (BUNDLE=dir to change);
#   files are looked up in the build dirs in order (the GPU build, then the
#   lead's full build for scalana-run and libscalana-openmpi.so).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root_dir=$(cd "$here/../.." && pwd)
B=${BUNDLE:-$root_dir/build-gpu-bundle}
CUDA=${SCALANA_CUDA_ROOT:-/usr/local/cuda}
ARCHIVES=${SCALANA_DEB_ARCHIVES:-/var/cache/apt/archives}
LIMIT_MIB=64
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [MORE_BUILD_DIRS...]" >&2; exit 2; }

find_built() { # relative path -> first build dir holding it
    rel=$1
    for d in $BUILD_DIRS; do
        [ -e "$d/$rel" ] && { echo "$d/$rel"; return 0; }
    done
    return 1
}
BUILD_DIRS=""
for d in "$@"; do BUILD_DIRS="$BUILD_DIRS $(cd "$d" && pwd)"; done

rm -rf "$B"
mkdir -p "$B/bin" "$B/lib" "$B/root" "$B/mpi-include"
note() { echo "$*" >>"$B/MANIFEST"; }
note "ScalAna GPU device bundle, made $(date -u +%FT%TZ) on $(hostname)"

# 1. Our files.  Required: the collector and the example.
for rel in lib/libscalana-cupti.so bin/gpu_imbalance; do
    f=$(find_built "$rel") || { echo "prepare-device-bundle: $rel not built in:$BUILD_DIRS" >&2; exit 1; }
    cp -p "$f" "$B/$rel"; note "ours: $rel <- $f"
done
for rel in tests/gpu/cuda_nodevice tests/gpu/libscalana_gpu_fake_rt.so; do
    f=$(find_built "$rel") && { cp -p "$f" "$B/$(case $rel in *.so) echo lib;; *) echo bin;; esac)/"; note "ours: $rel <- $f"; } || note "missing (optional): $rel"
done
# The main runtime and its launcher, when the lead's build has them.
for rel in lib/libscalana-openmpi.so bin/scalana-run bin/gpu_imbalance_psg; do
    f=$(find_built "$rel") && { cp -p "$f" "$B/$rel"; note "ours: $rel <- $f"; } || note "missing (not built yet): $rel"
done
cp -p "$CUDA/lib64/libcupti.so.13" "$B/lib/" 2>/dev/null || cp -p "$(readlink -f "$CUDA/lib/libcupti.so")" "$B/lib/libcupti.so.13"
note "cupti: $CUDA ($(ls "$B/lib" | grep cupti.so.13))"

# 2. MPI headers, for rebuilding the example there with its own nvcc if ours
#    cannot run on its driver (C only: -DOMPI_SKIP_MPICXX).
inc=/usr/lib/x86_64-linux-gnu/openmpi/include
cp -p "$inc/mpi.h" "$inc/mpi_portable_platform.h" "$B/mpi-include/"
printf '/* trimmed for the device bundle */\n' >"$B/mpi-include/mpi-ext.h"

# 3. Debian packages: every package that provides a library our programs, Open
#    MPI's launcher and its plugins load, except the C/C++ runtime the machine
#    has (libc6, libgcc-s1, libstdc++6).
elves="$B/bin/gpu_imbalance $B/lib/libscalana-cupti.so /usr/bin/orterun /usr/bin/orted
 $(ls /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so)"
for f in "$B"/lib/libscalana-openmpi.so "$B"/bin/scalana-run; do
    [ -e "$f" ] && file -L "$f" | grep -q ELF && elves="$elves $f"
done
pkg_of() { # library path -> Debian package (merged /usr: try both spellings)
    for p in "$1" "$(readlink -f "$1")" "$(echo "$1" | sed 's#^/usr/lib/#/lib/#')" \
             "$(readlink -f "$1" | sed 's#^/usr/lib/#/lib/#')"; do
        r=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$r" ] && { echo "$r"; return; }
    done
}
pkgs="openmpi-bin openmpi-common libopenmpi3 libpmix2"
for lib in $(for e in $elves; do LD_LIBRARY_PATH="$B/lib" ldd "$e" 2>/dev/null; done |
             awk '/=> \// {print $3}' | sort -u); do
    case $lib in "$B"/*) continue;; esac
    p=$(pkg_of "$lib"); [ -n "$p" ] && pkgs="$pkgs $p"
done
pkgs=$(echo $pkgs | tr ' ' '\n' | sort -u | grep -v -x -e libc6 -e libgcc-s1 -e libstdc++6)
for p in $pkgs; do
    v=$(dpkg-query -W -f '${Version}' "$p" | sed 's/^[0-9]*://')
    deb=$(ls "$ARCHIVES/${p}_"*"$v"*"_"*.deb 2>/dev/null | head -1 || true)
    if [ -n "$deb" ]; then
        dpkg -x "$deb" "$B/root"; note "deb: $p $v (dpkg -x $(basename "$deb"))"
    else # the archive is gone: the installed files are the same ones
        dpkg -L "$p" | while read -r f; do
            [ -f "$f" ] || continue
            mkdir -p "$B/root$(dirname "$f")"; cp -pP "$f" "$B/root$f"
        done
        note "deb: $p $v (copied from dpkg -L, no archive)"
    fi
done
# Debian names the launcher through alternatives (not in the packages): name it here.
for n in mpirun mpiexec; do ln -sf ../root/usr/bin/orterun "$B/bin/$n"; done
rm -rf "$B/root/usr/share/doc" "$B/root/usr/share/man" "$B/root/usr/share/lintian" \
       "$B/root/usr/share/info" "$B/root/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_"*java* 2>/dev/null || true
# The newest glibc symbol version anything carried needs (libevent 2.1.12: 2.36).
glibc=$(find "$B/bin" "$B/lib" "$B/root" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
        xargs -0 objdump -T 2>/dev/null | grep -oE 'GLIBC_2\.[0-9]+' | sort -t. -k2 -n -u | tail -1)
note "needs: glibc >= ${glibc#GLIBC_} (the machine's own libc6, libgcc-s1, libstdc++6)"
echo "${glibc#GLIBC_}" >"$B/GLIBC_NEEDED"

# 4. The environment that makes the unpacked Open MPI run from here.
cat >"$B/env.sh" <<'ENV'
# env.sh — source with B set to this bundle's directory.
R=$B/root
export PATH="$B/bin:$R/usr/bin:$PATH"
export LD_LIBRARY_PATH="$B/lib:$R/usr/lib/x86_64-linux-gnu/openmpi/lib:$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$R/usr" OPAL_EXEC_PREFIX="$R/usr" OPAL_BINDIR="$R/usr/bin"
export OPAL_LIBDIR="$R/usr/lib/x86_64-linux-gnu/openmpi/lib"
export OPAL_PKGLIBDIR="$R/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
export OPAL_DATAROOTDIR="$R/usr/share" OPAL_DATADIR="$R/usr/share" OPAL_PKGDATADIR="$R/usr/share/openmpi"
export OPAL_SYSCONFDIR="$R/etc/openmpi"
export OMPI_MCA_mca_base_component_path="$R/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
P=$R/usr/lib/x86_64-linux-gnu/pmix2 # PMIx's own install-dir variables
export PMIX_PREFIX="$P" PMIX_EXEC_PREFIX="$P" PMIX_LIBDIR="$P/lib" PMIX_PKGLIBDIR="$P/lib/pmix"
export PMIX_DATAROOTDIR="$P/share" PMIX_DATADIR="$P/share" PMIX_PKGDATADIR="$P/share/pmix"
export PMIX_MCA_mca_base_component_path="$P/lib/pmix"
export HWLOC_PLUGINS_PATH="$R/usr/lib/x86_64-linux-gnu/hwloc" # none carried: no GPU probing in mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# one node, shared memory only: no UCX/OFI/verbs probing, no ptrace-based single copy
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_osc=sm,pt2pt OMPI_MCA_coll_hcoll_enable=0
ENV

size_kib=$(du -sk "$B" | cut -f1)
note "size: $((size_kib / 1024)) MiB (limit $LIMIT_MIB MiB)"
cat "$B/MANIFEST"
if [ "$size_kib" -gt $((LIMIT_MIB * 1024)) ]; then
    echo "prepare-device-bundle: $B is $((size_kib / 1024)) MiB, over $LIMIT_MIB MiB" >&2
    exit 1
fi
echo "bundle ready: $B (carry it: run(carry=[\"$(basename "$B")\"]))"
