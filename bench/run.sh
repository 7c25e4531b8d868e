#!/usr/bin/env bash
# kpmc benchmarks: boot the arm64 guest once, run every benchmark under no
# monitoring, perf and kpmc, print the tables and keep the raw figures.
#   bench/run.sh [full|smoke]
# The raw KPMC-BENCH lines go to build/bench/results/<UTC time>-<scale>.txt
# (machine-readable: one "key=value" figure set per line), the tables to
# stdout and next to it as .table. Exit status: 0 if the guest ran and the
# context-switch table could be computed and no run failed; never depends on
# a figure's value.
set -euo pipefail
scale=${1:-full}
case $scale in full|smoke) ;; *) echo "usage: bench/run.sh [full|smoke]" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
work=$build/bench
cross=aarch64-linux-gnu-
cflags="-std=gnu11 -Wall -Wextra -Werror -O2"

mkdir -p "$work/bin" "$work/results"
for p in pingpong spawn spin phases spinners; do
	${cross}gcc -static $cflags -o "$work/bin/$p" "$top/bench/progs/$p.c" -lpthread
done
# perf's cgroup events (section cgswitch): the tests' perf reference program.
${cross}gcc -static $cflags -o "$work/bin/perfcount" "$top/tests/progs/perfcount.c"
# selfread measures libkpmc's paths too.
lib=$top/userland
${cross}gcc -static $cflags -I"$top/include" -I"$lib/libkpmc/include" -I"$lib" -o "$work/bin/selfread" \
	"$top/bench/progs/selfread.c" "$lib/libkpmc/session.c" "$lib/libkpmc/readpath.c" "$lib/libkpmc/regions.c" \
	"$lib/libkpmc/records.c" "$lib/libkpmc/attrib.c" "$lib/libkpmc/memsample.c" "$lib/libkpmc/foldtrace_write.c" \
	"$lib/common/eventspec.c" "$lib/common/pfm_events.c" "$lib/common/memaccess.c" "$lib/common/kpmc_proc.c" \
	"$lib/common/mux_estimate.c" "$lib/common/cgroup_count.c" -lpfm -lpthread -lm
gcc $cflags -I"$top/include" -I"$top/userland" -o "$work/fmtbench" \
	"$top/bench/progs/fmtbench.c" "$top/userland/common/record_format.c" "$top/userland/common/aggregate.c" "$top/userland/common/mux_estimate.c" "$top/userland/common/memaccess.c" -lm

# The arm64 test root (module, CLI, static programs) plus the bench programs.
root=$work/root
rm -rf "$root"
cp -a "$build/arm64/root" "$root"
cp "$work/bin/"* "$root/tests/bin/"
cp "$top/bench/guest/bench.sh" "$root/tests/guest/bench.sh"
"$top/scripts/mkinitramfs.sh" arm64 "$root" "$work/bench.cpio.gz"

# KPMC_BENCH_ONLY, KPMC_BENCH_REPS, KPMC_BENCH_PERIODS: a subset, for
# iterating on one figure (bench/guest/bench.sh says what each selects).
# 2 GiB: the "alive" rows' 10,000 threads, their stacks and kpmc's states.
# boot LOG CPUS SECTIONS: one guest boot running those sections.
boot() {
	local start=$(date +%s)
	KPMC_GUEST_SMP=$2 KPMC_GUEST_MEM=2048 KPMC_GUEST_APPEND="kpmc.bench=$scale kpmc.benchonly=$3${KPMC_BENCH_REPS:+ kpmc.benchreps=$KPMC_BENCH_REPS}${KPMC_BENCH_PERIODS:+ kpmc.benchperiods=$KPMC_BENCH_PERIODS}" \
		"$top/scripts/boot-guest.sh" arm64 "$work/bench.cpio.gz" "$1" bench 3600
	echo "bench: guest of $2 CPU(s) ran $(($(date +%s) - start)) s" >&2
}
only=${KPMC_BENCH_ONLY:-pingpong,cgswitch,alive,spawn,spin,selfread,mux,muxsweep,muxrot,muxcal,cpus}
one=$(echo ",$only," | sed 's/,cpus,/,/; s/^,//; s/,$//')
# The smoke run checks the plumbing only: its one CPU runs the cpus rows of one thread.
[ "$scale" = smoke ] && one=$only
logs=()
if [ -n "$one" ]; then
	boot "$work/guest-$scale.log" 1 "$one"
	logs+=("$work/guest-$scale.log")
fi
# Several CPUs feeding one session: a boot of 8 (the emulator runs them in
# turn on one host thread under -icount, whatever the host's cores).
if [ "$one" != "$only" ]; then
	boot "$work/guest-$scale-smp8.log" 8 cpus
	logs+=("$work/guest-$scale-smp8.log")
fi

stamp=$(date -u +%Y%m%dT%H%M%SZ)
res=$work/results/$stamp-$scale.txt
{
	echo "# kpmc bench $scale, $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown), $stamp"
	cat "${logs[@]}" | tr -d '\r' | grep -a '^KPMC-BENCH'
	"$work/fmtbench" $([ "$scale" = smoke ] && echo 20000 || echo 1000000)
} >"$res"
[ "$(grep -c '^KPMC-BENCH-END' "$res")" -eq "${#logs[@]}" ] ||
	{ echo "bench: a guest did not finish the benchmarks (see ${logs[*]})" >&2; exit 1; }
mkdir -p "${res%.txt}-plots"
awk -v plots="${res%.txt}-plots" -f "$top/bench/report.awk" "$res" | tee "${res%.txt}.table"
# The curves behind the tables, drawn (never a reason to fail the run).
"$top/bench/plot.sh" "${res%.txt}-plots" >&2 || true
echo "bench: raw figures in $res" >&2
if grep -q '^KPMC-BENCH-ERROR' "$res"; then
	echo "bench: some runs failed (KPMC-BENCH-ERROR lines in $res)" >&2
	exit 1
fi
