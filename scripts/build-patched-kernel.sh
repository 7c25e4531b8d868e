#!/usr/bin/env bash
# Build the x86_64 kernel with kpmc's scheduler patch (patches/*.patch) from
# Debian's linux-source-6.1, with a small config plus the debug options that
# catch our kind of bug (lockdep, sleeping in atomic context, list corruption,
# KASAN, kmemleak), and cache it by a hash of
# config + patches + this script. Prints "BZIMAGE KDIR" (KDIR: the build tree
# to build kpmc.ko against).
#   scripts/build-patched-kernel.sh
# ~7 minutes on 2 cores when the cache is cold.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
jobs=$(nproc)

# The small config: what the guest tests need, and CONFIG_PMC_OPS.
options="64BIT SMP PRINTK PRINTK_TIME TTY SERIAL_8250 SERIAL_8250_CONSOLE PROC_FS PROC_SYSCTL
SYSFS DEVTMPFS DEVTMPFS_MOUNT SHMEM TMPFS BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT
MODULES MODULE_UNLOAD PERF_EVENTS HIGH_RES_TIMERS FUTEX POSIX_TIMERS MULTIUSER PCI ACPI
X86_LOCAL_APIC X86_IO_APIC DEVPORT KERNEL_GZIP SLUB SCHED_INFO SCHEDSTATS PMC_OPS
KALLSYMS DEBUG_KERNEL DEBUG_FS PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_LIST
KASAN KASAN_INLINE DEBUG_KMEMLEAK"
key=$( { echo "$options"; cat "$top"/patches/*.patch "$0"; } | sha256sum | cut -c1-16)
out=$cache/patched/x86_64-$key
if [ -f "$out/done" ]; then
	echo "$out/build/arch/x86/boot/bzImage $out/build"
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
make -s -C "$out/src" O="$out/build" ARCH=x86_64 tinyconfig >&2
args=()
for o in $options; do args+=(-e "$o"); done
"$out/src/scripts/config" --file "$out/build/.config" "${args[@]}" -d KERNEL_XZ -d SLOB -d WERROR
make -s -C "$out/src" O="$out/build" ARCH=x86_64 olddefconfig >&2
for o in PMC_OPS PROVE_LOCKING KASAN DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP; do
	grep -q "^CONFIG_$o=y" "$out/build/.config" || { echo "build-patched-kernel: CONFIG_$o did not stick" >&2; exit 1; }
done
start=$(date +%s)
make -s -C "$out/src" O="$out/build" ARCH=x86_64 -j"$jobs" bzImage modules >&2
echo "build-patched-kernel: built in $(($(date +%s) - start)) s" >&2
# The tree kbuild needs for external modules stays; the copy of the source too (O= points at it).
touch "$out/done"
echo "$out/build/arch/x86/boot/bzImage $out/build"
