#!/usr/bin/env bash
# Build a kernel with kpmc's scheduler patch (patches/SERIES/*.patch) from
# Debian's linux-source-SERIES, with a small config plus the debug options
# that catch our kind of bug (lockdep, sleeping in atomic context, list
# corruption, KASAN, kmemleak), and cache it by a hash of arch + series +
# source version + config + patches + this script. Prints "IMAGE KDIR"
# (KDIR: the build tree to build kpmc.ko against).
#   scripts/build-patched-kernel.sh [x86_64|arm64] [6.1|6.12] [rt]
# SERIES 6.1 (default): linux-source-6.1 from the host's apt (bookworm).
# SERIES 6.12: linux-source-6.12 from bookworm-backports through
# scripts/apt-extra.sh (version resolved at run time; the newest deb already
# downloaded if apt cannot answer). rt: CONFIG_PREEMPT_RT (6.12 only).
# On 2 cores, cold cache: 6.1 7.5-10 minutes; 6.12 see patches/README.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
series=${2:-6.1}
rt=${3:-}
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
jobs=$(nproc)

case $series in
6.1 | 6.12) ;;
*)
	echo "build-patched-kernel: unknown series '$series' (6.1 or 6.12)" >&2
	exit 2 ;;
esac
case $rt in
"") ;;
rt)
	[ "$series" != 6.1 ] || { echo "build-patched-kernel: PREEMPT_RT needs 6.12" >&2; exit 2; } ;;
*)
	echo "build-patched-kernel: third argument must be 'rt' or nothing" >&2
	exit 2 ;;
esac

# The small config: what the guest tests need, CONFIG_PMC_OPS, and the checks.
# User and pid namespaces and io_uring, as Debian's kernels have them: the
# attack tests and the fuzzer reach the module through them, and they must
# run under lockdep and KASAN too.
common="SMP PRINTK PRINTK_TIME TTY PROC_FS PROC_SYSCTL
SYSFS DEVTMPFS DEVTMPFS_MOUNT SHMEM TMPFS BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT
MODULES MODULE_UNLOAD PERF_EVENTS HIGH_RES_TIMERS FUTEX POSIX_TIMERS MULTIUSER
SLUB SCHED_INFO SCHEDSTATS PMC_OPS
KALLSYMS DEBUG_KERNEL DEBUG_FS PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LIST
KASAN KASAN_INLINE DEBUG_KMEMLEAK
NAMESPACES USER_NS PID_NS IO_URING"
# 6.12: also the raw_spinlock -> spinlock nesting check (what PREEMPT_RT
# would turn into sleeping in atomic context), on non-RT kernels too, and
# this_cpu/smp_processor_id() use in preemptible code.
[ "$series" = 6.12 ] && common="$common PROVE_RAW_LOCK_NESTING DEBUG_PREEMPT"
disable="KERNEL_XZ SLOB WERROR"
# 6.12's tinyconfig picks SLUB_TINY, which excludes KASAN.
[ "$series" = 6.12 ] && disable="$disable SLUB_TINY"
must="PMC_OPS PROVE_LOCKING KASAN DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP USER_NS PID_NS IO_URING"
if [ "$rt" = rt ]; then
	# PREEMPT_RT is the last entry of the preemption-model choice.
	common="$common EXPERT PREEMPT_RT"
	disable="$disable PREEMPT_NONE PREEMPT_VOLUNTARY PREEMPT PREEMPT_DYNAMIC"
	must="$must PREEMPT_RT"
fi
case $arch in
x86_64)
	options="$common 64BIT SERIAL_8250 SERIAL_8250_CONSOLE PCI ACPI X86_LOCAL_APIC X86_IO_APIC
DEVPORT KERNEL_GZIP"
	kmake=(ARCH=x86_64)
	image=arch/x86/boot/bzImage
	target=bzImage ;;
arm64)
	# QEMU virt: PL011 console, GIC and arch timer (always built on arm64), PMUv3.
	options="$common ARM_AMBA SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE HW_PERF_EVENTS ARM_PMU"
	kmake=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	image=arch/arm64/boot/Image
	target=Image ;;
