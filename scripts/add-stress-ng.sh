#!/usr/bin/env bash
# Put Debian's stress-ng (scripts/fetch-stress-ng.sh) and the libraries it
# needs into a guest root: ROOT/usr/bin/stress-ng, ROOT/lib.
#   scripts/add-stress-ng.sh ARCH ROOT
set -euo pipefail
arch=${1:?usage: add-stress-ng.sh ARCH ROOT}
root=${2:?usage: add-stress-ng.sh ARCH ROOT}
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/fetch-stress-ng.sh" "$arch")
mkdir -p "$root/usr/bin"
cp "$dir/usr/bin/stress-ng" "$root/usr/bin/stress-ng"
KPMC_GUEST_LIB_DIRS=$(cat "$dir/.kpmc-libdirs") "$top/scripts/guest-libs.sh" "$arch" "$root" "$root/usr/bin/stress-ng"
