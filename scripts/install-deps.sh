#!/bin/sh
# install-deps.sh — install the Debian 12 packages ScalAna builds and tests with.
# Idempotent: installs only what is missing, and prints nothing when all is there.
# Usage: scripts/install-deps.sh   (as root; uses apt-get)
set -eu

PACKAGES="
build-essential cmake pkg-config time man-db
llvm-19-dev llvm-19-tools libclang-19-dev libclang-rt-19-dev clang-19 flang-19 libomp-19-dev
libopenmpi-dev openmpi-bin libmpich-dev mpich gfortran
libpapi-dev libunwind-dev libdw-dev libelf-dev libcapstone-dev
libgraphviz-dev graphviz
libjansson-dev libcmocka-dev
chromium chromium-driver python3-selenium python3-jsonschema python3 zlib1g-dev
slurm-wlm munge
"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "install-deps.sh: missing Debian packages:$missing" >&2
    echo "install-deps.sh: run as root (or: sudo apt-get install$missing)" >&2
    exit 1
fi
echo "install-deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
