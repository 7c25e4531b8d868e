#!/usr/bin/env bash
# The stress-ng tier on the staged guest's own kernel (Debian's 6.1): a copy
# of the guest root with stress-ng in it, booted with kpmc.tier=stress
# (tests/guest/t_stress_*.sh). Results in BUILD/ARCH-stress/run. The debug
# kernel's run: KPMC_STRESS=1 scripts/run-patched-tier.sh.
#   scripts/run-stress-tier.sh ARCH BUILD
set -euo pipefail
arch=${1:?usage: run-stress-tier.sh ARCH BUILD}
build=${2:?usage: run-stress-tier.sh ARCH BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$build/$arch-stress
root=$out/root
rm -rf "$root"
mkdir -p "$out"
cp -a "$build/$arch/root" "$root"
"$top/scripts/add-stress-ng.sh" "$arch" "$root"
KPMC_GUEST_APPEND="kpmc.tier=stress${KPMC_GUEST_APPEND:+ $KPMC_GUEST_APPEND}" \
	exec "$top/scripts/run-guest-tests.sh" "$arch" "$root" "$out/run"
