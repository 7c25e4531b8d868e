#!/usr/bin/env bash
# Boot a kpmc guest under QEMU/TCG and capture its serial console.
#   scripts/boot-guest.sh ARCH INITRD LOGFILE [MODE] [TIMEOUT_S]
# Exit 0 when the guest printed its done marker, 124 on timeout, 1 otherwise.
set -uo pipefail
arch=${1:?usage: boot-guest.sh ARCH INITRD LOG [MODE] [TIMEOUT]}
initrd=${2:?}
log=${3:?}
mode=${4:-test}
limit=${5:-${KPMC_GUEST_TIMEOUT:-900}}
# Extra kernel command-line words for the guest's scripts (e.g. kpmc.bench=smoke).
extra=${KPMC_GUEST_APPEND:-}
# CPUs of the guest (the system-wide tests boot with 2).
smp=${KPMC_GUEST_SMP:-1}
# Guest memory in MiB (the benchmarks' 10,000 threads want more).
mem=${KPMC_GUEST_MEM:-512}
top=$(cd "$(dirname "$0")/.." && pwd)

case $arch in
arm64)
	# KPMC_KERNEL: another kernel image (the patched tier's).
	if [ -n "${KPMC_KERNEL:-}" ]; then
		kernel=$KPMC_KERNEL
	else
		read -r kernel _ < <("$top/scripts/fetch-kernel.sh" 6.1 arm64)
	fi
	# -icount shift=0: the emulated PMU counts exactly (1 instruction = 1 ns = 1 cycle).
	cmd=(qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -icount shift=0 -m "$mem" -smp "$smp"
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyAMA0 quiet panic=-1 kpmc.mode=$mode${KPMC_GUEST_IDLE:+ kpmc.idle=$KPMC_GUEST_IDLE} $extra")
	# KPMC_GUEST_IDLE=powerdown: the board's device tree plus a PSCI power-down
	# idle state (scripts/idle-dtb.sh), so CPUs go through cpu_pm enter/exit.
	if [ "${KPMC_GUEST_IDLE:-}" = powerdown ]; then
		dtb=$("$top/scripts/idle-dtb.sh" arm64 "$smp" "$mem") || exit 1
		cmd+=(-dtb "$dtb")
	fi
	;;
x86_64)
	# KPMC_KERNEL: another kernel image (the patched tier's).
	if [ -n "${KPMC_KERNEL:-}" ]; then
		kernel=$KPMC_KERNEL
	else
		read -r kernel _ < <("$top/scripts/fetch-kernel.sh" 6.1 amd64)
	fi
	# An Intel CPU model: CPUID says GenuineIntel, and leaf 0AH (no vPMU under TCG) says version 0.
	cmd=(qemu-system-x86_64 -accel tcg -cpu Skylake-Client -m "$mem" -smp "$smp"
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 quiet panic=-1 oops=panic mitigations=off kpmc.mode=$mode $extra"
		-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	# QMP on a pair of FIFOs, for the suspend test's fallback wake (below):
	# S3 is woken by the CMOS RTC alarm, which never comes if it fired
	# before the guest was asleep.
	mon=$(mktemp -d "${TMPDIR:-/tmp}/kpmc-qmp.XXXXXX") || exit 1
	mkfifo "$mon/m.in" "$mon/m.out" || exit 1
	cmd+=(-qmp "pipe:$mon/m")
	;;
*) echo "boot-guest: unknown arch $arch" >&2; exit 2 ;;
esac
cmd+=(-nographic -no-reboot)

mkdir -p "$(dirname "$log")"
# x86_64: a guest left suspended (S3) for KPMC_GUEST_WAKE_S seconds (30)
# since its last SUSPEND event is woken by QMP's system_wakeup, and says so
# on stderr.
watcher=
if [ -n "${mon:-}" ]; then
	(
		exec 3<>"$mon/m.in" 4<>"$mon/m.out"
		cat <&4 >>"$mon/out" &
		echo $! >"$mon/cat.pid"
		echo '{"execute": "qmp_capabilities"}' >&3
		seen=0 asleep=0
		# Until this script ends (also when killed).
		while kill -0 $$ 2>/dev/null && sleep 1; do
			ns=$(grep -c '"event": "SUSPEND"' "$mon/out")
			nw=$(grep -c '"event": "WAKEUP"' "$mon/out")
			[ "$ns" -ne "$seen" ] && seen=$ns asleep=0
			[ "$ns" -gt "$nw" ] || continue
			asleep=$((asleep + 1))
			if [ $asleep -ge "${KPMC_GUEST_WAKE_S:-30}" ]; then
				echo "boot-guest: guest suspended for ${asleep}s, woken by system_wakeup" >&2
				echo '{"execute": "system_wakeup"}' >&3
				asleep=0
			fi
		done
		kill -- "$(cat "$mon/cat.pid")" 2>/dev/null
		rm -rf "$mon"
	) &
	watcher=$!
fi
if [ "$mode" = demo ] || [ "${KPMC_VERBOSE:-0}" = 1 ]; then
	timeout "$limit" "${cmd[@]}" </dev/null 2>&1 | tee "$log" | tr -d '\r' | grep -av 'KPMC-GUEST-DONE'
	rc=${PIPESTATUS[0]}
else
	timeout "$limit" "${cmd[@]}" </dev/null >"$log" 2>&1
	rc=$?
fi
if [ -n "$watcher" ]; then
	kill -- "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	[ -s "$mon/cat.pid" ] && kill -- "$(cat "$mon/cat.pid")" 2>/dev/null
	rm -rf "$mon"
fi
if [ $rc -eq 124 ]; then
	echo "boot-guest: $arch guest timed out after ${limit}s" >&2
	exit 124
fi
if ! grep -aq 'KPMC-GUEST-DONE' "$log"; then
	echo "boot-guest: $arch guest ended (qemu rc=$rc) without its done marker" >&2
	exit 1
fi
exit 0
