#!/usr/bin/env bash
# The patched-kernel tier for one architecture: build (or take from the
# cache) the kernel with patches/SERIES and the debug options, build kpmc.ko,
# the placement policy kpmc_amp.ko and the test module kpmc_query.ko against
# it, and boot it with the guest's staged root (tests select themselves by
# kpmc.tier=patched and the CPU count).
#   scripts/run-patched-tier.sh ARCH BUILD [CPUS] [SERIES] [rt]
# SERIES: 6.1 (default) or 6.12; rt: a PREEMPT_RT kernel (6.12). Results in
# BUILD/ARCH-patched/run (6.1) or BUILD/ARCH-patched-SERIES[-rt]/run, run-smp
# with more than one CPU.
set -euo pipefail
arch=${1:?usage: run-patched-tier.sh ARCH BUILD [CPUS] [SERIES] [rt]}
build=${2:?}
cpus=${3:-1}
series=${4:-6.1}
rt=${5:-}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$build/$arch-patched
[ "$series" = 6.1 ] && [ -z "$rt" ] || out=$out-$series${rt:+-$rt}

# One kernel build at a time (make test runs two patched stages at once):
# each build uses every core, and two would fetch and unpack the same
# series' source into the same place. A cached kernel takes the lock briefly.
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
mkdir -p "$cache"
read -r img kdir < <(flock "$cache/patched-build.lock" \
	"$top/scripts/build-patched-kernel.sh" "$arch" "$series" "$rt")
"$top/scripts/build-module.sh" "$arch" "$out" "$kdir"
kmake=(KDIR="$kdir" OUT="$out")
[ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ] && kmake+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
make -s -C "$top/tests/kmod" "${kmake[@]}"
root=$out/root
rm -rf "$root"
cp -a "$build/$arch/root" "$root"
cp "$out/kpmc.ko" "$out/kpmc_fmt_example.ko" "$out/kpmc_query.ko" "$out/kpmc_amp.ko" "$root/"
run=$out/run
[ "$cpus" -gt 1 ] && run=$out/run-smp
# KPMC_FUZZ=OPS,SEED (make fuzz): the stateful fuzzer alone, in run-fuzz.
# KPMC_GUEST_APPEND (development: kpmc.only=WORD[+WORD...]) goes on the command line too.
append="kpmc.tier=patched${KPMC_GUEST_APPEND:+ $KPMC_GUEST_APPEND}"
if [ -n "${KPMC_FUZZ:-}" ]; then
	run=$out/run-fuzz
	append="$append kpmc.fuzz=$KPMC_FUZZ"
fi
# KPMC_STRESS=1: the stress-ng tier (tests/guest/t_stress_*.sh) alone, in run-stress.
if [ -n "${KPMC_STRESS:-}" ]; then
	"$top/scripts/add-stress-ng.sh" "$arch" "$root"
	run=$out/run-stress
	append="kpmc.tier=stress${KPMC_GUEST_APPEND:+ $KPMC_GUEST_APPEND}"
fi
# The 6.12 debug kernels (RT above all) run the suite slower than 6.1's.
[ "$series" = 6.1 ] || export KPMC_GUEST_TIMEOUT=${KPMC_GUEST_TIMEOUT:-2400}
KPMC_KERNEL=$img KPMC_GUEST_APPEND=$append KPMC_GUEST_SMP=$cpus \
	exec "$top/scripts/run-guest-tests.sh" "$arch" "$root" "$run"
