#!/usr/bin/env bash
# Build a kernel with kpmc's scheduler patch (patches/*.patch) from Debian's
# linux-source-6.1, with a small config plus the debug options that catch
# our kind of bug (lockdep, sleeping in atomic context, list corruption,
# KASAN, kmemleak), and cache it by a hash of arch + config + patches + this
# script. Prints "IMAGE KDIR" (KDIR: the build tree to build kpmc.ko against).
#   scripts/build-patched-kernel.sh [x86_64|arm64]
# x86_64 ~7.5 minutes on 2 idle cores when the cache is cold; arm64 (cross) about the same.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
jobs=$(nproc)

# The small config: what the guest tests need, CONFIG_PMC_OPS, and the checks.
common="SMP PRINTK PRINTK_TIME TTY PROC_FS PROC_SYSCTL
SYSFS DEVTMPFS DEVTMPFS_MOUNT SHMEM TMPFS BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT
MODULES MODULE_UNLOAD PERF_EVENTS HIGH_RES_TIMERS FUTEX POSIX_TIMERS MULTIUSER
SLUB SCHED_INFO SCHEDSTATS PMC_OPS
KALLSYMS DEBUG_KERNEL DEBUG_FS PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LIST
KASAN KASAN_INLINE DEBUG_KMEMLEAK"
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
key=$( { echo "$arch $options"; cat "$top"/patches/*.patch "$0"; } | sha256sum | cut -c1-16)
out=$cache/patched/$arch-$key
if [ -f "$out/done" ]; then
	echo "$out/build/$image $out/build"
	exit 0
fi

src=$cache/src/linux-source-6.1
if [ ! -d "$src" ]; then
	mkdir -p "$cache/src" "$cache/debs"
	(cd "$cache/debs" && ls linux-source-6.1_*.deb >/dev/null 2>&1 || apt-get download linux-source-6.1 >&2)
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$cache"/debs/linux-source-6.1_*.deb | tar -x -C "$tmp" ./usr/src
	tar -xJf "$tmp"/usr/src/linux-source-6.1.tar.xz -C "$cache/src"
	rm -rf "$tmp"
fi

rm -rf "$out"
mkdir -p "$out"
echo "build-patched-kernel: patching a copy of $src" >&2
cp -r "$src" "$out/src"
for p in "$top"/patches/*.patch; do
	patch -s -d "$out/src" -p1 <"$p"
done
mkdir -p "$out/build"
make -s -C "$out/src" O="$out/build" "${kmake[@]}" tinyconfig >&2
args=()
for o in $options; do args+=(-e "$o"); done
"$out/src/scripts/config" --file "$out/build/.config" "${args[@]}" -d KERNEL_XZ -d SLOB -d WERROR
make -s -C "$out/src" O="$out/build" "${kmake[@]}" olddefconfig >&2
for o in PMC_OPS PROVE_LOCKING KASAN DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP; do
	grep -q "^CONFIG_$o=y" "$out/build/.config" || { echo "build-patched-kernel: CONFIG_$o did not stick" >&2; exit 1; }
done
start=$(date +%s)
make -s -C "$out/src" O="$out/build" "${kmake[@]}" -j"$jobs" $target modules >&2
echo "build-patched-kernel: $arch built in $(($(date +%s) - start)) s" >&2
# The tree kbuild needs for external modules stays; the copy of the source too (O= points at it).
touch "$out/done"
echo "$out/build/$image $out/build"
