#!/usr/bin/env bash
# Install what kpmc's build and tests need on a fresh Debian 12 machine (root).
# A no-op, without touching the network, when everything is already there.
set -euo pipefail

pkgs=(make gcc bc flex bison libelf-dev cpio busybox-static
	qemu-system-arm qemu-system-x86 gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	libcmocka-dev libpfm4-dev libncurses-dev linux-headers-amd64 linux-kbuild-6.1
	libssl-dev xz-utils patch libpfm4-dev:arm64 python3 tmux pkgconf binutils
	debhelper dh-dkms dpkg-dev fakeroot debootstrap dwarves device-tree-compiler
	libdw-dev gnuplot-nox libhwloc-dev libcairo2-dev
	libdw-dev:arm64 libelf-dev:arm64 libhwloc-dev:arm64)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
arm64_enabled=1
dpkg --print-foreign-architectures | grep -qx arm64 || arm64_enabled=0
if [ ${#missing[@]} -eq 0 ] && [ $arm64_enabled -eq 1 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi
# The arm64 guest kernel and busybox are Debian arm64 packages.
[ $arm64_enabled -eq 1 ] || dpkg --add-architecture arm64
echo "install-deps: installing ${missing[*]}" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
