#!/usr/bin/env bash
# Debian's stress-ng for a guest: the bookworm package of ARCH and the
# libraries its binary needs, downloaded and unpacked (not installed: its
# library packages pull Mesa's drivers, which it never loads) into
# ~/.cache/kpmc/stress-ng/ARCH-VERSION, once. Prints that directory;
# scripts/guest-libs.sh finds the libraries there through KPMC_GUEST_LIB_DIRS.
#   scripts/fetch-stress-ng.sh ARCH
set -euo pipefail
arch=${1:?usage: fetch-stress-ng.sh ARCH}
case $arch in
arm64) deb_arch=arm64 triplet=aarch64-linux-gnu ;;
x86_64) deb_arch=amd64 triplet=x86_64-linux-gnu ;;
*) echo "fetch-stress-ng: unknown arch $arch" >&2; exit 2 ;;
esac
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
version=$(apt-cache show "stress-ng:$deb_arch" | sed -n 's/^Version: //p' | head -n1)
[ -n "$version" ] || { echo "fetch-stress-ng: no stress-ng:$deb_arch in the package lists" >&2; exit 1; }
dir=$cache/stress-ng/$arch-$version
# The shared libraries stress-ng names (readelf -d) and theirs, by package;
# the C library comes from the guest's own root.
libs="libegl1 libglvnd0 libgles2 libgbm1 libdrm2 libwayland-server0 libexpat1 libffi8
	libjudydebian1 libapparmor1 libbsd0 libmd0 libcrypt1 libjpeg62-turbo libkmod2 liblzma5
	libzstd1 libssl3 libsctp1 libxxhash0 zlib1g"
# Intel's multi-buffer crypto library: amd64's build links it too.
[ "$arch" = x86_64 ] && libs="$libs libipsec-mb1"
mkdir -p "$cache/stress-ng"
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.kpmc-done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	want=("stress-ng:$deb_arch=$version")
	for p in $libs; do want+=("$p:$deb_arch"); done
	(cd "$dir/debs" && apt-get download -q "${want[@]}" >&2)
	for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir"; done
	rm -rf "$dir/debs"
	[ -x "$dir/usr/bin/stress-ng" ] || { echo "fetch-stress-ng: no usr/bin/stress-ng in the package" >&2; exit 1; }
	echo "$dir/lib/$triplet $dir/usr/lib/$triplet" >"$dir/.kpmc-libdirs"
	touch "$dir/.kpmc-done"
fi
echo "$dir"
