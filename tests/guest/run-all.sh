#!/bin/sh
# Guest test entry point: run every test for this architecture.
#   run-all.sh aarch64|x86_64
arch=${1:-$(uname -m)}
dir=$(dirname "$0")
. "$dir/lib.sh"

ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "kpmc guest tests on $arch ($ncpu CPUs), kernel $(uname -r)"
# The patched (debug) kernel runs the whole x86 suite and its own tests;
# a multi-CPU boot only the tests that need several CPUs.
if grep -q 'kpmc.tier=patched' /proc/cmdline; then
	for t in "$dir"/t_common_*.sh "$dir"/t_x86_*.sh "$dir"/t_patched_*.sh; do . "$t"; done
elif [ "$ncpu" -gt 1 ]; then
	for t in "$dir"/t_smp_*.sh; do . "$t"; done
else
	for t in "$dir"/t_common_*.sh; do . "$t"; done
	case $arch in
	aarch64)
		for t in "$dir"/t_arm64_*.sh; do . "$t"; done ;;
	x86_64)
		for t in "$dir"/t_x86_*.sh; do . "$t"; done ;;
	esac
fi
lsmod | grep -q '^kpmc ' && rmmod kpmc
# Leak reports are printed at unload; the host's log check sees them.
dmesg | grep 'kpmc' | tail -n 40
exit 0
