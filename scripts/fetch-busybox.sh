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
	rm -rf "$dir"
	mkdir -p "$dir/deb"
	(cd "$dir/deb" && apt-get download -q "busybox-static:$arch=$ver" >&2)
	dpkg-deb -x "$dir"/deb/*.deb "$dir"
	rm -rf "$dir/deb"
fi
echo "$dir/bin/busybox"
