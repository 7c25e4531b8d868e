#!/bin/sh
# Guest test entry point: run every test for this architecture.
#   run-all.sh aarch64|x86_64
arch=${1:-$(uname -m)}
dir=$(dirname "$0")
. "$dir/lib.sh"

ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "kpmc guest tests on $arch ($ncpu CPUs), kernel $(uname -r)"
case $arch in aarch64) name=arm64 ;; *) name=x86 ;; esac
# A patched (debug) kernel runs the whole suite of its architecture plus
# its own tests (t_patched_<arch>_*); a multi-CPU boot only the tests that
# need several CPUs (t_smp_*, or t_patched_smp_* on a patched kernel; with
# more than 2, t_smpn_*: any number of CPUs).
# kpmc.tier=smoke: a few minutes' check of a module built elsewhere (the
# DKMS-built one of scripts/test-packages.sh): load/unload, the basics.
# kpmc.fuzz=OPS[,SEED] (make fuzz): the stateful fuzzer only.
# kpmc.tier=stress: the stress-ng tests only (t_stress_*; a root with
# stress-ng in it: scripts/run-stress-tier.sh, KPMC_STRESS=1 on a patched tier).
# run_test FILE: source one test file; its guest time goes to the log
# (KPMC-TIME NAME SECONDS) for scripts/run-guest-tests.sh's slowest-tests line.
# kpmc.only=WORD[+WORD...] (development, through KPMC_GUEST_APPEND): only
# the test files whose name contains one of the WORDs.
only=$(sed -n 's/.*kpmc\.only=\([A-Za-z0-9_+]*\).*/\1/p' /proc/cmdline | tr + ' ')
run_test() {
	rt_name=$(basename "$1" .sh)
	if [ -n "$only" ]; then
		rt_want=""
		for rt_w in $only; do
			case $rt_name in *"$rt_w"*) rt_want=1 ;; esac
		done
		[ -n "$rt_want" ] || return 0
	fi
	rt_t0=$(cut -d' ' -f1 /proc/uptime)
	. "$1"
	echo "KPMC-TIME $rt_name $(awk -v t0="$rt_t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime)"
}
fuzz=$(sed -n 's/.*kpmc\.fuzz=\([0-9,]*\).*/\1/p' /proc/cmdline)
if [ -n "$fuzz" ]; then
	. "$dir/fuzz.sh"
	seed=${fuzz#*,}
	[ "$seed" = "$fuzz" ] && seed=1
	fuzz_run "${fuzz%%,*}" "$seed"
elif grep -q 'kpmc.tier=stress' /proc/cmdline; then
	for t in "$dir"/t_stress_*.sh; do run_test "$t"; done
elif grep -q 'kpmc.tier=smoke' /proc/cmdline; then
	for t in "$dir"/t_common_robustness.sh "$dir"/t_x86_nopmu.sh "$dir"/t_arm64_counting.sh; do
		case $t in *_x86_*) [ $name = x86 ] ;; *_arm64_*) [ $name = arm64 ] ;; esac && run_test "$t"
	done
elif grep -q 'kpmc.tier=patched' /proc/cmdline; then
	if [ "$ncpu" -gt 1 ]; then
		for t in "$dir"/t_patched_smp_*.sh; do run_test "$t"; done
	else
		for t in "$dir"/t_common_*.sh "$dir"/t_${name}_*.sh "$dir"/t_patched_${name}_*.sh; do [ -f "$t" ] && run_test "$t"; done
	fi
elif [ "$ncpu" -gt 2 ]; then
	for t in "$dir"/t_smpn_*.sh; do run_test "$t"; done
elif [ "$ncpu" -gt 1 ]; then
	for t in "$dir"/t_smp_*.sh; do run_test "$t"; done
else
	for t in "$dir"/t_common_*.sh "$dir"/t_${name}_*.sh; do run_test "$t"; done
fi
lsmod | grep -q '^kpmc ' && rmmod kpmc
# Leak reports are printed at unload; the host's log check sees them.
dmesg | grep 'kpmc' | tail -n 40
exit 0
