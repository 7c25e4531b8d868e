#!/usr/bin/env bash
# The patched-kernel tier for one architecture: build (or take from the
# cache) the kernel with patches/ and the debug options, build kpmc.ko, the
# placement policy kpmc_amp.ko and the test module kpmc_query.ko against it,
# and boot it with the guest's staged root (tests select themselves by
# kpmc.tier=patched and the CPU count).
#   scripts/run-patched-tier.sh ARCH BUILD [CPUS]
set -euo pipefail
arch=${1:?usage: run-patched-tier.sh ARCH BUILD [CPUS]}
build=${2:?}
cpus=${3:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$build/$arch-patched

read -r img kdir < <("$top/scripts/build-patched-kernel.sh" "$arch")
"$top/scripts/build-module.sh" "$arch" "$out" "$kdir"
kmake=(KDIR="$kdir" OUT="$out")
[ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ] && kmake+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
make -s -C "$top/tests/kmod" "${kmake[@]}"
root=$out/root
rm -rf "$root"
cp -a "$build/$arch/root" "$root"
cp "$out/kpmc.ko" "$out/kpmc_query.ko" "$out/kpmc_amp.ko" "$root/"
run=$out/run
[ "$cpus" -gt 1 ] && run=$out/run-smp
KPMC_KERNEL=$img KPMC_GUEST_APPEND=kpmc.tier=patched KPMC_GUEST_SMP=$cpus \
	exec "$top/scripts/run-guest-tests.sh" "$arch" "$root" "$run"
