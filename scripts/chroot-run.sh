#!/usr/bin/env bash
# Run a command inside a chroot made by scripts/distro-chroot.sh, with /proc,
# /dev and /sys, and with the kpmc cache and this source tree bind-mounted at
# the same paths as outside (so kbuild's absolute paths hold on both sides).
#   scripts/chroot-run.sh [--copy] ROOT CMD [ARG...]
# --copy: run in a throw-away copy of ROOT (for install/remove tests).
set -euo pipefail
copy=0
if [ "${1:-}" = --copy ]; then
	copy=1
	shift
fi
root=${1:?usage: chroot-run.sh [--copy] ROOT CMD...}
shift
[ $# -gt 0 ] || { echo "chroot-run: no command" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

if [ $copy = 1 ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpmc-chroot.XXXXXX")
	cp -a "$root/." "$tmp/"
	root=$tmp
fi
mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[$i]}" 2>/dev/null || true
	done
	[ $copy = 1 ] && rm -rf "$root"
	return 0
}
trap cleanup EXIT
bind() {
	mkdir -p "$root$2"
	mount --bind "$1" "$root$2"
	mounts+=("$root$2")
}
bind /proc /proc
bind /dev /dev
bind /sys /sys
bind "$cache" "$cache"
bind "$top" "$top"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	KPMC_CACHE="$cache" LANG=C.UTF-8 "$@"
