#!/usr/bin/env bash
# Build a busybox initramfs for a kpmc guest.
#   scripts/mkinitramfs.sh ARCH STAGEDIR OUT.cpio.gz
# STAGEDIR's tree (kpmc.ko, bin/kpmc, tests/...) is copied over a busybox root
# whose /init is scripts/guest-init.sh.
set -euo pipefail
arch=${1:?usage: mkinitramfs.sh ARCH STAGEDIR OUT}
stage=${2:?usage: mkinitramfs.sh ARCH STAGEDIR OUT}
out=${3:?usage: mkinitramfs.sh ARCH STAGEDIR OUT}
top=$(cd "$(dirname "$0")/.." && pwd)

case $arch in
arm64) busybox=$("$top/scripts/fetch-busybox.sh" arm64) ;;
x86_64) busybox=/bin/busybox ;;
*) echo "mkinitramfs: unknown arch $arch" >&2; exit 2 ;;
esac
[ -x "$busybox" ] || { echo "mkinitramfs: no static busybox at $busybox" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,sbin,proc,sys,dev,tmp,etc}
cp "$busybox" "$tmp/bin/busybox"
# Applet links are made in the guest (busybox --install), which knows its own
# applet list; linking "busybox" over itself is the one thing to avoid.
cp "$top/scripts/guest-init.sh" "$tmp/init"
chmod 755 "$tmp/init"
cp -a "$stage"/. "$tmp"/
mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out"
