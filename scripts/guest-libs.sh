#!/usr/bin/env bash
# Put what a dynamically linked program needs to run into a guest's root: its
# ELF interpreter at the path the program names, and every shared library it
# needs (recursively) in ROOT/lib, from the Debian packages of ARCH installed
# here (libfoo:arm64 for the arm64 guest). The guest has no ld.so.cache; /lib
# is one of the loader's default directories. KPMC_GUEST_LIB_DIRS: more
# library directories, searched first (packages unpacked, not installed:
# scripts/fetch-stress-ng.sh).
#   scripts/guest-libs.sh ARCH ROOT PROGRAM...
set -euo pipefail
arch=${1:?usage: guest-libs.sh ARCH ROOT PROGRAM...}
root=${2:?usage: guest-libs.sh ARCH ROOT PROGRAM...}
shift 2
case $arch in
arm64) dirs="/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu" ;;
x86_64) dirs="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu" ;;
*) echo "guest-libs: unknown arch $arch" >&2; exit 2 ;;
esac
dirs="${KPMC_GUEST_LIB_DIRS:-} $dirs"
mkdir -p "$root/lib"

find_lib() {
	local d
	for d in $dirs; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

declare -A seen=()
queue=("$@")
for prog in "$@"; do
	interp=$(readelf -l "$prog" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		src=$(find_lib "$(basename "$interp")") || { echo "guest-libs: no $interp for $arch" >&2; exit 1; }
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$src" "$root$interp"
	fi
done
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -n "${seen[$lib]:-}" ] && continue
		seen[$lib]=1
		src=$(find_lib "$lib") || { echo "guest-libs: $f needs $lib, not installed for $arch" >&2; exit 1; }
		cp -L "$src" "$root/lib/$lib"
		queue+=("$root/lib/$lib")
	done
done
