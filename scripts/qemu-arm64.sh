#!/usr/bin/env bash
# Which emulator an arm64 guest of SMP CPUs runs on, and its icount sleep mode.
#   scripts/qemu-arm64.sh SMP [debug]   prints "BINARY DATADIR SLEEP" (DATADIR: its -L)
# One CPU of a Debian kernel: Debian's qemu-system-arm of bookworm-backports (10.x; version
# resolved at run time), extracted into a cache outside the repo, not
# installed, with sleep=off (while the CPU is idle the guest's clock jumps to
# its next timer instead of waiting for it in real time: a test's sleeps cost
# no wall time, guest time is instructions only). It emulates the same PMUv3
# with the same exact counts as Debian 12's 7.2 (the whole 6.1 suite passes on
# both) and runs the suites about a fifth faster.
# The patched debug kernels (debug): Debian 12's 7.2 with sleep=on. 10.0 ran
# the PREEMPT_RT debug kernel's suite slower, not faster (past its 2,400 s
# limit here, where 7.2 had taken 2,268 s with more to run and more beside it).
# More CPUs: Debian 12's 7.2 with sleep=on, as before. With -icount the
# vCPUs share one instruction count, and the SMP tests hold kpmc to perf's
# count of the same run within bounds measured on 7.2; 10.x splits that
# count differently between the CPUs (perf itself counts 0.6% to 30% more
# than the truth there, with either sleep mode), outside those bounds.
# Where the newer one cannot be had or its libraries are missing, Debian
# 12's is used, and this says so on stderr.
# Cache: $KPMC_CACHE (default ~/.cache/kpmc)/qemu/VERSION/
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}/qemu
suite=bookworm-backports
log() { echo "qemu-arm64: $*" >&2; }
smp=${1:?usage: qemu-arm64.sh SMP [debug]}
kind=${2:-}
system() { # Debian 12's own
	echo "$(command -v qemu-system-aarch64) /usr/share/qemu on"
	exit 0
}
[ "$smp" -eq 1 ] && [ "$kind" != debug ] || system
mkdir -p "$cache"

# The resolved version is remembered for a day: a warm run asks apt nothing.
memo=$cache/resolved
if [ -z "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
	o=$("$top/scripts/apt-extra.sh") || { log "no apt state for $suite: Debian 12's QEMU"; system; }
	# shellcheck disable=SC2086
	v=$(apt-cache $o show "qemu-system-arm:amd64/$suite" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -V | tail -n1)
	[ -n "$v" ] || { log "qemu-system-arm not found in $suite: Debian 12's QEMU"; system; }
	echo "$v" >"$memo"
fi
read -r version <"$memo"
root=$cache/$(echo "$version" | tr '~+:' '___')
exec 9>"$root.lock"
flock 9
if [ ! -f "$root/.kpmc-done" ]; then
	log "fetching qemu-system-arm $version ($suite)"
	rm -rf "$root"
	mkdir -p "$root/debs"
	o=$("$top/scripts/apt-extra.sh")
	# shellcheck disable=SC2086
	(cd "$root/debs" && apt-get $o download -q "qemu-system-arm:amd64=$version" \
		"qemu-system-data=$version" >&2) || { log "download failed: Debian 12's QEMU"; system; }
	for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
	rm -rf "$root/debs"
	touch "$root/.kpmc-done"
fi
bin=$root/usr/bin/qemu-system-aarch64
if ldd "$bin" 2>/dev/null | grep -q 'not found'; then
	log "$version lacks libraries here ($(ldd "$bin" | grep 'not found' | awk '{ printf "%s ", $1 }')): Debian 12's QEMU"
	system
fi
echo "$bin $root/usr/share/qemu off"
