#!/usr/bin/env bash
# A Debian root filesystem of one suite with extra packages, made once with
# debootstrap from this machine's archive and cached by a hash of suite +
# packages + this script. Used to build a kernel's module with that kernel's
# own compiler and kbuild (bullseye: gcc-10 for 5.10; trixie: gcc-14 and
# glibc 2.38+ for 7.x) and to install kpmc's packages as a user would.
#   scripts/distro-chroot.sh SUITE [PKG...]     prints the chroot's directory
# The cached tree is shared: callers that install into it work on a copy
# (scripts/chroot-run.sh --copy).
set -euo pipefail
suite=${1:?usage: distro-chroot.sh SUITE [PKG...]}
shift
pkgs=("$@")
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}

key=$( { echo "$suite ${pkgs[*]}"; cat "$0"; } | sha256sum | cut -c1-12)
dir=$cache/chroots/$suite-$key
if [ -f "$dir/.kpmc-done" ]; then
	echo "$dir"
	exit 0
fi
command -v debootstrap >/dev/null || {
	echo "distro-chroot: debootstrap is missing (scripts/install-deps.sh installs it)" >&2
	exit 1
}
# Serialize makers of the same chroot (two tiers may ask at once).
mkdir -p "$cache/chroots"
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.kpmc-done" ]; then
	echo "$dir"
	exit 0
fi
rm -rf "$dir"
start=$(date +%s)
echo "distro-chroot: debootstrap $suite into $dir" >&2
debootstrap --variant=minbase "$suite" "$dir" "$mirror" >"$dir.log" 2>&1 || {
	tail -n 20 "$dir.log" >&2
	exit 1
}
# Backports of the suite, for newer kernels' headers and kbuild.
{
	echo "deb $mirror $suite main"
	case $suite in
	bookworm | trixie) echo "deb $mirror $suite-backports main" ;;
	esac
} >"$dir/etc/apt/sources.list"
if [ ${#pkgs[@]} -gt 0 ]; then
	"$(dirname "$0")/chroot-run.sh" "$dir" sh -c \
		"apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(printf '%q ' "${pkgs[@]}") && apt-get clean" \
		>>"$dir.log" 2>&1 || {
		tail -n 20 "$dir.log" >&2
		exit 1
	}
fi
touch "$dir/.kpmc-done"
echo "distro-chroot: $suite ready in $(($(date +%s) - start)) s" >&2
echo "$dir"
