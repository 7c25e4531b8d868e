#!/usr/bin/env bash
# One Debian guest kernel of a tier: image, headers and the kbuild tools that
# go with them, from Debian's archive (versions resolved at run time from the
# meta packages of the tier's suite), extracted into a cache outside the repo.
#   scripts/fetch-kernel.sh TIER ARCH
# TIER: 5.10 (bullseye) | 6.1 (bookworm) | 6.12 | 6.12-rt (bookworm-backports)
#       | 7 (trixie-backports: the newest 7.x)
# ARCH: arm64 | amd64 (x86_64 accepted)
# Prints "IMAGE KDIR BUILDER KVER": BUILDER is "host" when Debian 12's tools
# build modules for this kernel, else the Debian suite whose compiler and
# glibc they need (scripts/distro-chroot.sh makes it).
# Cache: $KPMC_CACHE (default ~/.cache/kpmc)/kernels/ARCH/KVER/
set -euo pipefail
tier=${1:?usage: fetch-kernel.sh TIER ARCH}
arch=${2:?usage: fetch-kernel.sh TIER ARCH}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}
log() { echo "fetch-kernel: $*" >&2; }

[ "$arch" = x86_64 ] && arch=amd64
case $arch in arm64 | amd64) ;; *) log "unknown arch $arch"; exit 2 ;; esac
rt=
case $tier in
5.10) suite=bullseye builder=bullseye ;;
6.1) suite=bookworm builder=host ;;
6.12) suite=bookworm-backports builder=host ;;
6.12-rt) suite=bookworm-backports builder=host rt=rt- ;;
7) suite=trixie-backports builder=trixie ;;
*) log "unknown tier $tier (5.10 6.1 6.12 6.12-rt 7)"; exit 2 ;;
esac

# The resolved kernel of a tier is remembered for a day, so that a warm run
# does not ask apt at all.
memo=$cache/kernels/$arch/tier-$tier
if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
	read -r kver <"$memo"
	root=$cache/kernels/$arch/$kver
	if [ -f "$root/.kpmc-done" ]; then
		echo "$(cat "$root/.kpmc-image") $root/usr/src/linux-headers-$kver $builder $kver"
		exit 0
	fi
fi

# Debian 12's own kernel comes from this machine's apt state (with its
# security updates, as Debian 12 users get it); the
# other suites from kpmc's own (scripts/apt-extra.sh).
if [ "$suite" = bookworm ]; then
	o= pin=
else
	o=$("$top/scripts/apt-extra.sh") pin=/$suite
fi
depends() { # PKG:ARCH/SUITE or PKG:ARCH -> its Depends, one name a line
	# shellcheck disable=SC2086
	apt-cache $o show "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 |
		tr ',' '\n' | sed 's/^ *//; s/ .*//; s/|.*//'
}
img=$(depends "linux-image-$rt$arch:$arch$pin" | grep "^linux-image-.*-$rt$arch\$" | head -n1)
[ -n "$img" ] || { log "cannot resolve linux-image-$rt$arch in $suite"; exit 1; }
kver=${img#linux-image-}
root=$cache/kernels/$arch/$kver
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
if [ ! -f "$root/.kpmc-done" ]; then
	log "fetching $kver ($suite)"
	rm -rf "$root"
	mkdir -p "$root/debs"
	hdr=linux-headers-$kver
	mapfile -t hdeps < <(depends "$hdr:$arch")
	common=$(printf '%s\n' "${hdeps[@]}" | grep '^linux-headers-.*-common' | head -n1)
	kbuild=$(printf '%s\n' "${hdeps[@]}" | grep '^linux-kbuild-' | head -n1)
	want=("$img:$arch" "$hdr:$arch" "$common" "$kbuild:amd64")
	# 7.x: the image package is a stub; the kernel is in linux-binary-KVER.
	bin=$(depends "$img:$arch" | grep '^linux-binary-' | head -n1 || true)
	[ -n "$bin" ] && want+=("$bin:$arch")
	# shellcheck disable=SC2086
	(cd "$root/debs" && apt-get $o download -q "${want[@]}" >&2)
	for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
	rm -rf "$root/debs"
	image=
	for f in "$root/boot/vmlinuz-$kver" "$root/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$f" ] && image=$f && break
	done
	[ -n "$image" ] || { log "no vmlinuz in the packages of $kver"; exit 1; }
	echo "$image" >"$root/.kpmc-image"
	# The headers name the -common tree and the kbuild tools by absolute
	# path; point them at the extracted copies so nothing is installed.
	kb=${kbuild#linux-kbuild-}
	for t in "$root/usr/src/$hdr" "$root/usr/src/$common"; do
		[ -f "$t/Makefile" ] && sed -i "s|\([ =]\)/usr/src/|\1$root/usr/src/|g" "$t/Makefile"
		for l in scripts tools; do
			if [ -L "$t/$l" ]; then
				ln -sfn "$root/usr/lib/linux-kbuild-$kb/$l" "$t/$l"
			fi
		done
	done
	touch "$root/.kpmc-done"
fi
echo "$kver" >"$memo"
echo "$(cat "$root/.kpmc-image") $root/usr/src/linux-headers-$kver $builder $kver"
