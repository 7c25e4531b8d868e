#!/usr/bin/env bash
# Debian's static busybox for a guest architecture, from this machine's apt
# (busybox-static:ARCH), cached by version; prints the binary's path.
#   scripts/fetch-busybox.sh ARCH      (arm64)
set -euo pipefail
arch=${1:?usage: fetch-busybox.sh ARCH}
cache=${KPMC_CACHE:-$HOME/.cache/kpmc}/busybox/$arch
ver=$(apt-cache policy "busybox-static:$arch" 2>/dev/null | sed -n 's/^  Candidate: //p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	apt-get update -qq >&2
	ver=$(apt-cache policy "busybox-static:$arch" | sed -n 's/^  Candidate: //p')
fi
[ -n "$ver" ] && [ "$ver" != "(none)" ] || {
	echo "fetch-busybox: no busybox-static:$arch in apt (is $arch a foreign architecture?)" >&2
	exit 1
}
dir=$cache/$ver
if [ ! -x "$dir/bin/busybox" ]; then
	# Concurrent stages (and a make beside make test) fetch the same
	# version: one downloads, into a private directory renamed into place.
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -x "$dir/bin/busybox" ]; then
		tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
		mkdir "$tmp/deb"
		(cd "$tmp/deb" && apt-get download -q "busybox-static:$arch=$ver" >&2)
		dpkg-deb -x "$tmp"/deb/*.deb "$tmp"
		rm -rf "$tmp/deb" "$dir"
		mv "$tmp" "$dir"
	fi
	exec 9>&-
fi
echo "$dir/bin/busybox"
