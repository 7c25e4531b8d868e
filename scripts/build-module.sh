#!/usr/bin/env bash
# Build kpmc.ko with kbuild for one target kernel.
#   scripts/build-module.sh ARCH OUTDIR [KDIR [BUILDER]]
# ARCH: arm64 | x86_64. Without KDIR, the headers of Debian 12's own kernel
# (scripts/fetch-kernel.sh 6.1) are used. BUILDER: "host" (default)
# or a Debian suite whose chroot (scripts/distro-chroot.sh) has the compiler
# and glibc that kernel's kbuild needs (fetch-kernel.sh says which). Sources are mirrored into
# OUTDIR as symlinks so that several architectures build side by side
# without objects landing in the source tree.
set -euo pipefail
# What a module build needs in a distribution chroot (both architectures).
build_pkgs="make gcc dwarves bc flex bison libelf-dev libssl-dev kmod cpio xz-utils gcc-aarch64-linux-gnu libc6-dev-arm64-cross"

arch=${1:?usage: build-module.sh ARCH OUTDIR [KDIR]}
out=${2:?usage: build-module.sh ARCH OUTDIR [KDIR]}
kdir=${3:-}
builder=${4:-host}
top=$(cd "$(dirname "$0")/.." && pwd)

case $arch in
arm64) karch=arm64; cross=aarch64-linux-gnu- ;;
x86_64) karch=x86_64; cross= ;;
*) echo "build-module: unknown arch $arch" >&2; exit 2 ;;
esac
if [ "$(uname -m)" = aarch64 ] && [ "$arch" = arm64 ]; then cross=; fi

if [ -z "$kdir" ]; then
	read -r _ kdir builder _ < <("$top/scripts/fetch-kernel.sh" 6.1 "$arch")
fi
[ -d "$kdir" ] || { echo "build-module: no kernel build tree at $kdir" >&2; exit 1; }

mkdir -p "$out"
src=$(cd "$out" && pwd)/src
rm -rf "$src"
mkdir -p "$src"
for d in kernel backends formats modules policies include; do
	cp -rs "$top/$d" "$src/"
done
ln -s "$top/Kbuild" "$src/Kbuild"
mk=(make -s -C "$kdir" M="$src" ARCH="$karch" CROSS_COMPILE="${CROSS_COMPILE-$cross}" modules)
if [ "$builder" = host ]; then
	"${mk[@]}"
else
	croot=$("$top/scripts/distro-chroot.sh" "$builder" $build_pkgs)
	"$top/scripts/chroot-run.sh" "$croot" "${mk[@]}"
fi
cp "$src/kpmc.ko" "$out/kpmc.ko"
# The example sampling format (tests/kmod/kpmc_fmt_example.c): a module of
# its own, built out of tree against kpmc.ko's exported symbols, as a
# third party's format would be.
fsrc=$(cd "$out" && pwd)/fmtsrc
rm -rf "$fsrc"
mkdir -p "$fsrc"
cp -s "$top/tests/kmod/kpmc_fmt_example.c" "$top/tests/kmod/kpmc_cgq.c" "$fsrc/"
# kpmc_cgq (tests/kmod/kpmc_cgq.c): kernel code counting a cgroup through
# kpmc's in-kernel API, where the kernel has cgroups.
printf 'obj-m := kpmc_fmt_example.o\nifdef CONFIG_CGROUPS\nobj-m += kpmc_cgq.o\nendif\nccflags-y := -I%s/kernel/include -I%s/include -Werror\ninclude %s/kernel/compat.mk\n' \
	"$top" "$top" "$top" >"$fsrc/Kbuild"
fmk=(make -s -C "$kdir" M="$fsrc" ARCH="$karch" CROSS_COMPILE="${CROSS_COMPILE-$cross}"
     KBUILD_EXTRA_SYMBOLS="$src/Module.symvers" modules)
if [ "$builder" = host ]; then
	"${fmk[@]}"
else
	"$top/scripts/chroot-run.sh" "$croot" "${fmk[@]}"
fi
cp "$fsrc/kpmc_fmt_example.ko" "$out/kpmc_fmt_example.ko"
if [ -f "$fsrc/kpmc_cgq.ko" ]; then cp "$fsrc/kpmc_cgq.ko" "$out/"; else rm -f "$out/kpmc_cgq.ko"; fi
# The placement policy exists for kernels with the scheduler patch.
if [ -f "$src/kpmc_amp.ko" ]; then cp "$src/kpmc_amp.ko" "$out/"; else rm -f "$out/kpmc_amp.ko"; fi
echo "build-module: $out/kpmc.ko ($arch, $kdir)"
