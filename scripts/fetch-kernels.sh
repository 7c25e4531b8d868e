#!/usr/bin/env bash
# Fetch Debian's stock 6.1 guest kernels (image + headers) for amd64 and arm64
# into a cache outside the repository, resolving the ABI at run time.
#
#   scripts/fetch-kernels.sh [amd64|arm64|all]
#
# Prints nothing on success but the cache layout lines "ARCH ABI ROOT".
# Cache: $KPMC_CACHE (default ~/.cache/kpmc)/kernels/<arch>/<abi>/
set -euo pipefail

CACHE=${KPMC_CACHE:-$HOME/.cache/kpmc}
want=${1:-all}

log() { echo "fetch-kernels: $*" >&2; }

resolve_abi() {
	# linux-headers-amd64 depends on linux-headers-<ABI>-amd64
	apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(6\.1\.[0-9.]*-[0-9]*\)-amd64$/\1/p' | head -n1
}

ABI=$(resolve_abi)
if [ -z "$ABI" ]; then
	apt-get update -qq >&2
	ABI=$(resolve_abi)
fi
[ -n "$ABI" ] || { log "cannot resolve the Debian 6.1 kernel ABI (apt-cache depends linux-headers-amd64)"; exit 1; }

fetch_amd64() {
	local root=$CACHE/kernels/amd64/$ABI
	if [ ! -f "$root/.done" ]; then
		log "fetching amd64 kernel $ABI"
		rm -rf "$root"; mkdir -p "$root/debs"
		(cd "$root/debs" && apt-get download -q "linux-image-$ABI-amd64-unsigned" >&2 2>/dev/null ||
			apt-get download -q "linux-image-$ABI-amd64" >&2)
		for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
		rm -rf "$root/debs"
		touch "$root/.done"
	fi
	# Headers come from the host packages (installed by scripts/install-deps.sh).
	echo "amd64 $ABI $root"
}

fetch_arm64() {
	local root=$CACHE/kernels/arm64/$ABI
	if [ ! -f "$root/.done" ]; then
		log "fetching arm64 kernel $ABI"
		rm -rf "$root"; mkdir -p "$root/debs"
		(cd "$root/debs" && apt-get download -q \
			"linux-image-$ABI-arm64:arm64" \
			"linux-headers-$ABI-arm64:arm64" \
			"linux-headers-$ABI-common" \
			"busybox-static:arm64" >&2)
		for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
		rm -rf "$root/debs"
		# The arm64 headers include the -common tree by absolute path; point it
		# at the extracted copy so kbuild works without installing anything.
		sed -i "s|/usr/src/linux-headers-$ABI-common|$root/usr/src/linux-headers-$ABI-common|g" \
			"$root/usr/src/linux-headers-$ABI-arm64/Makefile"
		# Host-side kbuild tools are amd64 binaries from linux-kbuild-6.1 (installed on the host).
		local kb
		for kb in "$root/usr/src/linux-headers-$ABI-arm64" "$root/usr/src/linux-headers-$ABI-common"; do
			for l in scripts tools; do
				if [ -L "$kb/$l" ]; then
					ln -sfn "/usr/lib/linux-kbuild-6.1/$l" "$kb/$l"
				fi
			done
		done
		touch "$root/.done"
	fi
	echo "arm64 $ABI $root"
}

case $want in
amd64) fetch_amd64 ;;
arm64) fetch_arm64 ;;
all) fetch_amd64; fetch_arm64 ;;
*) log "usage: $0 [amd64|arm64|all]"; exit 2 ;;
esac
