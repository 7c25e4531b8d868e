#!/usr/bin/env bash
# The arm64 guest's device tree with a CPU idle power-down state, so that the
# guest's cpuidle-psci driver goes through cpu_pm_enter()/cpu_pm_exit() (and
# arm_pmu resets the PMU at each CPU_PM_EXIT) as on a real SoC.
#   scripts/idle-dtb.sh ARCH SMP [MEM_MB]     prints the path of the .dtb
# QEMU's virt board declares no idle states. This dumps the board's own tree
# (dumpdtb) for the machine options scripts/boot-guest.sh uses (keep QEMU_OPTS
# in sync with it: -smp and -m are in the tree), adds /cpus/idle-states with
# one PSCI power-down state and cpu-idle-states on every CPU, and compiles it
# with dtc. Cached under ~/.cache/kpmc/dtb/ by a hash of its inputs.
#
# QEMU 7.2's PSCI (the guest says "PSCIv1.1 detected") takes the original
# power_state format (PSCI_FEATURES does not announce the extended one, so
# Linux would refuse bit 30, the extended format's power-down bit); StateType
# (bit 16) = 1 is power-down. QEMU then waits for an interrupt (WFI) and
# returns success, so nothing is really lost, but Linux has already run the
# CPU PM notifiers (arm_pmu's PMU reset at CPU_PM_EXIT included) around the
# call, and counts the entry as rejected (a power-down that returns).
# The state has local-timer-stop, as real power-down states do
# (KPMC_IDLE_TIMER_STOP=0 leaves it out): harmless here, the board's arch
# timer node says always-on, so no tick broadcast is involved; the state is
# entered as often either way, with -smp 1 as with -smp 2 (checked on 6.1).
set -euo pipefail
arch=${1:?usage: idle-dtb.sh ARCH SMP [MEM_MB]}
smp=${2:?usage: idle-dtb.sh ARCH SMP [MEM_MB]}
mem=${3:-512}
timer_stop=${KPMC_IDLE_TIMER_STOP:-1}
[ "$arch" = arm64 ] || { echo "idle-dtb: only arm64 guests have a device tree (not $arch)" >&2; exit 2; }
command -v dtc >/dev/null || { echo "idle-dtb: dtc missing (apt-get install device-tree-compiler)" >&2; exit 1; }

QEMU_OPTS=(-M virt -cpu cortex-a57 -accel tcg -icount shift=0)
# power_state for CPU_SUSPEND: original format, StateType = power-down.
PARAM=0x00010000

cache=${KPMC_CACHE:-$HOME/.cache/kpmc}/dtb
key=$({
	qemu-system-aarch64 --version | head -n 1
	echo "${QEMU_OPTS[*]} -m $mem -smp $smp param=$PARAM timer_stop=$timer_stop"
	dtc --version
	cat "$0"
} | sha256sum | cut -c1-16)
out=$cache/virt-idle-smp$smp-$key.dtb
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The board's tree does not depend on the kernel; QEMU still wants one to
# dump (it rewrites /chosen, i.e. bootargs and the initrd, when it boots -dtb).
img=$tmp/empty.img
printf '\0%.0s' $(seq 64) >"$img"
qemu-system-aarch64 "${QEMU_OPTS[@]}" -M virt,dumpdtb="$tmp/virt.dtb" -m "$mem" -smp "$smp" \
	-kernel "$img" -nographic </dev/null >"$tmp/qemu.log" 2>&1 || {
	cat "$tmp/qemu.log" >&2
	exit 1
}
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
# A phandle above all of QEMU's.
max=0
for v in $(sed -n 's/.*phandle = <\(0x[0-9a-f]*\)>;.*/\1/p' "$tmp/virt.dts"); do
	[ $((v)) -gt $max ] && max=$((v))
done
ph=$(printf '0x%x' $((max + 0x100)))
# With one CPU QEMU leaves out enable-method, and cpuidle-psci only takes a
# CPU whose enable-method is "psci".
addem=0
grep -q 'enable-method = "psci"' "$tmp/virt.dts" || addem=1
awk -v ph="$ph" -v param="$PARAM" -v ts="$timer_stop" -v addem=$addem '
	/^\tcpus \{/ { incpus = 1; print; next }
	incpus && /^\t\};/ {
		print ""
		print "\t\tidle-states {"
		print "\t\t\tentry-method = \"psci\";"
		print "\t\t\tcpu_pd: cpu-power-down {"
		print "\t\t\t\tcompatible = \"arm,idle-state\";"
		print "\t\t\t\tarm,psci-suspend-param = <" param ">;"
		if (ts == 1) print "\t\t\t\tlocal-timer-stop;"
		print "\t\t\t\tentry-latency-us = <20>;"
		print "\t\t\t\texit-latency-us = <20>;"
		print "\t\t\t\tmin-residency-us = <100>;"
		print "\t\t\t\tphandle = <" ph ">;"
		print "\t\t\t};"
		print "\t\t};"
		print
		incpus = 0
		next
	}
	incpus && /^\t\tcpu@[0-9a-f]+ \{/ {
		print
		print "\t\t\tcpu-idle-states = <" ph ">;"
		if (addem) print "\t\t\tenable-method = \"psci\";"
		ncpu++
		next
	}
	{ print }
	END { if (ncpu == 0) exit 1 }
' "$tmp/virt.dts" >"$tmp/idle.dts" || { echo "idle-dtb: no /cpus/cpu@N nodes in QEMU's tree" >&2; exit 1; }
n=$(grep -c 'cpu-idle-states' "$tmp/idle.dts")
[ "$n" -eq "$smp" ] || { echo "idle-dtb: $n CPU nodes for -smp $smp" >&2; exit 1; }
dtc -q -I dts -O dtb -o "$tmp/idle.dtb" "$tmp/idle.dts"
cp "$tmp/idle.dts" "$tmp/keep.dts"
mv "$tmp/keep.dts" "${out%.dtb}.dts"
mv "$tmp/idle.dtb" "$out"
# Older trees for this -smp (another QEMU, another version of this script).
for f in "$cache"/virt-idle-smp"$smp"-*.dtb "$cache"/virt-idle-smp"$smp"-*.dts; do
	case $f in "$out" | "${out%.dtb}.dts") ;; *) rm -f "$f" ;; esac
done
echo "$out"