*)
	echo "build-patched-kernel: unknown arch '$arch' (x86_64 or arm64)" >&2
	exit 2 ;;
esac
patches=("$top/patches/$series"/*.patch)
[ -f "${patches[0]}" ] || { echo "build-patched-kernel: no patches in patches/$series" >&2; exit 1; }

# The source: linux-source-6.1 as before (host apt, one unversioned tree);
# 6.12 from bookworm-backports, one tree per Debian version.
mkdir -p "$cache/src" "$cache/debs"
if [ "$series" = 6.1 ]; then
	version=6.1
	src=$cache/src/linux-source-6.1
	if [ ! -d "$src" ]; then
		(cd "$cache/debs" && ls linux-source-6.1_*.deb >/dev/null 2>&1 || apt-get download linux-source-6.1 >&2)
		debs=("$cache"/debs/linux-source-6.1_*.deb)
	fi
else
	suite=bookworm-backports
	version=
	if o=$("$top/scripts/apt-extra.sh"); then
		# shellcheck disable=SC2086
		version=$(apt-cache $o show "linux-source-$series/$suite" 2>/dev/null |
			sed -n 's/^Version: //p' | sort -V | tail -n1)
	fi
	if [ -z "$version" ]; then
		# apt cannot answer (offline?): the newest deb we already have.
		version=$(cd "$cache/debs" && ls linux-source-"$series"_*.deb 2>/dev/null |
			sed "s/^linux-source-${series}_//; s/_all\.deb$//" | sort -V | tail -n1) || true
		[ -n "$version" ] || { echo "build-patched-kernel: cannot resolve linux-source-$series" >&2; exit 1; }
		echo "build-patched-kernel: apt did not answer, using linux-source-$series $version" >&2
	fi
	src=$cache/src/linux-source-$series-$(echo "$version" | tr '~+:' '___')
	if [ ! -d "$src" ]; then
		deb=$cache/debs/linux-source-${series}_${version}_all.deb
		if [ ! -f "$deb" ]; then
			# shellcheck disable=SC2086
			(cd "$cache/debs" && apt-get $o download "linux-source-$series=$version" >&2)
		fi
		debs=("$deb")
	fi
fi
if [ ! -d "$src" ]; then
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "${debs[-1]}" | tar -x -C "$tmp" ./usr/src
	tar -xJf "$tmp/usr/src/linux-source-$series.tar.xz" -C "$tmp"
	mv "$tmp/linux-source-$series" "$src"
	rm -rf "$tmp"
fi

tag=$arch-$series${rt:+-rt}
key=$( { echo "$tag $version $options / $disable"; cat "${patches[@]}" "$0"; } | sha256sum | cut -c1-16)
out=$cache/patched/$tag-$key
if [ -f "$out/done" ]; then
	echo "$out/build/$image $out/build"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
echo "build-patched-kernel: patching a copy of $src" >&2
cp -r "$src" "$out/src"
for p in "${patches[@]}"; do
	patch -s -d "$out/src" -p1 <"$p"
done
mkdir -p "$out/build"
make -s -C "$out/src" O="$out/build" "${kmake[@]}" tinyconfig >&2
args=()
for o in $options; do args+=(-e "$o"); done
for o in $disable; do args+=(-d "$o"); done
"$out/src/scripts/config" --file "$out/build/.config" "${args[@]}"
make -s -C "$out/src" O="$out/build" "${kmake[@]}" olddefconfig >&2
for o in $must; do
	grep -q "^CONFIG_$o=y" "$out/build/.config" || { echo "build-patched-kernel: CONFIG_$o did not stick" >&2; exit 1; }
done
start=$(date +%s)
make -s -C "$out/src" O="$out/build" "${kmake[@]}" -j"$jobs" $target modules >&2
echo "build-patched-kernel: $tag ($version) built in $(($(date +%s) - start)) s" >&2
# The tree kbuild needs for external modules stays; the copy of the source too (O= points at it).
touch "$out/done"
echo "$out/build/$image $out/build"
