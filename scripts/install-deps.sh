#!/usr/bin/env bash
# Install what kpmc's build and tests need on a fresh Debian 12 machine (root).
# A no-op, without touching the network, when everything is already there.
set -euo pipefail

pkgs=(make gcc bc flex bison libelf-dev cpio busybox-static
	qemu-system-arm qemu-system-x86 gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	libcmocka-dev libpfm4-dev libncurses-dev linux-headers-amd64 linux-kbuild-6.1
	libssl-dev xz-utils patch libpfm4-dev:arm64 python3 tmux pkgconf binutils
	debhelper dh-dkms dpkg-dev fakeroot debootstrap dwarves device-tree-compiler
	libdw-dev gnuplot-nox libhwloc-dev libcairo2-dev libgsl-dev
	libdw-dev:arm64 libelf-dev:arm64 libhwloc-dev:arm64
	libpcp-pmda3-dev libpcp3-dev libslurm-dev prometheus jq curl universal-ctags)

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
# No service starts while installing (policy-rc.d answers 101 "not allowed"
# to invoke-rc.d and deb-systemd-invoke): prometheus's postinst would start
# a daemon, and the two-node test runs /usr/bin/prometheus itself, with its
# own configuration, only while it runs. A policy-rc.d already there stays.
own_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	own_policy=1
fi
trap '[ $own_policy -eq 0 ] || rm -f /usr/sbin/policy-rc.d' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
# Nor at the next boot: the service was enabled by the package, not wanted here.
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
	systemctl disable --now prometheus.service >&2 || true
fi
