#!/usr/bin/env bash
# The guest suite of one architecture on one Debian kernel tier: fetch the
# kernel (scripts/fetch-kernel.sh), build kpmc.ko against its headers with
# its own compiler (on the host or in the suite's chroot), put that module in
# a copy of the staged guest root and boot it.
#   scripts/run-kernel-tier.sh TIER ARCH BUILD
# TIER: 5.10 | 6.1 | 6.12 | 6.12-rt | 7; ARCH: arm64 | x86_64.
# Writes BUILD/tiers/ARCH-TIER/run/result; the closing line names the kernel,
# e.g. "arm64 6.12-rt (6.12.95+deb12-rt-arm64): 58 passed, 0 failed".
set -uo pipefail
tier=${1:?usage: run-kernel-tier.sh TIER ARCH BUILD}
arch=${2:?}
build=${3:?}
top=$(cd "$(dirname "$0")/.." && pwd)
# KPMC_GUEST_SMP=2: the multi-CPU run of the tier (t_smp_*), its own directory.
smp=${KPMC_GUEST_SMP:-1}
out=$build/tiers/$arch-$tier
[ "$smp" -gt 1 ] && out=$out-smp
run=$out/run
mkdir -p "$run"
rm -f "$run/result"
fail() {
	echo "$arch $tier: FAIL $*"
	echo "0 1" >"$run/result"
	echo "$arch $tier: 0 passed, 1 failed"
	exit 1
}
read -r img kdir builder kver < <("$top/scripts/fetch-kernel.sh" "$tier" "$arch") ||
	fail "cannot fetch the $tier kernel"
"$top/scripts/build-module.sh" "$arch" "$out" "$kdir" "$builder" >"$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log"
	fail "kpmc.ko does not build against $kver"
}
root=$out/root
rm -rf "$root"
cp -a "$build/$arch/root" "$root"
cp "$out/kpmc.ko" "$out/kpmc_fmt_example.ko" "$root/"
if [ -f "$out/kpmc_cgq.ko" ]; then cp "$out/kpmc_cgq.ko" "$root/"; fi
label="$arch $tier ($kver)"
[ "$smp" -gt 1 ] && label="$arch $tier $smp CPUs ($kver)"
KPMC_KERNEL=$img KPMC_TIER_LABEL="$label" \
	exec "$top/scripts/run-guest-tests.sh" "$arch" "$root" "$run"
